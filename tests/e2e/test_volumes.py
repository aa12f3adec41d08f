#!/usr/bin/python3
"""Volumes and one-shot COPY INTO end to end (issue 4, parts 4 and 5): a local folder volume and an S3 volume on
s3rver (tests/e2e/s3_harness.py starts it on a loopback port).

- CSV with a header, gzip CSV, JSON lines, a JSON array, Parquet (written by DuckDB's COPY ... TO), CSV options
  (sep, quote, null string, skip);
- hidden files ('.x', '_temporary/') are neither listed nor loaded;
- each file's rows and load record commit together: a second COPY skips loaded files, FORCE = TRUE reloads, a file
  replaced with new content loads again;
- ON_ERROR = CONTINUE loads the good rows and records the bad ones with file and line; ON_ERROR = ABORT loads
  nothing of the failing file;
- FILES / REGEXP / SUBDIRECTORY choose files; DIRECTORY(vol) works with WHERE / ORDER BY / count(*);
- S3: paged listing of 10,000 objects, unknown credentials are refused, and the secret key never
  appears in SHOW, DESC, errors or the server log.

    /usr/bin/python3 tests/e2e/test_volumes.py --server build/sluice
"""
from __future__ import annotations

import gzip
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import TestSuite, check, duckdb_sql, eq, expect_mysql_error  # noqa: E402
from volume_harness import by_file, q, write  # noqa: E402
from s3_harness import ACCESS_ID, ACCESS_KEY, S3rver  # noqa: E402

suite = TestSuite("test_volumes")



def setup_db(conn):
    q(conn, "CREATE DATABASE IF NOT EXISTS d")
    q(conn, "USE d")


