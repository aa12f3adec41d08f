#!/usr/bin/python3
"""Routine loads into Iceberg tables as cluster jobs (docs/cluster.md), with real parts: PostgreSQL 15 (the cluster's
database and the Iceberg JDBC catalog, the same database), s3rver, the test broker, three `sluice serve --cluster`
processes on loopback and npm's icebird.

- test_three_nodes_share_a_job_and_survive_a_kill: a routine load on a 12-partition topic into an Iceberg table,
  created on n1: SHOW ROUTINE LOAD gives the same job on every node; PAUSE on n2, ALTER on n1, RESUME on n3 act on
  that one job; the partitions are leased 4/4/4; SHOW ROUTINE LOAD TASK names the node of each (BeId); kill -9 of
  n3 mid-load moves its partitions to n1 and n2 (6/6, new epochs) and the run ends with count = distinct =
  produced, read by Sluice and by icebird; the snapshot summary carries the leases' epochs; n3 started again gets
  4 partitions back and loads its share; the job's secret property is sealed in PostgreSQL; a DuckDB table's job
  stays the node's own.
- test_a_catalog_created_on_one_node_is_every_nodes: CREATE EXTERNAL CATALOG on n1 only; n2 shows it (SHOW
  CATALOGS, SHOW CREATE CATALOG masked, the same as n1's), no secret of it is in clear in any sluice_* table, a
  routine load into it runs on both (6/6) exactly once; its name is taken on n2 too, and DROP on n2 drops it on n1.
- test_a_frozen_node_does_not_commit: a node SIGSTOPped past the node timeout with a commit in flight (stalled by
  the test point iceberg_load.after_upload) loses its partitions to the others; after SIGCONT that commit does not
  land (no snapshot after the takeover carries its old epochs) and the table holds every message exactly once.
- test_a_commit_stalled_after_its_fence_is_refused_inside_the_swap: a commit that passed its lease fence and then
  stalled (iceberg_load.after_fence) while another node took its partitions over is refused by the epoch check
  inside the JDBC catalog's swap (the catalog lives in the cluster's database), though nothing else moved the table.
- test_a_node_whose_disk_is_full_hands_its_partitions_over: a node whose data directory fills up gives its
  partitions to the others while its storage gate is closed, and takes its share again once the disk has room.

    /usr/bin/python3 tests/e2e/test_cluster_jobs.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check, eq  # noqa: E402
from iceberg_harness import (  # noqa: E402
    BUCKET, SECRET, icebird, metadata_location, produce_events, setup_lake, wait_count,
)
from pg_harness import Postgres  # noqa: E402
from s3_harness import ACCESS_ID, S3rver  # noqa: E402

suite = TestSuite("test_cluster_jobs")
PARTITIONS = 12
TIMEOUT = 3  # --node-timeout-seconds
NODES = ("n1", "n2", "n3")


def start_nodes(t, pg: Postgres, key_file: str, env: dict | None = None) -> dict:
    """n1..n3; `env`: more environment per node name (test points)."""
    nodes = {}
    for name in NODES:
        nodes[name] = t.server(extra_args=["--cluster", pg.uri, "--node-name", name, "--node-timeout-seconds",
                                           str(TIMEOUT), "--cluster-key-file", key_file, "--load-workers", "3"],
                               extra_env=(env or {}).get(name)).start()
    return nodes


def shared_key(t_root: str) -> str:
    """The key file every node seals cluster jobs' secrets with (32 random bytes, as SecretBox writes it)."""
    path = os.path.join(t_root, "cluster-secrets.key")
    with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as f:
        f.write(os.urandom(32))
    return path


def define_catalog(conn, pg, s3, database: bool = True):
    """The external catalog on a node that did not create the table (IF NOT EXISTS: on a cluster node the catalog
    is the cluster's already, and the statement changes nothing), and the jobs' database d."""
    kh.query(conn, f"""CREATE EXTERNAL CATALOG IF NOT EXISTS lake PROPERTIES (
        "type" = "iceberg", "iceberg.catalog.type" = "jdbc", "iceberg.catalog.uri" = "{pg.uri}",
        "iceberg.catalog.warehouse" = "s3://{BUCKET}/wh", "aws.s3.endpoint" = "{s3.endpoint}",
        "aws.s3.access_key" = "{ACCESS_ID}", "aws.s3.secret_key" = "{SECRET}",
        "aws.s3.enable_path_style_access" = "true")""")
    if database:
        kh.query(conn, "CREATE DATABASE d")


