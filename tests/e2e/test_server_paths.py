#!/usr/bin/python3
"""Where the server keeps its files is shown to administrators only (issue 10; docs/security.md, threat model):
an account without SYSTEM OPERATE reads `<data directory>` and `<scratch folder>` in errors, root the paths, and
the log keeps the full text.

- An error that ends a streamed result midway (after thousands of rows went out) is rewritten like any other.
- An error naming a file of the scratch folder (a COPY INTO of a broken Parquet file, read from its copy there)
  shows `<scratch folder>` to the user, never the folder's random name.
The HTTP API is checked in test_disk_full: a job paused for a full disk names the directory in its reason, which
/api/jobs shows a user without OPERATE as `<data directory>`.

    /usr/bin/python3 tests/e2e/test_server_paths.py --server build/sluice
"""
from __future__ import annotations

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Collector, TestSuite, check  # noqa: E402

suite = TestSuite("test_server_paths")


def streamed_until_error(conn, sql: str) -> tuple[int, str]:
    """Reads the rows one by one (an unbuffered cursor); returns how many arrived and the error that ended them."""
    import pymysql
    import pymysql.cursors
    cur = conn.cursor(pymysql.cursors.SSCursor)
    rows = 0
    try:
        cur.execute(sql)
        for _ in cur:
            rows += 1
    except pymysql.MySQLError as e:
        return rows, str(e.args[1] if len(e.args) > 1 else e)
    return rows, ""


@suite.test(timeout=120)
def test_error_midway_through_a_streamed_result(s):
    srv = s.server().start()
    root = srv.connect()
    with root.cursor() as cur:
        cur.execute("CREATE USER 'reader'@'%' IDENTIFIED BY 'pw'")
    data_dir = os.path.abspath(srv.data_dir)
    # 200,000 rows, then a failure whose text names a file of the data directory (as a failed spill or a full disk
    # would).
    sql = (f"SELECT CASE WHEN i < 200000 THEN i ELSE error('could not write {data_dir}/sluice.duckdb.tmp/spill_'"
           f" || i::VARCHAR) END AS v FROM range(400000) t(i)")
    reader = srv.connect(user="reader", password="pw")
    c = Collector()
    rows, error = streamed_until_error(reader, sql)
    c.check(rows >= 2048, f"the reader got rows before the error (streamed): {rows}")
    c.contains(error, "<data directory>/sluice.duckdb.tmp/spill_", "the reader's error")
    c.check(data_dir not in error, f"no data directory path for the reader: {error!r}")
    rows, error = streamed_until_error(root, sql)
    c.check(rows >= 2048, f"root got rows before the error: {rows}")
    c.contains(error, f"{data_dir}/sluice.duckdb.tmp/spill_", "root's error names the path")
    c.contains(srv.log_text(), f"{data_dir}/sluice.duckdb.tmp/spill_", "the log keeps the full text")
    # The connection goes on.
    with reader.cursor() as cur:
        cur.execute("SELECT 1")
        c.check(cur.fetchall() == ((1,),), "the reader's connection still answers")
    c.done()


@suite.test(timeout=120)
def test_scratch_folder_is_not_named(s):
    srv = s.server().start()
    volume = tempfile.mkdtemp(prefix="sluice-paths-vol-")
    with open(os.path.join(volume, "broken.parquet"), "wb") as f:
        f.write(b"PAR1 this is not parquet PAR1")
    root = srv.connect()
    with root.cursor() as cur:
        cur.execute("CREATE DATABASE d")
        cur.execute("CREATE TABLE d.t (id INT)")
        cur.execute(f"CREATE VOLUME vol LOCATION 'file://{volume}/'")
        cur.execute("CREATE USER 'loader'@'%' IDENTIFIED BY 'pw'")
        cur.execute("GRANT INSERT, SELECT ON d.t TO 'loader'@'%'")
        cur.execute("GRANT USAGE ON STORAGE VOLUME vol TO 'loader'@'%'")
    import pymysql
    loader = srv.connect(user="loader", password="pw", database="d")
    c = Collector()
    scratch = os.path.join(os.path.abspath(srv.data_dir), "scratch")
    try:
        with loader.cursor() as cur:
            cur.execute("COPY INTO t FROM VOLUME vol USING PARQUET")
            rows = cur.fetchall()
        text = repr(rows)
    except pymysql.MySQLError as e:
        text = str(e)
    c.check(scratch not in text and os.path.abspath(srv.data_dir) not in text,
            f"no server path in what the loader sees: {text!r}")
    try:
        with root.cursor() as cur:
            cur.execute("COPY INTO d.t FROM VOLUME vol USING PARQUET FORCE = TRUE")
            root_text = repr(cur.fetchall())
    except pymysql.MySQLError as e:
        root_text = str(e)
    c.contains(root_text, scratch + "/", "root's error names the file in the scratch folder")
    c.contains(text, "<scratch folder>/", "the loader reads <scratch folder> where root reads the path")
    c.done()


if __name__ == "__main__":
    sys.exit(suite.run())
