#!/usr/bin/python3
"""COPY INTO from a volume loads its files in groups (ON_ERROR = ABORT, no transform): one INSERT over the group's
files and every file's load record in ONE transaction. A group that fails is loaded again file by file, so the error
names the file and line, the files before it stay loaded and nothing of the bad file (or the files after it) is.

- CSV (plain, gzip, header only) and JSON lines / JSON arrays load as groups with the same result rows and load
  records as file by file; a second COPY loads nothing;
- a group with a bad CSV file and one with a JSON line that is not an object fall back to file by file;
- JSON files of mixed shape (lines and an array under format auto) load file by file.

    /usr/bin/python3 tests/e2e/test_volume_copy_groups.py --server build/sluice
"""
from __future__ import annotations

import gzip
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import TestSuite, check, eq, expect_mysql_error  # noqa: E402
from volume_harness import by_file, q, write  # noqa: E402

suite = TestSuite("test_volume_copy_groups")



def start_with_volume(s: TestSuite, folder: str, table: str):
    """A server with database d, table `table` (name and columns) and volume v over `folder`, and a connection in d."""
    srv = s.server().start()
    conn = srv.connect()
    q(conn, "CREATE DATABASE d")
    q(conn, "USE d")
    q(conn, f"CREATE TABLE {table}")
    q(conn, f"CREATE VOLUME v LOCATION 'file://{folder}/' RECURSIVE = TRUE")
    return srv, conn


def loads(conn, like):
    """{file name: (status, rows_loaded, loaded_at)} from the load records."""
    rows = q(conn, "SELECT file_url, status, rows_loaded, loaded_at FROM __sluice.volume_loads WHERE file_url LIKE "
                   f"'{like}' ORDER BY file_url")
    return {r[0].rsplit("/", 1)[1]: (r[1], r[2], r[3]) for r in rows}


@suite.test(timeout=120)
def csv_groups_and_fallback(s: TestSuite):
    folder = tempfile.mkdtemp(prefix="sluice-volgrp-")
    try:
        write(f"{folder}/ok/a.csv", "id,name\n1,a\n2,b\n3,\"c, d\"\n")
        write(f"{folder}/ok/b.csv.gz", gzip.compress(b"id,name\n4,e\n5,f\n"))
        write(f"{folder}/ok/c.csv", "id,name\n")  # header only: loaded with 0 rows
        write(f"{folder}/ok/d.csv", "id,name\n6,g\n")
        write(f"{folder}/mixed/1.csv", "id,name\n10,x\n11,y\n")
        write(f"{folder}/mixed/2.csv", "id,name\n20,x\n")
        write(f"{folder}/mixed/3.csv", "id,name\n30,x\nthirty-one,y\n32,z\n")
        write(f"{folder}/mixed/4.csv", "id,name\n40,x\n")
        srv, conn = start_with_volume(s, folder, "t (id INT, name STRING)")

        res = by_file(q(conn, "COPY INTO t FROM VOLUME v USING CSV OPTIONS ('header' = 'true') SUBDIRECTORY 'ok'"))
        eq(res, {"ok/a.csv": ("LOADED", 3, 0, None, None), "ok/b.csv.gz": ("LOADED", 2, 0, None, None),
                 "ok/c.csv": ("LOADED", 0, 0, None, None), "ok/d.csv": ("LOADED", 1, 0, None, None)},
           "result rows of a group")
        eq(q(conn, "SELECT id, name FROM t ORDER BY id"),
           [(1, "a"), (2, "b"), (3, "c, d"), (4, "e"), (5, "f"), (6, "g")], "rows")
        recs = loads(conn, "%/ok/%")
        eq({k: v[:2] for k, v in recs.items()}, {"a.csv": ("LOADED", 3), "b.csv.gz": ("LOADED", 2),
                                                 "c.csv": ("LOADED", 0), "d.csv": ("LOADED", 1)}, "load records")
        eq(len({v[2] for v in recs.values()}), 1, "one transaction: one loaded_at for the group")
        check("loaded 4 files" in srv.log_text(), "the log tells the group was loaded at once")
        eq(q(conn, "COPY INTO t FROM VOLUME v USING CSV OPTIONS ('header' = 'true') SUBDIRECTORY 'ok'"), [],
           "second COPY loads nothing")

        # options apply to each file of a group: skipped lines and header per file
        write(f"{folder}/skip/1.txt", "# export 1\nid|name\n7|'h|i'\n8|\\N\n")
        write(f"{folder}/skip/2.txt", "# export 2\nid|name\n9|j\n")
        res = by_file(q(conn, "COPY INTO t FROM VOLUME v (id INT, name STRING) USING CSV OPTIONS ('skip' = '1', "
                              "'header' = 'true', 'sep' = '|', 'quote' = '''', 'nullValue' = '\\\\N') "
                              "SUBDIRECTORY 'skip'"))
        eq(res, {"skip/1.txt": ("LOADED", 2, 0, None, None), "skip/2.txt": ("LOADED", 1, 0, None, None)},
           "options per file")
        eq(q(conn, "SELECT id, name FROM t WHERE id BETWEEN 7 AND 9 ORDER BY id"), [(7, "h|i"), (8, None), (9, "j")],
           "rows with options")
        check("loaded 2 files" in srv.log_text(), "as a group")

        # a bad row in the third file: the group is loaded file by file, the error names the file and line, the
        # files before it stay loaded, nothing of it or of the file after it
        expect_mysql_error(lambda: q(conn, "COPY INTO t FROM VOLUME v USING CSV OPTIONS ('header' = 'true') "
                                           "SUBDIRECTORY 'mixed'"),
                           substring="COPY INTO stopped at file 'mixed/3.csv'")
        try:
            q(conn, "COPY INTO t FROM VOLUME v USING CSV OPTIONS ('header' = 'true') SUBDIRECTORY 'mixed'")
            check(False, "the second COPY fails too")
        except Exception as e:  # noqa: BLE001 - the message is what is checked
            check("mixed/3.csv" in str(e) and "line 3:" in str(e) and "thirty-one" in str(e), f"error: {e}")
        check("loading them one by one" in srv.log_text(), "the log tells the group fell back")
        eq(q(conn, "SELECT id FROM t WHERE id >= 10 ORDER BY id"), [(10,), (11,), (20,)], "files before it loaded")
        eq({k: v[:2] for k, v in loads(conn, "%/mixed/%").items()},
           {"1.csv": ("LOADED", 2), "2.csv": ("LOADED", 1)}, "load records of the files before it only")

        # fixed, the rest loads (as a group again)
        write(f"{folder}/mixed/3.csv", "id,name\n30,x\n31,y\n32,z\n")
        res = by_file(q(conn, "COPY INTO t FROM VOLUME v USING CSV OPTIONS ('header' = 'true') SUBDIRECTORY 'mixed'"))
        eq(res, {"mixed/3.csv": ("LOADED", 3, 0, None, None), "mixed/4.csv": ("LOADED", 1, 0, None, None)},
           "the rest")
        check(srv.log_text().count("loaded 2 files") == 2, "the rest as one group")
        eq(q(conn, "SELECT count(*), count(DISTINCT id) FROM t WHERE id >= 10"), [(7, 7)], "every row once")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@suite.test(timeout=120)
