#!/usr/bin/python3
"""Volume pipes into Iceberg tables as cluster jobs (docs/cluster.md, "Volume pipes"), with real parts: PostgreSQL 15
(the cluster's database and the Iceberg JDBC catalog), s3rver (the volume's files and the table's), three
`sluice serve --cluster` processes on loopback and npm's icebird.

- test_a_volume_pipe_runs_on_one_node_and_moves_on_a_kill: CREATE PIPE on n1 over an S3 folder into lake.db.events
  is one row of sluice_routine_loads (kind pipe); SHOW PIPES and information_schema.pipes answer the same on every
  node; exactly one node holds the lease pipe:<id> and loads; files keep arriving; kill -9 of the holder while its
  commit is in flight (stalled after its upload by the test point iceberg_load.after_upload) moves the pipe to a
  survivor (a new epoch) within the node timeout, which loads the rest; count = distinct = produced through
  Sluice and icebird, and no file is listed in two snapshots; the snapshots carry the lease's epoch
  (sluice.epochs.<id>); SUSPEND on one node and resume on another act on the one pipe cluster-wide; DROP PIPE on
  a node that does not run it drops it everywhere and frees the lease; a pipe into a DuckDB table stays the
  node's own.
- test_a_kafka_pipe_is_split_over_three_nodes: a Kafka pipe (READ_KAFKA) on a 12-partition topic into lake.db.events,
  created on n2, has its partitions leased 4/4/4 like a routine load's; SHOW PIPES is the same on every node; kill
  -9 of n3 mid-load moves its partitions to n1 and n2 (6/6, new epochs); count = distinct = produced through Sluice
  and icebird, and the current snapshot holds every partition's offset.
- test_volume_pipes_are_shared_fairly_and_execute_reaches_the_runner: four volume pipes run 2/2 on two nodes and
  2/1/1 once a third joins; SHOW PIPES' node column names the runner on every node; ALTER PIPE ... EXECUTE on a
  node that does not run a pipe makes its runner load now; count = distinct = produced through Sluice and icebird.

    /usr/bin/python3 tests/e2e/test_cluster_pipes.py --server build/sluice
"""
from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check, eq  # noqa: E402
from iceberg_harness import BUCKET, produce_events, setup_lake, wait_count  # noqa: E402
from pg_harness import Postgres  # noqa: E402
from s3_harness import ACCESS_ID, ACCESS_KEY, S3rver  # noqa: E402
from test_cluster_jobs import (  # noqa: E402
    NODES, PARTITIONS, TIMEOUT, check_table, define_catalog, epochs, ids_for, leases_by_node, setup, shared_key,
)

suite = TestSuite("test_cluster_pipes")
LANDING = "landing"
STALL_MS = 8000  # the holder's second commit waits this long after its upload: it is killed meanwhile


def define_volume(conn, s3: S3rver):
    """Volumes and storage connections are the cluster's: defined once, on any node."""
    kh.query(conn, f"CREATE STORAGE CONNECTION s3c TYPE S3 ENDPOINT = '{s3.endpoint}' ACCESS_ID = '{ACCESS_ID}' "
                   f"ACCESS_KEY = '{ACCESS_KEY}'")
    kh.query(conn, f"CREATE EXTERNAL VOLUME landing LOCATION 's3://{LANDING}/in/' USING CONNECTION s3c")


def put_csv(s3: S3rver, key: str, ids: range):
    rows = "".join(f"{i},n{i},2024-05-0{1 + i % 3} 0{i % 10}:00:00,{i % 97}\n" for i in ids)
    s3.put(LANDING, f"in/{key}", rows.encode())


def put_files(s3: S3rver, first_file: int, files: int, per: int):
    """Files f<first_file>.csv ... with `per` rows each; file k holds ids (k-1)*per+1 .. k*per."""
    for k in range(first_file, first_file + files):
        put_csv(s3, f"f{k:04d}.csv", range((k - 1) * per + 1, k * per + 1))


def show_pipes(conn) -> list[dict]:
    with conn.cursor() as cur:
        cur.execute("SHOW PIPES FROM d")
        names = [x[0] for x in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]


def info_pipes(conn) -> list[tuple]:
    return sorted(kh.query(conn, "SELECT PIPE_ID, PIPE_NAME, STATE, TABLE_NAME, PIPE_KIND FROM "
                                 "information_schema.pipes WHERE DATABASE_NAME = 'd'"))


