#!/usr/bin/python3
"""Every failure a cluster survives, in one run, and a PostgreSQL that hangs (docs/cluster.md, "Failures"), with
real parts: PostgreSQL 15 (the cluster's database and the Iceberg JDBC catalog, the same database), s3rver, the
test broker, `sluice serve --cluster` processes on loopback and npm's icebird. A producer adds messages to the
12-partition topic the whole time; a watcher polls SHOW ROUTINE LOAD on every live node and records any answer
that is not RUNNING.

- test_every_failure_in_one_run: three nodes, node timeout 4 s; in one run: kill -9 of n3 mid-load (its
  partitions move to n1 and n2), SIGSTOP of n2 past the node timeout (n1 takes everything; after SIGCONT n2
  commits nothing under its old epochs and rejoins), n3 started again, a fourth node n4 that joins and takes its
  share (3/3/3/3) and loads, PostgreSQL restarted once. A volume pipe loads files arriving the whole time and
  moves with its runner. The run ends with count = distinct = produced for both jobs, read by Sluice and by
  icebird, and every live node gives the same cluster-wide answer in SHOW ROUTINE LOAD, SHOW PIPES and
  information_schema.
- test_a_hung_postgres_makes_jobs_wait: two nodes, node timeout 4 s; PostgreSQL SIGSTOPped (postmaster and
  backends: on loopback the kernel still acknowledges every packet, so only the nodes' client-side deadlines end
  the waits) for longer than the node timeout, then SIGCONT. The job stays RUNNING on both nodes, SHOW NODES and a
  query of the Iceberg table answer within a bound with a "cannot be reached" error, the nodes come back, and the
  table ends with count = distinct = produced.

The jobs of the combined run and their end checks are listed in one place, make_jobs: a routine load on the topic
and a volume pipe over an S3 folder that a second producer adds a file to every 0.7 s, each into its own Iceberg
table; both run through the same failures and end with count = distinct = produced.

    /usr/bin/python3 tests/e2e/test_cluster_failures.py --server build/sluice \
        --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check, eq  # noqa: E402
from iceberg_harness import BUCKET, icebird, metadata_location, setup_lake  # noqa: E402
from pg_harness import Postgres  # noqa: E402
from s3_harness import ACCESS_ID, ACCESS_KEY, S3rver  # noqa: E402
from test_cluster_jobs import create_job, define_catalog, epochs, leases_by_node, shared_key  # noqa: E402
from test_cluster_operations import (  # noqa: E402
    Feeder, Producer, Watcher, back_after_postgres, cluster_node, error_of, loaded_once, ran_throughout, unreachable,
    wait_spread,
)

suite = TestSuite("test_cluster_failures")
PARTITIONS = 12
TIMEOUT = 4  # --node-timeout-seconds: short, so that each failure takes seconds
LANDING = "landing"  # the volume pipe's bucket


class RoutineLoadJob:
    """The routine load d.ev_job on the topic `ev` into lake.db.events: what the run creates, which columns every
    node must agree on, and what must hold at the end."""

    name = "d.ev_job"
    # Cluster-wide columns of SHOW ROUTINE LOAD (Statistic, CurrentTaskNum, ErrorLogUrls are the node's own).
    show_columns = ("Id", "Name", "State", "TableName", "JobProperties", "DataSourceProperties",
                    "ReasonOfStateChanged", "Progress")
    # The same in information_schema.routine_load_jobs.
    view_sql = ("SELECT ID, NAME, STATE, TABLE_NAME, DATA_SOURCE_PROPERTIES, PROGRESS, REASONS_OF_STATE_CHANGED "
                "FROM information_schema.routine_load_jobs WHERE NAME = 'ev_job'")

    def __init__(self, broker):
        self.broker = broker
        self.producer = Producer(broker)
        self.id = ""

    def create(self, conn, pg):
        create_job(conn, self.broker)
        self.id = str(kh.show_job(conn, self.name)["Id"])

    def start_load(self):
        self.producer.start()

    def stop_load(self) -> list[int]:
        return self.producer.stop()

    def views(self, conn) -> tuple:
        job = kh.show_job(conn, self.name)
        job["JobProperties"].pop("currentTaskConcurrentNum", None)  # the node's own running tasks
        return ({k: job[k] for k in self.show_columns}, [list(r) for r in kh.query(conn, self.view_sql)])

    def check_end(self, conn, pg, s3, ids: list[int]):
        loaded_once(conn, pg, s3, ids, 180, "after every failure")


class FileProducer(Feeder):
    """Puts a CSV file of `per` rows with new ids into s3://landing/in/ every `pause` seconds until stopped; `ids`
    are those of the files s3rver took."""

    what = "the file producer"

    def __init__(self, s3: S3rver, per: int = 25, pause: float = 0.7):
        super().__init__(per, pause)
        self.s3 = s3

    def send(self, step: int, ids: list[int]) -> None:
        rows = "".join(f"{i},n{i},2024-05-0{1 + i % 3} 0{i % 10}:00:00,{i % 97}\n" for i in ids)
        self.s3.put(LANDING, f"in/f{step + 1:05d}.csv", rows.encode())


class VolumePipeJob:
    """The volume pipe d.files_pipe over s3://landing/in/ into lake.db.files, run whole by one node at a time: it
    moves with every failure of its runner (docs/cluster.md, "Volume pipes")."""

    name = "d.files_pipe"
    # Cluster-wide columns of SHOW PIPES and information_schema.pipes.
    show_columns = ("name", "status", "pipe_kind", "copy_statement", "virtual_cluster", "created_time")
    view_sql = ("SELECT PIPE_ID, PIPE_NAME, STATE, TABLE_NAME, PIPE_KIND FROM information_schema.pipes "
                "WHERE PIPE_NAME = 'files_pipe'")

    def __init__(self, s3: S3rver):
        self.s3 = s3
        self.producer = FileProducer(s3)
        self.id = ""

    def create(self, conn, pg):
        self.s3.create_bucket(LANDING)
        kh.query(conn, f"CREATE STORAGE CONNECTION s3c TYPE S3 ENDPOINT = '{self.s3.endpoint}' "
                       f"ACCESS_ID = '{ACCESS_ID}' ACCESS_KEY = '{ACCESS_KEY}'")
        kh.query(conn, f"CREATE EXTERNAL VOLUME landing LOCATION 's3://{LANDING}/in/' USING CONNECTION s3c")
        kh.query(conn, "CREATE TABLE lake.db.files (id BIGINT NOT NULL, name VARCHAR, ts DATETIME, amount INT)")
        kh.query(conn, "CREATE PIPE d.files_pipe BATCH_INTERVAL_IN_SECONDS = '1' INGEST_MODE = 'LIST' AS COPY INTO "
                       "lake.db.files FROM VOLUME landing USING CSV")
        self.id = pg.psql("SELECT id FROM sluice_routine_loads WHERE name = 'files_pipe'")[0][0]

    def start_load(self):
        self.producer.start()

    def stop_load(self) -> list[int]:
        return self.producer.stop()

    def views(self, conn) -> tuple:
        rows = kh.show_rows(conn, "SHOW PIPES FROM d LIKE 'files_pipe'")
        row = rows[0] if rows else {}
        shown = {k: row.get(k) for k in self.show_columns}
        shown["State"] = row.get("status")  # same_everywhere's RUNNING check
        return (shown, [list(r) for r in kh.query(conn, self.view_sql)])

    def check_end(self, conn, pg, s3, ids: list[int]):
        n = kh.wait_until(lambda: (lambda k: k if k >= len(ids) else None)(
            kh.scalar(conn, "SELECT count(*) FROM lake.db.files")), 180, f"{len(ids)} rows of files", interval=0.5)
        eq(n, len(ids), "rows of files loaded")
        time.sleep(2)  # a late duplicate commit would show now
        c = Collector()
        count, distinct, sum_id = kh.query(conn, "SELECT count(*), count(DISTINCT id), sum(id) FROM lake.db.files")[0]
        c.eq((count, distinct, int(sum_id or 0)), (len(ids), len(ids), sum(ids)),
             "the volume pipe after every failure: count, distinct ids, sum(id) through Sluice")
        got = icebird(s3, f"s3://{BUCKET}/wh/db/files", metadata_location(pg, "files"))
        c.eq(sorted(int(r["id"]) for r in got["rows"]), sorted(ids), "icebird reads exactly the files' ids")
        c.done()


def make_jobs(broker, s3: S3rver) -> list:
    """Every job the combined run loads through its failures: a routine load (first: the partition spreads below
    are its) and a volume pipe."""
    return [RoutineLoadJob(broker), VolumePipeJob(s3)]


def same_everywhere(jobs: list, conns: dict, timeout: float = 60) -> None:
    """Every job's cluster-wide columns are the same on every node in `conns` (SHOW ROUTINE LOAD and
    information_schema), and RUNNING; waits for commits in flight to settle."""
    last = {}

    def probe():
        for job in jobs:
            answers = {n: job.views(c) for n, c in conns.items()}
            last[job.name] = answers
            first = next(iter(answers.values()))
            if any(a != first for a in answers.values()) or first[0]["State"] != "RUNNING":
                return None
        return True
    try:
        kh.wait_until(probe, timeout, "the same answer on every node", interval=0.5)
    except AssertionError as e:
        raise AssertionError(f"{e}\n  last answers: {last}") from None


@suite.test(timeout=600)
def test_every_failure_in_one_run(t):
    names = ["n1", "n2", "n3"]
    broker = kh.adopt_broker(kh.TestBroker({"ev": PARTITIONS}).start())
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        key = shared_key(pg.root)
        servers = {n: cluster_node(t, pg, n, key, TIMEOUT).start() for n in names}
        conn = servers["n1"].connect()
        setup_lake(conn, pg, s3)
        for n in ("n2", "n3"):
            other = servers[n].connect()
            define_catalog(other, pg, s3)
            other.close()
        jobs = make_jobs(broker, s3)
        for job in jobs:
            job.create(conn, pg)
        conn.close()
        jid = jobs[0].id
        wait_spread(pg, jid, {"n1": 4, "n2": 4, "n3": 4}, 60, "the start")

        for job in jobs:
            job.start_load()
        lock = threading.Lock()
        live = set(names)
        watcher = Watcher(servers, live, lock, interval=0.5)
        watcher.start()
        c = Collector()
        frozen_epochs, taken_over_ms = {}, 0
        try:
            time.sleep(3)
            # 1. kill -9 of n3 mid-load: n1 and n2 continue its partitions after the node timeout.
            with lock:
                live.discard("n3")
            began = time.monotonic()
            servers["n3"].kill_process()
            moved = wait_spread(pg, jid, {"n1": 6, "n2": 6}, TIMEOUT + 30, "n3 killed")
            print(f"  1. kill -9 n3: its partitions held by n1, n2 {time.monotonic() - began:.1f}s after", flush=True)

            # 2. SIGSTOP of n2 past the node timeout: n1 takes everything; awake, n2 commits nothing under its old
            #    epochs, and rejoins.
            before = epochs(pg, jid)
            frozen_epochs = {p: e for p, (holder, e) in before.items() if holder == "n2"}
            with lock:
                live.discard("n2")
            os.kill(servers["n2"].proc.pid, signal.SIGSTOP)
            try:
                wait_spread(pg, jid, {"n1": 12}, TIMEOUT + 30, "n2 frozen")
                taken_over_ms = int(time.time() * 1000)
                time.sleep(2)
            finally:
                os.kill(servers["n2"].proc.pid, signal.SIGCONT)
            with lock:
                live.add("n2")
            back = wait_spread(pg, jid, {"n1": 6, "n2": 6}, 60, "n2 awake again")
            print(f"  2. SIGSTOP n2: n1 held all 12; after SIGCONT 6/6 again {back:.1f}s later", flush=True)

            # 3. n3 started again.
            servers["n3"].start()
            with lock:
                live.add("n3")
            back = wait_spread(pg, jid, {"n1": 4, "n2": 4, "n3": 4}, 60, "n3 back")
            print(f"  3. n3 started again: 4/4/4 {back:.1f}s later", flush=True)

            # 4. A fourth node joins and takes its share.
            servers["n4"] = cluster_node(t, pg, "n4", key, TIMEOUT).start()
            n4 = servers["n4"].connect()
            define_catalog(n4, pg, s3)
            joined = wait_spread(pg, jid, {"n1": 3, "n2": 3, "n3": 3, "n4": 3}, 60, "n4 joined")
            with lock:
                live.add("n4")
            names.append("n4")
            kh.wait_until(lambda: kh.show_job(n4, jobs[0].name)["Statistic"]["loadedRows"] > 0, 60,
                          "n4 loads its share")
            n4.close()
            print(f"  4. n4 joined: 3/3/3/3 {joined:.1f}s after its catalog was defined, and it loads", flush=True)

            # 5. PostgreSQL restarted once.
            probe = servers["n1"].connect()
            count_before = kh.scalar(probe, "SELECT count(*) FROM lake.db.events")
            pg.down()
            time.sleep(1)
            pg.up()
            up_at = time.monotonic()
            wait_spread(pg, jid, {n: 3 for n in names}, 60, "after PostgreSQL's restart")
            kh.wait_until(lambda: kh.scalar(probe, "SELECT count(*) FROM lake.db.events") > count_before + 100, 60,
                          "the load goes on after PostgreSQL's restart", interval=0.5)
            probe.close()
            print(f"  5. PostgreSQL restarted: 3/3/3/3 and new rows {time.monotonic() - up_at:.1f}s after", flush=True)
            time.sleep(2)
        finally:
            produced = {job.name: job.stop_load() for job in jobs}
            watcher.stop()
        print(f"  watcher: {watcher.polls} SHOW ROUTINE LOAD polls; produced "
              f"{ {k: len(v) for k, v in produced.items()} }", flush=True)
        c.eq(watcher.not_running, [], "SHOW ROUTINE LOAD on every live node answered RUNNING at every poll")
        c.eq(watcher.errors, [], "SHOW ROUTINE LOAD on a live node never failed")

        conns = {n: servers[n].connect() for n in names}
        for job in jobs:
            job.check_end(conns["n1"], pg, s3, produced[job.name])
        same_everywhere(jobs, conns)
        # n2's epochs from before its freeze appear in no snapshot committed after the takeover.
        history = kh.query(conns["n1"], "SELECT epoch_ms(committed_at), summary['sluice.epochs." + jid + "'] "
                                        "FROM lake.db.events$snapshots")
        stale = [(ms, p, e) for ms, value in history for p, e in json.loads(value or "{}").items()
                 if int(p) in frozen_epochs and int(e) == frozen_epochs[int(p)] and int(ms) > taken_over_ms]
        c.eq(stale, [], "no snapshot committed after n2's takeover carries its old epochs")
        for n in names:
            c.check(kh.show_job(conns[n], jobs[0].name)["Statistic"]["loadedRows"] > 0, f"{n} loaded rows")
            log = servers[n].log_text()
            c.check("-> PAUSED" not in log and "-> CANCELLED" not in log, f"{n} never paused or cancelled the job")
        for cn in conns.values():
            cn.close()
        c.done()


def timed_error(conn, sql: str) -> tuple[str, float]:
    began = time.monotonic()
    err = error_of(conn, sql)
    return err, time.monotonic() - began


@suite.test(timeout=300)
def test_a_hung_postgres_makes_jobs_wait(t):
    names = ("n1", "n2")
    hang = TIMEOUT + 8  # longer than the node timeout, and than every client-side deadline
    broker = kh.adopt_broker(kh.TestBroker({"ev": PARTITIONS}).start())
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        key = shared_key(pg.root)
        servers = {n: cluster_node(t, pg, n, key, TIMEOUT).start() for n in names}
        conns = {n: servers[n].connect() for n in names}
        setup_lake(conns["n1"], pg, s3)
        define_catalog(conns["n2"], pg, s3)
        create_job(conns["n1"], broker)
        jid = str(kh.show_job(conns["n1"], "d.ev_job")["Id"])
        wait_spread(pg, jid, {"n1": 6, "n2": 6}, 60, "the start")

        producer = Producer(broker)
        producer.start()
        lock = threading.Lock()
        watcher = Watcher(servers, set(names), lock, interval=0.5)
        watcher.start()
        c = Collector()
        try:
            time.sleep(3)
            before = kh.scalar(conns["n1"], "SELECT count(*) FROM lake.db.events")
            pg.freeze()
            frozen_at = time.monotonic()
            try:
                time.sleep(0.5)
                # Statements that need PostgreSQL answer within a bound, saying it cannot be reached.
                for n in names:
                    err, took = timed_error(conns[n], "SHOW NODES")
                    unreachable(c, err, f"{n}: SHOW NODES while PostgreSQL hangs")
                    c.check(took < 12, f"{n}: SHOW NODES answered in {took:.1f}s")
                    print(f"  {n}: SHOW NODES answered in {took:.1f}s: {err[:120]}", flush=True)
                err, took = timed_error(conns["n2"], "SELECT count(*) FROM lake.db.events")
                unreachable(c, err, "a query of the Iceberg table while its JDBC catalog's PostgreSQL hangs")
                # The catalog's answer deadline and one reconnect (6 + 5 s), behind a commit on the same catalog
                # connection at worst.
                c.check(took < 25, f"the query answered in {took:.1f}s")
                print(f"  a query of the Iceberg table answered in {took:.1f}s: {err[:120]}", flush=True)
                c.eq(kh.scalar(conns["n1"], "SELECT 40 + 2"), 42, "a statement that needs no PostgreSQL")
                time.sleep(max(0.0, hang - (time.monotonic() - frozen_at)))
            finally:
                pg.thaw()
            up_at = time.monotonic()
            print(f"  PostgreSQL hung for {up_at - frozen_at:.1f}s (node timeout {TIMEOUT}s)", flush=True)
            alive, spread, resumed = back_after_postgres(conns, pg, jid, before, up_at, 60, 90, "the hang")
            print(f"  after it: both alive {alive:.1f}s, 6/6 {spread:.1f}s, new rows {resumed:.1f}s after "
                  f"SIGCONT", flush=True)
            time.sleep(3)
        finally:
            ids = producer.stop()
            watcher.stop()
        print(f"  watcher: {watcher.polls} SHOW ROUTINE LOAD polls, {len(ids)} messages produced", flush=True)
        ran_throughout(c, watcher, {n: servers[n] for n in names}, "PostgreSQL hung")
        c.done()
        loaded_once(conns["n1"], pg, s3, ids, 180, "after PostgreSQL hung")
        for conn in conns.values():
            conn.close()


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
