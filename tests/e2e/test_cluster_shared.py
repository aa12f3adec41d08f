#!/usr/bin/python3
"""Storage connections, volumes and virtual clusters of the cluster (docs/cluster.md, "Volumes, storage connections
and virtual clusters"), with real parts: PostgreSQL 15 (the cluster's database and the Iceberg JDBC catalog),
s3rver (the volume's files and the tables'), the test Kafka broker and two `sluice serve --cluster` processes on
loopback.

- test_volumes_and_virtual_clusters_are_the_clusters: a storage connection and a volume created on n1 only are
  listed by n2, and a volume pipe created on n2 over them loads; no sluice_* table of PostgreSQL, no SHOW output and
  no log holds the access id or key in clear; DROP STORAGE CONNECTION of a connection a volume uses is refused on
  the other node too. A virtual cluster created on n1 naming n2 only (NODES = ('n2')) is listed by n2 with its
  nodes; the volume pipe moved into it and a Kafka pipe created in it are run by n2 alone: every lease of theirs
  (pipe:<id>, job:<id>:partition:<n>) is n2's at every poll. n2 killed: nothing loads, n1 takes no lease, and n1's
  SHOW PIPES says in last_error that no node of the virtual cluster is alive; n2 started again loads the rest, and
  both tables hold every row exactly once (Sluice; icebird for the volume pipe's table).
- test_alter_vcluster_moves_its_pipes: three nodes; a Kafka pipe into an Iceberg table in a virtual cluster naming
  n2 and n3 is run by them; ALTER VCLUSTER etl SET NODES = ('n1'), run on n2 while messages arrive, moves every
  partition lease to n1 within seconds (sluice_leases, and SHOW NODES on n3: n1 holds d.kp's partitions, n2 and n3
  nothing); SET VCLUSTER_SIZE = 3 keeps the nodes; SET NODES = () spreads the partitions over every node again;
  the table ends with every message exactly once.

    /usr/bin/python3 tests/e2e/test_cluster_shared.py --server build/sluice
"""
from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check, eq  # noqa: E402
from iceberg_harness import BUCKET, SECRET, event_message, setup_lake, wait_count  # noqa: E402
from pg_harness import Postgres  # noqa: E402
from s3_harness import ACCESS_ID, ACCESS_KEY, S3rver  # noqa: E402
from test_cluster_jobs import TIMEOUT, check_table, leases_by_node, nodes_work, setup, shared_key  # noqa: E402
from test_cluster_pipes import LANDING, pipe_holder, put_files, show_pipes  # noqa: E402

suite = TestSuite("test_cluster_shared")
KAFKA_PARTITIONS = 4
SECRETS = sorted({ACCESS_ID, ACCESS_KEY, SECRET})


def kafka_pipe(bootstrap: str) -> str:
    return f"""CREATE PIPE d.kp VIRTUAL_CLUSTER = 'etl' BATCH_INTERVAL_IN_SECONDS = 1 RESET_KAFKA_GROUP_OFFSETS = 'earliest'
AS COPY INTO lake.db.kev FROM (
    SELECT CAST(PARSE_JSON(value::STRING)['id'] AS BIGINT) AS id,
           PARSE_JSON(value::STRING)['name']::STRING AS name,
           CAST(PARSE_JSON(value::STRING)['ts'] AS TIMESTAMP) AS ts,
           CAST(PARSE_JSON(value::STRING)['amount'] AS INT) AS amount
    FROM READ_KAFKA('{bootstrap}', 'kev', '', 'kp_group', '', '', '', '', 'raw', 'raw', 0, map())
)"""


def produce(broker, first: int, last: int):
    for p in range(KAFKA_PARTITIONS):
        ids = [i for i in range(first, last + 1) if i % KAFKA_PARTITIONS == p]
        kh.produce(broker.bootstrap, "kev", p, [event_message(i) for i in ids])


def no_secret_in_postgres(c: Collector, pg: Postgres, what: str):
    tables = [r[0] for r in pg.psql("SELECT tablename FROM pg_tables WHERE tablename LIKE 'sluice_%'")]
    for needed in ("sluice_storage_connections", "sluice_volumes", "sluice_vclusters"):
        c.check(needed in tables, f"{what}: {needed} is kept in PostgreSQL ({tables})")
    for table in tables:
        dump = json.dumps(pg.psql(f"SELECT * FROM {table}"))
        c.check(not any(s in dump for s in SECRETS), f"{what}: no secret in clear in {table}")


