#!/usr/bin/python3
"""One-shot COPY INTO an Iceberg table from a volume, exactly once (issue 16, part 3), with real parts: PostgreSQL 15
(the JDBC catalog), s3rver (the volume's files and the table's) and npm's icebird (a reader Sluice did not write).

- test_copy_csv_and_json: CSV files and JSON-lines files of an S3 volume (and a CSV file through the transform form)
  loaded into lake.db.events (partitioned by day(ts)) by one snapshot per statement whose summary lists the statement's files (sluice.files.copy); running the
  COPY again loads nothing and commits nothing; after expire_snapshots (the snapshots that list the files are gone)
  it still loads nothing; a new file loads alone; a bad row fails the statement and commits nothing; under ON_ERROR =
  CONTINUE the files' good rows load in one snapshot (a value that is not a number and a NULL for the required id
  are rejected rows, in __sluice.volume_rejected_rows, the result, SHOW WARNINGS and load_history; the summary
  counts them), a file that cannot be read at all is LOAD_FAILED while the others commit, and such files are not
  loaded again; FORCE = TRUE loads a file again; icebird reads exactly the rows Sluice reads.
- test_sigkill_copy: SIGKILL between the Parquet upload and the catalog commit (iceberg_load.after_upload), and
  right after the commit before the local records (iceberg_load.after_commit), also under ON_ERROR = CONTINUE with
  a bad row in every file; COPY again after each restart: count = distinct = produced (the good rows), through
  Sluice and icebird; files whose rows were partly skipped are not loaded again, and their rejected rows are
  recorded once.

    /usr/bin/python3 tests/e2e/test_iceberg_volume_copy.py --server build/sluice
"""
from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Collector, TestSuite, check, eq  # noqa: E402
from iceberg_harness import check_events, error_of, q  # noqa: E402
from pg_harness import Postgres  # noqa: E402
from s3_harness import ACCESS_ID, ACCESS_KEY, S3rver  # noqa: E402

suite = TestSuite("test_iceberg_volume_copy")
BUCKET = "lake"
LANDING = "landing"
SECRET = "S3RVER"


def setup(cur, pg: Postgres, s3: S3rver):
    cur.execute(f"""CREATE EXTERNAL CATALOG lake PROPERTIES (
        "type" = "iceberg", "iceberg.catalog.type" = "jdbc", "iceberg.catalog.uri" = "{pg.uri}",
        "iceberg.catalog.warehouse" = "s3://{BUCKET}/wh", "aws.s3.endpoint" = "{s3.endpoint}",
        "aws.s3.access_key" = "{ACCESS_ID}", "aws.s3.secret_key" = "{SECRET}",
        "aws.s3.enable_path_style_access" = "true")""")
    cur.execute("CREATE DATABASE lake.db")
    cur.execute("CREATE TABLE lake.db.events (id BIGINT NOT NULL, name VARCHAR, ts DATETIME, amount INT) "
                "PARTITION BY (day(ts))")
    cur.execute(f"CREATE STORAGE CONNECTION s3c TYPE S3 ENDPOINT = '{s3.endpoint}' ACCESS_ID = '{ACCESS_ID}' "
                f"ACCESS_KEY = '{ACCESS_KEY}'")
    cur.execute(f"CREATE EXTERNAL VOLUME landing LOCATION 's3://{LANDING}/in/' USING CONNECTION s3c")


def row(i: int) -> tuple:
    return (i, f"n{i}", f"2024-05-0{1 + i % 3} 0{i % 10}:00:00", i % 97)


def put_csv(s3: S3rver, key: str, ids: list[int]):
    s3.put(LANDING, f"in/{key}", "".join(f"{a},{b},{c},{d}\n" for a, b, c, d in map(row, ids)).encode())


def put_json(s3: S3rver, key: str, ids: list[int]):
    lines = [json.dumps(dict(zip(("id", "name", "ts", "amount"), row(i)))) for i in ids]
    s3.put(LANDING, f"in/{key}", ("\n".join(lines) + "\n").encode())


def check_rows(c: Collector, cur, pg: Postgres, s3: S3rver, ids: list[int], what: str) -> dict:
    return check_events(c, cur, pg, s3, ids, what)


def csv_line(i: int) -> str:
    return ",".join(map(str, row(i))) + "\n"


def rejected(cur, file_name: str) -> list[tuple]:
    return q(cur, "SELECT target, line, column_name, reason FROM __sluice.volume_rejected_rows "
                  f"WHERE file_url = 's3://{LANDING}/in/{file_name}' ORDER BY line, reason")


