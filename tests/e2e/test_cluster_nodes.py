"""Nodes of a Sluice cluster (docs/cluster.md): PostgreSQL 15 and `sluice serve --cluster` processes on loopback.

- a server of its own answers SHOW NODES with one row for itself (alive), in the cluster's columns; it needs NODE
  or OPERATE on SYSTEM;
- two nodes list each other alive (one given its URI in SLUICE_CLUSTER); kill -9 of one shows it dead on the other
  once the node timeout has passed (not before); started again it is alive; SIGSTOP past the timeout: dead,
  SIGCONT: alive; SIGTERM marks it left;
- PostgreSQL going away does not stop a node: statements keep working, SHOW NODES says what is wrong, the log says
  so once per outage, and the node is alive again when PostgreSQL is back;
- a --cluster URI libpq cannot read stops the start (exit 2) without echoing the URI's password.
"""
from __future__ import annotations

import os
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import LOOPBACK, TestSuite, check, eq, expect_mysql_error  # noqa: E402
from pg_harness import Postgres  # noqa: E402

suite = TestSuite("test_cluster_nodes")
COLUMNS = ["Name", "Address", "State", "LastHeartbeat", "StartedAt", "Version", "Leases", "Decommissioned", "Jobs",
           "Partitions", "Held"]
TIMEOUT = 3  # --node-timeout-seconds in these tests (the default is 10)


def show_nodes(server, **kw) -> dict:
    conn = server.connect(raw_values=True, **kw)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW NODES")
            eq([d[0] for d in cur.description], COLUMNS, "SHOW NODES columns")
            return {r[0]: dict(zip(COLUMNS, r)) for r in cur.fetchall()}
    finally:
        conn.close()


def run(server, sql: str, **kw):
    conn = server.connect(**kw)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall()
    finally:
        conn.close()


def states(server) -> dict:
    return {name: row["State"] for name, row in show_nodes(server).items()}


def wait_until(what: str, fn, timeout: float = 20.0, interval: float = 0.2):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = fn()
            if last:
                return last
        except Exception as e:  # noqa: BLE001 -- keep polling, report the last answer
            last = repr(e)
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what}; last: {last}")


def node(name: str, pg: Postgres, uri_from_env: bool = False, **kw):
    """A cluster node; uri_from_env: the URI from SLUICE_CLUSTER (how a password stays out of `ps`)."""
    args = ["--node-name", name, "--node-timeout-seconds", str(TIMEOUT), "--advertise", f"{name}.example:9030"]
    if uri_from_env:
        return suite.server(extra_args=args, extra_env={"SLUICE_CLUSTER": pg.uri}, **kw)
    return suite.server(extra_args=["--cluster", pg.uri, *args], **kw)


@suite.test(timeout=120)
def test_a_server_of_its_own_lists_itself(s):
    srv = s.server().start()
    rows = show_nodes(srv)
    eq(len(rows), 1, "rows")
    (row,) = rows.values()
    eq(row["Name"], f"{socket.gethostname()}:{srv.mysql_port}", "default node name")
    eq(row["Address"], f"{LOOPBACK}:{srv.mysql_port}", "default address")
    eq(row["State"], "alive", "state")
    eq(row["Leases"], "0", "leases")
    eq((row["Jobs"], row["Partitions"], row["Held"]), ("0", "0", "{}"), "a server of its own holds no cluster work")
    check(len(row["LastHeartbeat"]) == 19 and len(row["StartedAt"]) == 19, f"times: {row}")
    check(row["Version"], "version")
    conn = srv.connect()
    with conn.cursor() as cur:
        cur.execute("CREATE USER 'watcher'@'%' IDENTIFIED BY 'watcher-pw'")
    expect_mysql_error(lambda: show_nodes(srv, user="watcher", password="watcher-pw"), 1227, "OPERATE",
                       "SHOW NODES without NODE or OPERATE on SYSTEM")
    with conn.cursor() as cur:
        cur.execute("GRANT NODE ON SYSTEM TO USER 'watcher'@'%'")
    eq(len(show_nodes(srv, user="watcher", password="watcher-pw")), 1, "rows once NODE is granted")
    conn.close()


