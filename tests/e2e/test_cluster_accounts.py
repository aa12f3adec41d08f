"""Users, roles and grants of a Sluice cluster (docs/cluster.md, "Users and grants"): PostgreSQL 15 and two
`sluice serve --cluster` processes on loopback.

- the first node's accounts become the cluster's; a node that joins later (a fresh data directory) takes them, so
  a user created on one node logs in on the other, with the same grants;
- a password changed on either node holds on both, the old one is refused; a role granted on one node gives its
  privileges on the other; DROP USER on one node ends logins on both;
- twenty users created at once, half on each node, all exist on both (changes on two nodes never overwrite each
  other);
- while PostgreSQL is down, logins of existing users keep working, and a change is refused with an error that says
  why; once PostgreSQL is back, changes work again and reach the other node;
- the shared state holds password hashes only, never a password.
"""
from __future__ import annotations

import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import TestSuite, check, eq  # noqa: E402
from pg_harness import Postgres  # noqa: E402

suite = TestSuite("test_cluster_accounts")
SYNC = 15.0  # seconds a change may take to reach the other node (it polls every second)


def node(name: str, pg: Postgres):
    return suite.server(extra_args=["--cluster", pg.uri, "--node-name", name, "--node-timeout-seconds", "3"])


def wait_until(what: str, fn, timeout: float = SYNC):
    return kh.wait_until(fn, timeout, what, interval=0.25)


def q(server, sql: str, **kw) -> list[tuple]:
    conn = server.connect(**kw)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())
    finally:
        conn.close()


def logs_in(server, user: str, password: str) -> bool:
    try:
        return q(server, "SELECT current_user()", user=user, password=password) != []
    except Exception as e:  # noqa: BLE001 -- pymysql's OperationalError 1045
        if "1045" in str(e) or "Access denied" in str(e):
            return False
        raise


def users(server) -> set[str]:
    """The user names SHOW USERS lists ('name'@'host')."""
    return {r[0].split("'")[1] for r in q(server, "SHOW USERS")}


def error_of(server, sql: str) -> str:
    try:
        q(server, sql)
    except Exception as e:  # noqa: BLE001
        return str(e)
    raise AssertionError(f"expected an error from: {sql}")


@suite.test(timeout=240)
def test_accounts_are_the_clusters(s):
    with Postgres() as pg:
        n1 = node("n1", pg).start()
        wait_until("n1 to publish its accounts", lambda: pg.psql("SELECT version FROM sluice_accounts") == [["1"]])
        q(n1, "CREATE USER alice IDENTIFIED BY 'first-pw'")
        q(n1, "CREATE DATABASE shop")
        q(n1, "CREATE TABLE shop.orders (id INT)")
        q(n1, "CREATE ROLE reader")
        q(n1, "GRANT SELECT ON ALL TABLES IN DATABASE shop TO ROLE reader")

        n2 = node("n2", pg).start()  # a fresh data directory: only the cluster knows alice
        wait_until("alice to log in on n2", lambda: logs_in(n2, "alice", "first-pw"))
        eq(q(n2, "SHOW GRANTS FOR ROLE reader"), q(n1, "SHOW GRANTS FOR ROLE reader"), "the role's grants on both")
        check(not logs_in(n2, "alice", "wrong"), "a wrong password is refused on n2")

        # a role granted on n2 gives its privileges on n1
        q(n2, "GRANT reader TO USER alice")
        q(n2, "CREATE DATABASE shop")  # databases are each node's own; grants name them
        q(n2, "CREATE TABLE shop.orders (id INT)")
        wait_until("alice's role to reach n1", lambda: q(n1, "SELECT count(*) FROM shop.orders", user="alice",
                                                       password="first-pw") == [(0,)])

        # a password changed on n2 holds on both
        q(n2, "ALTER USER alice IDENTIFIED BY 'second-pw'")
        check(logs_in(n2, "alice", "second-pw"), "the new password on n2")
        wait_until("the new password on n1", lambda: logs_in(n1, "alice", "second-pw"))
        check(not logs_in(n1, "alice", "first-pw"), "the old password is refused on n1")

        # changes on both nodes at once are all kept
        errors: list[str] = []

        def create(server, names):
            for name in names:
                try:
                    q(server, f"CREATE USER {name} IDENTIFIED BY 'pw-{name}'")
                except Exception as e:  # noqa: BLE001
                    errors.append(f"{name}: {e}")

        threads = [threading.Thread(target=create, args=(n1, [f"u{i}" for i in range(0, 20, 2)])),
                   threading.Thread(target=create, args=(n2, [f"u{i}" for i in range(1, 20, 2)]))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        eq(errors, [], "every CREATE USER succeeded")
        want = {f"u{i}" for i in range(20)}
        for server in (n1, n2):
            wait_until(f"all twenty users on {server.data_dir}", lambda server=server: want <= users(server))
        check(logs_in(n1, "u7", "pw-u7") and logs_in(n2, "u12", "pw-u12"), "users created on the other node log in")

        state = pg.psql("SELECT state FROM sluice_accounts")[0][0]
        check("second-pw" not in state and "pw-u7" not in state and "alice" in state,
              "the shared state holds hashes, not passwords")

        # PostgreSQL down: logins go on, changes are refused with the reason
        pg.down()
        check(logs_in(n1, "alice", "second-pw"), "alice logs in on n1 while PostgreSQL is down")
        err = error_of(n1, "CREATE USER carol IDENTIFIED BY 'pw'")
        check("are shared by the cluster" in err and "does not answer" in err and "try again" in err, f"a change during the outage: {err}")
        pg.up()
        wait_until("changes to work again",
                   lambda: q(n1, "CREATE USER IF NOT EXISTS carol IDENTIFIED BY 'pw'") == [] and "carol" in users(n1))
        wait_until("carol on n2", lambda: logs_in(n2, "carol", "pw"), timeout=30)
        check("exists" in error_of(n2, "CREATE USER carol IDENTIFIED BY 'pw'"), "n2 knows carol exists")

        # DROP USER on n1 ends logins on both
        q(n1, "DROP USER alice")
        check(not logs_in(n1, "alice", "second-pw"), "alice is gone from n1")
        wait_until("alice gone from n2", lambda: not logs_in(n2, "alice", "second-pw"))
        n2.stop()
        n1.stop()


if __name__ == "__main__":
    sys.exit(suite.run())
