#!/usr/bin/env python3
"""Volume loads under ON_ERROR = CONTINUE make the rows a table refuses error rows, as StarRocks filters them.

A value longer than its VARCHAR(n) column's bytes, NULL into a NOT NULL column and a row in no RANGE partition are
refused by the table's constraints; without ON_ERROR = CONTINUE they fail the whole file (as before), with it
they are recorded in __sluice.volume_rejected_rows and the file's other rows load - for CSV, JSON lines and a
transform COPY, and for a volume pipe.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pymysql  # noqa: E402

from harness import TestSuite, check, eq  # noqa: E402
from volume_harness import q, write  # noqa: E402

suite = TestSuite("test_volume_row_checks")

TABLE = ("CREATE TABLE t (id INT NOT NULL, name VARCHAR(5), dt DATE) DUPLICATE KEY(id) "
         "PARTITION BY RANGE(dt) (PARTITION p2024 VALUES [('2024-01-01'), ('2025-01-01')))")
CSV = "id,name,dt\n1,ab,2024-01-01\n2,abcdefgh,2024-01-02\n3,cd,2023-06-01\n,ef,2024-02-01\n5,,2024-03-01\n"
JSONL = ('{"id": 1, "name": "ab", "dt": "2024-01-01"}\n{"id": 2, "name": "abcdefgh", "dt": "2024-01-02"}\n'
         '{"id": 3, "name": "cd", "dt": "2023-06-01"}\n{"name": "ef", "dt": "2024-02-01"}\n'
         '{"id": 5, "dt": "2024-03-01"}\n')
# What each refused row's reason says, in the file's order (the row's place among the rows read, then why).
REASONS = [
    "row 2 of the rows read: Data too long for column 'name': the value is 8 bytes long, more than its 5 bytes",
    "row 3 of the rows read: no partition for this row: column 'dt' = '2023-06-01' is in no partition of table 't'",
    "row 4 of the rows read: column 'id' is NOT NULL, but the row has no value for it",
]


def rejected(conn, file_name):
    return q(conn, "SELECT column_name, reason FROM __sluice.volume_rejected_rows "
                   f"WHERE file_url LIKE '%/{file_name}' ORDER BY created_at, reason")


def start_with_volume(s: TestSuite, folder: str):
    """A server with database d, table t (TABLE) and volume v on `folder`; a connection to it using d."""
    conn = s.server().start().connect()
    q(conn, "CREATE DATABASE d")
    q(conn, "USE d")
    q(conn, TABLE)
    q(conn, f"CREATE VOLUME v LOCATION 'file://{folder}/'")
    return conn


@suite.test(timeout=120)
def copy_into_skips_rows_the_table_refuses(s: TestSuite):
    folder = tempfile.mkdtemp(prefix="sluice-vol-")
    try:
        write(f"{folder}/a.csv", CSV)
        write(f"{folder}/b.json", JSONL)
        conn = start_with_volume(s, folder)

        # Without ON_ERROR = CONTINUE the file fails whole, naming the first constraint it broke.
        try:
            q(conn, "COPY INTO t FROM VOLUME v USING CSV OPTIONS ('header' = 'true') FILES ('a.csv')")
            raise AssertionError("COPY INTO of a file with a too long value succeeded without ON_ERROR")
        except pymysql.MySQLError as e:
            check("a.csv" in e.args[1] and "nothing of it was loaded" in e.args[1], f"the file failed: {e.args[1]!r}")
        eq(q(conn, "SELECT count(*) FROM t"), [(0,)], "nothing loaded")

        rows = q(conn, "COPY INTO t FROM VOLUME v USING CSV OPTIONS ('header' = 'true') FILES ('a.csv') "
                       "ON_ERROR = CONTINUE")
        eq([r[:4] for r in rows], [("a.csv", "PARTIALLY_LOADED", 2, 3)], "CSV: two rows loaded, three refused")
        eq(rows[0][4], REASONS[0], "the first error")
        eq(q(conn, "SELECT id, name, dt::VARCHAR FROM t ORDER BY id"), [(1, "ab", "2024-01-01"), (5, None, "2024-03-01")],
           "the rows that fit")
        got = rejected(conn, "a.csv")
        eq(sorted(r[1] for r in got), REASONS, "each refused row recorded with its reason")
        eq(sorted(r[0] for r in got), ["", "id", "name"], "the column each names")
        raw = q(conn, "SELECT raw FROM __sluice.volume_rejected_rows WHERE column_name = 'name'")[0][0]
        check("abcdefgh" in raw and "2024-01-02" in raw, f"the refused row's values are kept: {raw!r}")
        eq(q(conn, "SELECT FILTERED_ROWS, SINK_ROWS FROM information_schema.loads WHERE LABEL LIKE '%/a.csv' "
                 "AND STATE = 'FINISHED'"),
           [(3, 2)], "information_schema.loads counts them")

        q(conn, "DELETE FROM t")
        rows = q(conn, "COPY INTO t FROM VOLUME v USING JSON FILES ('b.json') ON_ERROR = CONTINUE")
        eq([r[:4] for r in rows], [("b.json", "PARTIALLY_LOADED", 2, 3)], "JSON lines: the same rows")
        eq(sorted(r[1] for r in rejected(conn, "b.json")), REASONS, "JSON: the same reasons")

        # The transform form checks the rows the SELECT makes, not the file's.
        q(conn, "DELETE FROM t")
        rows = q(conn, "COPY INTO t FROM (SELECT CAST(id AS INT), upper(name), CAST(dt AS DATE) + INTERVAL 1 YEAR "
                       "FROM VOLUME v USING CSV OPTIONS ('header' = 'true') FILES ('a.csv')) ON_ERROR = CONTINUE "
                       "FORCE = TRUE")
        eq([r[:4] for r in rows], [("a.csv", "PARTIALLY_LOADED", 1, 4)], "transform: one row fits")
        eq(q(conn, "SELECT id, name, dt::VARCHAR FROM t ORDER BY id"), [(3, "CD", "2024-06-01")],
           "after the transform 2023-06-01 + 1 year is in the partition, the 2024 dates are not")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@suite.test(timeout=120)
def a_volume_pipe_skips_them_and_keeps_running(s: TestSuite):
    folder = tempfile.mkdtemp(prefix="sluice-vol-")
    try:
        conn = start_with_volume(s, folder)
        q(conn, "CREATE PIPE p BATCH_INTERVAL_IN_SECONDS = '1' AS COPY INTO t FROM VOLUME v USING CSV "
                "OPTIONS ('header' = 'true') ON_ERROR = CONTINUE")
        write(f"{folder}/a.csv", CSV)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and q(conn, "SELECT count(*) FROM t") != [(2,)]:
            time.sleep(0.2)
        eq(q(conn, "SELECT id FROM t ORDER BY id"), [(1,), (5,)], "the pipe loaded the rows that fit")
        eq(sorted(r[1] for r in rejected(conn, "a.csv")), REASONS, "and recorded the others")
        eq(q(conn, "SELECT STATE, LAST_ERROR FROM information_schema.pipes WHERE PIPE_NAME = 'p'"), [("RUNNING", "")],
           "the pipe keeps running, with no error")
        eq(q(conn, "SELECT LOAD_STATE, LOADED_ROWS, ERROR_ROWS FROM information_schema.pipe_files WHERE PIPE_NAME = 'p'"),
           [("FINISHED", 2, 3)], "the file counted loaded, with its error rows")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(suite.run())