@suite.test(timeout=240)
def test_two_nodes_see_each_other_alive_dead_and_left(s):
    with Postgres() as pg:
        n1 = node("n1", pg).start()
        n2 = node("n2", pg, uri_from_env=True).start()
        for srv in (n1, n2):
            wait_until("both nodes alive on " + str(srv.mysql_port),
                       lambda srv=srv: states(srv) == {"n1": "alive", "n2": "alive"})
        rows = show_nodes(n2)
        eq(rows["n1"]["Address"], "n1.example:9030", "n1's --advertise as n2 sees it")
        eq(pg.psql("SELECT count(*) FROM sluice_leases"), [["0"]], "no leases yet")

        # kill -9: no goodbye; n1 notices once the timeout has passed on PostgreSQL's clock.
        n2.kill_process()
        killed = time.monotonic()
        wait_until("n2 dead on n1", lambda: states(n1).get("n2") == "dead", timeout=TIMEOUT + 15)
        waited = time.monotonic() - killed
        print(f"  n2 seen dead by n1 {waited:.1f}s after kill -9 (node timeout {TIMEOUT}s)", flush=True)
        check(waited >= TIMEOUT - 1.2, f"n2 was dead {waited:.1f}s after the kill, before the {TIMEOUT}s timeout")
        eq(states(n1)["n1"], "alive", "n1 itself")

        n2.start()
        wait_until("n2 alive again on n1", lambda: states(n1).get("n2") == "alive")
        wait_until("both alive on n2", lambda: states(n2) == {"n1": "alive", "n2": "alive"})

        # SIGSTOP past the timeout: dead to the others; SIGCONT: its heartbeat makes it alive again.
        os.kill(n1.proc.pid, signal.SIGSTOP)
        try:
            wait_until("a frozen n1 dead on n2", lambda: states(n2).get("n1") == "dead", timeout=TIMEOUT + 15)
        finally:
            os.kill(n1.proc.pid, signal.SIGCONT)
        wait_until("n1 alive again after SIGCONT", lambda: states(n2).get("n1") == "alive")

        eq(n2.stop(signal.SIGTERM), 0, "n2's exit code after SIGTERM")
        eq(states(n1)["n2"], "left", "n2 after a clean shutdown")
        eq(pg.psql("SELECT state FROM sluice_nodes WHERE name = 'n2'"), [["left"]], "sluice_nodes row")
        check("node 'n2' left the cluster" in n2.log_text(), "n2's log says it left")

        # ALTER SYSTEM DROP NODE: a node that left (or is dead) is forgotten; an alive one is refused.
        expect_mysql_error(lambda: run(n1, "ALTER SYSTEM DROP NODE 'n1'"), None, "is alive",
                           "DROP NODE of an alive node")
        expect_mysql_error(lambda: run(n1, "ALTER SYSTEM DROP NODE 'n9'"), None, "Unknown node 'n9'",
                           "DROP NODE of an unknown name")
        run(n1, "CREATE USER 'op'@'%' IDENTIFIED BY 'op-pw'")
        expect_mysql_error(lambda: run(n1, "ALTER SYSTEM DROP NODE 'n2'", user="op", password="op-pw"), 1227, "NODE",
                           "DROP NODE without NODE on SYSTEM")
        run(n1, "ALTER SYSTEM DROP NODE 'n2'")
        eq(list(show_nodes(n1)), ["n1"], "SHOW NODES after DROP NODE 'n2'")
        eq(pg.psql("SELECT count(*) FROM sluice_nodes WHERE name = 'n2'"), [["0"]], "n2's row is gone")
        # Started again under the same name, it simply joins anew.
        n2.start()
        wait_until("a dropped node that starts again joins", lambda: states(n1) == {"n1": "alive", "n2": "alive"})
        n2.stop()
        n1.stop()


@suite.test(timeout=180)
def test_postgres_outage_is_ridden_out(s):
    with Postgres() as pg:
        n1 = node("n1", pg).start()
        wait_until("n1 alive", lambda: states(n1) == {"n1": "alive"})
        pg.down()
        time.sleep(4)  # several heartbeats fail
        check(n1.alive(), "the node kept running")
        conn = n1.connect()
        with conn.cursor() as cur:
            cur.execute("SELECT 41 + 1")
            eq(cur.fetchall(), ((42,),), "a statement during the outage")
        conn.close()
        expect_mysql_error(lambda: show_nodes(n1), None, "cannot", "SHOW NODES during the outage")
        log = n1.log_text()
        eq(log.count("cannot heartbeat"), 1, "outage log lines (once per outage)")
        pg.up()
        wait_until("n1 alive after the outage", lambda: states(n1) == {"n1": "alive"}, timeout=30)
        check("again after" in n1.log_text(), "the log says the outage ended")
        eq(n1.stop(signal.SIGTERM), 0, "exit code")
        eq(pg.psql("SELECT state FROM sluice_nodes"), [["left"]], "left after SIGTERM")


@suite.test(timeout=60)
def test_a_cluster_uri_libpq_cannot_read_stops_the_start(s):
    srv = s.server(extra_args=["--cluster", "postgresql://u:Sup3rSecret@host:notaport/db"])
    proc = srv.spawn()
    code = proc.wait(30)
    srv.kill_process()
    eq(code, 2, "exit code")
    log = srv.log_text().split("\n", 1)[1]  # after the harness's own line with the command
    check("--cluster is not a PostgreSQL connection string" in log, f"the error: {log[-500:]}")
    check("Sup3rSecret" not in log, "the password is not echoed")


if __name__ == "__main__":
    sys.exit(suite.run())