def check_catalog_shared(conn, pg: Postgres, node: str) -> None:
    """The catalog lake, created on another node, is known here (SHOW CATALOGS, SHOW CREATE CATALOG with its
    secrets masked), and PostgreSQL keeps no secret of it in clear (every sluice_* table, read with psql)."""
    names = [r[0] for r in kh.query(conn, "SHOW CATALOGS")]
    check("lake" in names, f"{node}'s SHOW CATALOGS lists lake: {names}")
    text = kh.query(conn, "SHOW CREATE CATALOG lake")[0][1]
    check(SECRET not in text and ACCESS_ID not in text and '"aws.s3.secret_key" = "******"' in text,
          f"{node}'s SHOW CREATE CATALOG masks the secrets: {text}")
    tables = [r[0] for r in pg.psql("SELECT tablename FROM pg_tables WHERE tablename LIKE 'sluice_%'")]
    check("sluice_external_catalogs" in tables, f"the catalogs are kept in PostgreSQL: {tables}")
    for table in tables:
        dump = json.dumps(pg.psql(f"SELECT * FROM {table}"))
        check(SECRET not in dump and ACCESS_ID not in dump and pg.uri not in dump,
              f"no secret of the catalog in clear in {table}")


def leases_by_node(pg: Postgres, jid: str) -> dict:
    rows = pg.psql("SELECT holder, count(*) FROM sluice_leases WHERE resource LIKE 'job:" + jid + ":partition:%' "
                   "AND holder IS NOT NULL AND expires_at > now() GROUP BY holder ORDER BY holder")
    return {r[0]: int(r[1]) for r in rows}


def epochs(pg: Postgres, jid: str) -> dict:
    rows = pg.psql("SELECT resource, holder, epoch FROM sluice_leases WHERE resource LIKE 'job:" + jid +
                   ":partition:%'")
    return {int(r[0].rsplit(":", 1)[1]): (r[1], int(r[2])) for r in rows}


def nodes_work(conn) -> dict:
    """SHOW NODES' Jobs, Partitions and Held (decoded) by node name."""
    with conn.cursor() as cur:
        cur.execute("SHOW NODES")
        names = [d[0] for d in cur.description]
        rows = [dict(zip(names, r)) for r in cur.fetchall()]
    return {r["Name"]: (int(r["Jobs"]), int(r["Partitions"]), json.loads(r["Held"])) for r in rows}


SAME = ("Id", "Name", "State", "TableName", "JobProperties", "DataSourceProperties", "ReasonOfStateChanged")


def same_on_every_node(conns: dict, name: str, keys=SAME) -> dict:
    """SHOW ROUTINE LOAD FOR name on every node, the columns that must agree (Progress too once the load is idle:
    while it runs, commits land between two nodes' answers)."""
    views = {}
    for node, conn in conns.items():
        job = kh.show_job(conn, name)
        # The node's own running tasks (CurrentTaskNum, currentTaskConcurrentNum) differ by design.
        job["JobProperties"].pop("currentTaskConcurrentNum", None)
        views[node] = {k: job[k] for k in keys}
    return views


def wait_same(conns: dict, name: str, state: str, timeout: float = 30, keys=SAME) -> dict:
    last = {}

    def probe():
        views = same_on_every_node(conns, name, keys)
        last["views"] = views
        first = next(iter(views.values()))
        return first if all(v == first for v in views.values()) and first["State"] == state else None
    try:
        return kh.wait_until(probe, timeout, f"{name} {state} with the same answer on every node")
    except AssertionError as e:
        raise AssertionError(f"{e}\n  last answers: {last.get('views')}") from None


