#!/usr/bin/python3
"""Operating a Sluice cluster under load (docs/cluster.md, "Operations"), with real parts: PostgreSQL 15 (the
cluster's database and the Iceberg JDBC catalog, the same database), s3rver, the test broker, `sluice serve
--cluster` processes on loopback and npm's icebird. A producer adds messages to the 12-partition topic the whole
time; a watcher polls SHOW ROUTINE LOAD on every live node and records any answer that is not RUNNING.

- test_a_rolling_restart_keeps_the_job_running: three nodes; each in turn is stopped with SIGTERM, started again
  and waited for until it holds its 4 partitions again. The job is RUNNING at every poll of every live node, the
  stopped node's leases are released at once (its partitions move to the others without waiting for the node
  timeout), and the run ends with count = distinct = produced, read by Sluice and by icebird. Prints how long each
  node's partitions took to move and to come back.
- test_postgres_outages_make_jobs_wait: two nodes; PostgreSQL is stopped for less than the node timeout, then for
  more, and started again on the same port and data directory. The job stays RUNNING on both nodes (no RESUME
  needed), statements that need PostgreSQL say the cluster database cannot be reached, the nodes come back alive in
  SHOW NODES, and the load ends with count = distinct = produced, no duplicates.
- test_a_commit_in_flight_when_postgres_goes_away_lands_once: a node's commit stalls after its upload (test point
  iceberg_load.after_upload) while PostgreSQL is down past the node timeout; once it goes on, the fence, the job's
  version or the table's offsets decide, and every message is in the table exactly once.

    /usr/bin/python3 tests/e2e/test_cluster_operations.py --server build/sluice \
        --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check, eq  # noqa: E402
from iceberg_harness import BUCKET, check_events, event_message, setup_lake  # noqa: E402
from pg_harness import Postgres  # noqa: E402
from s3_harness import S3rver  # noqa: E402
from test_cluster_jobs import create_job, define_catalog, leases_by_node, shared_key  # noqa: E402

suite = TestSuite("test_cluster_operations")
PARTITIONS = 12


class Feeder(threading.Thread):
    """Sends `batch` new ids (1, 2, ...) every `pause` seconds until stopped; `ids` are those whose send() returned.
    A subclass says where they go."""

    what = "the feeder"

    def __init__(self, batch: int, pause: float):
        super().__init__(daemon=True)
        self.batch, self.pause = batch, pause
        self.ids: list[int] = []
        self.error: Exception | None = None
        self._halt = threading.Event()

    def send(self, step: int, ids: list[int]) -> None:
        raise NotImplementedError

    def run(self):
        step = 0
        try:
            while not self._halt.is_set():
                first = len(self.ids) + 1
                ids = list(range(first, first + self.batch))
                self.send(step, ids)
                self.ids.extend(ids)
                step += 1
                self._halt.wait(self.pause)
        except Exception as e:  # noqa: BLE001 -- reported by stop()
            self.error = e

    def stop(self) -> list[int]:
        self._halt.set()
        self.join(60)
        check(self.error is None, f"{self.what} failed: {self.error}")
        return self.ids


class Producer(Feeder):
    """Adds `batch` messages with new ids to one partition of `ev` after another, every `pause` seconds, until
    stopped; `ids` are those the broker acknowledged."""

    what = "the producer"

    def __init__(self, broker, batch: int = 15, pause: float = 0.15):
        super().__init__(batch, pause)
        self.broker = broker

    def send(self, step: int, ids: list[int]) -> None:
        kh.produce(self.broker.bootstrap, "ev", step % PARTITIONS, [event_message(i) for i in ids])


class Watcher(threading.Thread):
    """Polls SHOW ROUTINE LOAD FOR d.ev_job on every node in `live` (names -> servers, changed by the test under
    `lock`) with a connection of its own per poll; records every state that is not RUNNING, and errors of nodes
    that were live before and after the poll."""

    def __init__(self, servers: dict, live: set, lock: threading.Lock, interval: float = 0.3):
        super().__init__(daemon=True)
        self.servers, self.live, self.lock, self.interval = servers, live, lock, interval
        self.polls = 0
        self.not_running: list[tuple] = []
        self.errors: list[tuple] = []
        self._halt = threading.Event()

    def run(self):
        start = time.monotonic()
        while not self._halt.is_set():
            with self.lock:
                names = sorted(self.live)
            for name in names:
                at = round(time.monotonic() - start, 1)
                try:
                    conn = self.servers[name].connect()
                    try:
                        job = kh.show_job(conn, "d.ev_job")
                    finally:
                        conn.close()
                    self.polls += 1
                    if job["State"] != "RUNNING":
                        self.not_running.append((at, name, job["State"], job["ReasonOfStateChanged"]))
                except Exception as e:  # noqa: BLE001
                    with self.lock:
                        still = name in self.live
                    if still:
                        self.errors.append((at, name, str(e)[:200]))
            self._halt.wait(self.interval)

    def stop(self):
        self._halt.set()
        self.join(30)


def cluster_node(t, pg: Postgres, name: str, key: str, timeout: int):
    return t.server(extra_args=["--cluster", pg.uri, "--node-name", name, "--node-timeout-seconds", str(timeout),
                                "--cluster-key-file", key, "--load-workers", "3"])


def wait_spread(pg: Postgres, jid: str, want: dict, timeout: float, what: str) -> float:
    """Waits until the job's partition leases are held as `want` ({node: count}); the seconds it took."""
    began = time.monotonic()
    kh.wait_until(lambda: leases_by_node(pg, jid) == want, timeout, f"{what}: leases {want}", interval=0.1)
    return time.monotonic() - began


