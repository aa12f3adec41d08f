#!/usr/bin/python3
"""Issue 2's example session and more through python3-pymysql: value types, multi-statement queries, 50 concurrent
connections, password authentication, COM_INIT_DB / COM_PING, affected rows, transactions, UNDROP retention.

    /usr/bin/python3 tests/e2e/test_pymysql.py --server build/sluice
"""
from __future__ import annotations

import datetime
import os
import sys
import threading
import time

sys.dont_write_bytecode = True  # keep the source tree clean of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Collector, TestSuite, check, contains, eq, expect_mysql_error  # noqa: E402

import pymysql  # noqa: E402
from pymysql.constants import FIELD_TYPE  # noqa: E402

suite = TestSuite("test_pymysql")

CREATE_EXAMPLE = """CREATE TABLE example_tbl1 (
    order_id bigint NOT NULL COMMENT "Order ID",
    pay_dt date NOT NULL COMMENT "Payment date",
    customer_name varchar(26) NULL COMMENT "Customer name",
    nationality varchar(26) NULL COMMENT "Nationality",
    price double NULL COMMENT "Price")
ENGINE=OLAP DUPLICATE KEY (order_id, pay_dt) DISTRIBUTED BY HASH(order_id)"""

EXAMPLE_DESC = [
    ("order_id", "bigint", "NO", "true", None, ""),
    ("pay_dt", "date", "NO", "true", None, ""),
    ("customer_name", "varchar(26)", "YES", "false", None, ""),
    ("nationality", "varchar(26)", "YES", "false", None, ""),
    ("price", "double", "YES", "false", None, ""),
]

state: dict = {}


def shared(s):
    srv = state.get("server")
    if srv is None:
        srv = s.shared_server()
        state["server"] = srv
    if not srv.alive():
        raise AssertionError(f"the shared server died (exit {srv.proc.returncode}):\n{srv.log_tail(30)}")
    return srv


def norm_desc(rows):
    return [tuple(None if v is None or v == "NULL" else v for v in r) for r in rows]


@suite.test(timeout=60)
def test_example_session(s):
    srv = shared(s)
    conn = srv.connect()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE example_db")
    cur.execute("USE example_db")
    cur.execute(CREATE_EXAMPLE)
    eq(cur.execute("INSERT INTO example_tbl1 VALUES (2020050802, '2020-05-08', 'Johann Georg Faust', "
                   "'Deutschland', 895)"), 1, "affected rows of the INSERT")
    cur.execute("SELECT nationality, sum(price) FROM example_tbl1 GROUP BY 1")
    rows = cur.fetchall()
    eq(rows, (("Deutschland", 895.0),), "SELECT nationality, sum(price) ... GROUP BY 1")
    eq(cur.description[1][1], FIELD_TYPE.DOUBLE, "MySQL type of sum(price)")
    cur.execute("SHOW TABLES")
    eq([d[0] for d in cur.description], ["Tables_in_example_db"], "SHOW TABLES column name")
    eq(cur.fetchall(), (("example_tbl1",),), "SHOW TABLES")
    cur.execute("DESC example_tbl1")
    eq([d[0] for d in cur.description], ["Field", "Type", "Null", "Key", "Default", "Extra"], "DESC columns")
    eq(norm_desc(cur.fetchall()), EXAMPLE_DESC, "DESC example_tbl1")
    cur.execute("SHOW CREATE TABLE example_tbl1")
    eq([d[0] for d in cur.description], ["Table", "Create Table"], "SHOW CREATE TABLE columns")
    name, ddl = cur.fetchone()
    eq(name, "example_tbl1", "SHOW CREATE TABLE table name")
    flat = " ".join(ddl.replace("`", "").split())
    for part in ("CREATE TABLE", "order_id bigint", "NOT NULL", 'COMMENT "Order ID"', "pay_dt date",
                 "customer_name varchar(26)", "price double", "DUPLICATE KEY(order_id, pay_dt)",
                 "DISTRIBUTED BY HASH(order_id)"):
        contains(flat, part, "SHOW CREATE TABLE (backticks removed, whitespace collapsed)")
    # Python types of every column come from the MySQL column types the server sent
    cur.execute("SELECT * FROM example_tbl1")
    eq(cur.fetchall(), ((2020050802, datetime.date(2020, 5, 8), "Johann Georg Faust", "Deutschland", 895.0),),
       "SELECT * with Python types")
    eq([d[1] for d in cur.description],
       [FIELD_TYPE.LONGLONG, FIELD_TYPE.DATE, FIELD_TYPE.VAR_STRING, FIELD_TYPE.VAR_STRING, FIELD_TYPE.DOUBLE],
       "MySQL column types of SELECT *")
    conn.close()