def wait_same_pipes(conns: dict, status: str, timeout: float = 30) -> list[dict]:
    """SHOW PIPES FROM d answers the same on every node, with the pipe vp in `status`."""
    last = {}

    def probe():
        views = {n: show_pipes(c) for n, c in conns.items()}
        last["views"] = views
        first = next(iter(views.values()))
        same = all(v == first for v in views.values())
        return first if same and first and first[0]["status"] == status else None
    try:
        return kh.wait_until(probe, timeout, f"SHOW PIPES the same on every node, vp {status}")
    except AssertionError as e:
        raise AssertionError(f"{e}\n  last answers: {last.get('views')}") from None


def pipe_holder(pg: Postgres, pid: int) -> tuple[str, int] | None:
    rows = pg.psql(f"SELECT holder, epoch FROM sluice_leases WHERE resource = 'pipe:{pid}' AND holder IS NOT NULL "
                   "AND expires_at > now()")
    return (rows[0][0], int(rows[0][1])) if rows else None


def files_by_snapshot(conn, pid: int) -> list[list[str]]:
    out = []
    for (value,) in kh.query(conn, f"SELECT summary['sluice.files.{pid}'] FROM lake.db.events$snapshots "
                                   "ORDER BY committed_at, snapshot_id"):
        if value:
            out.append(sorted(f["url"].rsplit("/", 1)[1] for f in json.loads(value)))
    return out