def error_of(conn, sql: str) -> str:
    try:
        kh.query(conn, sql)
    except Exception as e:  # noqa: BLE001
        return str(e)
    return ""


def unreachable(c: Collector, err: str, what: str):
    """`err` is an error saying the cluster's PostgreSQL (or the JDBC catalog in it) cannot be reached."""
    c.check(err and ("cannot be reached" in err or "cannot connect to the cluster" in err), f"{what}: {err}")
    c.check("password" not in err.lower(), f"{what}: no secret in the message")


def back_after_postgres(conns: dict, pg: Postgres, jid: str, before: int, up_at: float, alive_timeout: float,
                        rows_timeout: float, what: str) -> tuple[float, float, float]:
    """After PostgreSQL answers again (at `up_at`): seconds until both nodes are alive in SHOW NODES, until 6/6
    leases, and until new rows are committed."""
    for n in conns:
        kh.wait_until(lambda n=n: (lambda rows: rows if {r[0]: r[2] for r in rows} ==
                                   {"n1": "alive", "n2": "alive"} else None)(
            kh.query(conns[n], "SHOW NODES")), alive_timeout, f"{n}: SHOW NODES answers, both alive", interval=0.3)
    alive = time.monotonic() - up_at
    spread = wait_spread(pg, jid, {"n1": 6, "n2": 6}, 60, f"6/6 after {what}")
    kh.wait_until(lambda: kh.scalar(conns["n1"], "SELECT count(*) FROM lake.db.events") > before + 100, rows_timeout,
                  f"the load goes on after {what}", interval=0.5)
    return alive, alive + spread, time.monotonic() - up_at


def ran_throughout(c: Collector, watcher, servers: dict, what: str):
    """The job was RUNNING on every node at every poll, no node paused or cancelled it, and every node lives."""
    c.eq(watcher.not_running, [], "SHOW ROUTINE LOAD answered RUNNING on both nodes at every poll")
    c.eq(watcher.errors, [], f"SHOW ROUTINE LOAD never failed, also while {what}")
    for n, server in servers.items():
        c.check(server.alive(), f"{n} is still running")
        log = server.log_text()
        c.check("-> PAUSED" not in log and "-> CANCELLED" not in log, f"{n} never paused or cancelled the job")


def loaded_once(conn, pg, s3, ids: list[int], timeout: float, what: str):
    """Every produced id is in the table exactly once, read through Sluice and by icebird."""
    n = kh.wait_until(lambda: (lambda k: k if k >= len(ids) else None)(
        kh.scalar(conn, "SELECT count(*) FROM lake.db.events")), timeout, f"{len(ids)} rows loaded", interval=0.5)
    eq(n, len(ids), "rows loaded")
    time.sleep(2)  # a late duplicate commit would show now
    c = Collector()
    with conn.cursor() as cur:
        check_events(c, cur, pg, s3, ids, what)
    c.done()