@suite.test(timeout=60)
def test_value_types(s):
    srv = shared(s)
    conn = srv.connect()
    cur = conn.cursor()
    cur.execute("SELECT CAST(1 AS TINYINT), CAST(2 AS SMALLINT), CAST(3 AS INTEGER), CAST(4 AS BIGINT), "
                "CAST(1.5 AS FLOAT), CAST(2.25 AS DOUBLE), CAST(12.34 AS DECIMAL(10,2)), true, 'text', NULL, '', "
                "DATE '2024-02-29', TIMESTAMP '2024-02-29 13:14:15'")
    row = cur.fetchone()
    import decimal
    eq(row, (1, 2, 3, 4, 1.5, 2.25, decimal.Decimal("12.34"), 1, "text", None, "",
             datetime.date(2024, 2, 29), datetime.datetime(2024, 2, 29, 13, 14, 15)), "typed values")
    conn.close()


@suite.test(timeout=60)
def test_multi_statements(s):
    srv = shared(s)
    conn = srv.connect()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE multi; USE multi; CREATE TABLE m (id INT, s VARCHAR(10)); "
                "INSERT INTO m VALUES (1, 'a;b'), (2, 'c'); SELECT id, s FROM m ORDER BY id; SELECT count(*) FROM m")
    sets = []
    while True:
        if cur.description is not None:
            sets.append(cur.fetchall())
        if not cur.nextset():
            break
    eq(sets, [((1, "a;b"), (2, "c")), ((2,),)], "result sets of a multi-statement query")
    cur.execute("SELECT DATABASE()")
    eq(cur.fetchone()[0], "multi", "USE inside a multi-statement query keeps its effect")
    # an error in the middle stops the rest, and the connection stays usable
    cur.execute("SELECT 1; SELECT * FROM no_such_table; INSERT INTO m VALUES (3, 'never')")
    eq(cur.fetchall(), ((1,),), "first result before the failing statement")
    expect_mysql_error(lambda: cur.nextset(), 1146, what="second statement (unknown table)")
    cur = conn.cursor()
    cur.execute("SELECT count(*) FROM m")
    eq(cur.fetchone()[0], 2, "the statement after the failing one did not run")
    # without CLIENT_MULTI_STATEMENTS, two statements are a syntax error
    single = srv.connect(multi_statements=False)
    expect_mysql_error(lambda: single.cursor().execute("SELECT 1; SELECT 2"), 1064,
                       what="two statements without CLIENT_MULTI_STATEMENTS")
    single.close()
    conn.close()


