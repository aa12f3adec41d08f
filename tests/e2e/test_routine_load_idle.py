#!/usr/bin/python3
"""Idle routine loads and pipes, on the test broker.

A task group that found no new data for 5 s closes its Kafka consumer (its first task, once it caught up, at once);
its tasks then ask one shared metadata client whether the partitions' high watermarks moved, and open the consumer
again when they did.

- three jobs on one topic (two task groups each): once idle, the server runs one librdkafka client (the shared
  one) instead of six;
  new data is loaded within max_batch_interval plus a few seconds, exactly once, and the jobs close their
  consumers again afterwards; OffsetLag and LatestSourcePosition stay right while idle;
- idle jobs whose broker goes down and comes back: they report the broker trouble (the failed check opens the
  consumer, whose task retries) and load what was produced after the broker returned, exactly once;
- five idle jobs on one topic (four routine loads and a Kafka pipe) check for new data with one ListOffsets request
  per max_batch_interval between them (sluice_kafka_metadata_requests_total), and all of them load new data
  within max_batch_interval plus a few seconds;
- a Kafka pipe's scheduling log lines name it a pipe.

    /usr/bin/python3 tests/e2e/test_routine_load_idle.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import base64
import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check, contains, eq  # noqa: E402

suite = TestSuite("test_routine_load_idle")

IDLE_CLOSE_S = 5.0      # a group closes its consumer after this long without new data (scheduler)
INTERVAL_S = 1.0        # max_batch_interval of the jobs here


def new_broker(topics: dict[str, int]) -> kh.TestBroker:
    return kh.adopt_broker(kh.TestBroker(topics).start())


def setup_db(s: TestSuite, **kw):
    srv = s.server(**kw).start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    return srv, conn


def create_job(conn, name: str, table: str, bootstrap: str, topic: str):
    kh.query(conn, f"CREATE TABLE {table} (id bigint NOT NULL, v varchar(40)) DUPLICATE KEY(id)")
    kh.query(conn, f"""CREATE ROUTINE LOAD {name} ON {table} COLUMNS TERMINATED BY ",", COLUMNS (id, v)
PROPERTIES ("max_batch_interval" = "{INTERVAL_S}")
FROM KAFKA ("kafka_broker_list" = "{bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")


def csv_lines(lo: int, hi: int) -> list[str]:
    return [f"{i},v{i}" for i in range(lo, hi)]


def kafka_clients(srv) -> int:
    """librdkafka clients in the server: each has exactly one rdk:main thread."""
    n = 0
    for tid in os.listdir(f"/proc/{srv.proc.pid}/task"):
        try:
            with open(f"/proc/{srv.proc.pid}/task/{tid}/comm") as f:
                n += f.read().strip() == "rdk:main"
        except OSError:
            pass
    return n


def check_exact(conn, table: str, ids: list[int]):
    count, distinct, total = kh.query(conn, f"SELECT count(*), count(DISTINCT id), sum(id) FROM {table}")[0]
    c = Collector()
    c.eq(count, len(ids), f"{table}: count(*)")
    c.eq(distinct, len(set(ids)), f"{table}: count(DISTINCT id)")
    c.eq(int(total or 0), sum(ids), f"{table}: sum(id)")
    c.done()


