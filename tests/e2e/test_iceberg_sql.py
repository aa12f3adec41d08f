"""Iceberg tables from SQL at the front door (issue 16, parts 1 and 2), against PostgreSQL 15 (the JDBC catalog),
s3rver (the files) and npm's icebird (a reader Sluice did not write):
- CREATE EXTERNAL CATALOG over the MySQL protocol, SHOW CATALOGS, SHOW CREATE CATALOG without the secret key;
- CREATE DATABASE lake.db, SHOW DATABASES FROM lake, CREATE TABLE lake.db.events ... PARTITION BY (day(ts)),
  SHOW TABLES FROM, DESC, SHOW CREATE TABLE;
- two INSERT statements (SELECT from a Sluice table, and VALUES): two snapshots, one data file per day;
- SELECT through Sluice gives exact counts and sums (also with an alias, a WHERE, a join to a Sluice table);
- icebird reads the same rows from the metadata location PostgreSQL holds;
- what is refused (a NULL in a NOT NULL column, UPDATE, a user without INSERT), and DROP TABLE;
- GRANT / REVOKE on one Iceberg table, on catalog.db.* and on DATABASE catalog.db: SHOW GRANTS shows them, a user
  reads and writes exactly the tables granted, and grants on catalogs, databases or tables that do not exist are
  refused.
"""
from __future__ import annotations

import os
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import TestSuite, check, eq  # noqa: E402
from iceberg_harness import error_of, icebird, q  # noqa: E402
from pg_harness import Postgres  # noqa: E402
from s3_harness import ACCESS_ID, S3rver  # noqa: E402

suite = TestSuite("test_iceberg_sql")
HERE = os.path.dirname(os.path.abspath(__file__))
BUCKET = "lake"
SECRET = "S3RVER"  # s3rver accepts only its own key pair


