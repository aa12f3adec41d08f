#!/usr/bin/python3
"""The soak: a mixed continuous load on one Sluice server for a long time, with crashes and a broker outage, then
every table checked exactly and the server's memory and open files judged flat (issue 11, "Faults round 2").

What runs, all at once, for --minutes:

- five jobs, each into its own table `soak.<name>` (id BIGINT, name VARCHAR, amount DOUBLE):
    rl_csv      ROUTINE LOAD, CSV          topic soak_csv  (2 partitions)
    rl_json     ROUTINE LOAD, JSON         topic soak_json (2 partitions)
    rl_avro     ROUTINE LOAD, Avro         topic soak_avro (2 partitions), Confluent framing, schema registry fixture
    kafka_pipe  CREATE PIPE ... READ_KAFKA topic soak_pipe (2 partitions), JSON parsed in the pipe's SELECT
    volume_pipe CREATE PIPE ... FROM VOLUME over an S3 bucket (s3rver), CSV files, LIST_PURGE
- producers at a fixed rate: every --tick-seconds, --rate x tick rows per Kafka source (one kcat / avroproducer
  call), and one CSV file of --rate x tick rows for the volume pipe. Ids are 1, 2, 3, ... per source, so the
  expected count is the number produced and the expected sum(id) is n(n+1)/2; `name` is 'n-<id>', amount id/2.
- a query thread: count(*) of every table (which must never go down, even across crashes, and never exceed what was
  produced), a join, load_history, SHOW ROUTINE LOAD and SHOW PIPES, round after round. A query may fail only while
  the server is down or being killed; any other failure is a failure of the soak.
- SIGKILL of the server every --kill-every-seconds (+-20% jitter from --seed), restarted on the same data directory.
- one broker outage of --outage-seconds in the middle of the run (`broker down all` / `broker up all`, the test
  broker's control commands). The Kafka producers hold off while it lasts: kcat's producer is not idempotent, so a
  batch in flight when the broker drops its connections could be written twice, and that duplicate would be the
  fixture's, not Sluice's. The jobs keep fetching from a broker that refuses them, which is what is tested.
- a sampler: every --sample-seconds, VmRSS and Threads from /proc/<pid>/status, the entries of /proc/<pid>/fd and
  the CPU time from /proc/<pid>/stat.

At the end: producers stop; the soak waits (at most --drain-seconds) until every table has every row; then, for
every table, count(*) = count(DISTINCT id) = produced, sum(id) = n(n+1)/2, and every row's name and amount match its
id; every job must still be RUNNING without error rows; the LIST_PURGE pipe must have deleted every file it loaded;
the server must stop with code 0 on SIGTERM.

Memory and open files ("flat within 10% after warm-up"). A SIGKILL resets the process, so they are judged per server
lifetime (one process, from its start to its kill or the end of the run):
- not judged: the first 20% of the run (tables, caches, connections, first schema fetches); the first
  --lifetime-warmup-seconds (40) of each lifetime (re-opening the database, jobs resuming, consumers connecting, and
  the jobs' first partition check 30 s after the start, which opens the shared Kafka metadata client: a step of ~8
  fds and 4 threads that then stays); the broker outage and the 15 s after it (connections drop and come back);
- a lifetime with at least 6 samples left is judged: its samples in time order are cut into the first third (the
  early post-warm-up level, taken as their maximum, so that normal sawtooth noise is inside the level) and the rest;
  the maximum of the rest must be at most 10% above that level, for RSS and for open files alike;
- lifetimes too short to judge are reported, not judged; at least one lifetime must be judged.
The peak of each lifetime is reported too, so growth across lifetimes (state that grows with the data) shows.

Volume files are written straight into s3rver's store (its documented layout, <bucket>/<key>._S3rver_object) by a
rename, because s3rver's own PUT writes the object file in place: a listing in between would see a short or empty
object, which real S3 never shows. Listing, reading and deleting go through s3rver's S3 API as usual.

    /usr/bin/python3 tests/soak/soak.py --server build/sluice --testbroker build/tools/testbroker/testbroker \\
        --minutes 30 --report build/soak-report.md          # make soak
    ... --minutes 3 --kill-every-seconds 70 --sample-seconds 2  # ctest soak/short

Exit code 0 if everything held, 1 otherwise (the report says what). Kafka's test broker keeps only ~5 MB per
partition: keep --rate x --minutes x 60 below ~60,000 rows per topic.
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import platform
import random
import signal
import subprocess
import sys
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import avro_harness as ah  # noqa: E402
import kafka_harness as kh  # noqa: E402
from harness import SluiceServer, default_server_path  # noqa: E402
from s3_harness import ACCESS_ID, ACCESS_KEY, S3rver  # noqa: E402

DB = "soak"
PARTITIONS = 2
GROWTH_LIMIT = 1.10          # "flat within 10%"
GLOBAL_WARMUP_FRACTION = 0.20
MIN_JUDGED_SAMPLES = 6
OUTAGE_SETTLE = 15.0         # seconds after `broker up` still not judged: consumers reconnect

AVRO_SCHEMA = {"type": "record", "name": "soak_row", "fields": [
    {"name": "id", "type": "long"}, {"name": "name", "type": "string"}, {"name": "amount", "type": "double"}]}


def row(i: int) -> tuple[int, str, float]:
    return i, f"n-{i}", i / 2


def log(msg: str):
    print(f"[soak {time.strftime('%H:%M:%S')}] {msg}", flush=True)


class SoakFailure(Exception):
    pass


# ---- sources: what each job reads, and how to produce more of it -------------------------------------------------

class Source:
    """One job's input. `produced`: ids 1..produced are delivered. `attempted`: ids handed to a producer call so far
    (an upper bound for the table's count at any time)."""
    kafka = True

    def __init__(self, table: str, kind: str):
        self.table = table
        self.kind = kind
        self.produced = 0
        self.attempted = 0
        self.calls = 0
        self.lock = threading.Lock()

    def produce(self, n: int):
        lo = self.produced + 1
        hi = lo + n
        with self.lock:
            self.attempted = hi - 1
        self._write(lo, hi)
        with self.lock:
            self.produced = hi - 1
            self.calls += 1

    def _write(self, lo: int, hi: int):
        raise NotImplementedError


class CsvKafka(Source):
    def __init__(self, soak):
        super().__init__("rl_csv", "ROUTINE LOAD, CSV")
        self.soak, self.topic = soak, "soak_csv"

    def _write(self, lo, hi):
        rows = [row(i) for i in range(lo, hi)]
        kh.produce(self.soak.broker.bootstrap, self.topic, -1, [f"{i},{n},{a}" for i, n, a in rows],
                   keys=[str(i) for i, _, _ in rows], timeout=60)


class JsonKafka(Source):
    def __init__(self, soak, table="rl_json", topic="soak_json", kind="ROUTINE LOAD, JSON"):
        super().__init__(table, kind)
        self.soak, self.topic = soak, topic

    def _write(self, lo, hi):
        rows = [row(i) for i in range(lo, hi)]
        kh.produce(self.soak.broker.bootstrap, self.topic, -1,
                   [json.dumps({"id": i, "name": n, "amount": a}) for i, n, a in rows],
                   keys=[str(i) for i, _, _ in rows], timeout=60)


class AvroKafka(Source):
    def __init__(self, soak):
        super().__init__("rl_avro", "ROUTINE LOAD, Avro")
        self.soak, self.topic = soak, "soak_avro"

    def _write(self, lo, hi):
        ah.produce_avro(self.soak.broker.bootstrap, self.topic, -1, 1, AVRO_SCHEMA,
                        [{"id": i, "name": n, "amount": a} for i, n, a in (row(i) for i in range(lo, hi))], timeout=60)


class VolumeFiles(Source):
    kafka = False

    def __init__(self, soak):
        super().__init__("volume_pipe", "PIPE, S3 volume, CSV files")
        self.soak = soak
        self.files = 0

    def _write(self, lo, hi):
        body = ("id,name,amount\n" + "".join(f"{i},{n},{a}\n" for i, n, a in (row(i) for i in range(lo, hi)))).encode()
        put_object_atomically(self.soak.s3, "soak", f"landing/f{lo:09d}.csv", body)
        self.files += 1


def put_object_atomically(s3: S3rver, bucket: str, key: str, body: bytes):
    """An object that appears whole: checksum first, then the object file renamed into place (see the top)."""
    parts = key.split("/")
    folder = os.path.join(s3.data_dir, bucket, *parts[:-1])
    final = os.path.join(folder, f"{parts[-1]}._S3rver_object")
    tmp = os.path.join(folder, f".{parts[-1]}.writing")
    # s3rver removes a folder once the pipe's purge has deleted its last object, so the folder can vanish between
    # any two of these steps (makedirs itself then fails with "File exists"): start again when it does.
    for attempt in range(50):
        try:
            os.makedirs(folder, exist_ok=True)
            with open(final + ".md5", "w") as f:
                f.write(hashlib.md5(body).hexdigest())
            with open(tmp, "wb") as f:
                f.write(body)
            os.replace(tmp, final)
            return
        except (FileExistsError, FileNotFoundError):
            if attempt == 49:
                raise
            time.sleep(0.01)


# ---- the soak ----------------------------------------------------------------------------------------------------

class Soak:
    def __init__(self, args):
        self.args = args
        self.duration = args.minutes * 60.0
        self.rng = random.Random(args.seed)
        self.failures: list[str] = []
        self.notes: list[str] = []
        self.events: list[tuple[float, str]] = []
        self.samples: list[dict] = []
        self.lifetimes: list[dict] = []      # {index, pid, start, end}
        self.outages: list[list] = []        # [down at, up at]
        self.query_stats = {"rounds": 0, "statements": 0, "tolerated": 0, "failed": 0}
        self.query_errors: list[str] = []
        self.tolerated_errors: list[str] = []
        self.states_seen: dict[str, set] = {}
        self.max_seen: dict[str, int] = {}
        self.final_counts: list[dict] = []
        self.job_checks: list[str] = []
        self.stop_code = None
        self.t0 = None
        self.t_end_load = None
        self.t_done = None
        self.stop = threading.Event()
        self.aborted = False            # a failure cut the run short (the tables are then not checked)
        self.producing = threading.Event()
        self.producing.set()
        self.hold_kafka = threading.Event()     # set while the broker is down (or about to be)
        self.inflight = 0
        self.inflight_cond = threading.Condition()
        self.server_lock = threading.Lock()
        self.server_up = False
        self.lifetime = 0
        self.broker = self.registry = self.s3 = self.srv = None
        self.sources: list[Source] = []
        self.threads: list[threading.Thread] = []

    # -- time and bookkeeping --
    def now(self) -> float:
        return time.monotonic() - self.t0 if self.t0 is not None else 0.0

    def event(self, what: str):
        self.events.append((self.now(), what))
        log(what)

    def fail(self, what: str):
        if what not in self.failures:
            self.failures.append(what)
            log("FAILURE: " + what)

    # -- set-up --
    def setup(self):
        a = self.args
        kh.TESTBROKER_PATH = os.path.abspath(a.testbroker)
        self.broker = kh.TestBroker({t: PARTITIONS for t in ("soak_csv", "soak_json", "soak_avro", "soak_pipe")}).start()
        self.registry = ah.SchemaRegistry({1: AVRO_SCHEMA}).start()
        self.s3 = S3rver().start()
        self.s3.create_bucket("soak")
        extra = [] if a.checkpoint_interval_seconds is None else \
            ["--checkpoint-interval-seconds", str(a.checkpoint_interval_seconds)]
        self.srv = SluiceServer(a.server, keep_dir=True, extra_args=extra)
        self.srv.start()
        self._up()
        conn = self.srv.connect()
        q = lambda sql: kh.query(conn, sql)  # noqa: E731
        q(f"CREATE DATABASE {DB}")
        q(f"USE {DB}")
        for t in ("rl_csv", "rl_json", "rl_avro", "kafka_pipe", "volume_pipe"):
            q(f"CREATE TABLE {t} (id BIGINT NOT NULL, name VARCHAR, amount DOUBLE)")
        b = self.broker.bootstrap
        props = '"desired_concurrent_number" = "2", "max_batch_interval" = "1"'
        kafka_from = 'FROM KAFKA ("kafka_broker_list" = "{b}", "kafka_topic" = "{t}", ' \
                     '"property.kafka_default_offsets" = "OFFSET_BEGINNING"{extra})'
        q(f"""CREATE ROUTINE LOAD {DB}.rl_csv_job ON rl_csv COLUMNS TERMINATED BY ",", COLUMNS (id, name, amount)
PROPERTIES ({props}) {kafka_from.format(b=b, t="soak_csv", extra="")}""")
        q(f"""CREATE ROUTINE LOAD {DB}.rl_json_job ON rl_json PROPERTIES ("format" = "json", {props})
{kafka_from.format(b=b, t="soak_json", extra="")}""")
        q(f"""CREATE ROUTINE LOAD {DB}.rl_avro_job ON rl_avro PROPERTIES ("format" = "avro", {props})
{kafka_from.format(b=b, t="soak_avro", extra=f', "confluent.schema.registry.url" = "{self.registry.url()}"')}""")
        q(f"""CREATE PIPE kafka_pipe_job BATCH_INTERVAL_IN_SECONDS = '1' RESET_KAFKA_GROUP_OFFSETS = 'earliest'
AS COPY INTO kafka_pipe FROM (
    SELECT PARSE_JSON(value::STRING)['id']::BIGINT, PARSE_JSON(value::STRING)['name']::STRING,
           PARSE_JSON(value::STRING)['amount']::DOUBLE
    FROM READ_KAFKA('{b}', 'soak_pipe', '', 'soak_pipe_group', '', '', '', '', 'raw', 'raw', 0, map()))""")
        q(f"CREATE STORAGE CONNECTION soak_s3 TYPE S3 ENDPOINT = '{self.s3.endpoint}' ACCESS_ID = '{ACCESS_ID}' "
          f"ACCESS_KEY = '{ACCESS_KEY}'")
        q("CREATE EXTERNAL VOLUME landing LOCATION 's3://soak/landing/' USING CONNECTION soak_s3")
        q("CREATE PIPE volume_pipe_job BATCH_INTERVAL_IN_SECONDS = '1' "
          "AS COPY INTO volume_pipe FROM VOLUME landing USING CSV OPTIONS ('header' = 'true')")
        conn.close()
        self.sources = [CsvKafka(self), JsonKafka(self), AvroKafka(self),
                        JsonKafka(self, "kafka_pipe", "soak_pipe", "PIPE, READ_KAFKA, JSON"), VolumeFiles(self)]

    def _up(self):
        with self.server_lock:
            self.lifetime += 1
            self.server_up = True
            self.lifetimes.append({"index": self.lifetime, "pid": self.srv.proc.pid, "start": self.now(),
                                   "end": None})

    def _down(self):
        with self.server_lock:
            self.server_up = False
            if self.lifetimes:
                self.lifetimes[-1]["end"] = self.now()

    # -- producers --
    def producer(self, src: Source):
        tick = self.args.tick_seconds
        per_tick = max(1, round(self.args.rate * tick))
        next_at = time.monotonic()
        while self.producing.is_set() and not self.stop.is_set():
            next_at += tick
            if src.kafka:
                while self.hold_kafka.is_set() and self.producing.is_set():
                    time.sleep(0.05)
                if not self.producing.is_set():
                    break
                with self.inflight_cond:
                    if self.hold_kafka.is_set():
                        continue
                    self.inflight += 1
            try:
                src.produce(per_tick)
            except Exception as e:  # noqa: BLE001 -- a producer that failed leaves the expected rows unknown
                self.fail(f"producer for {src.table} failed (rows {src.produced + 1}..{src.attempted} may or may "
                          f"not be in Kafka, so the exact check is void): {e}")
                self.aborted = True
                self.stop.set()
                return
            finally:
                if src.kafka:
                    with self.inflight_cond:
                        self.inflight -= 1
                        self.inflight_cond.notify_all()
            delay = next_at - time.monotonic()
            if delay > 0:
                self.stop.wait(delay)
            elif delay < -5 * tick:
                next_at = time.monotonic()   # fell far behind (a slow call): do not burst to catch up

    # -- the query thread --
    def query_loop(self):
        conn, conn_life = None, 0
        while not self.stop.is_set():
            with self.server_lock:
                life, up = self.lifetime, self.server_up
            if not up:
                time.sleep(0.1)
                continue
            if conn is not None and conn_life != life:   # a connection to a process that was killed since
                close_quietly(conn)
                conn = None
            started = self.now()
            statements = 0
            try:
                if conn is None:
                    conn = self.srv.connect(database=DB, read_timeout=30)
                    conn_life = life
                counts = {}
                for src in self.sources:
                    counts[src.table] = kh.scalar(conn, f"SELECT count(*) FROM {src.table}")
                    statements += 1
                    bound = src.attempted   # read after the count: the count cannot be above it
                    n = counts[src.table]
                    if n > bound:
                        self.fail(f"{src.table} had {n} rows at t={self.now():.0f}s, more than the {bound} produced "
                                  f"so far (duplicates)")
                    if n < self.max_seen.get(src.table, 0):
                        self.fail(f"{src.table} had {n} rows at t={self.now():.0f}s after {self.max_seen[src.table]} "
                                  f"earlier (committed rows lost)")
                    self.max_seen[src.table] = max(self.max_seen.get(src.table, 0), n)
                kh.query(conn, "SELECT count(*), coalesce(sum(a.amount + b.amount), 0) FROM rl_csv a "
                               "JOIN rl_json b USING (id) WHERE a.id % 7 = 0")
                kh.query(conn, "SELECT job_name, count(*), sum(loaded_rows) FROM load_history('soak.volume_pipe') "
                               "GROUP BY job_name")
                for j in kh.show_rows(conn, "SHOW ROUTINE LOAD"):
                    self.states_seen.setdefault(j["Name"], set()).add(j["State"])
                for p in kh.query(conn, "SHOW PIPES"):
                    self.states_seen.setdefault(p[0], set()).add(p[1])
                statements += 4
                self.query_stats["rounds"] += 1
                self.query_stats["statements"] += statements
            except Exception as e:  # noqa: BLE001
                close_quietly(conn)
                conn = None
                with self.server_lock:
                    still = self.server_up and self.lifetime == life
                text = f"t={started:.1f}s lifetime {life}: {type(e).__name__}: {e}"
                if still:
                    self.query_stats["failed"] += 1
                    self.query_errors.append(text)
                    self.fail(f"a query failed while the server was up: {text}")
                else:
                    self.query_stats["tolerated"] += 1
                    if len(self.tolerated_errors) < 20:
                        self.tolerated_errors.append(text)
                continue
            time.sleep(self.args.query_interval)
        close_quietly(conn)

    # -- the sampler --
    def sampler(self):
        while not self.stop.is_set():
            with self.server_lock:
                up, life = self.server_up, self.lifetime
                pid = self.srv.proc.pid if self.srv and self.srv.proc else None
            if up and pid:
                s = read_proc(pid)
                if s is not None:
                    with self.server_lock:
                        if self.server_up and self.lifetime == life:
                            s.update(t=self.now(), lifetime=life)
                            self.samples.append(s)
            self.stop.wait(self.args.sample_seconds)

    def thread(self, fn, *args, name=""):
        th = threading.Thread(target=self._guard, args=(fn, *args), daemon=True, name=name)
        th.start()
        self.threads.append(th)
        return th

    def _guard(self, fn, *args):
        try:
            fn(*args)
        except Exception:  # noqa: BLE001
            self.fail(f"thread {threading.current_thread().name} crashed:\n{traceback.format_exc()}")
            self.aborted = True
            self.stop.set()

    # -- faults --
    def schedule(self) -> list[tuple[float, str]]:
        """(time, what): SIGKILLs every kill-every seconds +-20%, none in the last 20 s; one outage at the middle."""
        plan = []
        t = 0.0
        every = self.args.kill_every_seconds
        while True:
            t += every * self.rng.uniform(0.8, 1.2)
            if t > self.duration - 20:
                break
            plan.append((t, "kill"))
        if self.args.outage_seconds > 0:
            plan.append((self.duration / 2 - self.args.outage_seconds / 2, "outage"))
        return sorted(plan)

    def kill_and_restart(self):
        self._down()
        pid = self.srv.proc.pid
        self.srv.kill_process()
        self.event(f"SIGKILL server (pid {pid}, lifetime {self.lifetime})")
        t = time.monotonic()
        self.srv.start(timeout=60)
        self._up()
        self.event(f"server restarted on the same data dir in {time.monotonic() - t:.1f}s "
                   f"(pid {self.srv.proc.pid}, lifetime {self.lifetime})")

    def outage(self):
        self.hold_kafka.set()
        with self.inflight_cond:
            self.inflight_cond.wait_for(lambda: self.inflight == 0, timeout=120)
        self.broker.command("broker down all")
        self.outages.append([self.now(), None])
        self.event(f"broker down all (Kafka producers hold; {self.args.outage_seconds:.0f}s)")
        self.stop.wait(self.args.outage_seconds)
        self.broker.command("broker up all")
        self.outages[-1][1] = self.now()
        self.hold_kafka.clear()
        self.event("broker up all (Kafka producers resume)")

    # -- the run --
    def run(self) -> int:
        a = self.args
        self.wall_start = datetime.datetime.now(datetime.timezone.utc)
        try:
            self.setup()
            self.t0 = time.monotonic()
            with self.server_lock:
                self.lifetimes[-1]["start"] = 0.0
            self.event(f"load starts: {len(self.sources)} jobs, {a.rate:g} rows/s each, for {a.minutes:g} min")
            for src in self.sources:
                self.thread(self.producer, src, name=f"producer-{src.table}")
            self.thread(self.query_loop, name="queries")
            self.thread(self.sampler, name="sampler")
            plan = self.schedule()
            self.event("plan: " + ", ".join(f"{w} at {t:.0f}s" for t, w in plan))
            for t, what in plan:
                if self.stop.wait(max(0.0, t - self.now())):
                    break
                if what == "kill":
                    self.kill_and_restart()
                else:
                    self.outage()
            self.stop.wait(max(0.0, self.duration - self.now()))
            self.t_end_load = self.now()
            self.producing.clear()
            for th in self.threads:
                if th.name.startswith("producer"):
                    th.join(90)
            self.event("producers stopped: " + ", ".join(f"{s.table} {s.produced}" for s in self.sources))
            if not self.stop.is_set():
                self.drain()
            self.stop.set()
            for th in self.threads:
                th.join(60)
            if self.aborted:
                self.notes.append("the run was cut short by a failure: tables not checked")
            elif self.srv.alive():
                self.final_checks()
        except Exception:  # noqa: BLE001
            self.fail(f"the soak itself failed:\n{traceback.format_exc()}")
        finally:
            self.stop.set()
            self.t_done = self.now()
            if self.srv is not None and self.srv.alive():
                self._down()
                self.stop_code = self.srv.stop(signal.SIGTERM, timeout=60)
                self.event(f"server stopped with SIGTERM: exit code {self.stop_code}")
                if self.stop_code != 0:
                    self.fail(f"the server exited with code {self.stop_code} on SIGTERM (expected 0)")
        verdict = self.judge_resources()
        self.write_report(verdict)
        self.cleanup()
        if self.failures:
            log(f"FAILED ({len(self.failures)}):\n  " + "\n  ".join(self.failures))
            return 1
        log("PASSED")
        return 0

    def drain(self):
        """Waits until every table has every produced row (bounded), then a little longer for anything extra."""
        conn = self.srv.connect(database=DB, read_timeout=30)
        deadline = time.monotonic() + self.args.drain_seconds
        t = time.monotonic()
        behind = {}
        while time.monotonic() < deadline:
            behind = {}
            for s in self.sources:
                n = kh.scalar(conn, f"SELECT count(*) FROM {s.table}")
                if n != s.produced:
                    behind[s.table] = (n, s.produced)
            if not behind:
                break
            time.sleep(0.5)
        if behind:
            self.fail(f"not caught up {self.args.drain_seconds:.0f}s after producing stopped: " + ", ".join(
                f"{t} has {n} of {p}" for t, (n, p) in behind.items()))
        else:
            self.event(f"every table caught up {time.monotonic() - t:.1f}s after producing stopped")
        time.sleep(3.0)   # a job that loads something twice would add it now
        conn.close()

    def final_checks(self):
        conn = self.srv.connect(database=DB, read_timeout=60)
        for s in self.sources:
            n = s.produced
            r = kh.query(conn, f"SELECT count(*), count(DISTINCT id), coalesce(sum(id), 0), coalesce(min(id), 0), "
                               f"coalesce(max(id), 0), count(*) FILTER (WHERE name <> 'n-' || id::VARCHAR "
                               f"OR amount <> id / 2) FROM {s.table}")[0]
            count, distinct, total, lo, hi, bad = (int(v) for v in r)
            want_sum = n * (n + 1) // 2
            ok = count == n and distinct == n and total == want_sum and bad == 0 and (n == 0 or (lo, hi) == (1, n))
            self.final_counts.append({"table": s.table, "kind": s.kind, "produced": n, "count": count,
                                      "distinct": distinct, "sum": total, "want_sum": want_sum, "min": lo, "max": hi,
                                      "bad_rows": bad, "ok": ok})
            if not ok:
                self.fail(f"{s.table}: produced {n}, count {count}, distinct {distinct}, sum {total} (want "
                          f"{want_sum}), ids {lo}..{hi}, rows whose name/amount do not match the id: {bad}")
        for j in kh.show_rows(conn, "SHOW ROUTINE LOAD"):
            st = j["Statistic"] if isinstance(j["Statistic"], dict) else {}
            line = f"routine load {j['Name']}: {j['State']}, errorRows {st.get('errorRows')}"
            self.job_checks.append(line)
            if j["State"] != "RUNNING":
                self.fail(f"{line} (expected RUNNING; reason {j.get('ReasonOfStateChanged')!r})")
            if st.get("errorRows"):
                self.fail(f"{line}: error rows in a clean load")
        for p in kh.query(conn, "SHOW PIPES"):
            line = f"pipe {p[0]}: {p[1]}"
            self.job_checks.append(line)
            if p[1] != "RUNNING":
                self.fail(f"{line} (expected RUNNING)")
        n_jobs = len(self.job_checks)
        if n_jobs != 5:
            self.fail(f"expected 5 jobs, SHOW ROUTINE LOAD and SHOW PIPES listed {n_jobs}: {self.job_checks}")
        files = self.sources[-1]
        left = kh.scalar(conn, "SELECT count(*) FROM DIRECTORY(landing)")
        self.job_checks.append(f"volume: {files.files} files written, {left} left in the bucket (LIST_PURGE)")
        if left:
            self.fail(f"{left} loaded files are still in the bucket (the LIST_PURGE pipe deletes what it loaded)")
        conn.close()

    # -- memory and open files --
    def judge_resources(self) -> dict:
        warm = GLOBAL_WARMUP_FRACTION * self.duration
        lw = self.args.lifetime_warmup_seconds
        rows = []
        judged = 0
        for lt in self.lifetimes:
            mine = [s for s in self.samples if s["lifetime"] == lt["index"]]
            kept = [s for s in mine if s["t"] >= warm and s["t"] - lt["start"] >= lw and not any(
                down <= s["t"] <= (up if up is not None else self.t_done) + OUTAGE_SETTLE for down, up in self.outages)]
            r = {"lifetime": lt["index"], "pid": lt["pid"], "start": lt["start"],
                 "end": lt["end"] if lt["end"] is not None else self.t_done, "samples": len(mine),
                 "judged": len(kept), "peak_rss": max((s["rss_kb"] for s in mine), default=0),
                 "peak_fds": max((s["fds"] for s in mine), default=0), "verdict": "too short to judge"}
            if len(kept) >= MIN_JUDGED_SAMPLES:
                judged += 1
                cut = max(2, len(kept) // 3)
                early, later = kept[:cut], kept[cut:]
                r.update(rss_level=max(s["rss_kb"] for s in early), rss_later=max(s["rss_kb"] for s in later),
                         fds_level=max(s["fds"] for s in early), fds_later=max(s["fds"] for s in later))
                r["rss_ratio"] = r["rss_later"] / r["rss_level"]
                r["fds_ratio"] = r["fds_later"] / r["fds_level"]
                bad = []
                if r["rss_ratio"] > GROWTH_LIMIT:
                    bad.append(f"RSS +{(r['rss_ratio'] - 1) * 100:.1f}%")
                if r["fds_ratio"] > GROWTH_LIMIT:
                    bad.append(f"open files +{(r['fds_ratio'] - 1) * 100:.1f}%")
                r["verdict"] = "flat" if not bad else "GROWS: " + ", ".join(bad)
                if bad:
                    self.fail(f"server lifetime {lt['index']} (pid {lt['pid']}) is not flat within 10% after "
                              f"warm-up: {', '.join(bad)} (RSS {r['rss_level']} -> {r['rss_later']} kB, open files "
                              f"{r['fds_level']} -> {r['fds_later']})")
            rows.append(r)
        if judged == 0:
            self.fail("no server lifetime had enough samples after warm-up to judge memory and open files "
                      "(a longer run, a longer kill interval or more frequent samples)")
        return {"warmup": warm, "lifetime_warmup": lw, "rows": rows, "judged": judged}

    def cpu_percent(self, lifetime: int) -> float | None:
        mine = [s for s in self.samples if s["lifetime"] == lifetime]
        if len(mine) < 2 or mine[-1]["t"] <= mine[0]["t"]:
            return None
        return 100.0 * (mine[-1]["cpu_s"] - mine[0]["cpu_s"]) / (mine[-1]["t"] - mine[0]["t"])

    # -- the report --
    def write_report(self, verdict: dict):
        a = self.args
        if not a.report:
            return
        L = []
        ok = not self.failures
        L.append(f"## Soak run: {'PASSED' if ok else 'FAILED'}")
        L.append("")
        L.append(f"`tests/soak/soak.py --minutes {a.minutes:g} --kill-every-seconds {a.kill_every_seconds:g} "
                 f"--outage-seconds {a.outage_seconds:g} --rate {a.rate:g} --seed {a.seed}`, started "
                 f"{self.wall_start:%Y-%m-%d %H:%M} UTC on {platform.node() or 'this machine'} "
                 f"({os.cpu_count()} CPUs), "
                 f"{(self.t_done or 0) / 60:.1f} minutes in all (load {(self.t_end_load or 0) / 60:.1f} min, then "
                 f"catch-up and checks).")
        L.append("")
        L.append(f"Five jobs at {a.rate:g} rows/s each (one call or file every {a.tick_seconds:g} s), a query "
                 f"thread alongside, SIGKILL about every {a.kill_every_seconds:g} s and one broker outage of "
                 f"{a.outage_seconds:g} s; memory and open files sampled every {a.sample_seconds:g} s.")
        L.append("")
        if self.failures:
            L.append("**Failures:**")
            L.append("")
            for f in self.failures:
                L.append(f"- {f.splitlines()[0]}")
                for extra in f.splitlines()[1:]:
                    L.append(f"  {extra}")
            L.append("")
        L.append("### Events")
        L.append("")
        L.append("| t (s) | event |")
        L.append("|---:|---|")
        for t, what in self.events:
            L.append(f"| {t:.0f} | {what} |")
        L.append("")
        L.append("### Tables checked exactly")
        L.append("")
        L.append("| table | job | produced | count(*) | count(DISTINCT id) | sum(id) | expected sum | "
                 "bad rows | |")
        L.append("|---|---|---:|---:|---:|---:|---:|---:|---|")
        for c in self.final_counts:
            L.append(f"| {c['table']} | {c['kind']} | {c['produced']} | {c['count']} | {c['distinct']} | "
                     f"{c['sum']} | {c['want_sum']} | {c['bad_rows']} | {'ok' if c['ok'] else '**WRONG**'} |")
        if not self.final_counts:
            L.append("| (not checked: the run stopped before the checks) | | | | | | | | |")
        L.append("")
        for line in self.notes + self.job_checks:
            L.append(f"- {line}")
        L.append(f"- queries alongside: {self.query_stats['rounds']} rounds, {self.query_stats['statements']} "
                 f"statements; {self.query_stats['tolerated']} failed while the server was down or being killed "
                 f"(allowed), {self.query_stats['failed']} failed while it was up")
        states = ", ".join(f"{k}: {'/'.join(sorted(v))}" for k, v in sorted(self.states_seen.items()))
        L.append(f"- job states seen by the query thread: {states}")
        L.append(f"- server: {self.srv.starts if self.srv else 0} starts; SIGTERM at the end: exit code "
                 f"{self.stop_code}")
        L.append("")
        L.append("### Memory and open files per server lifetime")
        L.append("")
        L.append(f"Warm-up: the first {verdict['warmup']:.0f} s of the run (20%), the first "
                 f"{verdict['lifetime_warmup']:.0f} s of each lifetime, and the broker outage with the "
                 f"{OUTAGE_SETTLE:.0f} s after it. Judged: the maximum after the first third of a lifetime's "
                 f"remaining samples against the maximum within that first third (the level); more than 10% above "
                 f"the level is growth.")
        L.append("")
        L.append("| lifetime | from (s) | to (s) | samples | judged | RSS level (MB) | RSS later max (MB) | "
                 "open files level | later max | peak RSS (MB) / files | CPU | verdict |")
        L.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for r in verdict["rows"]:
            cpu = self.cpu_percent(r["lifetime"])
            cpu = f"{cpu:.0f}%" if cpu is not None else ""
            peak = f"{r['peak_rss'] / 1024:.1f} / {r['peak_fds']}"
            if "rss_level" in r:
                L.append(f"| {r['lifetime']} | {r['start']:.0f} | {r['end']:.0f} | {r['samples']} | {r['judged']} | "
                         f"{r['rss_level'] / 1024:.1f} | {r['rss_later'] / 1024:.1f} ({(r['rss_ratio'] - 1) * 100:+.1f}%)"
                         f" | {r['fds_level']} | {r['fds_later']} ({(r['fds_ratio'] - 1) * 100:+.1f}%) | {peak} | "
                         f"{cpu} | {r['verdict']} |")
            else:
                L.append(f"| {r['lifetime']} | {r['start']:.0f} | {r['end']:.0f} | {r['samples']} | {r['judged']} | "
                         f" | | | | {peak} | {cpu} | {r['verdict']} |")
        L.append("")
        L.append("CPU: the server's user + system time over the lifetime's wall time (100% = one core).")
        L.append("")
        L.append("<details><summary>Every sample (t, lifetime, RSS, open files, threads)</summary>")
        L.append("")
        L.append("| t (s) | lifetime | RSS (MB) | open files | threads |")
        L.append("|---:|---:|---:|---:|---:|")
        for s in self.samples:
            L.append(f"| {s['t']:.0f} | {s['lifetime']} | {s['rss_kb'] / 1024:.1f} | {s['fds']} | {s['threads']} |")
        L.append("")
        L.append("</details>")
        L.append("")
        if self.tolerated_errors:
            L.append("<details><summary>Query errors while the server was down (allowed; first 20)</summary>")
            L.append("")
            for e in self.tolerated_errors:
                L.append(f"- `{e.replace('`', '')[:300]}`")
            L.append("")
            L.append("</details>")
            L.append("")
        os.makedirs(os.path.dirname(os.path.abspath(a.report)) or ".", exist_ok=True)
        with open(a.report, "w") as f:
            f.write("\n".join(L))
        log(f"report written to {os.path.abspath(a.report)}")

    def cleanup(self):
        for name, closer in (("registry", lambda: self.registry.stop()), ("s3rver", lambda: self.s3.stop()),
                             ("broker", lambda: self.broker.cleanup())):
            try:
                if getattr(self, {"registry": "registry", "s3rver": "s3", "broker": "broker"}[name]) is not None:
                    if name == "broker" and self.failures:
                        log(f"testbroker stderr (last 20 lines):\n{self.broker.log_tail(20)}")
                    closer()
            except Exception:  # noqa: BLE001
                pass
        if self.srv is not None:
            if self.failures:
                log(f"server data dir and log kept in {self.srv.root} (server.log); last 40 lines:\n"
                    f"{self.srv.log_tail(40)}")
                self.srv.kill_process()
            else:
                self.srv.keep_dir = False
                self.srv.cleanup()


def close_quietly(conn):
    try:
        if conn is not None:
            conn.close()
    except Exception:  # noqa: BLE001
        pass


def read_proc(pid: int) -> dict | None:
    """VmRSS (kB), Threads, open file descriptors and CPU seconds used so far by a process; None if it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            status = f.read()
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu_s = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")   # utime + stime
    except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
        return None
    out = {"rss_kb": 0, "threads": 0, "fds": fds, "cpu_s": cpu_s}
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            out["rss_kb"] = int(line.split()[1])
        elif line.startswith("Threads:"):
            out["threads"] = int(line.split()[1])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Sluice soak: mixed load, SIGKILLs, a broker outage, exact checks, "
                                             "flat memory and open files")
    ap.add_argument("--server", default=default_server_path(), help="the sluice binary")
    ap.add_argument("--testbroker", default=kh.default_testbroker_path(), help="tools/testbroker binary")
    ap.add_argument("--minutes", type=float, default=30.0, help="how long the load runs (default 30)")
    ap.add_argument("--kill-every-seconds", type=float, default=180.0,
                    help="SIGKILL the server about this often, +-20%% (default 180)")
    ap.add_argument("--outage-seconds", type=float, default=20.0,
                    help="the broker outage in the middle of the run; 0: none (default 20)")
    ap.add_argument("--rate", type=float, default=20.0, help="rows per second per job (default 20)")
    ap.add_argument("--tick-seconds", type=float, default=1.0, help="one producer call or file this often (default 1)")
    ap.add_argument("--sample-seconds", type=float, default=5.0, help="RSS / open files sampling interval")
    ap.add_argument("--lifetime-warmup-seconds", type=float, default=40.0,
                    help="warm-up after each (re)start, not judged (default 40: the jobs' first partition check, "
                         "30 s after the start, opens the shared Kafka metadata client, a step of ~8 fds and "
                         "4 threads that then stays)")
    ap.add_argument("--query-interval", type=float, default=0.5, help="pause between query rounds")
    ap.add_argument("--drain-seconds", type=float, default=120.0,
                    help="how long the jobs may take to catch up after producing stops")
    ap.add_argument("--seed", type=int, default=11, help="seed of the kill-time jitter")
    ap.add_argument("--checkpoint-interval-seconds", type=int, default=None,
                    help="the server's --checkpoint-interval-seconds (default: the server's own, 60). The short run "
                         "uses 0 (by WAL size only): each checkpoint raises RSS by the blocks DuckDB then keeps "
                         "cached, step by step until it levels off after a few minutes (the 30-minute run shows "
                         "the level), which a 70 s lifetime would take for growth; its WAL stays small anyway")
    ap.add_argument("--report", default=None, help="write the markdown report here")
    args = ap.parse_args(argv)
    for path, what in ((args.server, "server"), (args.testbroker, "testbroker")):
        if not os.access(path, os.X_OK):
            print(f"soak: {what} binary not found or not executable: {path}", file=sys.stderr)
            return 2
    soak = Soak(args)
    def interrupted(*_):
        soak.fail("interrupted by SIGTERM")
        soak.aborted = True
        soak.stop.set()
        soak.producing.clear()
    signal.signal(signal.SIGTERM, interrupted)
    rc = soak.run()
    if args.report:
        print(f"soak report: {os.path.abspath(args.report)}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