@suite.test(timeout=150)
def test_idle_jobs_share_one_client_and_still_load_new_data(s):
    b = new_broker({"quiet": 2})
    srv, conn = setup_db(s)
    for p in range(2):
        kh.produce(b.bootstrap, "quiet", p, csv_lines(p * 1000, p * 1000 + 10))
    jobs = ["j0", "j1", "j2"]
    for i, j in enumerate(jobs):
        create_job(conn, j, f"t{i}", b.bootstrap, "quiet")
    ids = [i for p in range(2) for i in range(p * 1000, p * 1000 + 10)]
    for i, j in enumerate(jobs):
        kh.wait_rows(conn, f"t{i}", len(ids), 60, job=j)
    # A group's first task closes its consumer once it caught up (jobs started together would otherwise each keep
    # one for IDLE_CLOSE_S): one client left, the shared metadata client, well before IDLE_CLOSE_S.
    kh.wait_until(lambda: kafka_clients(srv) == 1, IDLE_CLOSE_S - 1,
                  "the jobs' first tasks to close their consumers (one librdkafka client left)")
    time.sleep(2 * INTERVAL_S)  # a few idle checks through the shared client
    eq(kafka_clients(srv), 1, "librdkafka clients while idle")
    for j in jobs:
        job = kh.show_job(conn, j)
        eq(job["State"], "RUNNING", f"{j} State while idle")
        eq(job["Progress"], {"0": "9", "1": "9"}, f"{j} Progress while idle")
        eq(job["OffsetLag"], {"0": 0, "1": 0}, f"{j} OffsetLag while idle")

    # New data on one partition: every job loads it, soon, exactly once.
    t0 = time.monotonic()
    kh.produce(b.bootstrap, "quiet", 1, csv_lines(1010, 1030))
    ids += list(range(1010, 1030))
    for i, j in enumerate(jobs):
        kh.wait_rows(conn, f"t{i}", len(ids), 30, job=j)
    took = time.monotonic() - t0
    check(took < INTERVAL_S + 5, f"new data after idleness loaded in {took:.1f} s (max_batch_interval {INTERVAL_S} s)")
    for i, j in enumerate(jobs):
        check_exact(conn, f"t{i}", ids)
        job = kh.show_job(conn, j)
        eq(job["Progress"], {"0": "9", "1": "29"}, f"{j} Progress")
        eq(job["LatestSourcePosition"], {"0": "9", "1": "29"}, f"{j} LatestSourcePosition")
    # ... and close their consumers again once idle.
    kh.wait_until(lambda: kafka_clients(srv) == 1, IDLE_CLOSE_S + 15, "the consumers to close again")

    # A second burst, then a restart while idle: nothing lost, nothing doubled.
    kh.produce(b.bootstrap, "quiet", 0, csv_lines(10, 15))
    ids += list(range(10, 15))
    for i, j in enumerate(jobs):
        kh.wait_rows(conn, f"t{i}", len(ids), 30, job=j)
    srv.restart()
    conn = srv.connect()
    kh.query(conn, "USE d")
    kh.produce(b.bootstrap, "quiet", 0, csv_lines(15, 20))
    ids += list(range(15, 20))
    for i, j in enumerate(jobs):
        kh.wait_rows(conn, f"t{i}", len(ids), 60, job=j)
        check_exact(conn, f"t{i}", ids)


def metadata_requests(srv) -> float:
    """sluice_kafka_metadata_requests_total from GET /metrics."""
    req = urllib.request.Request(f"http://127.0.0.1:{srv.http_port}/metrics")
    req.add_header("Authorization", "Basic " + base64.b64encode(b"root:").decode())
    with urllib.request.urlopen(req, timeout=10) as r:
        for line in r.read().decode().splitlines():
            if line.startswith("sluice_kafka_metadata_requests_total "):
                return float(line.split()[1])
    check(False, "GET /metrics has no sluice_kafka_metadata_requests_total")
    return 0.0


@suite.test(timeout=150)
def test_idle_jobs_on_one_topic_share_one_check_per_interval(s):
    b = new_broker({"shared": 1})
    srv, conn = setup_db(s)
    kh.produce(b.bootstrap, "shared", 0, csv_lines(0, 10))
    jobs = ["r0", "r1", "r2", "r3"]
    for i, j in enumerate(jobs):
        create_job(conn, j, f"t{i}", b.bootstrap, "shared")
    kh.query(conn, "CREATE TABLE tp (v varchar)")
    kh.query(conn, f"""CREATE PIPE p0 VIRTUAL_CLUSTER = 'default' BATCH_INTERVAL_IN_SECONDS = '{INTERVAL_S:g}'
RESET_KAFKA_GROUP_OFFSETS = 'earliest' AS COPY INTO tp FROM (SELECT value::STRING FROM READ_KAFKA('{b.bootstrap}',
'shared', '', 'p0group', '', '', '', '', 'raw', 'raw', 0, map()))""")
    for i, j in enumerate(jobs):
        kh.wait_rows(conn, f"t{i}", 10, 60, job=j)
    kh.wait_rows(conn, "tp", 10, 60)
    kh.wait_until(lambda: kafka_clients(srv) == 1, IDLE_CLOSE_S + 15,
                  "the five idle jobs to close their consumers (one librdkafka client left)")
    # Five idle groups at max_batch_interval 1 s: one request a second between them (each asking for itself would
    # be five), plus at most one partition check (every 30 s, shared too).
    window = 8.0
    before = metadata_requests(srv)
    time.sleep(window)
    sent = metadata_requests(srv) - before
    check(sent <= window / INTERVAL_S + 3,
          f"{sent:g} metadata/ListOffsets requests in {window:g} s for five idle jobs on one topic "
          f"(one per {INTERVAL_S:g} s interval expected; five per interval if each job asked for itself)")
    check(sent >= window / INTERVAL_S / 2, f"the idle jobs still check for new data: {sent:g} requests in {window:g} s")

    # New data: every job wakes within max_batch_interval and loads it, exactly once.
    t0 = time.monotonic()
    kh.produce(b.bootstrap, "shared", 0, csv_lines(10, 30))
    for i, j in enumerate(jobs):
        kh.wait_rows(conn, f"t{i}", 30, 30, job=j)
    kh.wait_rows(conn, "tp", 30, 30)
    took = time.monotonic() - t0
    check(took < INTERVAL_S + 4, f"new data loaded by all five idle jobs in {took:.1f} s (max_batch_interval "
                                 f"{INTERVAL_S:g} s, plus opening a consumer and committing)")
    for i, _ in enumerate(jobs):
        check_exact(conn, f"t{i}", list(range(30)))
    eq(kh.query(conn, "SELECT count(*), count(DISTINCT v) FROM tp")[0], (30, 30), "tp: rows loaded once each")