@suite.test(timeout=120)
def local_folder_formats_and_exactly_once(s: TestSuite):
    folder = tempfile.mkdtemp(prefix="sluice-vol-")
    try:
        write(f"{folder}/orders/a.csv", "id,name,amount\n1,alice,1.5\n2,bob,2.5\n3,\"c, d\",3.5\n")
        write(f"{folder}/orders/b.csv.gz", gzip.compress(b"id,name,amount\n4,dave,4.5\n5,eve,5.5\n"))
        write(f"{folder}/orders/.c.csv", "id,name,amount\n99,hidden,0\n")
        write(f"{folder}/orders/_temporary/0/d.csv", "id,name,amount\n98,temporary,0\n")
        write(f"{folder}/events/e1.json", '{"id": 1, "name": "x", "amount": 1}\n{"id": 2, "name": "y"}\n')
        write(f"{folder}/events/e2.json", '[{"id": 3, "name": "z", "amount": 3.25},\n {"amount": 4, "id": 4}]')
        srv = s.server().start()
        conn = srv.connect()
        setup_db(conn)
        q(conn, "CREATE TABLE orders (id INT, name STRING, amount DOUBLE)")
        q(conn, f"CREATE VOLUME v LOCATION 'file://{folder}/' RECURSIVE = TRUE")

        # DIRECTORY lists what is there, hidden files left out, and is a table like any other
        listed = q(conn, "SELECT relative_path, size FROM DIRECTORY(v) ORDER BY relative_path")
        eq([r[0] for r in listed], ["events/e1.json", "events/e2.json", "orders/a.csv", "orders/b.csv.gz"],
           "DIRECTORY(v)")
        eq(listed[2][1], os.path.getsize(f"{folder}/orders/a.csv"), "size of a.csv")
        eq(q(conn, "SELECT count(*) FROM DIRECTORY(v) WHERE relative_path LIKE 'orders/%'"), [(2,)], "count")
        eq(q(conn, "SELECT count(*) FROM DIRECTORY(v) WHERE last_modified > now() - INTERVAL 1 HOUR"), [(4,)],
           "last_modified is a timestamp")

        # CSV with a header, plain and gzip; by the extension and with 'compression' given
        res = by_file(q(conn, "COPY INTO orders FROM VOLUME v USING CSV OPTIONS ('header' = 'true') "
                              "SUBDIRECTORY 'orders/'"))
        eq(res, {"orders/a.csv": ("LOADED", 3, 0, None, None), "orders/b.csv.gz": ("LOADED", 2, 0, None, None)},
           "first COPY")
        eq(q(conn, "SELECT id, name, amount FROM orders ORDER BY id"),
           [(1, "alice", 1.5), (2, "bob", 2.5), (3, "c, d", 3.5), (4, "dave", 4.5), (5, "eve", 5.5)], "rows")

        # loaded files are skipped; FORCE loads them again
        eq(q(conn, "COPY INTO orders FROM VOLUME v USING CSV OPTIONS ('header' = 'true') SUBDIRECTORY 'orders'"),
           [], "second COPY loads nothing")
        eq(q(conn, "SELECT count(*) FROM orders"), [(5,)], "no row twice")
        res = by_file(q(conn, "COPY INTO orders FROM VOLUME v USING CSV OPTIONS ('header' = 'true', "
                              "'compression' = 'gzip') FILES ('orders/b.csv.gz') FORCE = TRUE"))
        eq(res, {"orders/b.csv.gz": ("LOADED", 2, 0, None, None)}, "FORCE")
        eq(q(conn, "SELECT count(*) FROM orders"), [(7,)], "FORCE reloaded b")

        # a file replaced with new content is a new file
        write(f"{folder}/orders/a.csv", "id,name,amount\n10,new,10\n11,newer,11\n12,newest,12\n13,x,13\n")
        res = by_file(q(conn, "COPY INTO orders FROM VOLUME v USING CSV OPTIONS ('header' = 'true') "
                              "REGEXP 'orders/.*[.]csv'"))
        eq(res, {"orders/a.csv": ("LOADED", 4, 0, None, None)}, "replaced file")
        eq(q(conn, "SELECT count(*) FROM orders WHERE id >= 10"), [(4,)], "new content loaded")

        # JSON lines and a JSON array, keys by column name, missing keys NULL
        q(conn, "CREATE TABLE events (id INT, name STRING, amount DOUBLE)")
        res = by_file(q(conn, "COPY INTO events FROM VOLUME v USING JSON FILES ('events/e1.json')"))
        eq(res, {"events/e1.json": ("LOADED", 2, 0, None, None)}, "JSON lines")
        res = by_file(q(conn, "COPY INTO events FROM VOLUME v USING JSON OPTIONS ('format' = 'array') "
                              "FILES ('events/e2.json')"))
        eq(res, {"events/e2.json": ("LOADED", 2, 0, None, None)}, "JSON array")
        eq(q(conn, "SELECT id, name, amount FROM events ORDER BY id"),
           [(1, "x", 1.0), (2, "y", None), (3, "z", 3.25), (4, None, 4.0)], "JSON rows")

        # Parquet written by DuckDB itself, columns matched by name
        os.makedirs(f"{folder}/pq")
        duckdb_sql(srv.binary, f"COPY (SELECT i AS id, 'p' || i AS name, i * 0.5 AS amount FROM range(100, 150) t(i)) "
                               f"TO '{folder}/pq/part-0.parquet' (FORMAT parquet)")
        res = by_file(q(conn, "COPY INTO events FROM VOLUME v USING PARQUET SUBDIRECTORY 'pq'"))
        eq(res, {"pq/part-0.parquet": ("LOADED", 50, 0, None, None)}, "Parquet")
        eq(q(conn, "SELECT count(*), sum(id), min(name) FROM events WHERE id >= 100"), [(50, 6225, "p100")],
           "Parquet rows")
        # several Parquet files load as one group; a file whose columns do not fit fails alone, as it would file by file
        for k in range(3):
            duckdb_sql(srv.binary, f"COPY (SELECT i AS id, 'g' || i AS name FROM range({1000 + k * 10}, "
                                   f"{1010 + k * 10}) t(i)) TO '{folder}/pq/g-{k}.parquet' (FORMAT parquet)")
        files = ", ".join(f"'pq/g-{k}.parquet'" for k in range(3))
        res = by_file(q(conn, f"COPY INTO events FROM VOLUME v USING PARQUET FILES ({files})"))
        eq(res, {f"pq/g-{k}.parquet": ("LOADED", 10, 0, None, None) for k in range(3)}, "a group of Parquet files")
        eq(q(conn, "SELECT count(*), sum(id) FROM events WHERE id >= 1000"), [(30, sum(range(1000, 1030)))],
           "the group's rows, once")
        duckdb_sql(srv.binary, f"COPY (SELECT 2000 AS id, 'x' AS name, 1 AS extra) TO '{folder}/pq/h-0.parquet' "
                               "(FORMAT parquet)")
        duckdb_sql(srv.binary, f"COPY (SELECT 2001 AS id, 'y' AS name) TO '{folder}/pq/h-1.parquet' (FORMAT parquet)")
        try:
            q(conn, "COPY INTO events FROM VOLUME v USING PARQUET FILES ('pq/h-0.parquet', 'pq/h-1.parquet')")
            raise AssertionError("a Parquet file with a column the table lacks was loaded")
        except Exception as e:  # noqa: BLE001 -- pymysql's error
            check("h-0.parquet" in str(e) and "extra" in str(e), f"the error names the file and the column: {e}")
        eq(q(conn, "SELECT count(*) FROM events WHERE id >= 2000"), [(0,)],
           "as file by file: nothing of the bad file, nor of the file after it")

        # CSV options: separator, quote, null string, skipped lines, file columns given in the statement
        write(f"{folder}/opts/x.txt", "# exported\n# by a tool\nid|name\n1|'a|b'\n2|\\N\n")
        q(conn, "CREATE TABLE opts (id INT, name STRING)")
        res = by_file(q(conn, "COPY INTO opts FROM VOLUME v (id INT, name STRING) USING CSV OPTIONS ('skip' = '2', "
                              "'header' = 'true', 'sep' = '|', 'quote' = '''', 'nullValue' = '\\\\N') "
                              "SUBDIRECTORY 'opts'"))
        eq(res, {"opts/x.txt": ("LOADED", 2, 0, None, None)}, "CSV options")
        eq(q(conn, "SELECT id, name FROM opts ORDER BY id"), [(1, "a|b"), (2, None)], "CSV option rows")

        # a name DuckDB would read as a glob pattern is read through a copy
        write(f"{folder}/odd/we?ird [1]*.csv", "id,name,amount\n77,odd,7\n")
        res = by_file(q(conn, "COPY INTO orders FROM VOLUME v USING CSV OPTIONS ('header' = 'true') "
                              "SUBDIRECTORY 'odd'"))
        eq(res, {"odd/we?ird [1]*.csv": ("LOADED", 1, 0, None, None)}, "a name with glob characters")
        eq(q(conn, "SELECT name FROM orders WHERE id = 77"), [("odd",)], "its row")

        # a file that is not in the volume
        expect_mysql_error(lambda: q(conn, "COPY INTO orders FROM VOLUME v USING CSV FILES ('orders/zz.csv')"),
                           substring="file 'orders/zz.csv' is not in volume v")
        # the hidden files were never loaded
        eq(q(conn, "SELECT count(*) FROM orders WHERE id >= 98"), [(0,)], "hidden files skipped")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@suite.test(timeout=120)