@suite.test(timeout=400)
def catalog_database_table_insert_select(t):
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        server = suite.server().start()
        con = server.connect()
        cur = con.cursor()
        cur.execute(f"""CREATE EXTERNAL CATALOG lake COMMENT 'the lake' PROPERTIES (
            "type" = "iceberg", "iceberg.catalog.type" = "jdbc", "iceberg.catalog.uri" = "{pg.uri}",
            "iceberg.catalog.warehouse" = "s3://{BUCKET}/wh", "aws.s3.endpoint" = "{s3.endpoint}",
            "aws.s3.access_key" = "{ACCESS_ID}", "aws.s3.secret_key" = "{SECRET}",
            "aws.s3.enable_path_style_access" = "true")""")
        eq(q(cur, "SHOW CATALOGS")[1], ("lake", "Iceberg", "the lake"), "SHOW CATALOGS")
        create_catalog = q(cur, "SHOW CREATE CATALOG lake")[0][1]
        check('"aws.s3.secret_key" = "******"' in create_catalog, f"the secret key is masked: {create_catalog}")
        check(f'"aws.s3.endpoint" = "{s3.endpoint}"' in create_catalog, "the endpoint is shown")

        cur.execute("CREATE DATABASE lake.db")
        eq(q(cur, "SHOW DATABASES FROM lake"), [("db",)], "SHOW DATABASES FROM lake")
        check("database exists" in error_of(cur, "CREATE DATABASE lake.db"), "CREATE DATABASE twice")
        cur.execute("CREATE DATABASE IF NOT EXISTS lake.db")
        cur.execute("CREATE TABLE lake.db.events (id BIGINT NOT NULL, name VARCHAR(64), ts DATETIME, "
                    "amount DECIMAL(10,2) COMMENT 'euros') PARTITION BY (day(ts))")
        eq(q(cur, "SHOW TABLES FROM lake.db"), [("events",)], "SHOW TABLES FROM lake.db")
        eq([r[:3] for r in q(cur, "DESC lake.db.events")],
           [("id", "bigint", "NO"), ("name", "varchar", "YES"), ("ts", "datetime", "YES"),
            ("amount", "decimal(10,2)", "YES")], "DESC lake.db.events")
        eq(q(cur, "DESC lake.db.events")[2][5], "partition: day", "DESC shows the partition transform")
        create_table = q(cur, "SHOW CREATE TABLE lake.db.events")[0][1]
        check("PARTITION BY (day(ts))" in create_table and f"s3://{BUCKET}/wh/db/events" in create_table,
              f"SHOW CREATE TABLE: {create_table}")
        # Iceberg's JDBC layout, as any engine's JdbcCatalog reads it, under the catalog's name
        eq(pg.psql("SELECT catalog_name, table_namespace, table_name FROM iceberg_tables"),
           [["lake", "db", "events"]], "iceberg_tables")

        # an empty table reads as no rows
        eq(q(cur, "SELECT count(*) FROM lake.db.events"), [(0,)], "empty table")

        # first INSERT: from a Sluice table, over three days (30 minutes apart)
        cur.execute("CREATE DATABASE shop")
        cur.execute("CREATE TABLE shop.src (id BIGINT, name VARCHAR(64), ts DATETIME, amount DECIMAL(10,2))")
        cur.execute("INSERT INTO shop.src SELECT range, 'name-' || range, TIMESTAMP '2024-05-01 00:00:00' + "
                    "to_minutes(range * 30), range * 1.25 FROM range(100)")
        eq(cur.execute("INSERT INTO lake.db.events SELECT id, name, ts, amount FROM shop.src"), 100,
           "rows of the first INSERT")
        # second INSERT: VALUES with a column list, a third day, a NULL name
        eq(cur.execute("INSERT INTO lake.db.events (id, ts, amount) VALUES (1000, '2024-05-03 10:00:00', 2.50), "
                       "(1001, '2024-05-03 11:00:00', 3.50)"), 2, "rows of the second INSERT")

        eq(q(cur, "SELECT count(*), count(DISTINCT id), sum(id), sum(amount), count(name) FROM lake.db.events"),
           [(102, 102, Decimal(4950 + 2001), Decimal("6187.50") + Decimal("6.00"), 100)],
           "count, distinct, sums through Sluice")
        eq(q(cur, "SELECT e.name, e.amount FROM lake.db.events AS e WHERE e.id = 7"),
           [("name-7", Decimal("8.75"))], "an alias and a WHERE")
        eq(q(cur, "SELECT CAST(ts AS DATE) AS d, count(*) FROM lake.db.events GROUP BY d ORDER BY d"),
           [(__import__("datetime").date(2024, 5, 1), 48), (__import__("datetime").date(2024, 5, 2), 48),
            (__import__("datetime").date(2024, 5, 3), 6)], "rows per day")
        eq(q(cur, "SELECT count(*) FROM lake.db.events e JOIN shop.src s ON s.id = e.id"), [(100,)],
           "a join with a Sluice table")
        cur.execute("USE shop")
        eq(q(cur, "SELECT count(*) FROM lake.db.events events WHERE amount > 100"), [(19,)],
           "from another database, alias named like the table")
        # an Iceberg table can be copied into a Sluice table
        cur.execute("CREATE TABLE shop.copy (id BIGINT)")
        eq(cur.execute("INSERT INTO shop.copy SELECT id FROM lake.db.events"), 102, "INSERT INTO a Sluice table")

        # the same rows through icebird, from the metadata PostgreSQL points at
        metadata = pg.psql("SELECT metadata_location FROM iceberg_tables WHERE table_name = 'events'")[0][0]
        got = icebird(s3, f"s3://{BUCKET}/wh/db/events", metadata)
        ids = sorted(int(r["id"]) for r in got["rows"])
        eq(ids, list(range(100)) + [1000, 1001], "icebird reads exactly the inserted ids")
        eq(sum(Decimal(str(r["amount"])) for r in got["rows"]), Decimal("6193.50"), "icebird's sum of amount")
        eq(got["snapshots"], 2, "one snapshot per INSERT")
        eq(got["summary"]["total-records"], "102", "total-records")
        eq(got["summary"]["added-records"], "2", "added-records of the second INSERT")
        files = [f for m in got["manifests"] for f in m["files"]]
        eq(sorted(int(f["records"]) for f in files), [2, 4, 48, 48], "one data file per day and INSERT")
        check(all("/data/ts_day=2024-05-0" in f["path"] for f in files), "files laid out by partition")

        # refused, with what to do
        check("NOT NULL" in error_of(cur, "INSERT INTO lake.db.events (name) VALUES ('x')"), "NOT NULL column")
        check("NOT NULL" in error_of(cur, "INSERT INTO lake.db.events VALUES (NULL, 'x', NULL, 1)"), "NULL value")
        check("not supported yet" in error_of(cur, "UPDATE lake.db.events SET name = 'y'"), "UPDATE")
        check("Unknown table" in error_of(cur, "SELECT * FROM lake.db.nope"), "unknown table")
        check("2 column(s) for 4 target column(s)" in error_of(cur, "INSERT INTO lake.db.events VALUES (1, 'x')"), "column count")
        eq(q(cur, "SELECT count(*) FROM lake.db.events"), [(102,)], "nothing committed by refused statements")

        # privileges by name: SELECT granted, INSERT not
        cur.execute("CREATE USER reader IDENTIFIED BY 'pw'")
        cur.execute("GRANT SELECT ON ALL TABLES IN DATABASE lake.db TO USER reader")
        rcon = server.connect(user="reader", password="pw")
        rcur = rcon.cursor()
        eq(q(rcur, "SELECT count(*) FROM lake.db.events"), [(102,)], "a reader with SELECT reads")
        check("INSERT" in error_of(rcur, "INSERT INTO lake.db.events VALUES (5000, 'x', NULL, 1)"),
              "a reader cannot INSERT")
        check("CREATE EXTERNAL CATALOG" in error_of(rcur, "CREATE DATABASE lake.other"), "nor create databases")
        rcon.close()

        cur.execute("DROP TABLE lake.db.events")
        eq(q(cur, "SHOW TABLES FROM lake.db"), [], "dropped")
        cur.execute("DROP DATABASE lake.db")
        eq(q(cur, "SHOW DATABASES FROM lake"), [], "database dropped")
        cur.execute("DROP CATALOG lake")
        eq(len(q(cur, "SHOW CATALOGS")), 1, "catalog dropped")
        con.close()