@suite.test(timeout=150)
def test_idle_job_through_broker_down_and_up(s):
    b = new_broker({"flaky": 1})
    srv, conn = setup_db(s)
    kh.produce(b.bootstrap, "flaky", 0, csv_lines(0, 10))
    create_job(conn, "jf", "t", b.bootstrap, "flaky")
    create_job(conn, "jg", "t2", b.bootstrap, "flaky")
    kh.wait_rows(conn, "t", 10, 60, job="jf")
    kh.wait_rows(conn, "t2", 10, 60, job="jg")
    kh.wait_until(lambda: kafka_clients(srv) == 1, IDLE_CLOSE_S + 15, "the idle jobs to close their consumers")
    b.command("broker down 1")

    def says_retrying():
        j = kh.show_job(conn, "jf")
        check(j["State"] == "RUNNING", f"the job left RUNNING while the broker was down: {kh.describe_job(j)}")
        msgs = [j["OtherMsg"] or ""] + [t["Message"] or "" for t in
                                        kh.show_rows(conn, 'SHOW ROUTINE LOAD TASK WHERE JobName = "jf"')]
        return next((m for m in msgs if "retrying" in m), None)

    msg = kh.wait_until(says_retrying, 60, "the idle job to notice the broker is down")
    contains(msg, "retrying", "OtherMsg")
    b.command("broker up 1")
    kh.produce(b.bootstrap, "flaky", 0, csv_lines(10, 40))
    kh.wait_rows(conn, "t", 40, 90, job="jf")
    kh.wait_rows(conn, "t2", 40, 90, job="jg")
    check_exact(conn, "t", list(range(40)))
    check_exact(conn, "t2", list(range(40)))
    kh.wait_until(lambda: "retrying" not in (kh.show_job(conn, "jf")["OtherMsg"] or ""), 30,
                  "OtherMsg without the retry message")
    eq(kh.show_job(conn, "jf")["State"], "RUNNING", "State")


@suite.test(timeout=90)
def test_pipe_log_lines_say_pipe(s):
    b = new_broker({"events": 1})
    srv, conn = setup_db(s)
    kh.query(conn, "CREATE TABLE ev (v varchar)")
    kh.produce(b.bootstrap, "events", 0, ["a", "b", "c"])
    kh.query(conn, f"""CREATE PIPE evpipe VIRTUAL_CLUSTER = 'default' BATCH_INTERVAL_IN_SECONDS = '1'
RESET_KAFKA_GROUP_OFFSETS = 'earliest' AS COPY INTO ev FROM (SELECT value::STRING FROM READ_KAFKA('{b.bootstrap}', 'events', '', 'evgroup', '', '', '', '',
'raw', 'raw', 0, map()))""")
    kh.wait_rows(conn, "ev", 3, 60)
    kh.query(conn, "ALTER PIPE evpipe SET PIPE_EXECUTION_PAUSED = true")
    kh.wait_until(lambda: "pipe d.evpipe: RUNNING -> PAUSED" in srv.log_text(), 20, "the pipe's state change logged")
    log = srv.log_text()
    contains(log, "pipe d.evpipe running: partitions 0", "server log")
    check("routine load d.evpipe" not in log and "routine load evpipe" not in log,
          "no log line calls the pipe a routine load:\n" +
          "\n".join(line for line in log.splitlines() if "evpipe" in line))


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