def transform_form(s: TestSuite):
    folder = tempfile.mkdtemp(prefix="sluice-vol-")
    try:
        write(f"{folder}/tr/a.csv", "id,name,amount\n1,alice,1.5\n2,bob,2.5\n3,carol,30\n")
        write(f"{folder}/ev/e.json", '{"id": 7, "name": "x", "tags": [1, 2]}\n{"id": 8, "name": "y", "tags": []}\n')
        srv = s.server().start()
        conn = srv.connect()
        setup_db(conn)
        q(conn, f"CREATE VOLUME v LOCATION 'file://{folder}/' RECURSIVE = TRUE")
        q(conn, "CREATE TABLE tr (id BIGINT, label STRING, cents INT)")
        # CSV without a schema: the header names the columns, values are text for the SELECT list to convert
        res = by_file(q(conn, "COPY INTO tr FROM (SELECT CAST(id AS BIGINT) + 100, upper(name), "
                              "CAST(CAST(amount AS DOUBLE) * 100 AS INT) FROM VOLUME v USING CSV "
                              "OPTIONS ('header' = 'true') SUBDIRECTORY 'tr' WHERE CAST(amount AS DOUBLE) < 10)"))
        eq(res, {"tr/a.csv": ("LOADED", 2, 0, None, None)}, "CSV transform")
        eq(q(conn, "SELECT * FROM tr ORDER BY id"), [(101, "ALICE", 150), (102, "BOB", 250)], "CSV transform rows")
        # with the file's columns given, and `label` from an expression
        res = by_file(q(conn, "COPY INTO tr FROM (SELECT id, name || '-' || amount, 0 FROM VOLUME v "
                              "(id INT, name STRING, amount DOUBLE) USING CSV OPTIONS ('header' = 'true') "
                              "FILES ('tr/a.csv')) FORCE = TRUE"))
        eq(res, {"tr/a.csv": ("LOADED", 3, 0, None, None)}, "CSV transform with a schema")
        eq(q(conn, "SELECT label FROM tr WHERE id < 100 ORDER BY id"), [("alice-1.5",), ("bob-2.5",), ("carol-30.0",)],
           "schema transform rows")
        # JSON without a schema: DuckDB detects keys and types
        res = by_file(q(conn, "COPY INTO tr FROM (SELECT id * 1000, name, len(tags) FROM VOLUME v USING JSON "
                              "SUBDIRECTORY 'ev')"))
        eq(res, {"ev/e.json": ("LOADED", 2, 0, None, None)}, "JSON transform")
        eq(q(conn, "SELECT * FROM tr WHERE id >= 1000 ORDER BY id"), [(7000, "x", 2), (8000, "y", 0)], "JSON rows")
        # Parquet
        os.makedirs(f"{folder}/pq")
        duckdb_sql(srv.binary, f"COPY (SELECT i AS n FROM range(0, 20) t(i)) TO '{folder}/pq/p.parquet' (FORMAT parquet)")
        res = by_file(q(conn, "COPY INTO tr FROM (SELECT n + 5000, 'pq', n FROM VOLUME v USING PARQUET "
                              "SUBDIRECTORY 'pq' WHERE n % 2 = 0)"))
        eq(res, {"pq/p.parquet": ("LOADED", 10, 0, None, None)}, "Parquet transform")
        eq(q(conn, "SELECT count(*), sum(cents) FROM tr WHERE label = 'pq'"), [(10, 90)], "Parquet rows")
        # the transform is part of the file's load: a failing expression loads nothing of the file
        expect_mysql_error(lambda: q(conn, "COPY INTO tr FROM (SELECT CAST(name AS BIGINT), name, 0 FROM VOLUME v "
                                           "USING CSV OPTIONS ('header' = 'true') FILES ('tr/a.csv')) FORCE = TRUE"),
                           substring="COPY INTO stopped at file 'tr/a.csv'")
        eq(q(conn, "SELECT count(*) FROM tr"), [(17,)], "nothing of the failing file")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@suite.test(timeout=120)
