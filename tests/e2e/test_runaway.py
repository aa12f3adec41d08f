#!/usr/bin/python3
"""Runaway work: KILL [CONNECTION | QUERY], SHOW [FULL] PROCESSLIST, query_timeout / max_execution_time, a client
that hangs up mid-query, result rows streamed with bounded memory, and SIGTERM during a long query.

    /usr/bin/python3 tests/e2e/test_runaway.py --server build/sluice
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True  # keep the source tree clean of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import LOOPBACK, TestSuite, check, contains, eq  # noqa: E402

suite = TestSuite("test_runaway")
MARIADB = shutil.which("mariadb") or "/usr/bin/mariadb"

# Minutes of work for DuckDB on any machine: what every test below stops.
LONG_QUERY = "SELECT count(*) FROM range(100000000000) t(x) WHERE x % 7 = 3"

state: dict = {}


def shared(s):
    srv = state.get("server")
    if srv is None:
        srv = s.shared_server()
        state["server"] = srv
    if not srv.alive():
        raise AssertionError(f"the shared server died (exit {srv.proc.returncode}):\n{srv.log_tail(30)}")
    return srv


def processlist(conn, full=False):
    with conn.cursor() as cur:
        cur.execute("SHOW FULL PROCESSLIST" if full else "SHOW PROCESSLIST")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]


def wait_for(what, fn, timeout=10.0, interval=0.1):
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:.0f}s")
        time.sleep(interval)


def running_row(admin, conn_id, full=False):
    """The PROCESSLIST row of `conn_id` once it runs a statement (Command = Query)."""
    def look():
        for row in processlist(admin, full):
            if int(row["Id"]) == conn_id and row["Command"] == "Query":
                return row
        return None
    return wait_for(f"connection {conn_id} running a statement", look)


def gone_from_processlist(admin, conn_id, timeout=5.0):
    wait_for(f"connection {conn_id} gone from SHOW PROCESSLIST",
             lambda: all(int(r["Id"]) != conn_id for r in processlist(admin)), timeout)


class Background:
    """Runs one statement on `conn` in a thread; `.error` is the exception it ended with, `.seconds` how long."""

    def __init__(self, conn, sql):
        self.conn, self.sql = conn, sql
        self.error = None
        self.rows = None
        self.seconds = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        t0 = time.monotonic()
        try:
            with self.conn.cursor() as cur:
                cur.execute(self.sql)
                self.rows = cur.fetchall()
        except Exception as e:  # noqa: BLE001 - the test looks at it
            self.error = e
        self.seconds = time.monotonic() - t0

    def join(self, timeout):
        self.thread.join(timeout)
        check(not self.thread.is_alive(), f"the statement still runs {timeout:.0f}s later: {self.sql}")
        return self


def error_code(e):
    return e.args[0] if e is not None and e.args else None


def server_cpu_seconds(srv):
    with open(f"/proc/{srv.proc.pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(srv):
    with open(f"/proc/{srv.proc.pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc/<pid>/status")


@suite.test(timeout=60)
def test_kill_query_interrupts_the_statement_only(s):
    srv = shared(s)
    admin, victim = srv.connect(), srv.connect()
    victim_id = victim.thread_id()
    job = Background(victim, LONG_QUERY)
    row = running_row(admin, victim_id)
    contains(row["Info"] or "", "range(100000000000)", "PROCESSLIST Info")
    eq(row["State"], "executing", "PROCESSLIST State")
    with admin.cursor() as cur:
        cur.execute(f"KILL QUERY {victim_id}")
    job.join(10)
    eq(error_code(job.error), 1317, f"error of the killed statement ({job.error!r})")
    contains(str(job.error), "Query execution was interrupted", "error message")
    # The connection stays and runs the next statement normally.
    with victim.cursor() as cur:
        cur.execute("SELECT 41 + 1")
        eq(cur.fetchone()[0], 42, "the next statement on the killed query's connection")
    row = [r for r in processlist(admin) if int(r["Id"]) == victim_id][0]
    eq(row["Command"], "Sleep", "Command of the idle connection")
    eq(row["Info"], None, "Info of the idle connection")
    victim.close()
    admin.close()


@suite.test(timeout=60)
def test_kill_connection_closes_it(s):
    import pymysql
    srv = shared(s)
    admin, busy, idle = srv.connect(), srv.connect(), srv.connect()
    busy_id, idle_id = busy.thread_id(), idle.thread_id()
    job = Background(busy, LONG_QUERY)
    running_row(admin, busy_id)
    with admin.cursor() as cur:
        cur.execute(f"KILL CONNECTION {busy_id}")
        cur.execute(f"KILL {idle_id}")  # CONNECTION is the default
    job.join(10)
    check(job.error is not None, "the statement of a killed connection should fail")
    check(error_code(job.error) in (1317, 2013, 2006), f"killed connection's error: {job.error!r}")
    gone_from_processlist(admin, busy_id)
    gone_from_processlist(admin, idle_id)
    try:
        with idle.cursor() as cur:
            cur.execute("SELECT 1")
        raise AssertionError("a killed idle connection still answered")
    except pymysql.err.OperationalError as e:
        check(error_code(e) in (2013, 2006), f"error on the killed idle connection: {e!r}")
    admin.close()


@suite.test(timeout=30)
def test_kill_errors(s):
    import pymysql
    srv = shared(s)
    conn = srv.connect()
    for sql in ("KILL 4000000000", "KILL QUERY 4000000000", "KILL CONNECTION 4000000000"):
        try:
            with conn.cursor() as cur:
                cur.execute(sql)
            raise AssertionError(f"{sql} should fail")
        except pymysql.err.MySQLError as e:
            eq(error_code(e), 1094, f"error number of {sql}")
            contains(str(e), "Unknown thread id: 4000000000", f"error of {sql}")
    try:
        with conn.cursor() as cur:
            cur.execute("KILL QUERY")
        raise AssertionError("KILL QUERY without an id should fail")
    except pymysql.err.MySQLError as e:
        eq(error_code(e), 1064, "KILL QUERY without an id")
        contains(str(e), "connection id", "its message")
    conn.close()


@suite.test(timeout=60)
def test_processlist_text_is_cut_and_redacted(s):
    srv = shared(s)
    admin, victim = srv.connect(), srv.connect()
    victim_id = victim.thread_id()
    # A statement longer than 100 characters with a secret-looking pair in it.
    sql = ("SELECT count(*) FROM range(100000000000) t(x) WHERE x % 7 = 3 AND x <> 123456789 AND x <> 987654321 "
           "OR 'password' = 'hunter2'")
    check(len(sql) > 100, "the statement must be longer than 100 characters")
    job = Background(victim, sql)
    short = running_row(admin, victim_id)
    full = running_row(admin, victim_id, full=True)
    check(len(short["Info"]) <= 100, f"SHOW PROCESSLIST Info should be cut at 100 characters: {short['Info']!r}")
    check(len(full["Info"]) > 100, f"SHOW FULL PROCESSLIST Info should be whole: {full['Info']!r}")
    check("hunter2" not in full["Info"], f"a secret shown in PROCESSLIST: {full['Info']!r}")
    contains(full["Info"], "'password' = '******'", "FULL Info")
    check(short["Info"] == full["Info"][:len(short["Info"])], "the short Info is the start of the full one")
    check(int(full["Time"]) >= 0, "Time is a number of seconds")
    eq(full["User"], "root", "User")
    with admin.cursor() as cur:
        cur.execute(f"KILL QUERY {victim_id}")
    job.join(10)
    eq(error_code(job.error), 1317, "the killed statement's error")
    victim.close()
    admin.close()


@suite.test(timeout=60)
def test_query_timeout(s):
    import pymysql
    srv = shared(s)
    conn = srv.connect()
    with conn.cursor() as cur:
        cur.execute("SELECT @@query_timeout")
        eq(str(cur.fetchone()[0]), "300", "default query_timeout")
        cur.execute("SET query_timeout = 2")
        cur.execute("SELECT @@query_timeout")
        eq(str(cur.fetchone()[0]), "2", "query_timeout after SET")
    job = Background(conn, LONG_QUERY).join(15)
    eq(error_code(job.error), 3024, f"error of a statement past query_timeout ({job.error!r})")
    contains(str(job.error), "query_timeout (2 s)", "timeout message")
    contains(str(job.error), "SET query_timeout", "timeout message")
    check(1.5 < job.seconds < 8, f"interrupted after {job.seconds:.1f}s with query_timeout = 2")
    with conn.cursor() as cur:
        cur.execute("SELECT 1")  # the connection goes on
        for bad in ("0", "-1", "'soon'"):
            try:
                cur.execute(f"SET query_timeout = {bad}")
                raise AssertionError(f"SET query_timeout = {bad} should fail")
            except pymysql.err.MySQLError as e:
                contains(str(e), "query_timeout must be a whole number of seconds", f"SET query_timeout = {bad}")
        # MySQL's form, in milliseconds, wins over query_timeout.
        cur.execute("SET max_execution_time = 1500")
    job = Background(conn, LONG_QUERY).join(15)
    eq(error_code(job.error), 3024, "error of a statement past max_execution_time")
    contains(str(job.error), "max_execution_time (1500 ms)", "max_execution_time message")
    check(1.0 < job.seconds < 8, f"interrupted after {job.seconds:.1f}s with max_execution_time = 1500")
    conn.close()

    # SET GLOBAL applies to sessions without their own value, and lasts across a reconnect.
    admin = srv.connect()
    try:
        with admin.cursor() as cur:
            cur.execute("SET GLOBAL query_timeout = 2")
        other = srv.connect()
        with other.cursor() as cur:
            cur.execute("SELECT @@query_timeout")
            eq(str(cur.fetchone()[0]), "2", "query_timeout after SET GLOBAL")
        job = Background(other, LONG_QUERY).join(15)
        eq(error_code(job.error), 3024, "error of a statement past the global query_timeout")
        contains(str(job.error), "SET GLOBAL query_timeout", "timeout message")
        other.close()
    finally:
        with admin.cursor() as cur:
            cur.execute("SET GLOBAL query_timeout = 300")
        admin.close()


@suite.test(timeout=60)
def test_timeout_while_rows_stream(s):
    """A result that takes longer to send than query_timeout ends with the timeout's ERR after the rows sent."""
    srv = shared(s)
    conn = srv.connect(raw_values=True)
    with conn.cursor() as cur:
        cur.execute("SET query_timeout = 1")
    job = Background(conn, "SELECT x, x * 2 AS y FROM range(200000000) t(x)").join(30)
    eq(error_code(job.error), 3024, f"error of a streamed result past query_timeout ({job.error!r})")
    with conn.cursor() as cur:
        cur.execute("SET query_timeout = 300")
        cur.execute("SELECT count(*) FROM range(10)")
        eq(int(cur.fetchone()[0]), 10, "the next statement")
    conn.close()