def check_table(c: Collector, conn, pg, s3, total: int, what: str) -> dict:
    count, distinct, sum_id = kh.query(conn, "SELECT count(*), count(DISTINCT id), sum(id) FROM lake.db.events")[0]
    c.eq(count, total, f"{what}: count(*) through Sluice")
    c.eq(distinct, total, f"{what}: count(DISTINCT id) through Sluice")
    c.eq(int(sum_id or 0), total * (total + 1) // 2, f"{what}: sum(id) through Sluice")
    got = icebird(s3, f"s3://{BUCKET}/wh/db/events", metadata_location(pg))
    ids = [int(r["id"]) for r in got["rows"]]
    c.eq(len(ids), total, f"{what}: icebird's row count")
    c.eq(len(set(ids)), total, f"{what}: icebird's distinct ids")
    return got


def ids_for(first: int, last: int) -> dict:
    """Ids first..last spread over the partitions by id % PARTITIONS."""
    return {p: [i for i in range(first, last + 1) if i % PARTITIONS == p] for p in range(PARTITIONS)}


def create_job(conn, broker) -> None:
    kh.query(conn, f"""CREATE ROUTINE LOAD d.ev_job ON lake.db.events COLUMNS (id, name, ts, amount)
PROPERTIES ("format" = "json", "desired_concurrent_number" = "6", "max_batch_interval" = "0.5",
            "iceberg.commit_interval_seconds" = "1")
FROM KAFKA ("kafka_broker_list" = "{broker.bootstrap}", "kafka_topic" = "ev",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING", "property.sasl.password" = "Sup3rSecret")""")


def setup(t, pg, s3, broker, env: dict | None = None):
    s3.create_bucket(BUCKET)
    nodes = start_nodes(t, pg, shared_key(pg.root), env)
    conns = {name: srv.connect() for name, srv in nodes.items()}
    setup_lake(conns["n1"], pg, s3)  # the catalog is created on n1 only: it is the cluster's
    for name in ("n2", "n3"):
        kh.query(conns[name], "CREATE DATABASE d")
        check_catalog_shared(conns[name], pg, name)
    kh.wait_until(lambda: pg.psql("SELECT count(*) FROM sluice_nodes WHERE state = 'alive'") == [["3"]], 30,
                  "three nodes alive")
    return nodes, conns


@suite.test(timeout=420)
def test_three_nodes_share_a_job_and_survive_a_kill(t):
    per = 300  # messages per partition over the whole run: 3,600
    total = PARTITIONS * per
    broker = kh.adopt_broker(kh.TestBroker({"ev": PARTITIONS}).start())
    with Postgres() as pg, S3rver() as s3:
        nodes, conns = setup(t, pg, s3, broker)
        c = Collector()
        produce_events(broker, "ev", ids_for(1, total // 3))
        create_job(conns["n1"], broker)
        view = wait_same(conns, "d.ev_job", "RUNNING", 60)
        jid = view["Id"]
        check(int(jid) >= 1000000001, f"a cluster job's id comes from PostgreSQL: {jid}")
        stored = pg.psql(f"SELECT state, definition FROM sluice_routine_loads WHERE id = {jid}")
        c.eq(len(stored), 1, "the job is one row of sluice_routine_loads")
        c.check("Sup3rSecret" not in stored[0][1] and "sealed:v1:" in stored[0][1],
                "its secret property is sealed in PostgreSQL")
        spread = kh.wait_until(lambda: (lambda b: b if b == {"n1": 4, "n2": 4, "n3": 4} else None)(
            leases_by_node(pg, jid)), 60, "12 partitions leased 4/4/4")
        print(f"  partitions by node: {spread}", flush=True)
        # SHOW NODES: the jobs and partitions each node holds, the same on every node.
        held = {holder: sorted(p for p, (h, _) in epochs(pg, jid).items() if h == holder) for holder in NODES}
        want = {name: (1, 4, {"d.ev_job": held[name]}) for name in NODES}
        views = kh.wait_until(lambda: (lambda v: v if all(x == want for x in v.values()) else None)(
            {name: nodes_work(conn) for name, conn in conns.items()}), 20,
            f"SHOW NODES on every node: Jobs 1, Partitions 4 and the partitions held ({want})")
        print(f"  SHOW NODES' Jobs, Partitions, Held: {views['n1']}", flush=True)
        # A node starts its task groups just after it takes its leases: wait for the three nodes' tasks.
        def task_rows():
            rows = kh.show_rows(conns["n2"], "SHOW ROUTINE LOAD TASK FROM d WHERE JobName = \"ev_job\"")
            return rows if len({r["BeId"] for r in rows}) == len(NODES) else None
        tasks = kh.wait_until(task_rows, 20, "SHOW ROUTINE LOAD TASK on n2 shows every node's tasks")
        c.eq(sorted({r["BeId"] for r in tasks}), list(NODES), "SHOW ROUTINE LOAD TASK's BeId names every node")
        c.eq(sorted(int(p) for r in tasks for p in r["DataSourceProperties"]), list(range(PARTITIONS)),
             "SHOW ROUTINE LOAD TASK on one node covers every partition once")
        wait_count(conns["n1"], total // 3, 120)

        # One job, steered from any node.
        kh.query(conns["n2"], "PAUSE ROUTINE LOAD FOR d.ev_job")
        wait_same(conns, "d.ev_job", "PAUSED", 20)
        kh.query(conns["n1"], "ALTER ROUTINE LOAD FOR d.ev_job PROPERTIES (\"max_batch_rows\" = \"300000\")")
        kh.wait_until(lambda: kh.show_job(conns["n3"], "d.ev_job")["JobProperties"]["maxBatchRows"] == "300000", 10,
                      "n3 sees the ALTER made on n1")
        kh.query(conns["n3"], "RESUME ROUTINE LOAD FOR d.ev_job")
        wait_same(conns, "d.ev_job", "RUNNING", 30)
        kh.wait_until(lambda: leases_by_node(pg, jid) == {"n1": 4, "n2": 4, "n3": 4}, 60, "4/4/4 again after RESUME")
        before = epochs(pg, jid)

        # kill -9 of n3 mid-load: its partitions move to n1 and n2 and continue from the table's offsets.
        produce_events(broker, "ev", ids_for(total // 3 + 1, 2 * total // 3))
        wait_count(conns["n1"], total // 3 + 200, 60)
        n3_parts = sorted(p for p, (holder, _) in before.items() if holder == "n3")
        nodes["n3"].kill_process()
        conns.pop("n3").close()
        killed = time.monotonic()
        kh.wait_until(lambda: leases_by_node(pg, jid) == {"n1": 6, "n2": 6}, TIMEOUT + 30, "6/6 after the kill")
        moved_after = time.monotonic() - killed
        print(f"  n3's partitions {n3_parts} moved {moved_after:.1f}s after kill -9 (node timeout {TIMEOUT}s)",
              flush=True)
        after = epochs(pg, jid)
        work = nodes_work(conns["n2"])
        c.eq((work["n1"][1], work["n2"][1], work["n3"][:2]), (6, 6, (0, 0)),
             f"SHOW NODES after the kill: n1 and n2 hold 6 partitions each, n3 nothing ({work})")
        for p in n3_parts:
            c.check(after[p][0] in ("n1", "n2") and after[p][1] > before[p][1],
                    f"partition {p}: taken over with a new epoch ({before[p]} -> {after[p]})")
        produce_events(broker, "ev", ids_for(2 * total // 3 + 1, total))
        n = wait_count(conns["n1"], total, 180)
        eq(n, total, "every message loaded")
        time.sleep(2)  # any late commit would show now
        got = check_table(c, conns["n1"], pg, s3, total, "after the kill")
        c.eq(json.loads(got["summary"].get(f"sluice.offsets.{jid}", "{}")), {str(p): per for p in range(PARTITIONS)},
             "the current snapshot holds every partition's next offset")
        fenced = json.loads(got["summary"].get(f"sluice.epochs.{jid}", "{}"))
        c.check(fenced and all(int(e) >= 1 for e in fenced.values()),
                f"the current snapshot records the epochs it was committed under: {fenced}")
        final = wait_same(conns, "d.ev_job", "RUNNING", 20, SAME + ("Progress",))
        c.eq(final["Progress"], {str(p): str(per - 1) for p in range(PARTITIONS)}, "Progress, from the table")
        for name in ("n1", "n2"):
            # Statistic is the cluster's (read from the table); the node's own batches are in its load_history.
            loaded = own_rows(conns[name])
            c.check(loaded > 0, f"{name} loaded rows itself ({loaded})")
        # n3 started again: the others give partitions back and it loads its share of what comes next.
        nodes["n3"].start()
        conns["n3"] = nodes["n3"].connect()
        n3_before = own_rows(conns["n3"])
        kh.wait_until(lambda: leases_by_node(pg, jid) == {"n1": 4, "n2": 4, "n3": 4}, 60, "4/4/4 once n3 is back")
        more = PARTITIONS * 50
        produce_events(broker, "ev", ids_for(total + 1, total + more))
        eq(wait_count(conns["n1"], total + more, 120), total + more, "every message loaded after n3 came back")
        time.sleep(2)
        check_table(c, conns["n1"], pg, s3, total + more, "after n3 came back")
        c.check(own_rows(conns["n3"]) > n3_before, "n3 loads again")
        # A DuckDB table's job stays the node's own.
        kh.query(conns["n1"], "CREATE TABLE d.plain (id BIGINT)")
        kh.query(conns["n1"], f"""CREATE ROUTINE LOAD d.local_job ON plain COLUMNS (id)
PROPERTIES ("format" = "json") FROM KAFKA ("kafka_broker_list" = "{broker.bootstrap}", "kafka_topic" = "ev")""")
        c.eq(pg.psql("SELECT count(*) FROM sluice_routine_loads"), [["1"]], "a DuckDB table's job is not in PostgreSQL")
        check("does not exist" in _error(conns["n2"], "SHOW ROUTINE LOAD FOR d.local_job"),
              "n2 does not know n1's local job")
        for conn in conns.values():
            conn.close()
        c.done()


def own_rows(conn) -> int:
    """The rows this node committed itself, from its own load_history."""
    return int(kh.scalar(conn, "SELECT coalesce(sum(loaded_rows), 0) FROM __sluice.load_history "
                               "WHERE job_name = 'ev_job'"))


def _error(conn, sql: str) -> str:
    try:
        kh.query(conn, sql)
    except Exception as e:  # noqa: BLE001
        return str(e)
    return ""


@suite.test(timeout=300)
def test_a_frozen_node_does_not_commit(t):
    per = 200
    total = PARTITIONS * per
    broker = kh.adopt_broker(kh.TestBroker({"ev": PARTITIONS}).start())
    with Postgres() as pg, S3rver() as s3:
        # n2's first upload waits 4 s before its commit: it is frozen then, so a commit is surely in flight. The
        # topic is empty until the partitions are spread, so that first upload is of n2's own share.
        stall_ms = 4000
        env = {"n2": {"SLUICE_TEST_POINTS": f"iceberg_load.after_upload=sleep:{stall_ms}:1"}}
        nodes, conns = setup(t, pg, s3, broker, env)
        c = Collector()
        create_job(conns["n1"], broker)
        jid = wait_same(conns, "d.ev_job", "RUNNING", 60)["Id"]
        kh.wait_until(lambda: leases_by_node(pg, jid) == {"n1": 4, "n2": 4, "n3": 4}, 60, "4/4/4")
        before = epochs(pg, jid)
        frozen = sorted(p for p, (holder, _) in before.items() if holder == "n2")
        produce_events(broker, "ev", ids_for(1, total))
        kh.wait_until(lambda: "test point iceberg_load.after_upload fired" in nodes["n2"].log_text(), 60,
                      "n2's commit stalled after its upload")
        os.kill(nodes["n2"].proc.pid, signal.SIGSTOP)
        stopped = time.monotonic()
        try:
            kh.wait_until(lambda: leases_by_node(pg, jid) == {"n1": 6, "n3": 6}, TIMEOUT + 30,
                          "n2's partitions taken over while it is frozen")
            taken_over_ms = int(time.time() * 1000)
            n = wait_count(conns["n1"], total, 120)
            eq(n, total, "every message loaded by the others")
            time.sleep(max(0.0, stall_ms / 1000 + 0.5 - (time.monotonic() - stopped)))  # its stall is over
        finally:
            os.kill(nodes["n2"].proc.pid, signal.SIGCONT)
        # Awake, with a commit in flight: it must commit nothing under its old epochs.
        kh.wait_until(lambda: "test point iceberg_load.after_upload woke up" in nodes["n2"].log_text(), 30,
                      "n2's stalled commit went on")
        kh.wait_until(lambda: leases_by_node(pg, jid) == {"n1": 4, "n2": 4, "n3": 4}, 60,
                      "n2 rejoins and gets its share back")
        time.sleep(3)
        check_table(c, conns["n1"], pg, s3, total, "after SIGSTOP / SIGCONT")
        history = kh.query(conns["n1"], "SELECT epoch_ms(committed_at), summary['sluice.epochs." + jid + "'] "
                                        "FROM lake.db.events$snapshots")
        stale = []
        for committed_ms, value in history:
            for p, e in json.loads(value or "{}").items():
                if int(p) in frozen and int(e) == before[int(p)][1] and int(committed_ms) > taken_over_ms:
                    stale.append((committed_ms, p, e))
        c.eq(stale, [], "no snapshot committed after the takeover carries n2's old epochs")
        log = nodes["n2"].log_text()
        c.check("lost partition" in log, "n2's log says it lost its partitions")
        guards = {"the lease fence": "was taken over by another node", "the job's version": "the job moved on",
                  "the table's offsets": "another task already committed it"}
        refused_by = [g for g, text in guards.items() if text in log]
        print(f"  n2's stalled commit after SIGCONT was refused by: {refused_by}", flush=True)
        c.check(refused_by, "n2's log names the guard that refused its stalled commit")
        for conn in conns.values():
            conn.close()
        c.done()


@suite.test(timeout=300)
def test_a_commit_stalled_after_its_fence_is_refused_inside_the_swap(t):
    """n1 runs a one-task job alone (n2 is decommissioned); its first commit passes the lease fence and then stalls
    (iceberg_load.after_fence) while n2, decommissioning cancelled, takes partitions 6..11 over. n2's own first
    commit stalls before its swap (after its upload), so nothing else moves the table: with the fence only before
    the swap, n1's stale commit would land there. The JDBC catalog is in the cluster's database, so the epochs are
    checked again inside the swap: it is refused and logged, and no snapshot carries n1's old epochs of those
    partitions."""
    broker = kh.adopt_broker(kh.TestBroker({"ev": PARTITIONS}).start())
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        key = shared_key(pg.root)
        stall_ms = 15000

        def start(name, points):
            return t.server(extra_args=["--cluster", pg.uri, "--node-name", name, "--node-timeout-seconds",
                                        str(TIMEOUT), "--cluster-key-file", key],
                            extra_env={"SLUICE_TEST_POINTS": points}).start()
        n1 = start("n1", f"iceberg_load.after_fence=sleep:{stall_ms}:1")
        n2 = start("n2", "iceberg_load.after_upload=sleep:30000:1")
        c1, c2 = n1.connect(), n2.connect()
        setup_lake(c1, pg, s3)
        define_catalog(c2, pg, s3)
        kh.wait_until(lambda: pg.psql("SELECT count(*) FROM sluice_nodes WHERE state = 'alive'") == [["2"]], 30,
                      "two nodes alive")
        kh.query(c1, "ALTER SYSTEM DECOMMISSION NODE 'n2'")
        # Messages only in the partitions n1 gives up when n2 takes its share (a node above its share gives up its
        # highest): n1's regrouped task over 0..5 reads nothing and commits nothing.
        moved = list(range(PARTITIONS // 2, PARTITIONS))
        ids = {p: [i for i in range(1, 1201) if i % PARTITIONS == p] for p in moved}
        total = sum(len(v) for v in ids.values())
        produce_events(broker, "ev", ids)
        kh.query(c1, f"""CREATE ROUTINE LOAD d.ev_job ON lake.db.events COLUMNS (id, name, ts, amount)
PROPERTIES ("format" = "json", "desired_concurrent_number" = "1", "max_batch_interval" = "0.5")
FROM KAFKA ("kafka_broker_list" = "{broker.bootstrap}", "kafka_topic" = "ev",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
        jid = kh.show_job(c1, "d.ev_job")["Id"]
        kh.wait_until(lambda: "test point iceberg_load.after_fence fired" in n1.log_text(), 60,
                      "n1's first commit passed its fence and stalls")
        fenced_at = time.monotonic()
        before = epochs(pg, jid)
        eq({h for h, _ in before.values()}, {"n1"}, "n1 held every partition when it passed the fence")
        kh.query(c2, "CANCEL DECOMMISSION NODE 'n2'")
        kh.wait_until(lambda: leases_by_node(pg, jid) == {"n1": 6, "n2": 6}, 30, "n2 takes its share (6/6)")
        print(f"  n2 held partitions 6..11 {time.monotonic() - fenced_at:.1f}s after n1's fence", flush=True)
        after = epochs(pg, jid)
        for p in moved:
            check(after[p][0] == "n2" and after[p][1] > before[p][1],
                  f"partition {p} taken over by n2 at a new epoch: {before[p]} -> {after[p]}")
        kh.wait_until(lambda: "test point iceberg_load.after_upload fired" in n2.log_text(), 30,
                      "n2's first commit stalls before its swap")
        check("test point iceberg_load.after_fence woke up" not in n1.log_text(),
              f"n1 was still stalled when n2 took over (stall {stall_ms} ms)")
        eq(kh.scalar(c1, "SELECT count(*) FROM lake.db.events"), 0, "nothing committed yet")
        kh.wait_until(lambda: "test point iceberg_load.after_fence woke up" in n1.log_text(), stall_ms / 1000 + 10,
                      "n1's stalled commit goes on to its swap")
        kh.wait_until(lambda: "the catalog's swap refused the commit" in n1.log_text(), 20,
                      "n1's log says the swap refused the commit")
        line = next(x for x in n1.log_text().splitlines() if "the catalog's swap refused the commit" in x)
        print(f"  n1: {line.strip()[:220]}", flush=True)
        check("was taken over by another node" in line, f"the refusal names the lease: {line}")
        check("test point iceberg_load.after_upload woke up" not in n2.log_text(),
              "n2 had not committed yet: nothing but the guard refused n1's swap")
        eq(kh.scalar(c1, "SELECT count(*) FROM lake.db.events"), 0, "n1's stale commit did not land")
        # n2's stall ends: it commits the partitions it took over, and every message is in the table once.
        eq(wait_count(c1, total, 90), total, "every message loaded, by n2")
        time.sleep(2)
        c = Collector()
        count, distinct = kh.query(c1, "SELECT count(*), count(DISTINCT id) FROM lake.db.events")[0]
        c.eq((count, distinct), (total, total), "count = distinct = produced")
        history = kh.query(c1, "SELECT summary['sluice.epochs." + jid + "'] FROM lake.db.events$snapshots")
        stale = [(p, e) for (value,) in history for p, e in json.loads(value or "{}").items()
                 if int(p) in moved and int(e) == before[int(p)][1]]
        c.eq(stale, [], "no snapshot carries n1's old epochs of the partitions taken over")
        c.check(any(json.loads(v or "{}") for (v,) in history), f"the snapshots record epochs: {history}")
        c1.close()
        c2.close()
        c.done()


@suite.test(timeout=300)
def test_a_node_whose_disk_is_full_hands_its_partitions_over(t):
    """n2's data directory is a small tmpfs (tests/e2e/test_disk_full.py's technique) that the test fills past
    --min-free-disk-mb: n2's storage gate pauses its tasks and it gives up its leases, n1 takes all 12 partitions
    and loads everything, the job stays RUNNING in the cluster; once the filler is gone n2 takes its share again."""
    from test_disk_full import small_disk_or_skip
    disk = small_disk_or_skip(96)
    if disk is None:
        return
    broker = kh.adopt_broker(kh.TestBroker({"ev": PARTITIONS}).start())
    filler = os.path.join(disk.path, "filler")
    try:
        with Postgres() as pg, S3rver() as s3:
            s3.create_bucket(BUCKET)
            key = shared_key(pg.root)
            common = ["--cluster", pg.uri, "--node-timeout-seconds", str(TIMEOUT), "--cluster-key-file", key]
            n1 = t.server(extra_args=common + ["--node-name", "n1"]).start()
            n2 = t.server(data_dir=os.path.join(disk.path, "data"),
                          extra_args=common + ["--node-name", "n2", "--min-free-disk-mb", "16"]).start()
            c1, c2 = n1.connect(), n2.connect()
            setup_lake(c1, pg, s3)
            define_catalog(c2, pg, s3)
            per = 100
            total = PARTITIONS * per
            produce_events(broker, "ev", ids_for(1, total // 3))
            create_job(c1, broker)
            jid = kh.show_job(c1, "d.ev_job")["Id"]
            kh.wait_until(lambda: leases_by_node(pg, jid) == {"n1": 6, "n2": 6}, 60, "6/6")
            eq(wait_count(c1, total // 3, 120), total // 3, "both nodes load")

            # Fill n2's disk to below --min-free-disk-mb (8 MiB left).
            st = os.statvfs(disk.path)
            with open(filler, "wb") as f:
                f.write(b"\0" * max(0, st.f_bavail * st.f_frsize - (8 << 20)))
            filled = time.monotonic()
            kh.wait_until(lambda: leases_by_node(pg, jid) == {"n1": 12}, 30,
                          "n2 gives its partitions up and n1 takes them")
            print(f"  n1 held all 12 partitions {time.monotonic() - filled:.1f}s after n2's disk filled up",
                  flush=True)
            check("disk full" in n2.log_text() or "free" in n2.log_text(), "n2's log says why it paused")
            eq(kh.show_job(c1, "d.ev_job")["State"], "RUNNING", "the job stays RUNNING in the cluster")
            work = nodes_work(c1)
            eq((work["n2"][:2], work["n1"][1]), ((0, 0), 12), f"SHOW NODES: n2 holds nothing, n1 all 12 ({work})")
            produce_events(broker, "ev", ids_for(total // 3 + 1, 2 * total // 3))
            eq(wait_count(c1, 2 * total // 3, 120), 2 * total // 3, "n1 loads everything while n2's disk is full")

            os.remove(filler)
            freed = time.monotonic()
            kh.wait_until(lambda: leases_by_node(pg, jid) == {"n1": 6, "n2": 6}, 60,
                          "n2 takes its share again once its disk has room")
            print(f"  6/6 again {time.monotonic() - freed:.1f}s after n2's disk had room", flush=True)
            produce_events(broker, "ev", ids_for(2 * total // 3 + 1, total))
            c = Collector()
            eq(wait_count(c1, total, 120), total, "every message loaded")
            time.sleep(2)
            check_table(c, c1, pg, s3, total, "after n2's disk was full and had room again")
            c.check(kh.show_job(c2, "d.ev_job")["State"] == "RUNNING", "n2 runs the job again")
            c1.close()
            c2.close()
            c.done()
    finally:
        if os.path.exists(filler):
            os.remove(filler)
        disk.cleanup()


def two_nodes(t, pg: Postgres):
    """Nodes n1 and n2 of a cluster on `pg`, sharing the key that seals job secrets."""
    key = shared_key(pg.root)
    return (t.server(extra_args=["--cluster", pg.uri, "--node-name", name, "--node-timeout-seconds", str(TIMEOUT),
                                 "--cluster-key-file", key]).start() for name in ("n1", "n2"))


def all_loaded_once(c1, c2, pg: Postgres, s3: S3rver, total: int, what: str):
    """Every one of the `total` messages is in the table once (Sluice and icebird); closes both connections."""
    eq(wait_count(c1, total, 120), total, "every message loaded")
    time.sleep(2)
    c = Collector()
    check_table(c, c1, pg, s3, total, what)
    c1.close()
    c2.close()
    c.done()


@suite.test(timeout=240)
def test_a_catalog_created_on_one_node_is_every_nodes(t):
    per = 100
    total = PARTITIONS * per
    broker = kh.adopt_broker(kh.TestBroker({"ev": PARTITIONS}).start())
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        n1, n2 = two_nodes(t, pg)
        c1, c2 = n1.connect(), n2.connect()
        setup_lake(c1, pg, s3)
        kh.query(c2, "CREATE DATABASE d")  # the catalog lake comes from the cluster
        check_catalog_shared(c2, pg, "n2")
        eq(kh.query(c2, "SHOW CREATE CATALOG lake"), kh.query(c1, "SHOW CREATE CATALOG lake"),
           "SHOW CREATE CATALOG is the same on both nodes")
        produce_events(broker, "ev", ids_for(1, total // 2))
        create_job(c1, broker)
        jid = kh.show_job(c1, "d.ev_job")["Id"]
        kh.wait_until(lambda: leases_by_node(pg, jid) == {"n1": 6, "n2": 6}, 60,
                      "6/6: n2 runs the job through the catalog created on n1")
        produce_events(broker, "ev", ids_for(total // 2 + 1, total))
        all_loaded_once(c1, c2, pg, s3, total, "loaded by both nodes")
        c1, c2 = n1.connect(), n2.connect()
        # A name taken in the cluster is taken on every node; DROP on n2 drops it on n1 within a second.
        try:
            kh.query(c2, "CREATE EXTERNAL CATALOG lake PROPERTIES (\"type\" = \"iceberg\")")
            check(False, "a second CREATE of lake on n2 fails")
        except Exception as e:  # noqa: BLE001
            check("already exists" in str(e), f"CREATE of a cluster catalog's name: {e}")
        kh.query(c1, "STOP ROUTINE LOAD FOR d.ev_job")
        kh.query(c2, "DROP CATALOG lake")
        kh.wait_until(lambda: "lake" not in [r[0] for r in kh.query(c1, "SHOW CATALOGS")], 5,
                      "n1 no longer lists lake")
        eq(pg.psql("SELECT count(*) FROM sluice_external_catalogs"), [["0"]], "the cluster's row is gone")


@suite.test(timeout=240)
def test_a_decommissioned_node_hands_its_partitions_over(t):
    per = 100
    total = PARTITIONS * per
    broker = kh.adopt_broker(kh.TestBroker({"ev": PARTITIONS}).start())
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        n1, n2 = two_nodes(t, pg)
        c1, c2 = n1.connect(), n2.connect()
        setup_lake(c1, pg, s3)
        define_catalog(c2, pg, s3)
        produce_events(broker, "ev", ids_for(1, total // 3))
        create_job(c1, broker)
        jid = kh.show_job(c1, "d.ev_job")["Id"]
        kh.wait_until(lambda: leases_by_node(pg, jid) == {"n1": 6, "n2": 6}, 60, "6/6")

        check("NODE" in _error(c2, "ALTER SYSTEM DECOMMISSION BACKEND 'n1'"), "BACKEND: Sluice names nodes")
        check("Unknown node 'n9'" in _error(c2, "ALTER SYSTEM DECOMMISSION NODE 'n9'"), "an unknown node")
        kh.query(c2, "CREATE USER op IDENTIFIED BY 'pw'")
        op = n2.connect(user="op", password="pw")
        err = _error(op, "ALTER SYSTEM DECOMMISSION NODE 'n1'")
        check("1227" in err and "NODE" in err, f"a user without NODE on SYSTEM is refused: {err}")
        op.close()

        kh.query(c2, "ALTER SYSTEM DECOMMISSION NODE 'n1'")  # from the other node
        kh.wait_until(lambda: leases_by_node(pg, jid) == {"n2": 12}, 30, "n1's partitions move to n2")
        rows = {r[0]: r for r in kh.query(c1, "SHOW NODES")}
        eq(rows["n1"][7], "true", "SHOW NODES: n1 decommissioned")
        eq((rows["n1"][2], rows["n2"][7]), ("alive", "false"), "n1 still alive, n2 not decommissioned")
        produce_events(broker, "ev", ids_for(total // 3 + 1, 2 * total // 3))
        eq(wait_count(c1, 2 * total // 3, 120), 2 * total // 3, "n2 loads everything while n1 is decommissioned")

        # restarted, a decommissioned node stays so: it takes no share
        n1.stop()
        n1.start()
        c1 = n1.connect()
        time.sleep(TIMEOUT + 2)
        eq(leases_by_node(pg, jid), {"n2": 12}, "after its restart n1 still takes nothing")

        kh.query(c1, "CANCEL DECOMMISSION NODE 'n1'")
        kh.wait_until(lambda: leases_by_node(pg, jid) == {"n1": 6, "n2": 6}, 60, "6/6 again after CANCEL")
        produce_events(broker, "ev", ids_for(2 * total // 3 + 1, total))
        all_loaded_once(c1, c2, pg, s3, total, "after decommission and cancel")


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
