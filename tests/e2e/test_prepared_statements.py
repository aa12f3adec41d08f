#!/usr/bin/python3
"""Prepared statements and driver connect-time SQL with real clients (issue 13): Node mysql2's execute() and
MariaDB Connector/J (Debian's libmariadb-java, Java 17) with a plain URL and with useServerPrepStmts=true, each with
its default settings. The binary protocol's parameter types and result rows, `?` in strings, injection through a
parameter, Sluice's own statements prepared, errors; SET with expressions and user variables (what Connector/J
sends on connect).

    /usr/bin/python3 tests/e2e/test_prepared_statements.py --server build/sluice
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Collector, TestSuite  # noqa: E402

suite = TestSuite("test_prepared_statements")
CLIENTS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients"))
JDBC_JAR = "/usr/share/java/mariadb-java-client.jar"


def run(cmd: list[str], timeout: float = 180) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=CLIENTS)
    if r.returncode != 0:
        raise AssertionError(f"{cmd[0]} failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r.stdout


@suite.test(timeout=120)
def test_mysql2_execute_every_parameter_type(s):
    if not os.path.exists(os.path.join(CLIENTS, "node_modules", "mysql2")):
        raise AssertionError("mysql2 is not installed in tests/clients: run scripts/setup.sh")
    srv = s.server(extra_args=["--log-level", "debug"]).start()
    lines = [json.loads(line) for line in run(["node", "mysql2_execute.js", str(srv.mysql_port)]).splitlines()]
    got = {x["name"]: x["value"] for x in lines}
    c = Collector()
    c.check("fatal" not in got, f"the client script ran through: {got.get('fatal')}")
    c.eq(got.get("insert_affected"), 1, "INSERT through execute() reports one row")
    c.eq(got.get("row"), {
        "id": 1, "tiny": -5, "small": 300, "big": "9007199254740992", "dbl": 2.5, "dec": "12.345",
        "s": "it's a \\ \"test\" 文", "d": "2024-05-01T00:00:00.000Z", "ts": "2024-05-01T10:20:30.123Z", "b": 1,
        "j": {"a": [1, 2]}}, "every type back in binary rows (mysql2 reads BIGINT as a JS number)")
    c.eq(got.get("big_exact"), "9007199254740993", "a 64-bit parameter is stored exactly")
    c.eq(got.get("nulls"), [{"id": 2, "s": None, "tiny": None}], "NULL parameters and NULL columns")
    c.eq(got.get("count"), 2, "count(*) with two parameters")
    c.eq(got.get("again"), [2], "the cached statement runs again with new values")
    c.eq(got.get("literal_marker"), {"q": "?", "p": "x"}, "a ? inside a string is not a parameter")
    c.eq(got.get("injection"), 0, "a parameter is a value, never SQL")
    # MYSQL_TYPE_LONG 3, VAR_STRING 253, DATE 10: announced by COM_STMT_PREPARE, before any execute
    c.eq(got.get("prepared_columns"), [["id", 3], ["name", 253], ["d", 10]],
         "prepare() gets the result columns from the server")
    c.eq(got.get("prepared_rows"), [[1, "it's a \\ \"test\" 文"]], "the prepared statement then executes")
    c.eq(got.get("unprivileged_prepare"), [1142, "42000"], "prepare() of a table the account may not read: 1142")
    c.eq(got.get("unprivileged_prepare_insert"), [1142, "42000"], "prepare() of a write it may not do: 1142")
    c.eq(got.get("unprivileged_execute"), 1142, "execute() is refused with MySQL's 1142 too")
    c.eq(got.get("prepare_unknown_table"), [1146, "42S02"], "prepare() of an unknown table: 1146")
    c.eq(got.get("prepare_unknown_column"), [1054, "42S22"], "prepare() of an unknown column: 1054")
    c.eq(got.get("prepare_unknown_column_in_write"), [1054, "42S22"], "prepare() of an UPDATE of an unknown column")
    c.eq(got.get("prepare_insert_unknown_table"), [1146, "42S02"], "prepare() of an INSERT into an unknown table")
    c.eq(got.get("prepare_value_dependent"), None, "a prepare whose errors depend on the values succeeds")
    c.eq(got.get("after_refused_prepare"), [1], "the connection goes on after a refused prepare")
    c.eq(got.get("show_tables"), ["typed"], "Sluice's own statements can be prepared")
    c.eq(got.get("error"), 1146, "an unknown table is MySQL's 1146")
    log = srv.log_text()
    c.check("prepare: SELECT * FROM typed WHERE id = ?" in log, "the server saw COM_STMT_PREPARE")
    c.done()


@suite.test(timeout=240)
def test_jdbc_with_and_without_server_prepared_statements(s):
    if not os.path.exists(JDBC_JAR) or shutil.which("java") is None:
        raise AssertionError(f"JDBC needs {JDBC_JAR} and java: run scripts/setup.sh")
    srv = s.server(extra_args=["--log-level", "debug"]).start()
    out = run(["java", "-cp", JDBC_JAR, "JdbcClient.java", str(srv.mysql_port)])
    got = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    rows = ("2|9000000000000000002|0.5|1234.52|it's \\ row 2|2024-05-02|2024-05-01 10:20:30.25|false;"
            "3|9000000000000000003|0.75|1234.53|null|2024-05-03|2024-05-01 10:20:30.25|true;")
    c = Collector()
    for mode in ("plain", "server"):
        c.eq(got.get(f"{mode}.rows"), rows, f"{mode}: every value round-trips")
        c.eq(got.get(f"{mode}.injection"), "0", f"{mode}: a parameter is a value")
        c.eq(got.get(f"{mode}.error"), "1146", f"{mode}: errors keep their MySQL number")
        c.eq(got.get(f"{mode}.unknown_column"), "1054", f"{mode}: an unknown column is 1054")
        # VARCHAR(64) is VARCHAR with precision 64 in the column definitions, at prepare and after; an expression
        # is unbounded text
        c.eq(got.get(f"{mode}.varchar_before_execute"), "s:VARCHAR:64,id:INTEGER:11",
             f"{mode}: a VARCHAR(64) column's length at prepare")
        c.eq(got.get(f"{mode}.varchar_after_execute"), "s:VARCHAR:64,id:INTEGER:11",
             f"{mode}: a VARCHAR(64) column's length after executeQuery()")
        c.eq(got.get(f"{mode}.varchar_text_query"), "s:VARCHAR:64,u:TEXT:65535",
             f"{mode}: a text query's VARCHAR(64) column, and an expression")
        # Connector/J asks the server (COM_STMT_PREPARE) in both modes; the prepare's columns are the execute's.
        c.eq(got.get(f"{mode}.metadata_before_execute"), "id:INTEGER,name:TEXT,d:DATE,dec:DECIMAL,n:BIGINT",
             f"{mode}: getMetaData() before executeQuery() has the columns")
        c.eq(got.get(f"{mode}.metadata_after_execute"), got.get(f"{mode}.metadata_before_execute"),
             f"{mode}: the same columns after executeQuery()")
    log = srv.log_text()
    c.check("prepare: INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)" in log,
            "useServerPrepStmts=true used COM_STMT_PREPARE")
    c.check("STRICT_TRANS_TABLES" in log or "sql_mode" in log, "Connector/J's connect-time SET ran")
    # The server-side prepare of an unknown table is refused at COM_STMT_PREPARE, as MySQL refuses it (Connector/J
    # then falls back to a client-side statement, whose execute reports the same error).
    c.check("prepare refused: SELECT * FROM missing_table WHERE id = ?: Table" in log,
            "useServerPrepStmts=true: the prepare of an unknown table got the ERR")
    c.done()


@suite.test(timeout=60)
def test_mysqldb_with_its_defaults(s):
    import MySQLdb  # Debian's python3-mysqldb (mysqlclient): parameters are bound in the client
    srv = s.server().start()
    conn = MySQLdb.connect(host="127.0.0.1", port=srv.mysql_port, user="root", passwd="")
    cur = conn.cursor()
    cur.execute("CREATE DATABASE m")
    cur.execute("USE m")
    cur.execute("CREATE TABLE t (id int, s varchar(20), d date)")
    cur.executemany("INSERT INTO t VALUES (%s, %s, %s)", [(1, "it's", "2024-05-01"), (2, None, None)])
    conn.commit()
    cur.execute("SELECT id, s, d FROM t WHERE id >= %s ORDER BY id", (1,))
    rows = cur.fetchall()
    c = Collector()
    c.eq([(r[0], r[1], str(r[2]) if r[2] else None) for r in rows], [(1, "it's", "2024-05-01"), (2, None, None)],
         "rows and types through MySQLdb")
    # the column definitions carry VARCHAR(20)'s length (20 characters of utf8mb4: 80 bytes), as MySQL's do
    c.eq([(d[0], d[3]) for d in cur.description][:2], [("id", 11), ("s", 80)], "column lengths through MySQLdb")
    conn.close()
    c.done()


@suite.test(timeout=60)
def test_set_expressions_and_user_variables(s):
    srv = s.server().start()
    conn = srv.connect()
    c = Collector()
    with conn.cursor() as cur:
        cur.execute("SET @a = 1, @b = 'x''y', @c := @a + 41")
        cur.execute("SELECT @a, @b, @c, @never_set")
        c.eq(cur.fetchone(), (1, "x'y", 42, None), "user variables keep their type; an unset one is NULL")
        cur.execute("SET sql_mode = concat(@@sql_mode, ',STRICT_TRANS_TABLES')")
        cur.execute("SELECT @@sql_mode")
        c.check(cur.fetchone()[0].endswith(",STRICT_TRANS_TABLES"), "SET with an expression over @@sql_mode")
        cur.execute("SET @n = (SELECT 5 * 2)")
        cur.execute("SELECT @n + 1")
        c.eq(cur.fetchone()[0], 11, "a subquery's value")
        try:
            cur.execute("SET @x = (SELECT * FROM read_csv('/etc/passwd'))")
            c.check(False, "SET must not reach files")
        except Exception as e:  # the sandbox refuses it as it refuses the SELECT
            c.check("read_csv" in str(e) or "1227" in str(e) or "1142" in str(e), f"refused by the sandbox: {e}")
    c.done()


if __name__ == "__main__":
    sys.exit(suite.run())