@suite.test(timeout=300)
def test_a_rolling_restart_keeps_the_job_running(t):
    timeout = 10  # the default node timeout: a handover that waited for it would show
    names = ("n1", "n2", "n3")
    broker = kh.adopt_broker(kh.TestBroker({"ev": PARTITIONS}).start())
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        key = shared_key(pg.root)
        servers = {n: cluster_node(t, pg, n, key, timeout).start() for n in names}
        conn = servers["n1"].connect()
        setup_lake(conn, pg, s3)
        for n in ("n2", "n3"):
            other = servers[n].connect()
            define_catalog(other, pg, s3)
            other.close()
        create_job(conn, broker)
        jid = str(kh.show_job(conn, "d.ev_job")["Id"])
        wait_spread(pg, jid, {"n1": 4, "n2": 4, "n3": 4}, 60, "the start")
        conn.close()

        producer = Producer(broker)
        producer.start()
        lock = threading.Lock()
        live = set(names)
        watcher = Watcher(servers, live, lock)
        watcher.start()
        timings = []
        try:
            time.sleep(3)
            for n in names:
                others = [o for o in names if o != n]
                with lock:
                    live.discard(n)
                began = time.monotonic()
                servers[n].proc.send_signal(signal.SIGTERM)
                moved = wait_spread(pg, jid, {others[0]: 6, others[1]: 6}, timeout + 20,
                                    f"{n}'s partitions moved after SIGTERM")
                code = servers[n].stop(timeout=30)
                stopped = time.monotonic() - began
                eq(code, 0, f"{n}'s exit code after SIGTERM")
                restarted = time.monotonic()
                servers[n].start()
                with lock:
                    live.add(n)
                back = wait_spread(pg, jid, {o: 4 for o in names}, 60, f"{n} back after its restart")
                total_back = time.monotonic() - restarted
                timings.append((n, moved, stopped, total_back, back))
                print(f"  {n}: its 4 partitions held by {others} {moved:.1f}s after SIGTERM (process exited after "
                      f"{stopped:.1f}s); started again, it held 4 again {total_back:.1f}s after the start command",
                      flush=True)
                time.sleep(2)  # load under 4/4/4 before the next node
        finally:
            ids = producer.stop()
            watcher.stop()
        print(f"  watcher: {watcher.polls} SHOW ROUTINE LOAD polls, {len(producer.ids)} messages produced", flush=True)
        eq(watcher.not_running, [], "SHOW ROUTINE LOAD on every live node answered RUNNING at every poll")
        eq(watcher.errors, [], "SHOW ROUTINE LOAD on a live node never failed")
        check(watcher.polls > 50, f"the watcher polled ({watcher.polls})")
        for n, moved, _, _, _ in timings:
            check(moved < timeout - 2, f"{n}'s leases were released on SIGTERM, not left to expire ({moved:.1f}s, "
                                       f"node timeout {timeout}s)")
        conn = servers["n2"].connect()
        loaded_once(conn, pg, s3, ids, 120, "after the rolling restart")
        for n in names:
            c = servers[n].connect()
            loaded = kh.show_job(c, "d.ev_job")["Statistic"]["loadedRows"]
            c.close()
            check(loaded > 0, f"{n} loaded rows after its restart ({loaded})")
        conn.close()