@suite.test(timeout=420)
def test_a_volume_pipe_runs_on_one_node_and_moves_on_a_kill(t):
    per, first_files, later_files = 50, 6, 6
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        s3.create_bucket(LANDING)
        key = shared_key(pg.root)
        # Every node's second commit stalls after its upload: the holder's is in flight when it is killed.
        env = {"SLUICE_TEST_POINTS": f"iceberg_load.after_upload=sleep:{STALL_MS}:2"}
        nodes = {name: t.server(extra_args=["--cluster", pg.uri, "--node-name", name, "--node-timeout-seconds",
                                            str(TIMEOUT), "--cluster-key-file", key], extra_env=env).start()
                 for name in NODES}
        conns = {name: srv.connect() for name, srv in nodes.items()}
        setup_lake(conns["n1"], pg, s3)
        for name in ("n2", "n3"):
            define_catalog(conns[name], pg, s3)
        define_volume(conns["n2"], s3)
        kh.wait_until(lambda: pg.psql("SELECT count(*) FROM sluice_nodes WHERE state = 'alive'") == [["3"]], 30,
                      "three nodes alive")
        c = Collector()
        put_files(s3, 1, first_files, per)
        kh.query(conns["n1"], "CREATE PIPE d.vp BATCH_INTERVAL_IN_SECONDS = '1' INGEST_MODE = 'LIST' AS COPY INTO "
                              "lake.db.events FROM VOLUME landing USING CSV REGEXP '.*[.]csv'")
        err = ""
        try:
            kh.query(conns["n2"], "CREATE PIPE d.vp AS COPY INTO lake.db.events FROM VOLUME landing USING CSV")
        except Exception as e:  # noqa: BLE001
            err = str(e)
        check("already exists" in err, f"n2 knows the pipe n1 created: {err}")
        rows = pg.psql("SELECT id, kind, state FROM sluice_routine_loads WHERE name = 'vp'")
        c.eq(len(rows), 1, "the pipe is one row of sluice_routine_loads")
        pid = int(rows[0][0])
        c.eq(rows[0][1], "pipe", "of kind pipe")
        check(pid >= 1000000001, f"a cluster pipe's id comes from PostgreSQL: {pid}")
        wait_same_pipes(conns, "RUNNING", 30)
        views = {n: info_pipes(conn) for n, conn in conns.items()}
        c.check(all(v == views["n1"] and v for v in views.values()),
                f"information_schema.pipes the same on every node: {views}")
        c.eq(views["n1"][0][:2], (pid, "vp"), "information_schema.pipes: the cluster's id")

        eq(wait_count(conns["n2"], first_files * per, 60), first_files * per, "the first files loaded")
        holder, epoch = kh.wait_until(lambda: pipe_holder(pg, pid), 20, "one node holds pipe:<id>")
        print(f"  pipe:{pid} held by {holder} at epoch {epoch}", flush=True)
        c.eq([n for n in NODES if n != holder and "pipe d.vp FROM VOLUME" in nodes[n].log_text()], [],
             "only the holder loaded the first files")

        # More files: the holder's commit of them stalls after the upload, and the holder is killed then.
        put_files(s3, first_files + 1, later_files, per)
        kh.wait_until(lambda: "test point iceberg_load.after_upload fired" in nodes[holder].log_text(), 60,
                      f"{holder}'s commit of the new files is in flight")
        nodes[holder].kill_process()
        conns.pop(holder).close()
        killed = time.monotonic()
        survivor, new_epoch = kh.wait_until(
            lambda: (lambda h: h if h and h[0] != holder else None)(pipe_holder(pg, pid)), TIMEOUT + 30,
            "a survivor takes the pipe over")
        moved = time.monotonic() - killed
        print(f"  pipe moved to {survivor} (epoch {new_epoch}) {moved:.1f}s after kill -9 of {holder} "
              f"(node timeout {TIMEOUT}s)", flush=True)
        c.check(new_epoch > epoch, f"a new epoch ({epoch} -> {new_epoch})")
        put_files(s3, first_files + later_files + 1, 2, per)
        total = (first_files + later_files + 2) * per
        some = next(iter(conns.values()))
        eq(wait_count(some, total, 90), total, "every file loaded after the takeover")
        time.sleep(2)  # any late or double commit would show now
        got = check_table(c, some, pg, s3, total, "after the kill")
        snapshots = files_by_snapshot(some, pid)
        listed = [f for snap in snapshots for f in snap]
        c.eq(sorted(listed), sorted(f"f{k:04d}.csv" for k in range(1, first_files + later_files + 3)),
             "every file listed once over all snapshots")
        fenced = json.loads(got["summary"].get(f"sluice.epochs.{pid}", "{}"))
        c.eq(fenced, {"pipe": new_epoch}, "the current snapshot was committed under the survivor's epoch")
        wait_same_pipes(conns, "RUNNING", 20)

        # Suspended on one node, resumed on another: one pipe.
        a, b = sorted(conns)
        kh.query(conns[a], "ALTER PIPE d.vp SET PIPE_EXECUTION_PAUSED = true")
        c.eq(pg.psql(f"SELECT state FROM sluice_routine_loads WHERE id = {pid}"), [["PAUSED"]],
             "SUSPENDED is written to PostgreSQL")
        wait_same_pipes(conns, "SUSPENDED", 20)
        put_files(s3, first_files + later_files + 3, 1, per)
        time.sleep(4)
        c.eq(kh.scalar(some, "SELECT count(*) FROM lake.db.events"), total, "a suspended pipe loads nothing")
        kh.query(conns[b], "ALTER PIPE d.vp SET PIPE_EXECUTION_PAUSED = false")
        wait_same_pipes(conns, "RUNNING", 20)
        total += per
        eq(wait_count(some, total, 60), total, "resumed on another node, the pipe loads the new file")

        # DROP PIPE on a node that does not run it.
        runner = pipe_holder(pg, pid)
        other = next(n for n in conns if runner is None or n != runner[0])
        kh.query(conns[other], "DROP PIPE d.vp")
        kh.wait_until(lambda: all(show_pipes(conn) == [] for conn in conns.values()), 20, "dropped on every node")
        kh.wait_until(lambda: pipe_holder(pg, pid) is None, 20, "its lease is released")
        c.eq(pg.psql(f"SELECT state FROM sluice_routine_loads WHERE id = {pid}"), [["STOPPED"]], "STOPPED in PostgreSQL")

        # A pipe into a DuckDB table stays the node's own.
        first = sorted(conns)[0]
        kh.query(conns[first], "CREATE TABLE d.plain (id BIGINT, name VARCHAR, ts DATETIME, amount INT)")
        kh.query(conns[first], "CREATE PIPE d.local_vp AS COPY INTO plain FROM VOLUME landing USING CSV")
        c.eq(pg.psql("SELECT count(*) FROM sluice_routine_loads WHERE name = 'local_vp'"), [["0"]],
             "a DuckDB table's pipe is not in PostgreSQL")
        for n, conn in conns.items():
            names = [p["name"] for p in show_pipes(conn)]
            c.eq(names, ["local_vp"] if n == first else [], f"SHOW PIPES on {n}")
        for conn in conns.values():
            conn.close()
        c.done()


