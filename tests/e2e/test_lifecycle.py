#!/usr/bin/python3
"""The life of a `sluice serve` process: help texts, the data-dir lock, clean shutdown on SIGTERM/SIGINT, crash
(SIGKILL) recovery, the root-password rule for non-loopback binds, and the HTTP health/version endpoints.

    /usr/bin/python3 tests/e2e/test_lifecycle.py --server build/sluice
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # keep the source tree clean of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import SluiceServer, TestSuite, check, contains, eq, expect_mysql_error  # noqa: E402

suite = TestSuite("test_lifecycle")
FLAGS = ["--data-dir", "--bind", "--mysql-port", "--http-port", "--root-password"]


def run_cli(s, *args, timeout=20, env=None):
    p = subprocess.run([s.server_path, *args], capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL,
                       env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def wait_exit(srv: SluiceServer, timeout: float):
    try:
        return srv.proc.wait(timeout)
    except subprocess.TimeoutExpired:
        return None


def fill(srv: SluiceServer, db="life", rows=100):
    conn = srv.connect()
    with conn.cursor() as cur:
        cur.execute(f"CREATE DATABASE {db}")
        cur.execute(f"USE {db}")
        cur.execute("CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR(32)) DUPLICATE KEY(id) "
                    "DISTRIBUTED BY HASH(id) BUCKETS 2")
        cur.execute(f"INSERT INTO t SELECT i, 'n' || i FROM range({rows}) r(i)")
        eq(cur.rowcount, rows, "affected rows of INSERT ... SELECT")
    conn.close()


def content(srv: SluiceServer, db="life"):
    conn = srv.connect(database=db)
    with conn.cursor() as cur:
        cur.execute("SELECT count(*), sum(id), max(name) FROM t")
        n, total, mx = cur.fetchone()
        cur.execute("SHOW TABLES")
        tables = [r[0] for r in cur.fetchall()]
        cur.execute("DESC t")
        desc = [tuple(r[:4]) for r in cur.fetchall()]
    conn.close()
    return int(n), int(total), mx, tables, desc


EXPECTED_DESC = [("id", "bigint", "NO", "true"), ("name", "varchar(32)", "YES", "false")]


# ---- help -------------------------------------------------------------------------------------------------------

@suite.test(timeout=30)
def test_help_texts(s):
    problems = []
    for args in (["--help"], ["serve", "--help"]):
        code, out, err = run_cli(s, *args)
        cmd = "sluice " + " ".join(args)
        if code != 0:
            problems.append(f"{cmd}: exit code {code}, expected 0")
        if not out.strip():
            problems.append(f"{cmd}: should print its help on stdout; stderr was: {err!r}")
        missing = [flag for flag in FLAGS if flag not in out + err]
        if missing:
            problems.append(f"{cmd}: help does not mention {', '.join(missing)}")
    check(not problems, "\n".join(problems))
    code, out, err = run_cli(s, "serve", "--no-such-flag")
    check(code != 0, "an unknown flag must fail")
    contains(out + err, "--no-such-flag", "message for an unknown flag")
    code, out, err = run_cli(s, "no-such-command")
    check(code != 0, "an unknown subcommand must fail")


# ---- data-dir lock ----------------------------------------------------------------------------------------------

@suite.test(timeout=60)
def test_second_server_on_same_data_dir_is_refused(s):
    a = s.server().start()
    fill(a)
    b = s.server(data_dir=a.data_dir)
    b.spawn()
    code = wait_exit(b, 20)
    log = b.log_text()
    check(code is not None, "the second server on the same data dir must exit, but it kept running")
    check(code != 0, f"the second server must exit non-zero, got {code}")
    contains(log, "already in use", "stderr of the second server")
    contains(log, a.data_dir, "stderr of the second server (must name the data dir)")
    # the first one is unharmed
    eq(content(a)[:2], (100, 4950), "rows in the first server after the refused second start")
    eq(a.stop(), 0, "exit code of the first server on SIGTERM")
    # and once the first is gone, the data dir can be used again
    b2 = s.server(data_dir=a.data_dir)
    b2.start()
    eq(content(b2)[:2], (100, 4950), "rows seen by the next server on that data dir")
    eq(b2.stop(), 0, "exit code on SIGTERM")


# ---- shutdown and restart ---------------------------------------------------------------------------------------

@suite.test(timeout=90)
def test_sigterm_exits_zero_and_data_persists(s):
    srv = s.server().start()
    fill(srv)
    before = content(srv)
    eq(before[3], ["t"], "SHOW TABLES")
    eq(before[4], EXPECTED_DESC, "DESC t (Field, Type, Null, Key)")
    # an idle open connection must not block the shutdown
    idle = srv.connect()
    t0 = time.monotonic()
    eq(srv.stop(signal.SIGTERM, timeout=30), 0, "exit code on SIGTERM (with an idle client connected)")
    print(f"    shutdown took {time.monotonic() - t0:.2f}s")
    try:
        idle.close()
    except Exception:
        pass
    srv.start()
    eq(content(srv), before, "database contents after a SIGTERM restart")
    conn = srv.connect()
    with conn.cursor() as cur:
        cur.execute("SHOW DATABASES")
        dbs = [r[0] for r in cur.fetchall()]
    conn.close()
    contains(" ".join(dbs), "life", "SHOW DATABASES after restart")
    eq(srv.stop(signal.SIGINT), 0, "exit code on SIGINT")
    srv.start()
    eq(content(srv), before, "database contents after a SIGINT restart")
    eq(srv.stop(), 0, "exit code on SIGTERM")
    log = srv.log_text()
    check(len([ln for ln in log.splitlines() if ln.strip() and not ln.startswith("====")]) >= 2,
          "the server should log its start and stop on stderr")


@suite.test(timeout=90)
def test_sigkill_then_restart_keeps_committed_data(s):
    srv = s.server().start()
    fill(srv, rows=1000)
    conn = srv.connect(database="life")
    with conn.cursor() as cur:
        cur.execute("UPDATE t SET name = 'changed' WHERE id < 10")
        eq(cur.rowcount, 10, "affected rows of UPDATE")
        cur.execute("DELETE FROM t WHERE id >= 900")
        eq(cur.rowcount, 100, "affected rows of DELETE")
    conn.close()
    # an open transaction that is never committed must vanish
    conn = srv.connect(database="life")
    with conn.cursor() as cur:
        cur.execute("BEGIN")
        cur.execute("INSERT INTO t VALUES (5000, 'uncommitted')")
    srv.kill_process()
    check(srv.proc.returncode == -signal.SIGKILL, f"server should have been SIGKILLed, got {srv.proc.returncode}")
    srv.start()
    conn2 = srv.connect(database="life")
    with conn2.cursor() as cur:
        cur.execute("SELECT count(*), sum(id), count(*) FILTER (WHERE name = 'changed'), max(id) FROM t")
        got = tuple(int(x) for x in cur.fetchone())
        eq(got, (900, 900 * 899 // 2, 10, 899), "rows after SIGKILL + restart (count, sum, changed, max)")
        cur.execute("SELECT count(*) FROM t WHERE name = 'uncommitted'")
        eq(int(cur.fetchone()[0]), 0, "uncommitted row after SIGKILL")
        # and the server is fully usable: new writes work
        cur.execute("INSERT INTO t VALUES (10000, 'after crash')")
        eq(cur.rowcount, 1, "insert after crash recovery")
    conn2.close()
    # twice in a row, the second time right after start
    srv.kill_process()
    srv.start()
    eq(content(srv)[0], 901, "row count after the second SIGKILL")
    eq(srv.stop(), 0, "exit code on SIGTERM after crash recovery")


# ---- root password and bind ---------------------------------------------------------------------------------------

@suite.test(timeout=60)
def test_empty_root_password_refused_on_non_loopback_bind(s):
    srv = s.server(bind="0.0.0.0")
    srv.spawn()
    code = wait_exit(srv, 20)
    check(code is not None, "the server bound to 0.0.0.0 without a root password must refuse to start")
    check(code != 0, f"exit code must be non-zero, got {code}")
    contains(srv.log_text().lower(), "root password", "message when refusing an empty root password")
    # the same with an explicitly empty --root-password
    srv2 = s.server(bind="0.0.0.0", root_password="")
    srv2.spawn()
    code = wait_exit(srv2, 20)
    check(code not in (None, 0), f"--root-password '' with --bind 0.0.0.0 must be refused, got exit code {code}")


@suite.test(timeout=60)
def test_non_loopback_bind_with_password_from_environment(s):
    srv = s.server(bind="0.0.0.0", env_password="s3cret-env")
    srv.start()
    conn = srv.connect(password="s3cret-env")
    with conn.cursor() as cur:
        cur.execute("SELECT 1 + 1")
        eq(cur.fetchone()[0], 2, "SELECT 1 + 1")
    conn.close()
    expect_mysql_error(lambda: srv.connect(password=""), 1045, what="connect without password")
    expect_mysql_error(lambda: srv.connect(password="wrong"), 1045, what="connect with a wrong password")
    eq(srv.stop(), 0, "exit code on SIGTERM")
    # and with the flag instead of the environment
    srv2 = s.server(bind="0.0.0.0", root_password="s3cret-flag")
    srv2.start()
    conn = srv2.connect(password="s3cret-flag")
    conn.close()
    expect_mysql_error(lambda: srv2.connect(password="s3cret-env"), 1045, what="connect with the other password")
    eq(srv2.stop(), 0, "exit code on SIGTERM")


@suite.test(timeout=60)
def test_loopback_without_password(s):
    srv = s.server().start()
    conn = srv.connect(password="")
    conn.close()
    eq(srv.stop(), 0, "exit code on SIGTERM")


# ---- HTTP -----------------------------------------------------------------------------------------------------

@suite.test(timeout=60)
def test_http_health_and_version(s):
    import json
    srv = s.server().start()
    status, body = srv.http_get("/api/health")
    eq(status, 200, "GET /api/health status")
    doc = json.loads(body)
    eq(doc.get("status"), "ok", f"status field of /api/health ({body})")
    status, body = srv.http_get("/api/version")
    eq(status, 200, "GET /api/version status")
    doc = json.loads(body)
    check(isinstance(doc.get("version"), str) and doc["version"], f"/api/version must have a version: {body}")
    status, _ = srv.http_get("/api/no-such-endpoint")
    check(status == 404, f"an unknown path should answer 404, got {status}")
    eq(srv.stop(), 0, "exit code on SIGTERM")


@suite.test(timeout=60)
def test_busy_port_is_reported(s):
    """A second server (other data dir) on a MySQL port that is in use must exit non-zero, saying so."""
    a = s.server().start()
    b = s.server(mysql_port=a.mysql_port)
    b.spawn()
    code = wait_exit(b, 20)
    check(code not in (None, 0), f"a server whose MySQL port is taken must exit non-zero, got {code}")
    contains(b.log_text(), str(a.mysql_port), "message of the server whose port is taken (must name the port)")
    eq(a.stop(), 0, "exit code of the first server")


if __name__ == "__main__":
    sys.exit(suite.run())