def last_errors(conn) -> dict:
    return {p["name"]: p["last_error"] for p in show_pipes(conn)}


@suite.test(timeout=420)
def test_volumes_and_virtual_clusters_are_the_clusters(t):
    per = 50
    broker = kh.adopt_broker(kh.TestBroker({"kev": KAFKA_PARTITIONS}).start())
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        s3.create_bucket(LANDING)
        key = shared_key(pg.root)
        nodes = {name: t.server(extra_args=["--cluster", pg.uri, "--node-name", name, "--node-timeout-seconds",
                                            str(TIMEOUT), "--cluster-key-file", key]).start() for name in ("n1", "n2")}
        c1, c2 = nodes["n1"].connect(), nodes["n2"].connect()
        c = Collector()
        setup_lake(c1, pg, s3)  # the catalog is the cluster's
        kh.query(c1, "CREATE TABLE lake.db.kev (id BIGINT NOT NULL, name VARCHAR, ts DATETIME, amount INT)")
        kh.query(c2, "CREATE DATABASE d")
        kh.wait_until(lambda: pg.psql("SELECT count(*) FROM sluice_nodes WHERE state = 'alive'") == [["2"]], 30,
                      "two nodes alive")

        # A connection and a volume created on n1 only.
        kh.query(c1, f"CREATE STORAGE CONNECTION s3c TYPE S3 ENDPOINT = '{s3.endpoint}' ACCESS_ID = '{ACCESS_ID}' "
                     f"ACCESS_KEY = '{ACCESS_KEY}' COMMENT = 'shared'")
        kh.query(c1, f"CREATE EXTERNAL VOLUME landing LOCATION 's3://{LANDING}/in/' USING CONNECTION s3c")
        c.eq([r[0] for r in kh.query(c2, "SHOW STORAGE CONNECTIONS")], ["s3c"], "n2 lists n1's connection")
        c.eq([r[0] for r in kh.query(c2, "SHOW VOLUMES")], ["landing"], "n2 lists n1's volume")
        shown = json.dumps([kh.query(conn, q) for conn in (c1, c2) for q in
                            ("SHOW STORAGE CONNECTIONS", "SHOW VOLUMES", "DESC STORAGE CONNECTION s3c",
                             "DESC VOLUME landing")], default=str)
        c.check(not any(s in shown for s in SECRETS), f"no secret in SHOW / DESC output: {shown}")
        err = ""
        try:
            kh.query(c2, f"CREATE STORAGE CONNECTION S3C TYPE S3 ENDPOINT = '{s3.endpoint}' ACCESS_ID = 'a' "
                         "ACCESS_KEY = 'b'")
        except Exception as e:  # noqa: BLE001
            err = str(e)
        c.check("already exists" in err, f"the name is taken on n2 too: {err}")

        # A volume pipe created on n2 over them loads.
        put_files(s3, 1, 4, per)
        kh.query(c2, "CREATE PIPE d.vp BATCH_INTERVAL_IN_SECONDS = '1' INGEST_MODE = 'LIST' AS COPY INTO "
                     "lake.db.events FROM VOLUME landing USING CSV REGEXP '.*[.]csv'")
        vp = int(pg.psql("SELECT id FROM sluice_routine_loads WHERE name = 'vp'")[0][0])
        eq(wait_count(c2, 4 * per, 60), 4 * per, "the volume pipe created on n2 loads over n1's volume")
        try:
            kh.query(c2, "DROP STORAGE CONNECTION s3c")
            err = ""
        except Exception as e:  # noqa: BLE001
            err = str(e)
        c.check("is used by volume(s) landing" in err, f"DROP of a connection a volume uses, on n2: {err}")

        # A virtual cluster naming n2 only.
        kh.query(c1, "CREATE VCLUSTER etl VCLUSTER_SIZE = 2 NODES = ('n2')")
        rows = {r[0]: r for r in kh.query(c2, "SHOW VCLUSTERS")}
        c.check("etl" in rows and rows["etl"][1] == 2 and rows["etl"][4] == "n2",
                f"n2's SHOW VCLUSTERS lists etl with its nodes: {rows}")
        no_secret_in_postgres(c, pg, "once everything is defined")
        kh.query(c1, "ALTER PIPE d.vp SET VIRTUAL_CLUSTER = 'etl'")
        produce(broker, 1, 200)
        kh.query(c1, kafka_pipe(broker.bootstrap))
        kp = pg.psql("SELECT id FROM sluice_routine_loads WHERE name = 'kp'")[0][0]
        kh.wait_until(lambda: leases_by_node(pg, kp) == {"n2": KAFKA_PARTITIONS}, 60, "n2 holds kp's partitions")
        kh.wait_until(lambda: (pipe_holder(pg, vp) or ("",))[0] == "n2", 30, "n2 holds vp")
        put_files(s3, 5, 2, per)
        produce(broker, 201, 400)
        seen = set()
        end = time.monotonic() + 6
        while time.monotonic() < end:
            seen |= {h for h, _ in [pipe_holder(pg, vp)] if h}
            seen |= set(leases_by_node(pg, kp))
            time.sleep(0.3)
        c.eq(sorted(seen), ["n2"], "every lease of the virtual cluster's pipes is n2's")
        eq(wait_count(c1, 6 * per, 60), 6 * per, "n2 loads the new files")
        eq(wait_count(c1, 400, 60, "lake.db.kev"), 400, "n2 loads the messages")
        c.eq(pg.psql(f"SELECT count(*) FROM sluice_leases WHERE holder = 'n1' AND (resource = 'pipe:{vp}' OR "
                     f"resource LIKE 'job:{kp}:%') AND expires_at > now()"), [["0"]], "n1 holds none of them")

        # n2 killed: the pipes wait, and n1 says why.
        nodes["n2"].kill_process()
        c2.close()
        put_files(s3, 7, 2, per)
        produce(broker, 401, 600)
        errors = kh.wait_until(lambda: (lambda e: e if all("none of them is alive" in e.get(p, "") for p in
                                                           ("vp", "kp")) else None)(last_errors(c1)),
                               TIMEOUT + 30, "n1's SHOW PIPES says the pipes wait for n2")
        print(f"  n1's last_error: {errors['vp']}", flush=True)
        c.check("virtual cluster 'etl'" in errors["vp"] and "n2" in errors["vp"],
                f"the message names the virtual cluster and its node: {errors['vp']}")
        time.sleep(TIMEOUT + 2)
        c.eq(kh.scalar(c1, "SELECT count(*) FROM lake.db.events"), 6 * per, "nothing loads while n2 is dead")
        c.eq(kh.scalar(c1, "SELECT count(*) FROM lake.db.kev"), 400, "no message loads while n2 is dead")
        c.eq(pg.psql("SELECT count(*) FROM sluice_leases WHERE holder = 'n1' AND expires_at > now()"), [["0"]],
             "n1 takes no lease of them")

        # n2 back: it loads the rest, once.
        nodes["n2"].start()
        eq(wait_count(c1, 8 * per, 90), 8 * per, "n2 back loads the files")
        eq(wait_count(c1, 600, 90, "lake.db.kev"), 600, "n2 back loads the messages")
        time.sleep(2)  # a late or double commit would show now
        check_table(c, c1, pg, s3, 8 * per, "the volume pipe")
        count, distinct = kh.query(c1, "SELECT count(*), count(DISTINCT id) FROM lake.db.kev")[0]
        c.eq((count, distinct), (600, 600), "the Kafka pipe's table: every message once")
        kh.wait_until(lambda: not any("none of them is alive" in e for e in last_errors(c1).values()), 10,
                      "n1's last_error clears")
        c.eq(pg.psql(f"SELECT DISTINCT holder FROM sluice_leases WHERE (resource = 'pipe:{vp}' OR resource LIKE "
                     f"'job:{kp}:partition:%') AND holder IS NOT NULL"), [["n2"]], "held by n2 again")
        no_secret_in_postgres(c, pg, "at the end")
        for name, srv in nodes.items():
            log = srv.log_text()
            c.check(not any(s in log for s in SECRETS), f"no secret in {name}'s log")
        c1.close()
        c.done()


