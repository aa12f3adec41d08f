#!/usr/bin/python3
"""Iceberg tables in a REST catalog (issue 16, part 1), against a REST catalog fixture of the test's own
(rest_catalog_fixture.py: it enforces commit requirements and writes metadata.json into s3rver), s3rver (the
files), the test broker and npm's icebird (a reader Sluice did not write):

- test_sql_over_rest: CREATE EXTERNAL CATALOG with "iceberg.catalog.type" = "rest" and a bearer token or OAuth2
  client credentials (masked in SHOW CREATE CATALOG; a new token fetched when the old one expired), CREATE DATABASE / TABLE, SHOW DATABASES / TABLES, two INSERTs; every commit carries
  assert-table-uuid and assert-ref-snapshot-id on main; SELECT through Sluice and icebird (from the metadata
  location the REST catalog holds) read the same rows; a commit the catalog refuses (409) and a commit another
  writer beat (the requirement fails for real) are retried with nothing lost or doubled; expire_snapshots
  commits remove-snapshots; a wrong token and an unreachable catalog are reported clearly; DROP TABLE / DATABASE.
- test_routine_load_over_rest: 2,000 JSON messages over 2 partitions into a REST-catalog table (holding one seed
  row) while another writer commits in between three times and one commit's answer is lost (503 after applying
  it): count = distinct = produced through Sluice and icebird, and the current
  snapshot's summary holds the job's offsets.

    /usr/bin/python3 tests/e2e/test_iceberg_rest_catalog.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check, eq, free_port  # noqa: E402
from iceberg_harness import error_of, icebird, q  # noqa: E402
from rest_catalog_fixture import RestCatalogFixture  # noqa: E402
from s3_harness import ACCESS_ID, S3rver  # noqa: E402

suite = TestSuite("test_iceberg_rest_catalog")
BUCKET = "lake"
SECRET = "S3RVER"
TOKEN = "rest-t0ken-5ecret"
CLIENT_SECRET = "cl1ent-5ecret"


def create_catalog(cur, name: str, rest: RestCatalogFixture, s3: S3rver, token: str = TOKEN, uri: str | None = None,
                   credential: str = ""):
    auth = f'"iceberg.catalog.credential" = "{credential}"' if credential else f'"iceberg.catalog.token" = "{token}"'
    cur.execute(f"""CREATE EXTERNAL CATALOG {name} PROPERTIES (
        "type" = "iceberg", "iceberg.catalog.type" = "rest", "iceberg.catalog.uri" = "{uri or rest.uri}",
        "iceberg.catalog.warehouse" = "s3://{BUCKET}/rest", {auth},
        "aws.s3.endpoint" = "{s3.endpoint}", "aws.s3.access_key" = "{ACCESS_ID}", "aws.s3.secret_key" = "{SECRET}")""")


def requirement_types(body: dict) -> list[str]:
    return sorted(r["type"] for r in body["requirements"])


@suite.test(timeout=400)
def test_sql_over_rest(t):
    with S3rver() as s3, RestCatalogFixture(s3, warehouse=f"s3://{BUCKET}/rest", token=TOKEN,
                                            client=("sluice", CLIENT_SECRET)) as rest:
        s3.create_bucket(BUCKET)
        server = suite.server().start()
        con = server.connect()
        cur = con.cursor()
        create_catalog(cur, "lake", rest, s3)
        shown = q(cur, "SHOW CREATE CATALOG lake")[0][1]
        check('"iceberg.catalog.type" = "rest"' in shown and TOKEN not in shown and
              '"iceberg.catalog.token" = "******"' in shown, f"the token is masked: {shown}")

        cur.execute("CREATE DATABASE lake.db")
        eq(q(cur, "SHOW DATABASES FROM lake"), [("db",)], "SHOW DATABASES FROM lake (the REST namespaces)")
        check("database exists" in error_of(cur, "CREATE DATABASE lake.db"), "CREATE DATABASE twice")
        cur.execute("CREATE TABLE lake.db.events (id BIGINT NOT NULL, name VARCHAR, ts DATETIME, amount INT) "
                    "PARTITION BY (day(ts))")
        eq(q(cur, "SHOW TABLES FROM lake.db"), [("events",)], "SHOW TABLES FROM lake.db")
        check(("db",) in rest.namespaces and (("db",), "events") in rest.tables, "the REST catalog holds both")
        eq(rest.metadata("db", "events")["location"], f"s3://{BUCKET}/rest/db/events", "the table's location")
        eq(q(cur, "SELECT count(*) FROM lake.db.events"), [(0,)], "an empty table")

        eq(cur.execute("INSERT INTO lake.db.events SELECT range, 'n' || range, TIMESTAMP '2024-05-01 00:00:00' + "
                       "to_hours(range), range % 7 FROM range(100)"), 100, "first INSERT")
        eq(cur.execute("INSERT INTO lake.db.events VALUES (1000, 'x', '2024-05-09 10:00:00', 5)"), 1,
           "second INSERT")
        eq(rest.commits, 2, "two commits")
        for body in rest.commit_bodies:
            eq(requirement_types(body), ["assert-ref-snapshot-id", "assert-table-uuid"], "a commit's requirements")
            eq([u["action"] for u in body["updates"]], ["add-snapshot", "set-snapshot-ref"], "a commit's updates")
        first_main = [r for r in rest.commit_bodies[0]["requirements"] if r["type"] == "assert-ref-snapshot-id"][0]
        check(first_main["ref"] == "main" and first_main["snapshot-id"] is None,
              f"the first commit asserts main does not exist yet: {first_main}")

        def expect_rows(n_extra: list[int], what: str):
            ids = list(range(100)) + n_extra
            eq(q(cur, "SELECT count(*), count(DISTINCT id), sum(id) FROM lake.db.events"),
               [(len(ids), len(ids), sum(ids))], f"{what}: through Sluice")
            got = icebird(s3, f"s3://{BUCKET}/rest/db/events", rest.metadata_location("db", "events"))
            eq(sorted(int(r["id"]) for r in got["rows"]), sorted(ids), f"{what}: icebird reads the same ids")
            return got

        got = expect_rows([1000], "two INSERTs")
        eq(got["summary"]["total-records"], "101", "total-records")

        # a commit refused once (409): Sluice reloads and commits again
        rest.refuse_commits = 1
        eq(cur.execute("INSERT INTO lake.db.events VALUES (1001, 'y', '2024-05-09 11:00:00', 6)"), 1,
           "an INSERT whose first commit is refused")
        eq(rest.conflicts_answered, 1, "one 409 answered")
        expect_rows([1000, 1001], "after a refused commit")

        # another writer commits in between: the requirement on main fails for real (409), Sluice rebases
        rest.interpose_commits = 1
        eq(cur.execute("INSERT INTO lake.db.events VALUES (1002, 'z', '2024-05-09 12:00:00', 7)"), 1,
           "an INSERT another writer beat")
        eq(rest.conflicts_answered, 2, "the stale requirement was refused")
        got = expect_rows([1000, 1001, 1002], "after another writer's commit")
        m = rest.metadata("db", "events")
        writers = [s["summary"].get("writer") for s in m["snapshots"]]
        eq(writers.count("other"), 1, "the other writer's snapshot is in the history")
        current = [s for s in m["snapshots"] if s["snapshot-id"] == m["current-snapshot-id"]][0]
        parent = [s for s in m["snapshots"] if s["snapshot-id"] == current["parent-snapshot-id"]][0]
        eq(parent["summary"].get("writer"), "other", "Sluice's snapshot sits on top of the other writer's")
        eq(current["summary"]["total-records"], "103", "and counts its rows")

        # table care commits remove-snapshots through the REST catalog
        r = q(cur, "ALTER TABLE lake.db.events EXECUTE expire_snapshots(older_than = '2100-01-01 00:00:00', "
                   "retain_last = 2)")
        eq(r[0][0], 3, f"three snapshots expired: {r}")
        check(any(u["action"] == "remove-snapshots" for u in rest.commit_bodies[-1]["updates"]),
              "expire_snapshots sent remove-snapshots")
        eq(len(rest.metadata("db", "events")["snapshots"]), 2, "two snapshots kept in the REST catalog")
        expect_rows([1000, 1001, 1002], "after expire_snapshots")

        # errors say what is wrong, and never show the token
        create_catalog(cur, "badtoken", rest, s3, token="wrong")
        err = error_of(cur, "SHOW DATABASES FROM badtoken")
        check("401" in err and "iceberg.catalog.token" in err and "wrong" not in err, f"a wrong token: {err}")
        create_catalog(cur, "gone", rest, s3, uri=f"http://127.0.0.1:{free_port()}")
        err = error_of(cur, "SHOW DATABASES FROM gone")
        check("could not reach the Iceberg REST catalog" in err and TOKEN not in err, f"an unreachable catalog: {err}")

        # OAuth2 client credentials: exchanged for the token, fetched again when it expired, masked
        create_catalog(cur, "oauth", rest, s3, credential=f"sluice:{CLIENT_SECRET}")
        shown = q(cur, "SHOW CREATE CATALOG oauth")[0][1]
        check(CLIENT_SECRET not in shown and '"iceberg.catalog.credential" = "******"' in shown,
              f"the credential is masked: {shown}")
        eq(q(cur, "SHOW DATABASES FROM oauth"), [("db",)], "a catalog with client credentials")
        eq(rest.tokens_issued, 1, "one token fetched")
        rest.token = "rotated-t0ken"
        eq(q(cur, "SELECT count(*) FROM oauth.db.events"), [(103,)], "a new token after the old one expired")
        eq(rest.tokens_issued, 2, "a second token fetched after a 401")
        rest.token = TOKEN
        create_catalog(cur, "badclient", rest, s3, credential="sluice:wrong")
        err = error_of(cur, "SHOW DATABASES FROM badclient")
        check("iceberg.catalog.credential" in err and "wrong" not in err, f"wrong client credentials: {err}")

        check("still has tables" in error_of(cur, "DROP DATABASE lake.db"), "a namespace with tables stays")
        cur.execute("DROP TABLE lake.db.events")
        eq(q(cur, "SHOW TABLES FROM lake.db"), [], "dropped")
        cur.execute("DROP DATABASE lake.db")
        eq(q(cur, "SHOW DATABASES FROM lake"), [], "namespace dropped")
        con.close()


@suite.test(timeout=400)
def test_routine_load_over_rest(t):
    partitions, per = 2, 1000
    total = partitions * per
    broker = kh.adopt_broker(kh.TestBroker({"ev": partitions}).start())
    with S3rver() as s3, RestCatalogFixture(s3, warehouse=f"s3://{BUCKET}/rest", token=TOKEN) as rest:
        s3.create_bucket(BUCKET)
        srv = t.server().start()
        conn = srv.connect()
        create_catalog(conn.cursor(), "lake", rest, s3)
        kh.query(conn, "CREATE DATABASE lake.db")
        kh.query(conn, "CREATE TABLE lake.db.events (id BIGINT NOT NULL, name VARCHAR, amount INT)")
        kh.query(conn, "CREATE DATABASE d")
        # a first snapshot (id 0), so that another writer has something to commit on top of from the load's start
        kh.query(conn, "INSERT INTO lake.db.events VALUES (0, 'seed', 0)")

        def produce(ids):
            for p in range(partitions):
                mine = [i for i in ids if i % partitions == p]
                kh.produce(broker.bootstrap, "ev", p,
                           [json.dumps({"id": i, "name": f"n{i}", "amount": i % 97}) for i in mine])

        produce(range(1, total // 2 + 1))
        # the first three commits of the load each find another writer's snapshot on main first
        rest.interpose_commits = 3
        # and one commit is applied but its answer lost (503): the task must learn from the table that it committed
        rest.lose_answers = 1
        kh.query(conn, f"""CREATE ROUTINE LOAD d.ev_job ON lake.db.events COLUMNS (id, name, amount)