def pipes_by_node(pg: Postgres, pids: list[int]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for pid in pids:
        h = pipe_holder(pg, pid)
        if h:
            out.setdefault(h[0], []).append(pid)
    return out


@suite.test(timeout=300)
def test_volume_pipes_are_shared_fairly_and_execute_reaches_the_runner(t):
    """Four volume pipes, each over its own folder, run two and two on two nodes; a third node that joins takes
    its share (2/1/1) and no other pipe moves, SHOW PIPES' node column names each pipe's runner on every node, and ALTER PIPE ... EXECUTE
    run on a node that does not run the pipe makes its runner load now."""
    per, pipes = 20, 4
    next_id = [1]

    def add_file(k: int, name: str):
        put_csv(s3, f"k{k}/{name}", range(next_id[0], next_id[0] + per))
        next_id[0] += per

    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        s3.create_bucket(LANDING)
        key = shared_key(pg.root)

        def start(name: str):
            return t.server(extra_args=["--cluster", pg.uri, "--node-name", name, "--node-timeout-seconds",
                                        str(TIMEOUT), "--cluster-key-file", key]).start()
        nodes = {name: start(name) for name in ("n1", "n2")}
        conns = {name: srv.connect() for name, srv in nodes.items()}
        setup_lake(conns["n1"], pg, s3)
        define_catalog(conns["n2"], pg, s3)
        define_volume(conns["n1"], s3)
        kh.wait_until(lambda: pg.psql("SELECT count(*) FROM sluice_nodes WHERE state = 'alive'") == [["2"]], 30,
                      "two nodes alive")
        c = Collector()
        for k in range(1, pipes + 1):
            add_file(k, "f0001.csv")
        # vp4 lists its folder every ten minutes: only EXECUTE makes it look sooner.
        for k in range(1, pipes + 1):
            interval = 600 if k == pipes else 1
            kh.query(conns["n1"], f"CREATE PIPE d.vp{k} BATCH_INTERVAL_IN_SECONDS = '{interval}' INGEST_MODE = 'LIST' "
                                  f"AS COPY INTO lake.db.events FROM VOLUME landing USING CSV SUBDIRECTORY 'k{k}/'")
        pids = [int(r[0]) for r in pg.psql("SELECT id FROM sluice_routine_loads WHERE kind = 'pipe' ORDER BY id")]
        c.eq(len(pids), pipes, "four cluster pipes")
        two = kh.wait_until(lambda: (lambda b: b if sorted(len(v) for v in b.values()) == [2, 2] else None)(
            pipes_by_node(pg, pids)), 30, "the pipes run two and two on n1 and n2")
        print(f"  pipes by node with two nodes: {two}", flush=True)
        total = pipes * per
        eq(wait_count(conns["n2"], total, 60), total, "every pipe's first file loaded")

        nodes["n3"] = start("n3")
        joined = time.monotonic()
        conns["n3"] = nodes["n3"].connect()
        define_catalog(conns["n3"], pg, s3)
        three = kh.wait_until(lambda: (lambda b: b if sorted(len(v) for v in b.values()) == [1, 1, 2] else None)(
            pipes_by_node(pg, pids)), 30, "n3 takes its share: 2/1/1")
        print(f"  pipes by node {time.monotonic() - joined:.1f}s after n3 started: {three}", flush=True)
        c.check(len(three.get("n3", [])) == 1, f"n3 runs one pipe: {three}")
        runner = {pid: node for node, ids in three.items() for pid in ids}
        before = {pid: node for node, ids in two.items() for pid in ids}
        c.eq([pid for pid in pids if runner[pid] != before[pid]], three["n3"], "only the pipe n3 took moved")

        def nodes_column(conn):
            return {p["name"]: p["node"] for p in show_pipes(conn)}
        want = {f"vp{k}": runner[pid] for k, pid in enumerate(pids, start=1)}
        views = kh.wait_until(lambda: (lambda v: v if all(x == want for x in v.values()) else None)(
            {n: nodes_column(conn) for n, conn in conns.items()}), 20,
            f"SHOW PIPES' node column names each pipe's runner on every node ({want})")
        print(f"  SHOW PIPES node column: {views['n1']}", flush=True)

        time.sleep(3)  # a pipe that moved has listed its folder on its new node by now
        # A second file in every folder: vp1..vp3 load it within seconds; vp4 waits for its interval.
        for k in range(1, pipes + 1):
            add_file(k, "f0002.csv")
        total = 2 * pipes * per
        eq(wait_count(conns["n1"], total - per, 60), total - per, "vp1..vp3 loaded their second files")
        time.sleep(4)
        c.eq(kh.scalar(conns["n1"], "SELECT count(*) FROM lake.db.events"), total - per,
             "vp4 (BATCH_INTERVAL_IN_SECONDS 600) has not looked at its folder again")
        vp4_runner = runner[pids[-1]]
        other = next(n for n in sorted(conns) if n != vp4_runner)
        kh.query(conns[other], "ALTER PIPE d.vp4 EXECUTE")
        executed = time.monotonic()
        eq(wait_count(conns["n1"], total, 30), total, f"EXECUTE on {other} made {vp4_runner} load vp4's new file")
        print(f"  ALTER PIPE vp4 EXECUTE on {other}: {vp4_runner} loaded its file "
              f"{time.monotonic() - executed:.1f}s later", flush=True)
        time.sleep(2)  # any late or double commit would show now
        check_table(c, conns["n3"], pg, s3, total, "four pipes over three nodes")
        for conn in conns.values():
            conn.close()
        c.done()


def kafka_pipe(bootstrap: str) -> str:
    return f"""CREATE PIPE d.kp BATCH_INTERVAL_IN_SECONDS = 1 RESET_KAFKA_GROUP_OFFSETS = 'earliest'
AS COPY INTO lake.db.events FROM (
    SELECT CAST(PARSE_JSON(value::STRING)['id'] AS BIGINT) AS id,
           PARSE_JSON(value::STRING)['name']::STRING AS name,
           CAST(PARSE_JSON(value::STRING)['ts'] AS TIMESTAMP) AS ts,
           CAST(PARSE_JSON(value::STRING)['amount'] AS INT) AS amount
    FROM READ_KAFKA('{bootstrap}', 'ev', '', 'kp_group', '', '', '', '', 'raw', 'raw', 0, map())
)"""


@suite.test(timeout=300)
def test_a_kafka_pipe_is_split_over_three_nodes(t):
    per = 200
    total = PARTITIONS * per
    broker = kh.adopt_broker(kh.TestBroker({"ev": PARTITIONS}).start())
    with Postgres() as pg, S3rver() as s3:
        nodes, conns = setup(t, pg, s3, broker)
        c = Collector()
        produce_events(broker, "ev", ids_for(1, total // 3))
        kh.query(conns["n2"], kafka_pipe(broker.bootstrap))
        rows = pg.psql("SELECT id, kind FROM sluice_routine_loads WHERE name = 'kp'")
        c.eq(len(rows), 1, "the Kafka pipe is one row of sluice_routine_loads")
        jid = rows[0][0]
        c.eq(rows[0][1], "pipe", "of kind pipe")
        wait_same_pipes(conns, "RUNNING", 30)
        spread = kh.wait_until(lambda: (lambda b: b if b == {"n1": 4, "n2": 4, "n3": 4} else None)(
            leases_by_node(pg, jid)), 60, "12 partitions leased 4/4/4")
        print(f"  partitions by node: {spread}", flush=True)
        wait_count(conns["n1"], total // 3, 120)
        before = epochs(pg, jid)
        produce_events(broker, "ev", ids_for(total // 3 + 1, 2 * total // 3))
        wait_count(conns["n1"], total // 3 + 100, 60)
        nodes["n3"].kill_process()
        conns.pop("n3").close()
        killed = time.monotonic()
        kh.wait_until(lambda: leases_by_node(pg, jid) == {"n1": 6, "n2": 6}, TIMEOUT + 30, "6/6 after the kill")
        print(f"  n3's partitions moved {time.monotonic() - killed:.1f}s after kill -9 (node timeout {TIMEOUT}s)",
              flush=True)
        after = epochs(pg, jid)
        for p, (holder, epoch) in before.items():
            if holder == "n3":
                c.check(after[p][0] in ("n1", "n2") and after[p][1] > epoch,
                        f"partition {p}: taken over with a new epoch ({before[p]} -> {after[p]})")
        produce_events(broker, "ev", ids_for(2 * total // 3 + 1, total))
        eq(wait_count(conns["n1"], total, 180), total, "every message loaded")
        time.sleep(2)  # any late commit would show now
        got = check_table(c, conns["n1"], pg, s3, total, "after the kill")
        c.eq(json.loads(got["summary"].get(f"sluice.offsets.{jid}", "{}")), {str(p): per for p in range(PARTITIONS)},
             "the current snapshot holds every partition's next offset")
        wait_same_pipes(conns, "RUNNING", 20)
        for conn in conns.values():
            conn.close()
        c.done()


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
