#!/usr/bin/python3
"""COPY INTO errors as a user sees them (issue 12), through the mariadb CLI and pymysql.

- a CSV file with a short row: the error names the file, the line, "expected 3 columns, found 2", the line's text,
  and advice that works in Sluice (ON_ERROR = CONTINUE); no DuckDB wording (null_padding, "pending query result",
  the scratch copy's path);
- the whole message reaches the client: MySQL client libraries keep only 511 bytes of an error message
  (MYSQL_ERRMSG_SIZE), which cut DuckDB's 1 KB explanation; Sluice's message fits, and the mariadb CLI prints it to
  its end, the same text pymysql receives;
- the advice works: ON_ERROR = CONTINUE loads the other rows and records the bad one;
- a file failing again and again keeps one FAILED row in load_history, with its attempts counted;
- volume_rejected_rows.created_at is a TIMESTAMP.

    /usr/bin/python3 tests/e2e/test_volume_copy_errors.py --server build/sluice
"""
from __future__ import annotations

import datetime
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pymysql  # noqa: E402

from harness import TestSuite, check, eq  # noqa: E402
from volume_harness import q, write  # noqa: E402

suite = TestSuite("test_volume_copy_errors")
MARIADB = shutil.which("mariadb") or "/usr/bin/mariadb"
COPY = "COPY INTO t FROM VOLUME v USING CSV OPTIONS ('header' = 'true') FILES ('short.csv')"


def mariadb(srv, sql: str) -> tuple[int, str, str]:
    p = subprocess.run([MARIADB, "--no-defaults", "-h127.0.0.1", f"-P{srv.mysql_port}", "-uroot", "d", "-e", sql],
                       capture_output=True, timeout=30)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


@suite.test(timeout=120)
def short_csv_row_error_is_whole_and_in_sluice_words(s: TestSuite):
    folder = tempfile.mkdtemp(prefix="sluice-vol-")
    try:
        write(f"{folder}/short.csv", "a,b,c\n1,x,2\n2,y\n3,z,4\n")
        srv = s.server().start()
        conn = srv.connect()
        q(conn, "CREATE DATABASE d")
        q(conn, "USE d")
        q(conn, "CREATE TABLE t (a INT, b VARCHAR(10), c INT)")
        q(conn, f"CREATE VOLUME v LOCATION 'file://{folder}/'")

        try:
            q(conn, COPY)
            raise AssertionError("COPY INTO of a file with a short row succeeded")
        except pymysql.MySQLError as e:
            message = e.args[1]
        for part in ("short.csv", "line 3", "expected 3 columns, found 2", "'2,y'", "ON_ERROR = CONTINUE"):
            check(part in message, f"the error holds {part!r}: {message!r}")
        for duck in ("null_padding", "pending query", "Possible fixes", "scratch", "strict_mode", "sample_size"):
            check(duck not in message, f"no DuckDB internals ({duck!r}) in: {message!r}")
        check(len(message.encode()) <= 511, f"the message fits a MySQL client's 511 bytes: {len(message)} bytes")

        # the transform form reads the same header (DuckDB's sniffer would name one column "a,b,c" after a short
        # row, and CAST(a AS INT) would fail with a binder error) and says the same
        try:
            q(conn, "COPY INTO t FROM (SELECT CAST(a AS INT), b, CAST(c AS INT) FROM VOLUME v USING CSV "
                    "OPTIONS ('header' = 'true') FILES ('short.csv'))")
            raise AssertionError("the transform COPY of a file with a short row succeeded")
        except pymysql.MySQLError as e:
            check("line 3: expected 3 columns, found 2" in e.args[1] and "Binder" not in e.args[1],
                  f"the transform's error names the line: {e.args[1]!r}")

        code, out, err = mariadb(srv, COPY)
        check(code != 0, "the mariadb CLI reports the error")
        check(err.rstrip().endswith(message), f"the mariadb CLI prints the whole message:\n{err}\nexpected to end with:\n{message}")

        # a second try: still one FAILED row for the file, two attempts
        mariadb(srv, COPY)
        failed = q(conn, "SELECT source, attempts, first_error FROM load_history('d.t') WHERE status = 'FAILED'")
        eq(len(failed), 1, f"one FAILED row for the file: {failed}")
        check(failed[0][1] >= 4 and failed[0][0].endswith("/short.csv"), f"attempts counted: {failed}")
        check(failed[0][2].startswith("line 3: expected 3 columns, found 2"), f"first_error: {failed[0][2]!r}")

        # the advice works
        rows = q(conn, COPY + " ON_ERROR = CONTINUE")
        eq([(r[0], r[1], r[2], r[3]) for r in rows], [("short.csv", "PARTIALLY_LOADED", 2, 1)], "ON_ERROR = CONTINUE")
        eq(q(conn, "SELECT a FROM t ORDER BY a"), [(1,), (3,)], "the other rows loaded")
        rej = q(conn, "SELECT line, raw, created_at FROM __sluice.volume_rejected_rows")
        eq([(r[0], r[1]) for r in rej], [(3, "2,y")], "the short row is recorded")
        check(isinstance(rej[0][2], datetime.datetime), f"created_at is a TIMESTAMP: {rej[0][2]!r}")
        eq(q(conn, "SELECT DISTINCT typeof(created_at) FROM __sluice.volume_rejected_rows"), [("TIMESTAMP",)],
           "created_at's type")

        # the skipped row is also a warning, as in MySQL's LOAD DATA: its count comes with the result, its text in
        # SHOW WARNINGS, until the next statement
        with conn.cursor() as cur:
            cur.execute(COPY + " ON_ERROR = CONTINUE FORCE = TRUE")
            eq(cur._result.warning_count, 1, "the result's warning count")
        warned = [tuple(r) for r in q(conn, "SHOW WARNINGS")]
        eq(len(warned), 1, f"one warning for the file: {warned}")
        eq(warned[0][:2], ("Warning", 1366), "Level and Code")
        check(warned[0][2].startswith("'short.csv': 1 row(s) skipped (ON_ERROR = CONTINUE); the first: line 3: "),
              f"the message: {warned[0][2]!r}")
        q(conn, "SELECT 1")
        eq(len(q(conn, "SHOW WARNINGS")), 0, "the next statement starts a new list")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(suite.run())