def json_groups_and_fallback(s: TestSuite):
    folder = tempfile.mkdtemp(prefix="sluice-volgrp-")
    try:
        write(f"{folder}/lines/a.json", '{"id": 1, "name": "x", "amount": 1.50, "extra": [1]}\n\n{"id": 2}\n')
        write(f"{folder}/lines/b.json", '{"amount": "2.5", "id": "3", "name": {"k": 1}}\n')
        write(f"{folder}/arrays/a.json", '[{"id": 4, "name": "y"},\n {"id": 5, "amount": 5}]')
        write(f"{folder}/arrays/b.json", '[{"id": 6}]')
        write(f"{folder}/bad/1.json", '{"id": 10}\n')
        write(f"{folder}/bad/2.json", '{"id": 20}\n7\n')
        write(f"{folder}/bad/3.json", '{"id": 30}\n')
        write(f"{folder}/shapes/1.json", '{"id": 40}\n')
        write(f"{folder}/shapes/2.json", '[{"id": 41}]')
        srv, conn = start_with_volume(s, folder, "e (id INT, name STRING, amount DOUBLE)")

        res = by_file(q(conn, "COPY INTO e FROM VOLUME v USING JSON SUBDIRECTORY 'lines'"))
        eq(res, {"lines/a.json": ("LOADED", 2, 0, None, None), "lines/b.json": ("LOADED", 1, 0, None, None)},
           "JSON lines group")
        res = by_file(q(conn, "COPY INTO e FROM VOLUME v USING JSON OPTIONS ('format' = 'array') "
                              "SUBDIRECTORY 'arrays'"))
        eq(res, {"arrays/a.json": ("LOADED", 2, 0, None, None), "arrays/b.json": ("LOADED", 1, 0, None, None)},
           "JSON array group")
        eq(q(conn, "SELECT id, name, amount FROM e ORDER BY id"),
           [(1, "x", 1.5), (2, None, None), (3, '{"k":1}', 2.5), (4, "y", None), (5, None, 5.0), (6, None, None)],
           "JSON rows as file by file: keys by name, text converted, nested values as JSON text")
        check(srv.log_text().count("loaded 2 files") == 2, "both as groups")

        # a line that is not a JSON object: file by file, error with file and line
        expect_mysql_error(lambda: q(conn, "COPY INTO e FROM VOLUME v USING JSON SUBDIRECTORY 'bad'"),
                           substring="COPY INTO stopped at file 'bad/2.json'")
        try:
            q(conn, "COPY INTO e FROM VOLUME v USING JSON SUBDIRECTORY 'bad'")
            check(False, "the second COPY fails too")
        except Exception as e:  # noqa: BLE001
            check("line 2" in str(e) and "not a JSON object" in str(e), f"error: {e}")
        eq(q(conn, "SELECT id FROM e WHERE id >= 10 ORDER BY id"), [(10,)], "the file before it loaded, no more")

        # a JSON lines file and a JSON array under format auto: file by file
        res = by_file(q(conn, "COPY INTO e FROM VOLUME v USING JSON SUBDIRECTORY 'shapes'"))
        eq(res, {"shapes/1.json": ("LOADED", 1, 0, None, None), "shapes/2.json": ("LOADED", 1, 0, None, None)},
           "mixed shapes")
        eq(q(conn, "SELECT id FROM e WHERE id >= 40 ORDER BY id"), [(40,), (41,)], "mixed shapes rows")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@suite.test(timeout=120)