def bad_rows_continue_and_abort(s: TestSuite):
    folder = tempfile.mkdtemp(prefix="sluice-vol-")
    try:
        write(f"{folder}/good.csv", "id,amount\n1,1.0\n2,2.0\n")
        write(f"{folder}/bad.csv", "id,amount\n10,1.5\n11,notanumber\n12,3.5\nx,4\n14\n15,6.5\n")
        write(f"{folder}/bad.json", '{"id": 20, "amount": 1}\n{"id": "twenty-one", "amount": 2}\n\n{"id": 22}\n'
                                    '{"id": 23, "amount": \n[1, 2]\n{"id": 25}\n')
        srv = s.server().start()
        conn = srv.connect()
        setup_db(conn)
        q(conn, "CREATE TABLE t (id INT, amount DOUBLE)")
        q(conn, f"CREATE VOLUME v LOCATION 'file://{folder}'")

        # ABORT (the default): the bad file fails the statement and nothing of it is committed
        expect_mysql_error(lambda: q(conn, "COPY INTO t FROM VOLUME v USING CSV OPTIONS ('header' = 'true') "
                                           "FILES ('bad.csv')"), substring="COPY INTO stopped at file 'bad.csv'")
        eq(q(conn, "SELECT count(*) FROM t"), [(0,)], "ABORT commits nothing of the file")
        expect_mysql_error(lambda: q(conn, "COPY INTO t FROM VOLUME v USING JSON FILES ('bad.json') "
                                           "ON_ERROR = ABORT"), substring="line 2")
        eq(q(conn, "SELECT count(*) FROM t"), [(0,)], "ABORT commits nothing of the JSON file")

        # CONTINUE: good rows load, bad rows are counted and recorded with file and line
        res = by_file(q(conn, "COPY INTO t FROM VOLUME v USING CSV OPTIONS ('header' = 'true') "
                              "REGEXP '.*[.]csv' ON_ERROR = CONTINUE"))
        eq(res["good.csv"], ("LOADED", 2, 0, None, None), "good.csv")
        status, loaded, errors, first_error, first_line = res["bad.csv"]
        eq((status, loaded, errors, first_line), ("PARTIALLY_LOADED", 3, 3, 3), "bad.csv counts")
        check("notanumber" in first_error and first_error.startswith("line 3:"), f"first error: {first_error}")
        eq(q(conn, "SELECT id FROM t ORDER BY id"), [(1,), (2,), (10,), (12,), (15,)], "good rows of both files")
        rejected = q(conn, "SELECT file_url, line, column_name, raw FROM __sluice.volume_rejected_rows "
                           "ORDER BY line")
        eq([(r[1], r[2], r[3]) for r in rejected], [(3, "amount", "11,notanumber"), (5, "id", "x,4"),
                                                   (6, "amount", "14")], "rejected rows with line")
        eq({r[0] for r in rejected}, {f"file://{folder}/bad.csv"}, "rejected rows name the file")
        eq(q(conn, "SELECT status, rows_loaded, error_rows FROM __sluice.volume_loads WHERE file_url LIKE "
                   "'%bad.csv'"), [("PARTIALLY_LOADED", 3, 3)], "load record")

        # JSON lines: a value that does not fit, a line that is not JSON and one that is not an object are rejected
        # with their line numbers; the blank line is no row at all
        res = by_file(q(conn, "COPY INTO t FROM VOLUME v USING JSON FILES ('bad.json') ON_ERROR = CONTINUE"))
        eq(res["bad.json"][:3], ("PARTIALLY_LOADED", 3, 3), "bad.json counts")
        eq(res["bad.json"][4], 2, "bad.json first error line")
        eq(q(conn, "SELECT id FROM t WHERE id >= 20 ORDER BY id"), [(20,), (22,), (25,)], "JSON good rows")
        eq(q(conn, "SELECT line, column_name, reason FROM __sluice.volume_rejected_rows WHERE file_url LIKE "
                   "'%bad.json' ORDER BY line"),
           [(2, "id", 'Error when converting column "id": the value does not fit INTEGER'),
            (5, "", "not a JSON object"), (6, "", "not a JSON object")], "JSON rejected rows")
        # partially loaded files count as loaded
        eq(q(conn, "COPY INTO t FROM VOLUME v USING CSV OPTIONS ('header' = 'true') REGEXP '.*[.]csv' "
                   "ON_ERROR = CONTINUE"), [], "no reload")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@suite.test(timeout=150)