def snapshots(cur) -> int:
    return q(cur, "SELECT count(*) FROM lake.db.events$snapshots")[0][0]


def files_in(summary: dict) -> list[str]:
    return sorted(f["url"].rsplit("/", 1)[1] for f in json.loads(summary.get("sluice.files.copy", "[]")))


COPY_CSV = "COPY INTO lake.db.events FROM VOLUME landing USING CSV REGEXP '.*[.]csv'"
COPY_JSON = "COPY INTO lake.db.events FROM VOLUME landing USING JSON REGEXP '.*[.]jsonl'"


@suite.test(timeout=400)
def test_copy_csv_and_json(t):
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        s3.create_bucket(LANDING)
        server = suite.server().start()
        con = server.connect()
        cur = con.cursor()
        setup(cur, pg, s3)
        for k in range(3):
            put_csv(s3, f"a{k}.csv", list(range(k * 100 + 1, k * 100 + 101)))
        c = Collector()
        out = q(cur, COPY_CSV)
        c.eq(sorted((r[0], r[1], r[2]) for r in out), [(f"a{k}.csv", "LOADED", 100) for k in range(3)],
             "COPY INTO's rows: one per file")
        c.eq(snapshots(cur), 1, "one snapshot for the statement")
        got = check_rows(c, cur, pg, s3, list(range(1, 301)), "after the CSV copy")
        c.eq(files_in(got["summary"]), ["a0.csv", "a1.csv", "a2.csv"], "the snapshot's summary lists the files")
        c.done()

        # again: nothing new, no snapshot
        eq(q(cur, COPY_CSV), [], "COPY again loads nothing")
        eq(snapshots(cur), 1, "and commits nothing")

        # JSON lines, and one more CSV file: each statement's summary holds only its own files
        put_json(s3, "b0.jsonl", list(range(301, 351)))
        put_json(s3, "b1.jsonl", list(range(351, 401)))
        eq(sorted((r[0], r[2]) for r in q(cur, COPY_JSON)), [("b0.jsonl", 50), ("b1.jsonl", 50)], "the JSON files")
        put_csv(s3, "a3.csv", list(range(401, 421)))
        eq([(r[0], r[2]) for r in q(cur, COPY_CSV)], [("a3.csv", 20)], "only the new CSV file")
        c = Collector()
        got = check_rows(c, cur, pg, s3, list(range(1, 421)), "after the JSON copy and a new file")
        c.eq(files_in(got["summary"]), ["a3.csv"], "the newest snapshot lists only its own file")
        c.eq(snapshots(cur), 3, "three statements, three snapshots")
        c.done()

        # a bad row fails the statement, and nothing of it is committed
        put_csv(s3, "a4.csv", list(range(421, 431)))
        s3.put(LANDING, "in/a5.csv", (csv_line(431) + "not-a-number,x,2024-05-01 00:00:00,2\n").encode())
        s3.put(LANDING, "in/a6.csv", (csv_line(10001) + ",no-id,2024-05-01 00:00:00,3\n").encode())
        err = error_of(cur, COPY_CSV)
        check("a5.csv" in err and "nothing of the statement was committed" in err, f"a bad row: {err}")
        eq(snapshots(cur), 3, "the failed statement committed nothing")
        eq(rejected(cur, "a5.csv"), [], "and recorded no rejected row")

        # ON_ERROR = CONTINUE: the bad rows are skipped and recorded, the good rows commit in one snapshot
        out = q(cur, COPY_CSV + " ON_ERROR = CONTINUE")
        warnings = q(cur, "SHOW WARNINGS")
        c = Collector()
        c.eq([r[:4] for r in out], [("a4.csv", "LOADED", 10, 0), ("a5.csv", "PARTIALLY_LOADED", 1, 1),
                                    ("a6.csv", "PARTIALLY_LOADED", 1, 1)], "ON_ERROR = CONTINUE's rows")
        c.check(out[1][4].startswith("line 2: ") and out[1][5] == 2, f"a5.csv's first error and line: {out[1]}")
        c.check("column 'id' is NOT NULL" in (out[2][4] or ""), f"a6.csv's first error: {out[2]}")
        c.eq([(w[0], w[1]) for w in warnings], [("Warning", 1366)] * 2, "a warning per partly loaded file")
        c.check("a5.csv" in warnings[0][2] and "1 row(s) skipped" in warnings[0][2], f"the warning: {warnings[0]}")
        c.eq(snapshots(cur), 4, "one snapshot for the statement")
        ids = list(range(1, 432)) + [10001]
        got = check_rows(c, cur, pg, s3, ids, "after COPY ... ON_ERROR = CONTINUE")
        listed = {f["url"].rsplit("/", 1)[1]: f for f in json.loads(got["summary"]["sluice.files.copy"])}
        c.eq(sorted(listed), ["a4.csv", "a5.csv", "a6.csv"], "the summary lists the partly loaded files too")
        c.eq([(listed[f]["rows"], listed[f].get("errors")) for f in sorted(listed)], [(10, None), (1, 1), (1, 1)],
             "with their rows and rejected rows")
        a5 = rejected(cur, "a5.csv")
        c.eq([(r[0], r[1]) for r in a5], [("lake.db.events", 2)], "a5.csv's rejected row, by line")
        a6 = rejected(cur, "a6.csv")
        c.eq([(r[0], r[1], r[2]) for r in a6], [("lake.db.events", 0, "id")], "a6.csv's rejected row names id")
        c.check("row 2 of the rows read" in a6[0][3] if a6 else False, f"the NULL id's reason: {a6}")
        c.eq(sorted(q(cur, "SELECT source, status, loaded_rows, error_rows FROM load_history('lake.db.events') "
                           "WHERE source LIKE '%/a_.csv' AND source > 's3://landing/in/a4' AND status <> 'FAILED'")),
             [(f"s3://{LANDING}/in/a4.csv", "LOADED", 10, 0), (f"s3://{LANDING}/in/a5.csv", "PARTIALLY_LOADED", 1, 1),
              (f"s3://{LANDING}/in/a6.csv", "PARTIALLY_LOADED", 1, 1)], "load_history")
        c.done()
        eq(q(cur, COPY_CSV + " ON_ERROR = CONTINUE"), [], "files with skipped rows count as loaded")
        eq(snapshots(cur), 4, "and nothing more is committed")

        # a file that cannot be read at all is LOAD_FAILED under CONTINUE; the statement's other files commit
        s3.put(LANDING, "in/g.csv.gz", b"this is not gzip\n")
        put_csv(s3, "a7.csv", list(range(10002, 10006)))
        out = q(cur, "COPY INTO lake.db.events FROM VOLUME landing USING CSV FILES ('g.csv.gz', 'a7.csv') "
                     "ON_ERROR = CONTINUE")
        eq([r[:4] for r in out], [("a7.csv", "LOADED", 4, 0), ("g.csv.gz", "LOAD_FAILED", 0, 0)],
           "the unreadable file is LOAD_FAILED, the other loads")
        check(bool(out[1][4]), f"LOAD_FAILED says why: {out[1]}")
        eq(snapshots(cur), 5, "in one snapshot")
        ids += list(range(10002, 10006))
        s3.delete(LANDING, "in/g.csv.gz")

        # the table's snapshots that list the files expire: the local records still know them
        cur.execute("ALTER TABLE lake.db.events EXECUTE expire_snapshots(older_than = '2999-01-01 00:00:00', "
                    "retain_last = 1)")
        eq(snapshots(cur), 1, "expire_snapshots kept one snapshot")
        eq(q(cur, COPY_CSV) + q(cur, COPY_JSON) + q(cur, COPY_CSV + " ON_ERROR = CONTINUE"), [],
           "expired snapshots do not make files load again")
        c = Collector()
        check_rows(c, cur, pg, s3, ids, "after expire_snapshots and COPY again")
        c.done()

        # the transform form: the SELECT list over the file's columns fills the table's by position
        put_csv(s3, "t0.txt", list(range(431, 441)))
        transform = ("COPY INTO lake.db.events FROM (SELECT CAST(column0 AS BIGINT), upper(column1), "
                     "CAST(column2 AS TIMESTAMP), CAST(column3 AS INT) FROM VOLUME landing USING CSV "
                     "FILES ('t0.txt') WHERE CAST(column0 AS BIGINT) % 2 = 0)")
        eq([(r[0], r[2]) for r in q(cur, transform)], [("t0.txt", 5)], "the transform form loads the even ids")
        eq(q(cur, "SELECT min(name), count(*) FROM lake.db.events WHERE id BETWEEN 432 AND 440"), [("N432", 5)],
           "with the SELECT list applied")
        eq(q(cur, transform), [], "and once")
        ids += [i for i in range(431, 441) if i % 2 == 0]

        # FORCE loads a file again (as for DuckDB tables); a user without INSERT cannot COPY
        eq([(r[0], r[2]) for r in q(cur, "COPY INTO lake.db.events FROM VOLUME landing USING CSV FILES ('a3.csv') "
                                         "FORCE = TRUE")], [("a3.csv", 20)], "FORCE = TRUE loads it again")
        eq(q(cur, "SELECT count(*), count(DISTINCT id) FROM lake.db.events")[0], (len(ids) + 20, len(ids)),
           "FORCE added the file's rows once more")
        cur.execute("CREATE USER reader IDENTIFIED BY 'pw'")
        cur.execute("GRANT SELECT ON TABLE lake.db.events TO USER reader")
        cur.execute("GRANT USAGE ON STORAGE VOLUME landing TO USER reader")
        rcon = server.connect(user="reader", password="pw")
        denied = error_of(rcon.cursor(), COPY_CSV)
        check("INSERT" in denied, f"a user without INSERT on lake.db.events: {denied}")
        rcon.close()
        con.close()