def group_row_counts(s: TestSuite):
    """Each file's rows in its load record, whether Sluice counts them (plain lines, quoted values over several lines)
    or DuckDB does (CRLF line ends, empty lines, a quote inside a value, JSON lines with blank lines)."""
    folder = tempfile.mkdtemp(prefix="sluice-volgrp-")
    try:
        write(f"{folder}/csv/1.csv", "id,name\n1,a\n2,\"two\nlines\"\n3,\"say, \"\n")
        write(f"{folder}/csv/2.csv", "id,name\r\n4,b\r\n5,c\r\n")
        write(f"{folder}/csv/3.csv", "id,name\n6,d\n\n7,e\n")
        write(f"{folder}/csv/4.csv", "id,name\n8,x\"y\n")
        write(f"{folder}/csv/5.csv", "id,name\n9,f")
        write(f"{folder}/json/1.json", '{"id": 10}\n{"id": 11, "name": "a\\nb"}\n')
        write(f"{folder}/json/2.json", '\n  \n{"id": 12}\n\n{"id": 13}')
        srv, conn = start_with_volume(s, folder, "t (id INT, name STRING)")
        res = by_file(q(conn, "COPY INTO t FROM VOLUME v USING CSV OPTIONS ('header' = 'true') SUBDIRECTORY 'csv'"))
        eq({k: v[:2] for k, v in res.items()}, {"csv/1.csv": ("LOADED", 3), "csv/2.csv": ("LOADED", 2),
                                                "csv/3.csv": ("LOADED", 2), "csv/4.csv": ("LOADED", 1),
                                                "csv/5.csv": ("LOADED", 1)}, "rows per CSV file")
        recs = loads(conn, "%/csv/%")
        eq({k: v[:2] for k, v in recs.items()}, {"1.csv": ("LOADED", 3), "2.csv": ("LOADED", 2),
                                                 "3.csv": ("LOADED", 2), "4.csv": ("LOADED", 1),
                                                 "5.csv": ("LOADED", 1)}, "load records of the CSV files")
        eq(len({v[2] for v in recs.values()}), 1, "one transaction for the CSV files")
        eq(q(conn, "SELECT id, name FROM t ORDER BY id"),
           [(1, "a"), (2, "two\nlines"), (3, "say, "), (4, "b"), (5, "c"), (6, "d"), (7, "e"), (8, 'x"y'),
            (9, "f")], "the CSV rows")
        res = by_file(q(conn, "COPY INTO t FROM VOLUME v USING JSON SUBDIRECTORY 'json'"))
        eq({k: v[:2] for k, v in res.items()}, {"json/1.json": ("LOADED", 2), "json/2.json": ("LOADED", 2)},
           "rows per JSON lines file")
        recs = loads(conn, "%/json/%")
        eq(len({v[2] for v in recs.values()}), 1, "one transaction for the JSON files")
        eq(q(conn, "SELECT count(*), count(DISTINCT id) FROM t WHERE id >= 10"), [(4, 4)], "the JSON rows, once")
        check("loaded 5 files" in srv.log_text() and "loaded 2 files" in srv.log_text(),
              "both were loaded as groups")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(suite.run())