def s3_volume_on_s3rver(s: TestSuite):
    secret = "Sluice-Secret-Key-0123456789abcdef"
    with S3rver() as s3:
        s3.create_bucket("sluice-in")
        s3.put("sluice-in", "landing/a.csv", b"id,name\n1,one\n2,two\n")
        s3.put("sluice-in", "landing/b.csv.gz", gzip.compress(b"id,name\n3,three\n"))
        s3.put("sluice-in", "landing/sub dir/c d.json", b'{"id": 4, "name": "four"}\n{"id": 5, "name": "five"}\n')
        s3.put("sluice-in", "landing/.inflight.csv", b"id,name\n99,no\n")
        s3.put("sluice-in", "other/x.csv", b"id,name\n98,no\n")
        # debug logging: every statement is logged (redacted), so the key would show if redaction missed it
        srv = s.server(extra_args=["--log-level", "debug"]).start()
        conn = srv.connect()
        setup_db(conn)
        q(conn, "CREATE TABLE t (id INT, name STRING)")
        q(conn, f"CREATE STORAGE CONNECTION s3c TYPE S3 ENDPOINT = '{s3.endpoint}' ACCESS_ID = '{ACCESS_ID}' "
                f"ACCESS_KEY = '{ACCESS_KEY}' REGION = 'us-east-1'")
        q(conn, "CREATE EXTERNAL VOLUME lake LOCATION 's3://sluice-in/landing/' USING CONNECTION s3c "
                "RECURSIVE = TRUE")
        eq(q(conn, "SELECT relative_path FROM DIRECTORY(lake) ORDER BY 1"),
           [("a.csv",), ("b.csv.gz",), ("sub dir/c d.json",)], "S3 DIRECTORY")

        res = by_file(q(conn, "COPY INTO t FROM VOLUME lake USING CSV OPTIONS ('header' = 'true') "
                              "REGEXP '.*[.]csv(\\\\.gz)?'"))
        eq(res, {"a.csv": ("LOADED", 2, 0, None, None), "b.csv.gz": ("LOADED", 1, 0, None, None)}, "S3 CSV")
        res = by_file(q(conn, "COPY INTO t FROM VOLUME lake USING JSON SUBDIRECTORY 'sub dir/'"))
        eq(res, {"sub dir/c d.json": ("LOADED", 2, 0, None, None)}, "S3 JSON in a folder with a space")
        eq(q(conn, "SELECT id FROM t ORDER BY id"), [(1,), (2,), (3,), (4,), (5,)], "S3 rows")
        eq(q(conn, "COPY INTO t FROM VOLUME lake USING CSV OPTIONS ('header' = 'true') FILES ('a.csv')"), [],
           "S3 file skipped the second time")
        res = by_file(q(conn, "COPY INTO t FROM VOLUME lake USING CSV OPTIONS ('header' = 'true') FILES ('a.csv') "
                              "FORCE = TRUE"))
        eq(res, {"a.csv": ("LOADED", 2, 0, None, None)}, "S3 FORCE")
        time.sleep(1.1)  # s3rver's LastModified has whole seconds
        s3.put("sluice-in", "landing/a.csv", b"id,name\n1,one\n2,two\n")  # the same bytes again: not new
        eq(q(conn, "COPY INTO t FROM VOLUME lake USING CSV OPTIONS ('header' = 'true') FILES ('a.csv')"), [],
           "S3 object uploaded again with the same content")
        s3.put("sluice-in", "landing/a.csv", b"id,name\n7,seven\n")  # same name, new content (new ETag)
        res = by_file(q(conn, "COPY INTO t FROM VOLUME lake USING CSV OPTIONS ('header' = 'true') FILES ('a.csv')"))
        eq(res, {"a.csv": ("LOADED", 1, 0, None, None)}, "S3 replaced object")
        eq(q(conn, "SELECT count(*) FROM t"), [(8,)], "S3 total rows")

        # Parquet through S3: written locally by DuckDB, uploaded, downloaded and loaded by the server
        tmp = tempfile.mkdtemp(prefix="sluice-pq-")
        try:
            duckdb_sql(srv.binary, f"COPY (SELECT i AS id, 'n' || i AS name FROM range(1000, 1100) t(i)) "
                                   f"TO '{tmp}/p.parquet' (FORMAT parquet)")
            with open(f"{tmp}/p.parquet", "rb") as f:
                s3.put("sluice-in", "landing/pq/p.parquet", f.read())
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        res = by_file(q(conn, "COPY INTO t FROM VOLUME lake USING PARQUET SUBDIRECTORY 'pq'"))
        eq(res, {"pq/p.parquet": ("LOADED", 100, 0, None, None)}, "S3 Parquet")

        # 10,000 objects: the listing pages through continuation tokens (s3rver answers 1000 keys per page)
        s3.create_bucket("sluice-many")
        s3.put_many_direct("sluice-many", {f"many/f{i:05d}.csv": b"1,x\n" for i in range(10000)})
        s3.put_many_direct("sluice-many", {"many/_temporary/x.csv": b"", "many/.hidden": b""})
        q(conn, "CREATE EXTERNAL VOLUME many LOCATION 's3://sluice-many/many/' USING CONNECTION s3c")
        eq(q(conn, "SELECT count(*), count(DISTINCT relative_path), min(relative_path), max(relative_path), "
                   "sum(size) FROM DIRECTORY(many)"), [(10000, 10000, "f00000.csv", "f09999.csv", 40000)],
           "10,000 objects listed")

        # unknown credentials are refused (s3rver checks the access id of a SigV4 request, not its signature); the
        # error names the endpoint and S3's code, never the key
        q(conn, f"CREATE STORAGE CONNECTION wrong TYPE S3 ENDPOINT = '{s3.endpoint}' ACCESS_ID = 'NOT-S3RVER' "
                f"ACCESS_KEY = '{secret}'")
        q(conn, "CREATE EXTERNAL VOLUME wrongvol LOCATION 's3://sluice-in/landing/' USING CONNECTION wrong")
        err = expect_mysql_error(lambda: q(conn, "SELECT * FROM DIRECTORY(wrongvol)"),
                                 substring="HTTP 403 InvalidAccessKeyId")
        check(secret not in str(err), "the key is not in the error")
        expect_mysql_error(lambda: q(conn, "COPY INTO t FROM VOLUME wrongvol USING CSV"), substring="HTTP 403")

        # the catalog is not readable from SQL at all (docs/security.md); tests/e2e/test_secrets.py checks the file
        expect_mysql_error(lambda: q(conn, "SELECT * FROM __sluice.storage_connections"), errno=1227)
        # the sealed keys open again after a restart (the key file is in the data directory)
        srv.restart()
        conn = srv.connect(database="d")
        eq(q(conn, "SELECT count(*) FROM DIRECTORY(lake)"), [(4,)], "S3 volume after a restart")
        check(os.stat(os.path.join(srv.data_dir, "secrets.key")).st_mode & 0o777 == 0o600, "secrets.key is private")
        shown = repr(q(conn, "SHOW CONNECTIONS")) + repr(q(conn, "DESC CONNECTION wrong")) + \
            repr(q(conn, "SHOW VOLUMES")) + repr(q(conn, "DESC VOLUME wrongvol"))
        check(secret not in shown, "the key is not in SHOW / DESC")
        check("NOT-S3RVER" not in repr(q(conn, "DESC CONNECTION wrong")), "DESC masks the access id")
        srv.stop()
        log = srv.log_text()
        check("CREATE STORAGE CONNECTION wrong" in log, "statements are in the debug log")
        check(secret not in log, "the key is not in the server log")


if __name__ == "__main__":
    sys.exit(suite.run())