def vclusters(conn) -> dict:
    """SHOW VCLUSTERS: name -> (size, nodes)."""
    return {r[0]: (int(r[1]), r[4]) for r in kh.query(conn, "SHOW VCLUSTERS")}


@suite.test(timeout=420)
def test_alter_vcluster_moves_its_pipes(t):
    broker = kh.adopt_broker(kh.TestBroker({"kev": KAFKA_PARTITIONS}).start())
    with Postgres() as pg, S3rver() as s3:
        nodes, conns = setup(t, pg, s3, broker)  # n1..n3, the catalog lake, database d on each
        c = Collector()
        kh.query(conns["n1"], "CREATE TABLE lake.db.kev (id BIGINT NOT NULL, name VARCHAR, ts DATETIME, amount INT)")
        kh.query(conns["n1"], "CREATE VCLUSTER etl VCLUSTER_SIZE = 2 NODES = ('n2', 'n3')")
        produce(broker, 1, 200)
        kh.query(conns["n1"], kafka_pipe(broker.bootstrap))
        kp = pg.psql("SELECT id FROM sluice_routine_loads WHERE name = 'kp'")[0][0]
        spread = kh.wait_until(lambda: (lambda b: b if sorted(b) == ["n2", "n3"] and sum(b.values()) ==
                                        KAFKA_PARTITIONS else None)(leases_by_node(pg, kp)), 60,
                               "n2 and n3 share kp's partitions")
        print(f"  before ALTER: {spread}", flush=True)
        eq(wait_count(conns["n1"], 200, 60, "lake.db.kev"), 200, "n2 and n3 load the first messages")

        # Moved to n1, by a statement on n2, while messages arrive.
        produce(broker, 201, 400)
        moved_at = time.monotonic()
        kh.query(conns["n2"], "ALTER VCLUSTER etl SET NODES = ('n1')")
        for name, conn in conns.items():
            c.eq(vclusters(conn).get("etl"), (2, "n1"), f"{name}'s SHOW VCLUSTERS: etl runs on n1 now")
        kh.wait_until(lambda: leases_by_node(pg, kp) == {"n1": KAFKA_PARTITIONS}, 30, "n1 holds every partition")
        print(f"  every partition on n1 {time.monotonic() - moved_at:.1f}s after ALTER VCLUSTER", flush=True)
        want = {"n1": (1, KAFKA_PARTITIONS, {"d.kp": list(range(KAFKA_PARTITIONS))}), "n2": (0, 0, {}),
                "n3": (0, 0, {})}
        kh.wait_until(lambda: nodes_work(conns["n3"]) == want, 20, f"SHOW NODES on n3: {want}")
        seen = set()
        end = time.monotonic() + 4
        while time.monotonic() < end:
            seen |= set(leases_by_node(pg, kp))
            time.sleep(0.3)
        c.eq(sorted(seen), ["n1"], "n2 and n3 take no partition back")
        eq(wait_count(conns["n1"], 400, 60, "lake.db.kev"), 400, "n1 loads the messages")

        # The size alone: the nodes stay; NODES = (): every node again.
        kh.query(conns["n3"], "ALTER VCLUSTER etl SET VCLUSTER_SIZE = 3")
        for name, conn in conns.items():
            c.eq(vclusters(conn).get("etl"), (3, "n1"), f"{name}'s SHOW VCLUSTERS: size 3, still on n1")
        stored = pg.psql("SELECT properties FROM sluice_vclusters WHERE name = 'etl'")[0][0]
        c.eq(json.loads(stored), [["size", "3"], ["nodes", '["n1"]']], "the cluster's row holds both")
        produce(broker, 401, 500)
        eq(wait_count(conns["n2"], 500, 60, "lake.db.kev"), 500, "n1 loads them, regrouped with the new size")
        kh.query(conns["n1"], "ALTER VCLUSTER etl SET NODES = ()")
        c.eq(vclusters(conns["n2"]).get("etl"), (3, ""), "n2's SHOW VCLUSTERS: every node")
        spread = kh.wait_until(lambda: (lambda b: b if len(b) >= 2 and sum(b.values()) == KAFKA_PARTITIONS else None)(
            leases_by_node(pg, kp)), 30, "the partitions spread over the nodes again")
        print(f"  NODES = (): {spread}", flush=True)
        produce(broker, 501, 600)
        eq(wait_count(conns["n1"], 600, 90, "lake.db.kev"), 600, "every node loads again")
        time.sleep(2)  # a late or double commit would show now
        count, distinct = kh.query(conns["n1"], "SELECT count(*), count(DISTINCT id) FROM lake.db.kev")[0]
        c.eq((count, distinct), (600, 600), "the Kafka pipe's table: every message once")
        c.eq(kh.scalar(conns["n1"], "SELECT max(id) FROM lake.db.kev"), 600, "up to the last message")
        for conn in conns.values():
            conn.close()
        c.done()


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