@suite.test(timeout=400)
def grants_on_iceberg_tables(t):
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        server = suite.server().start()
        con = server.connect()
        cur = con.cursor()
        cur.execute(f"""CREATE EXTERNAL CATALOG lake PROPERTIES (
            "type" = "iceberg", "iceberg.catalog.type" = "jdbc", "iceberg.catalog.uri" = "{pg.uri}",
            "iceberg.catalog.warehouse" = "s3://{BUCKET}/wh", "aws.s3.endpoint" = "{s3.endpoint}",
            "aws.s3.access_key" = "{ACCESS_ID}", "aws.s3.secret_key" = "{SECRET}")""")
        cur.execute("CREATE DATABASE lake.db")
        cur.execute("CREATE TABLE lake.db.a (id BIGINT)")
        cur.execute("CREATE TABLE lake.db.b (id BIGINT)")
        cur.execute("INSERT INTO lake.db.a VALUES (1), (2)")
        cur.execute("INSERT INTO lake.db.b VALUES (3)")
        cur.execute("CREATE USER u IDENTIFIED BY 'pw'")
        cur.execute("CREATE USER v IDENTIFIED BY 'pw'")

        # what does not exist is refused at GRANT time, saying what is missing
        check("Unknown catalog 'nocat'" in error_of(cur, "GRANT SELECT ON TABLE nocat.db.a TO USER u"),
              "unknown catalog")
        check("Unknown catalog 'nocat'" in error_of(cur, "GRANT SELECT ON nocat.db.* TO 'u'@'%'"),
              "unknown catalog, MySQL form")
        check("Unknown database 'lake.nodb'" in error_of(cur, "GRANT SELECT ON TABLE lake.nodb.a TO USER u"),
              "unknown namespace")
        check("Unknown database 'lake.nodb'" in error_of(cur, "GRANT SELECT ON ALL TABLES IN DATABASE lake.nodb "
                                                              "TO USER u"), "unknown namespace, ALL TABLES")
        check("Unknown database 'lake.nodb'" in error_of(cur, "GRANT CREATE TABLE ON DATABASE lake.nodb TO USER u"),
              "unknown namespace, DATABASE")
        check("Table 'lake.db.nope' doesn't exist" in error_of(cur, "GRANT SELECT ON TABLE lake.db.nope TO USER u"),
              "unknown table")

        # one table: SELECT and INSERT on lake.db.a, nothing on lake.db.b
        cur.execute("GRANT SELECT, INSERT ON TABLE lake.db.a TO USER u")
        grants = " ".join(str(r) for r in q(cur, "SHOW GRANTS FOR u"))
        check("ON TABLE lake.db.a" in grants and "SELECT" in grants and "INSERT" in grants,
              f"SHOW GRANTS shows the table grant: {grants}")
        ucon = server.connect(user="u", password="pw")
        ucur = ucon.cursor()
        eq(q(ucur, "SELECT count(*) FROM lake.db.a"), [(2,)], "u reads the granted table")
        denied = error_of(ucur, "SELECT count(*) FROM lake.db.b")
        check("SELECT" in denied and "lake.db.b" in denied, f"u cannot read another table: {denied}")
        eq(ucur.execute("INSERT INTO lake.db.a VALUES (10)"), 1, "u inserts into the granted table")
        check("INSERT" in error_of(ucur, "INSERT INTO lake.db.b VALUES (11)"), "u cannot insert into another")
        check("SELECT" in error_of(ucur, "INSERT INTO lake.db.a SELECT id FROM lake.db.b"),
              "nor copy another table's rows into the granted one")
        eq(q(ucur, "SHOW TABLES FROM lake.db"), [("a",)], "SHOW TABLES lists what u may see")

        # REVOKE takes effect at once, and only the privilege revoked goes
        cur.execute("REVOKE INSERT ON TABLE lake.db.a FROM USER u")
        check("INSERT" in error_of(ucur, "INSERT INTO lake.db.a VALUES (12)"), "INSERT revoked")
        eq(q(ucur, "SELECT count(*) FROM lake.db.a"), [(3,)], "SELECT kept")
        cur.execute("REVOKE SELECT ON TABLE lake.db.a FROM USER u")
        check("SELECT" in error_of(ucur, "SELECT count(*) FROM lake.db.a"), "SELECT revoked")
        check("lake.db.a" not in " ".join(str(r) for r in q(cur, "SHOW GRANTS FOR u")), "SHOW GRANTS after REVOKE")
        ucon.close()

        # the whole database: catalog.db.* (MySQL form) and DATABASE catalog.db
        cur.execute("GRANT SELECT ON lake.db.* TO 'v'@'%'")
        cur.execute("GRANT CREATE TABLE ON DATABASE lake.db TO USER v")
        grants = " ".join(str(r) for r in q(cur, "SHOW GRANTS FOR 'v'@'%'"))
        check("ALL TABLES IN DATABASE lake.db" in grants and "DATABASE lake.db" in grants,
              f"SHOW GRANTS shows the database grants: {grants}")
        vcon = server.connect(user="v", password="pw")
        vcur = vcon.cursor()
        eq(q(vcur, "SELECT (SELECT count(*) FROM lake.db.a) + (SELECT count(*) FROM lake.db.b)"), [(4,)],
           "v reads every table of lake.db")
        check("INSERT" in error_of(vcur, "INSERT INTO lake.db.b VALUES (13)"), "v has no INSERT")
        vcur.execute("CREATE TABLE lake.db.c (id BIGINT)")
        eq(q(cur, "SHOW TABLES FROM lake.db"), [("a",), ("b",), ("c",)], "v created a table")
        cur.execute("REVOKE SELECT ON lake.db.* FROM 'v'@'%'")
        check("SELECT" in error_of(vcur, "SELECT count(*) FROM lake.db.b"), "SELECT on lake.db.* revoked")
        vcon.close()

        # a grant on a table another engine dropped can still be revoked
        cur.execute("GRANT SELECT ON TABLE lake.db.c TO USER u")
        cur.execute("DROP TABLE lake.db.c")
        cur.execute("REVOKE SELECT ON TABLE lake.db.c FROM USER u")
        check("lake.db.c" not in " ".join(str(r) for r in q(cur, "SHOW GRANTS FOR u")), "revoked after the drop")
        con.close()


if __name__ == "__main__":
    sys.exit(suite.run())