@suite.test(timeout=300)
def test_postgres_outages_make_jobs_wait(t):
    timeout = 4  # node timeout: outages of 2 s (shorter) and 7 s (longer)
    names = ("n1", "n2")
    broker = kh.adopt_broker(kh.TestBroker({"ev": PARTITIONS}).start())
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        key = shared_key(pg.root)
        servers = {n: cluster_node(t, pg, n, key, timeout).start() for n in names}
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
            for outage in (2, 7):
                before = kh.scalar(conns["n1"], "SELECT count(*) FROM lake.db.events")
                pg.down()
                down_at = time.monotonic()
                time.sleep(0.5)
                # Statements that need PostgreSQL say so; everything else keeps working.
                for n in names:
                    unreachable(c, error_of(conns[n], "SHOW NODES"), f"{n}: SHOW NODES during the outage")
                    c.eq(kh.scalar(conns[n], "SELECT 40 + 2"), 42, f"{n}: a statement during the outage")
                unreachable(c, error_of(conns["n2"], "SELECT count(*) FROM lake.db.events"),
                            "a query of the Iceberg table (its JDBC catalog is in PostgreSQL) during the outage")
                # A PAUSE PostgreSQL does not take is an error, not a pause the next read of the cluster undoes.
                unreachable(c, error_of(conns["n1"], "PAUSE ROUTINE LOAD FOR d.ev_job"), "PAUSE during the outage")
                unreachable(c, error_of(conns["n2"], "CREATE ROUTINE LOAD d.other ON lake.db.events COLUMNS (id) "
                                                     f"PROPERTIES (\"format\" = \"json\") FROM KAFKA "
                                                     f"(\"kafka_broker_list\" = \"{broker.bootstrap}\", "
                                                     f"\"kafka_topic\" = \"ev\")"),
                            "CREATE ROUTINE LOAD into an Iceberg table during the outage")
                time.sleep(max(0.0, outage - (time.monotonic() - down_at)))
                pg.up()
                up_at = time.monotonic()
                print(f"  PostgreSQL down for {up_at - down_at:.1f}s (node timeout {timeout}s)", flush=True)
                alive, spread, resumed = back_after_postgres(conns, pg, jid, before, up_at, 30, 60, "the outage")
                print(f"  after it: both nodes alive in SHOW NODES {alive:.1f}s, 6/6 leases {spread:.1f}s, "
                      f"new rows committed {resumed:.1f}s after PostgreSQL was back", flush=True)
                time.sleep(3)
        finally:
            ids = producer.stop()
            watcher.stop()
        print(f"  watcher: {watcher.polls} SHOW ROUTINE LOAD polls, {len(ids)} messages produced", flush=True)
        ran_throughout(c, watcher, {n: servers[n] for n in names}, "PostgreSQL was down")
        c.done()
        loaded_once(conns["n1"], pg, s3, ids, 120, "after two PostgreSQL outages")
        for conn in conns.values():
            conn.close()


@suite.test(timeout=240)
def test_a_commit_in_flight_when_postgres_goes_away_lands_once(t):
    timeout = 4
    stall_ms = 9000  # n2's first commit waits after its upload: PostgreSQL goes away and comes back meanwhile
    broker = kh.adopt_broker(kh.TestBroker({"ev": PARTITIONS}).start())
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        key = shared_key(pg.root)
        n1 = cluster_node(t, pg, "n1", key, timeout).start()
        n2 = cluster_node(t, pg, "n2", key, timeout)
        n2.extra_env = {"SLUICE_TEST_POINTS": f"iceberg_load.after_upload=sleep:{stall_ms}:1"}
        n2.start()
        c1, c2 = n1.connect(), n2.connect()
        setup_lake(c1, pg, s3)
        define_catalog(c2, pg, s3)
        create_job(c1, broker)
        jid = str(kh.show_job(c1, "d.ev_job")["Id"])
        wait_spread(pg, jid, {"n1": 6, "n2": 6}, 60, "the start")
        ids = list(range(1, 1201))
        for p in range(PARTITIONS):
            kh.produce(broker.bootstrap, "ev", p, [event_message(i) for i in ids if i % PARTITIONS == p])
        kh.wait_until(lambda: "test point iceberg_load.after_upload fired" in n2.log_text(), 60,
                      "n2's first commit stalled after its upload")
        pg.down()
        time.sleep(timeout + 2)  # past the node timeout: every lease has expired on PostgreSQL's clock
        pg.up()
        kh.wait_until(lambda: "test point iceberg_load.after_upload woke up" in n2.log_text(), 30,
                      "n2's stalled commit went on")
        more = list(range(1201, 2401))
        for p in range(PARTITIONS):
            kh.produce(broker.bootstrap, "ev", p, [event_message(i) for i in more if i % PARTITIONS == p])
        wait_spread(pg, jid, {"n1": 6, "n2": 6}, 60, "6/6 after the outage")
        eq(kh.show_job(c1, "d.ev_job")["State"], "RUNNING", "the job after the outage")
        log = n2.log_text()
        guards = {"the lease fence": "was taken over by another node", "the job's version": "the job moved on",
                  "the table's offsets": "another task already committed it"}
        refused_by = [g for g, x in guards.items() if x in log]
        print(f"  n2's commit in flight during the outage: " +
              (f"refused by {refused_by}" if refused_by else "landed, under leases renewed at the same epochs"),
              flush=True)
        loaded_once(c1, pg, s3, ids + more, 120, "after a commit in flight during an outage")
        c1.close()
        c2.close()


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
