#!/usr/bin/python3
"""JDBC DatabaseMetaData over Sluice (issue 13): MariaDB Connector/J 2.7 (Debian's libmariadb-java, Java 17)
answers getCatalogs, getSchemas, getTables, getColumns, getPrimaryKeys and getIndexInfo with queries over
information_schema and SHOW; each must return the user's objects -- never Sluice's or DuckDB's internal schemas --
and only those a restricted user may see.

    /usr/bin/python3 tests/e2e/test_jdbc_metadata.py --server build/sluice
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Collector, TestSuite  # noqa: E402

suite = TestSuite("test_jdbc_metadata")
CLIENTS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients"))
JDBC_JAR = "/usr/share/java/mariadb-java-client.jar"


def metadata(port: int, *login: str) -> dict[str, str]:
    r = subprocess.run(["java", "-cp", JDBC_JAR, "JdbcMetadata.java", str(port), *login], capture_output=True,
                       text=True, timeout=180, cwd=CLIENTS)
    if r.returncode != 0:
        raise AssertionError(f"JdbcMetadata failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)


@suite.test(timeout=300)
def test_database_metadata_lists_user_objects(s):
    if not os.path.exists(JDBC_JAR) or shutil.which("java") is None:
        raise AssertionError(f"JDBC needs {JDBC_JAR} and java: run scripts/setup.sh")
    srv = s.server().start()
    conn = srv.connect()
    with conn.cursor() as cur:
        for sql in [
            "CREATE DATABASE jdbc_meta",
            "CREATE DATABASE other_db",
            "CREATE TABLE jdbc_meta.orders (id BIGINT NOT NULL COMMENT 'order id', name VARCHAR(26), "
            "amount DECIMAL(10,2), ts DATETIME) PRIMARY KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 "
            "COMMENT 'the orders'",
            "CREATE VIEW jdbc_meta.v AS SELECT id FROM jdbc_meta.orders",
            "CREATE TABLE other_db.secret (a INT) DUPLICATE KEY(a) DISTRIBUTED BY HASH(a) BUCKETS 1",
            "CREATE USER 'reader'@'%' IDENTIFIED BY 'pw'",
            "GRANT SELECT ON TABLE jdbc_meta.orders TO USER 'reader'@'%'",
        ]:
            cur.execute(sql)
    c = Collector()
    got = metadata(srv.mysql_port)
    c.eq(got.get("catalogs"), "jdbc_meta;other_db;", "getCatalogs: the user databases, each once, nothing internal")
    c.eq(got.get("schemas"), "", "getSchemas: MySQL has catalogs, no schemas")
    c.eq(got.get("tables"), "jdbc_meta|orders|TABLE|the orders;jdbc_meta|v|VIEW|VIEW;", "getTables")
    c.eq(got.get("columns"),
         "id|-5|BIGINT|19|0|0|order id|1|NO;name|12|VARCHAR|26|null|1||2|YES;"
         "amount|3|DECIMAL|10|2|1||3|YES;ts|93|DATETIME|19|null|1||4|YES;",
         "getColumns: JDBC types, sizes, nullability and comments from the types as written")
    c.eq(got.get("primary_keys"), "orders|id|1;", "getPrimaryKeys: the key model's key")
    c.eq(got.get("index_info"), "orders|0|PRIMARY|1|id;", "getIndexInfo: the key as a unique index")
    # a null catalog means the connection's database (Connector/J's nullCatalogMeansCurrent default)
    c.eq(got.get("all_tables"), "jdbc_meta|orders;jdbc_meta|v;", "getTables with no catalog")
    reader = metadata(srv.mysql_port, "reader", "pw")
    c.eq(reader.get("catalogs"), "jdbc_meta;", "a restricted user sees only the databases it has grants in")
    c.eq(reader.get("all_tables"), "jdbc_meta|orders;", "... and only the tables it may read")
    c.eq(reader.get("columns"), got.get("columns"), "... with the same columns")
    c.done()


if __name__ == "__main__":
    sys.exit(suite.run())