@suite.test(timeout=400)
def test_sigkill_copy(t):
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        s3.create_bucket(LANDING)
        server = suite.server().start()
        con = server.connect()
        setup(con.cursor(), pg, s3)
        con.close()
        produced: list[int] = []
        history = []
        rounds = [("iceberg_load.after_upload", ""), ("iceberg_load.after_commit", ""),
                  ("iceberg_load.after_upload", " ON_ERROR = CONTINUE"),
                  ("iceberg_load.after_commit", " ON_ERROR = CONTINUE")]
        for r, (point, on_error) in enumerate(rounds):
            ids = list(range(r * 1000 + 1, r * 1000 + 1001))
            for k in range(4):
                text = "".join(csv_line(i) for i in ids[k * 250:(k + 1) * 250])
                if on_error:  # a bad row in the middle of every file: skipped, the file's other rows load
                    half = text.index("\n", len(text) // 2) + 1
                    text = text[:half] + "bad,row,2024-05-01 00:00:00,1\n" + text[half:]
                s3.put(LANDING, f"in/r{r}-{k}.csv", text.encode())
            produced += ids
            copy = COPY_CSV + on_error
            server.kill_process()
            server.extra_env = {"SLUICE_TEST_POINTS": f"{point}=crash"}
            server.start()
            con = server.connect()
            try:
                con.cursor().execute(copy)
            except Exception:  # noqa: BLE001  the server dies inside the statement
                pass
            end = time.monotonic() + 30
            while server.alive() and time.monotonic() < end:
                time.sleep(0.1)
            check(not server.alive(), f"the server did not reach {point}")
            server.kill_process()
            server.extra_env = {}
            server.start()
            con = server.connect()
            cur = con.cursor()
            before = q(cur, "SELECT count(*) FROM lake.db.events")[0][0]
            loaded = sum(x[2] for x in q(cur, copy))
            skipped = q(cur, "SELECT count(*) FROM __sluice.volume_rejected_rows WHERE file_url LIKE "
                             f"'%/r{r}-_.csv'")[0][0]
            records = q(cur, "SELECT count(*), sum(error_rows) FROM load_history('lake.db.events') WHERE source LIKE "
                             f"'%/r{r}-_.csv'")[0]
            history.append((point + on_error, before, loaded, skipped, tuple(int(x or 0) for x in records)))
            c = Collector()
            check_rows(c, cur, pg, s3, produced, f"after a crash at {point}{on_error} and COPY again")
            c.eq(q(cur, copy), [], f"after a crash at {point}{on_error}: a third COPY loads nothing")
            c.done()
            con.close()
        print(f"  (crash point, rows after the restart, rows the next COPY loaded, rejected rows recorded, "
              f"(load_history rows, their error rows)): {history}", flush=True)
        eq(history, [("iceberg_load.after_upload", 0, 1000, 0, (4, 0)), ("iceberg_load.after_commit", 2000, 0, 0, (4, 0)),
                     ("iceberg_load.after_upload ON_ERROR = CONTINUE", 2000, 1000, 4, (4, 4)),
                     ("iceberg_load.after_commit ON_ERROR = CONTINUE", 4000, 0, 4, (4, 4))],
           "a crash before the commit loads the files again (their rejected rows recorded once); one after it "
           "loads nothing twice, also of files whose rows were partly skipped, and keeps their rejected rows; the "
           "next COPY writes the load records the crash left out, from the table")


if __name__ == "__main__":
    sys.exit(suite.run())