PROPERTIES ("format" = "json", "desired_concurrent_number" = "2", "max_batch_interval" = "0.5",
            "iceberg.commit_interval_seconds" = "1")
FROM KAFKA ("kafka_broker_list" = "{broker.bootstrap}", "kafka_topic" = "ev",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
        kh.wait_state(conn, "d.ev_job", "RUNNING", 60)
        produce(range(total // 2 + 1, total + 1))
        end = time.monotonic() + 120
        n = -1
        while time.monotonic() < end:
            n = kh.scalar(conn, "SELECT count(*) FROM lake.db.events")
            if n >= total + 1 and rest.interpose_commits == 0 and rest.lose_answers == 0:
                break
            time.sleep(0.5)
        eq(n, total + 1, "every message loaded (and the seed row)")
        time.sleep(2.0)  # a late duplicate would show now
        c = Collector()
        c.eq(rest.interpose_commits, 0, "three commits were beaten by another writer")
        c.check(rest.conflicts_answered >= 3, f"and refused with 409 ({rest.conflicts_answered})")
        c.eq(rest.answers_lost, 1, "one commit's answer was lost")
        ids = range(0, total + 1)
        c.eq(kh.query(conn, "SELECT count(*), count(DISTINCT id), sum(id), sum(amount) FROM lake.db.events")[0],
             (total + 1, total + 1, sum(ids), sum(i % 97 for i in ids)), "count, distinct and sums through Sluice")
        got = icebird(s3, f"s3://{BUCKET}/rest/db/events", rest.metadata_location("db", "events"))
        bird = [int(r["id"]) for r in got["rows"]]
        c.eq((len(bird), len(set(bird)), sum(bird)), (total + 1, total + 1, sum(ids)),
             "icebird: count, distinct, sum(id)")
        jid = kh.show_job(conn, "d.ev_job")["Id"]
        summary = rest.metadata("db", "events")["snapshots"]
        current = [s for s in summary if s["snapshot-id"] == rest.metadata("db", "events")["current-snapshot-id"]][0]
        offsets = [s["summary"].get(f"sluice.offsets.{jid}") for s in summary if s["summary"].get(f"sluice.offsets.{jid}")]
        c.check(bool(offsets), "Sluice's snapshots carry the job's offsets")
        newest = json.loads(got["summary"].get(f"sluice.offsets.{jid}") or offsets[-1])
        c.eq(newest, {str(p): per for p in range(partitions)}, "the newest offsets: every partition's next offset")
        c.check(current["summary"].get("writer") != "other", "the current snapshot is Sluice's")
        kh.query(conn, "STOP ROUTINE LOAD FOR d.ev_job")
        c.done()


if __name__ == "__main__":
    sys.exit(suite.run())