@suite.test(timeout=180)
def test_50_concurrent_connections(s):
    srv = shared(s)
    setup = srv.connect()
    setup.cursor().execute("CREATE DATABASE conc")
    setup.cursor().execute("CREATE TABLE conc.shared_t (worker INT, i INT)")
    setup.close()
    n, per = 50, 20
    barrier = threading.Barrier(n, timeout=60)
    errors = []

    def worker(w):
        try:
            conn = srv.connect(database="conc", read_timeout=60)
            barrier.wait()  # all 50 are connected at the same time
            cur = conn.cursor()
            cur.execute(f"CREATE TABLE own_{w} (id INT, v VARCHAR(20))")
            for i in range(per):
                cur.execute(f"INSERT INTO own_{w} VALUES ({i}, 'w{w}')")
                cur.execute(f"INSERT INTO shared_t VALUES ({w}, {i})")
            cur.execute(f"SELECT count(*), sum(id) FROM own_{w}")
            got = cur.fetchone()
            if tuple(int(x) for x in got) != (per, per * (per - 1) // 2):
                errors.append(f"worker {w}: own table has {got}")
            barrier.wait()
            conn.close()
        except Exception as e:  # noqa: BLE001
            errors.append(f"worker {w}: {type(e).__name__}: {e}")
            barrier.abort()

    threads = [threading.Thread(target=worker, args=(w,), daemon=True) for w in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(150)
    check(not any(t.is_alive() for t in threads), "some workers did not finish in 150s")
    check(not errors, "errors in concurrent workers:\n" + "\n".join(errors[:10]))
    conn = srv.connect(database="conc")
    cur = conn.cursor()
    cur.execute("SELECT count(*), count(DISTINCT worker) FROM shared_t")
    eq(tuple(int(x) for x in cur.fetchone()), (n * per, n), "rows in the shared table")
    cur.execute("SHOW TABLES")
    eq(len(cur.fetchall()), n + 1, "tables in conc")
    conn.close()


@suite.test(timeout=60)
def test_password_auth(s):
    srv = s.server(root_password="Pa55-word!").start()
    conn = srv.connect(password="Pa55-word!")
    with conn.cursor() as cur:
        cur.execute("SELECT 1")
        eq(cur.fetchone(), (1,), "SELECT 1 with the right password")
    conn.close()
    code, msg = expect_mysql_error(lambda: srv.connect(password="wrong"), 1045, what="wrong password")
    contains(msg, "root", "access denied message")
    expect_mysql_error(lambda: srv.connect(password=""), 1045, what="no password")
    expect_mysql_error(lambda: srv.connect(password="Pa55-word"), 1045, what="a prefix of the password")
    expect_mysql_error(lambda: srv.connect(password="Pa55-word!", user="nobody"), 1045, what="unknown user")
    # a failed attempt does not disturb the next one
    conn = srv.connect(password="Pa55-word!")
    conn.close()
    eq(srv.stop(), 0, "exit code on SIGTERM")


@suite.test(timeout=60)
def test_init_db_ping_and_connect_with_database(s):
    srv = shared(s)
    conn = srv.connect()
    conn.cursor().execute("CREATE DATABASE IF NOT EXISTS initdb")
    conn.select_db("initdb")  # COM_INIT_DB
    cur = conn.cursor()
    cur.execute("SELECT DATABASE()")
    eq(cur.fetchone()[0], "initdb", "database after COM_INIT_DB")
    expect_mysql_error(lambda: conn.select_db("no_such_db"), 1049, what="COM_INIT_DB of an unknown database")
    cur.execute("SELECT DATABASE()")
    eq(cur.fetchone()[0], "initdb", "database after a failed COM_INIT_DB")
    conn.ping(reconnect=False)  # COM_PING
    conn.close()
    conn = srv.connect(database="initdb")
    cur = conn.cursor()
    cur.execute("SELECT DATABASE()")
    eq(cur.fetchone()[0], "initdb", "database named in the handshake")
    conn.close()
    expect_mysql_error(lambda: srv.connect(database="no_such_db"), 1049, what="handshake with an unknown database")


@suite.test(timeout=60)
def test_affected_rows(s):
    srv = shared(s)
    conn = srv.connect()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS aff")
    cur.execute("USE aff")
    cur.execute("CREATE TABLE a (id INT, v INT)")
    eq(cur.execute("INSERT INTO a VALUES (1, 1), (2, 2), (3, 3)"), 3, "INSERT 3 rows")
    eq(cur.execute("UPDATE a SET v = v + 10 WHERE id >= 2"), 2, "UPDATE 2 rows")
    eq(cur.execute("DELETE FROM a WHERE id = 1"), 1, "DELETE 1 row")
    eq(cur.execute("DELETE FROM a WHERE id = 99"), 0, "DELETE nothing")
    cur.execute("SELECT id, v FROM a ORDER BY id")
    eq(cur.fetchall(), ((2, 12), (3, 13)), "rows after UPDATE/DELETE")
    conn.close()


@suite.test(timeout=60)
def test_transactions(s):
    srv = shared(s)
    conn = srv.connect()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS tx")
    cur.execute("USE tx")
    cur.execute("CREATE TABLE t (id INT)")
    other = srv.connect(database="tx")
    ocur = other.cursor()
    cur.execute("BEGIN")
    cur.execute("INSERT INTO t VALUES (1)")
    ocur.execute("SELECT count(*) FROM t")
    eq(ocur.fetchone()[0], 0, "another connection must not see uncommitted rows")
    cur.execute("ROLLBACK")
    cur.execute("SELECT count(*) FROM t")
    eq(cur.fetchone()[0], 0, "rows after ROLLBACK")
    cur.execute("BEGIN")
    cur.execute("INSERT INTO t VALUES (2)")
    cur.execute("COMMIT")
    ocur.execute("SELECT count(*) FROM t")
    eq(ocur.fetchone()[0], 1, "rows seen by another connection after COMMIT")
    other.close()
    conn.close()


@suite.test(timeout=60)
def test_pymysql_default_autocommit_off(s):
    """pymysql's default (autocommit=False sends SET AUTOCOMMIT = 0): commit() publishes, rollback() discards."""
    srv = shared(s)
    conn = srv.connect(autocommit=False)
    cur = conn.cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS ac")
    cur.execute("CREATE TABLE IF NOT EXISTS ac.t (id INT)")
    conn.commit()
    cur.execute("INSERT INTO ac.t VALUES (1)")
    conn.commit()
    cur.execute("INSERT INTO ac.t VALUES (2)")
    conn.rollback()
    other = srv.connect()
    ocur = other.cursor()
    ocur.execute("SELECT id FROM ac.t ORDER BY id")
    eq(ocur.fetchall(), ((1,),), "committed rows seen from another connection (the rolled back row must be gone)")
    other.close()
    conn.close()


def _parse_time(v):
    if isinstance(v, datetime.datetime):
        return v
    return datetime.datetime.fromisoformat(str(v).replace("T", " ").split(".")[0])


@suite.test(timeout=60)
def test_undrop_retention_deadlines(s):
    """SHOW TABLES HISTORY: the default deadline is one day after the drop; a table created with
    PROPERTIES ("undrop_retention_seconds" = "3600") gets one hour (the property name is the catalog's choice; see
    tests/README.md)."""
    srv = shared(s)
    conn = srv.connect()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE hist")
    cur.execute("USE hist")
    cur.execute("CREATE TABLE d1 (id INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id)")
    cur.execute('CREATE TABLE d2 (id INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) '
                'PROPERTIES ("undrop_retention_seconds" = "3600")')
    before = datetime.datetime.now()
    cur.execute("DROP TABLE d1")
    cur.execute("DROP TABLE d2")
    cur.execute("SHOW TABLES HISTORY")
    eq([d[0] for d in cur.description], ["Table", "DropTime", "RestoreDeadline"], "SHOW TABLES HISTORY columns")
    rows = {r[0]: (_parse_time(r[1]), _parse_time(r[2])) for r in cur.fetchall()}
    eq(sorted(rows), ["d1", "d2"], "tables in history")
    drop1, dl1 = rows["d1"]
    check(abs((drop1 - before).total_seconds()) < 120,
          f"DropTime {drop1} should be the local time of the drop (~{before})")
    eq(round((dl1 - drop1).total_seconds()), 86400, "default retention (RestoreDeadline - DropTime) in seconds")
    drop2, dl2 = rows["d2"]
    eq(round((dl2 - drop2).total_seconds()), 3600, "retention of a table with undrop_retention = 3600")
    conn.close()


ROUND_TRIP_TABLES = {
    "rt_example": CREATE_EXAMPLE.replace("example_tbl1", "rt_example"),
    "rt_agg": """CREATE TABLE rt_agg (site_id int NOT NULL COMMENT "site", dt date NOT NULL,
        pv bigint SUM DEFAULT "0" COMMENT "page views", ip varchar(20) REPLACE, mx int MAX, mn int MIN NOT NULL,
        note varchar(10) REPLACE_IF_NOT_NULL) ENGINE=OLAP AGGREGATE KEY(site_id, dt)
        PARTITION BY RANGE(dt) (PARTITION p1 VALUES LESS THAN ("2020-01-31"))
        DISTRIBUTED BY HASH(site_id) BUCKETS 8 PROPERTIES ("replication_num" = "1")""",
    "rt_pk": """CREATE TABLE rt_pk (id bigint NOT NULL, region varchar(10) NOT NULL, balance decimal(18, 4),
        at datetime) PRIMARY KEY(id, region) COMMENT "pk table" DISTRIBUTED BY HASH(id) BUCKETS 4""",
    "rt_types": """CREATE TABLE rt_types (k largeint NOT NULL, a smallint, b tinyint, c float, d boolean,
        e char(3), f string, g json, h array<int>, i map<varchar(10), int>, j struct<x int, y varchar(20)>,
        l array<array<double>>) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k)""",
    "rt_lake": """CREATE TABLE rt_lake (id INT PRIMARY KEY, s STRING COMMENT 'text', ts TIMESTAMP,
        tags ARRAY<STRING>, p STRUCT<x: DOUBLE, y: DOUBLE>) COMMENT 'lake'""",
}


@suite.test(timeout=60)
def test_show_create_table_round_trip(s):
    """What SHOW CREATE TABLE prints creates the same table again (same DESC, same SHOW CREATE TABLE)."""
    srv = shared(s)
    conn = srv.connect()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE rt")
    cur.execute("USE rt")
    c = Collector()
    for name, ddl in ROUND_TRIP_TABLES.items():
        try:
            cur.execute(ddl)
        except pymysql.MySQLError as e:
            c.check(False, f"{name}: the original CREATE TABLE failed: {e}")
            continue
        cur.execute(f"DESC {name}")
        desc1 = cur.fetchall()
        cur.execute(f"SHOW CREATE TABLE {name}")
        show1 = cur.fetchone()[1]
        cur.execute(f"DROP TABLE {name} FORCE")
        try:
            cur.execute(show1)
        except pymysql.MySQLError as e:
            c.check(False, f"{name}: re-running SHOW CREATE TABLE's output failed: {e}\n{show1}")
            continue
        cur.execute(f"DESC {name}")
        c.eq(cur.fetchall(), desc1, f"{name}: DESC after the round trip")
        cur.execute(f"SHOW CREATE TABLE {name}")
        c.eq(cur.fetchone()[1], show1, f"{name}: SHOW CREATE TABLE after the round trip")
    conn.close()
    c.done()


@suite.test(timeout=60)
def test_shared_server_shuts_down_cleanly(s):
    srv = shared(s)
    eq(srv.stop(), 0, "exit code of the shared server on SIGTERM")


if __name__ == "__main__":
    sys.exit(suite.run())