@suite.test(timeout=90)
def test_client_that_hangs_up_is_cancelled(s):
    srv = s.server().start()
    admin = srv.connect()
    cli = subprocess.Popen([MARIADB, "--no-defaults", "-h", LOOPBACK, "-P", str(srv.mysql_port), "-uroot",
                            "-e", LONG_QUERY], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def cli_row():
            for r in processlist(admin):
                if r["Command"] == "Query" and "range(100000000000)" in (r["Info"] or ""):
                    return r
            return None
        row = wait_for("the mariadb CLI's statement in PROCESSLIST", cli_row)
        time.sleep(1)
        busy = server_cpu_seconds(srv)
        time.sleep(1)
        # The machine may be shared: any clear use of CPU shows the query runs.
        check(server_cpu_seconds(srv) - busy > 0.05, "the server should be busy with the query")
        cli.kill()
        cli.wait(5)
        gone_from_processlist(admin, int(row["Id"]), timeout=5)
        time.sleep(0.5)
        idle = server_cpu_seconds(srv)
        time.sleep(2)
        used = server_cpu_seconds(srv) - idle
        check(used < 0.2, f"the server used {used:.2f}s of CPU in 2s after the client went away")
    finally:
        if cli.poll() is None:
            cli.kill()
    admin.close()


@suite.test(timeout=300)
def test_rows_stream_with_bounded_memory(s):
    srv = s.server().start()
    rows = 5_000_000
    before = peak_rss_mb(srv)
    t0 = time.monotonic()
    out = subprocess.run([MARIADB, "--no-defaults", "-h", LOOPBACK, "-P", str(srv.mysql_port), "-uroot", "--quick",
                          "-N", "-e", f"SELECT * FROM range({rows})"], capture_output=True, timeout=240)
    seconds = time.monotonic() - t0
    eq(out.returncode, 0, f"mariadb exit code (stderr: {out.stderr[-500:]!r})")
    lines = out.stdout.count(b"\n")
    eq(lines, rows, "rows received")
    check(out.stdout.endswith(b"4999999\n"), "the last row")
    after = peak_rss_mb(srv)
    print(f"    {rows} rows in {seconds:.1f}s; server peak RSS {before:.0f} MB before, {after:.0f} MB after")
    # Materialized, these rows cost ~175 bytes each (~850 MB); streamed, a few chunks and the write buffer.
    check(after - before < 200, f"server peak RSS grew by {after - before:.0f} MB for {rows} rows")


@suite.test(timeout=60)
def test_streamed_results_keep_values_and_types(s):
    srv = shared(s)
    conn = srv.connect()
    with conn.cursor() as cur:
        cur.execute("SELECT 1::INTEGER AS i, 2.5::DOUBLE AS d, 3.0::DOUBLE AS whole, true AS b, NULL AS n, "
                    "'x''y' AS s, DATE '2024-01-02' AS day, 12.34::DECIMAL(10,2) AS dec, [1, 2] AS l")
        eq(cur.fetchall(), ((1, 2.5, 3.0, 1, None, "x'y", __import__("datetime").date(2024, 1, 2),
                             __import__("decimal").Decimal("12.34"), "[1, 2]"),), "values")
        cur.execute("SELECT x FROM range(5000) t(x) ORDER BY x")
        eq([r[0] for r in cur.fetchall()], list(range(5000)), "5000 rows over several chunks")
        cur.execute("SELECT 'ab'::BLOB AS b")
        eq(cur.fetchall(), ((b"ab",),), "a BLOB (materialized path)")
    conn.close()


@suite.test(timeout=60)
def test_sigterm_mid_query_stops_within_seconds(s):
    srv = s.server().start()
    conn = srv.connect()
    job = Background(conn, LONG_QUERY)
    admin = srv.connect()
    running_row(admin, conn.thread_id())
    admin.close()
    t0 = time.monotonic()
    code = srv.stop(signal.SIGTERM, timeout=15)
    seconds = time.monotonic() - t0
    eq(code, 0, "exit code after SIGTERM")
    check(seconds < 5, f"the server took {seconds:.1f}s to stop during a long query")
    job.join(10)
    check(job.error is not None, "the running statement should fail")
    check(error_code(job.error) in (1053, 2013), f"the running statement's error: {job.error!r}")


if __name__ == "__main__":
    sys.exit(suite.run())
