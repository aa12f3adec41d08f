#!/usr/bin/python3
"""Exactly once under crashes (issue 3, part 6), on the test broker.

200,000 small CSV messages ("id,amount", ids 1..200000) over 4 partitions are produced in rounds while a routine
load (desired_concurrent_number 4, max_batch_rows 5000, max_batch_interval 0.2) reads them; the server is killed
with SIGKILL at random moments (at least 5 times) and restarted on the same data directory. After each restart the
job is RUNNING again, nothing committed before the kill is lost and nothing is doubled; at the end the table holds
every message exactly once: count(*), count(DISTINCT id), sum(id) and sum(amount) equal what was produced, and
Progress / Statistic agree.

    /usr/bin/python3 tests/e2e/test_routine_load_exactly_once.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import os
import random
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check, eq  # noqa: E402

suite = TestSuite("test_routine_load_exactly_once")

PARTITIONS = 4
PER_PARTITION = 50_000
TOTAL = PARTITIONS * PER_PARTITION
ROUNDS = 20                       # data arrives in rounds, so kills land while there is data to load
MIN_KILLS = 6                     # kills while the job is behind (rows produced but not yet loaded)


def message(pid: int) -> str:
    return f"{pid},{pid % 997}"


def partition_ids(p: int, lo: int, hi: int) -> list[int]:
    """ids of partition p's messages lo..hi-1 (offsets)."""
    return [p * PER_PARTITION + i + 1 for i in range(lo, hi)]


def job_state(conn, name):
    return kh.show_job(conn, name)


@suite.test(timeout=420)
def test_sigkill_during_load_keeps_exactly_once(s):
    seed = int(os.environ.get("SLUICE_TEST_SEED", str(int(time.time()))))
    rng = random.Random(seed)
    print(f"  seed {seed} (set SLUICE_TEST_SEED to repeat)", flush=True)
    broker = kh.adopt_broker(kh.TestBroker({"eo": PARTITIONS}).start())
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE t (id bigint NOT NULL, amount int) DUPLICATE KEY(id)")

    # the first round before the job exists, the others while it runs and crashes
    chunk = PER_PARTITION // ROUNDS
    produced = {"rounds": 0, "error": None}

    def produce_round(r):
        threads = []
        errors = []

        def one(p):
            try:
                kh.produce(broker.bootstrap, "eo", p, [message(i) for i in partition_ids(p, r * chunk, (r + 1) * chunk)])
            except Exception as e:  # noqa: BLE001
                errors.append(e)

        for p in range(PARTITIONS):
            th = threading.Thread(target=one, args=(p,))
            th.start()
            threads.append(th)
        for th in threads:
            th.join()
        if errors:
            raise errors[0]

    produce_round(0)
    produced["rounds"] = 1
    kh.query(conn, f"""CREATE ROUTINE LOAD d.eo_job ON t COLUMNS TERMINATED BY ",", COLUMNS (id, amount)
PROPERTIES ("desired_concurrent_number" = "4", "max_batch_rows" = "5000", "max_batch_interval" = "0.2")
FROM KAFKA ("kafka_broker_list" = "{broker.bootstrap}", "kafka_topic" = "eo",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    kh.wait_state(conn, "eo_job", "RUNNING", 60)

    def producer():
        try:
            for r in range(1, ROUNDS):
                time.sleep(rng.uniform(0.3, 1.5))
                produce_round(r)
                produced["rounds"] = r + 1
        except Exception as e:  # noqa: BLE001
            produced["error"] = e

    prod = threading.Thread(target=producer, daemon=True)
    prod.start()

    kills = 0
    behind_kills = 0
    history = []
    deadline = time.monotonic() + 240

    def produced_rows():
        return produced["rounds"] * chunk * PARTITIONS

    # Kill at random moments, preferably while the job is behind (rows produced that are not loaded yet), until
    # MIN_KILLS such kills happened and the producer is done — or, on a machine fast enough to never fall behind
    # again, until everything is loaded.
    before = 0
    while produced["rounds"] < ROUNDS or (behind_kills < MIN_KILLS and before < TOTAL):
        check(time.monotonic() < deadline, f"kill loop did not finish; history {history}")
        time.sleep(rng.uniform(0.05, 1.0))
        wait_behind = time.monotonic() + 3.0
        while True:
            known = produced_rows()
            before = kh.scalar(conn, "SELECT count(*) FROM t")
            behind = before < known
            if behind or time.monotonic() > wait_behind or (produced["rounds"] >= ROUNDS and before >= TOTAL):
                break
            time.sleep(0.02)
        if not behind and behind_kills >= MIN_KILLS:
            continue   # enough kills mid-load: just let the producer finish
        srv.restart(signal.SIGKILL)
        kills += 1
        behind_kills += behind
        conn = srv.connect()
        kh.query(conn, "USE d")
        # one query: the job goes on loading between two
        after, distinct = kh.query(conn, "SELECT count(*), count(DISTINCT id) FROM t")[0]
        history.append((before, after, known, "behind" if behind else "idle"))
        check(after >= before, f"kill {kills}: {before} rows were visible before the kill, only {after} after it")
        eq(distinct, after, f"kill {kills}: count(DISTINCT id) vs count(*) after the restart")
        job = kh.wait_state(conn, "eo_job", "RUNNING", 60)
        check(job["ReasonOfStateChanged"] == "", f"kill {kills}: RUNNING job with a reason: {kh.describe_job(job)}")
    print(f"  {kills} kills, {behind_kills} while the job was behind "
          f"(rows before, rows after, rows produced, behind?): {history}", flush=True)
    prod.join(120)
    check(not prod.is_alive(), "the producer did not finish")
    if produced["error"] is not None:
        raise produced["error"]
    check(kills >= 5 and behind_kills >= 1, f"only {kills} kills, {behind_kills} while behind")

    # wait until everything is there, or the count stops growing for a long time
    last, last_change = -1, time.monotonic()
    end = time.monotonic() + 150
    while time.monotonic() < end:
        n = kh.scalar(conn, "SELECT count(*) FROM t")
        if n != last:
            last, last_change = n, time.monotonic()
        if n >= TOTAL or time.monotonic() - last_change > 60:
            break
        time.sleep(0.5)

    count, distinct, sum_id, sum_amount = kh.query(
        conn, "SELECT count(*), count(DISTINCT id), sum(id), sum(amount) FROM t")[0]
    all_ids = range(1, TOTAL + 1)
    c = Collector()
    c.eq(count, TOTAL, "count(*)")
    c.eq(distinct, TOTAL, "count(DISTINCT id)")
    c.eq(int(sum_id), sum(all_ids), "sum(id)")
    c.eq(int(sum_amount), sum(i % 997 for i in all_ids), "sum(amount)")
    if count != TOTAL or distinct != TOTAL:
        per = kh.query(conn, "SELECT (id - 1) // 50000 AS p, count(*), count(DISTINCT id), min(id), max(id) FROM t "
                             "GROUP BY p ORDER BY p")
        c.check(False, f"per partition (p, count, distinct, min, max): {per}")
        dups = kh.query(conn, "SELECT id, count(*) FROM t GROUP BY id HAVING count(*) > 1 ORDER BY id LIMIT 10")
        c.check(not dups, f"duplicated ids (first 10): {dups}")
    job = kh.wait_until(lambda: (lambda j: j if j["OffsetLag"] and all(v == 0 for v in j["OffsetLag"].values())
                                 else None)(kh.show_job(conn, "eo_job")), 60, "OffsetLag 0 everywhere")
    c.eq(job["State"], "RUNNING", "State at the end")
    c.eq(job["Progress"], {str(p): str(PER_PARTITION - 1) for p in range(PARTITIONS)}, "Progress at the end")
    c.eq(job["Statistic"]["loadedRows"], TOTAL, "Statistic.loadedRows (committed with the rows)")
    c.eq(job["Statistic"]["errorRows"], 0, "Statistic.errorRows")
    c.eq(job["Statistic"]["totalRows"], TOTAL, "Statistic.totalRows")
    c.done()
    # a clean restart at the end changes nothing
    eq(srv.restart(signal.SIGTERM), 0, "exit code on SIGTERM")
    conn = srv.connect()
    eq(kh.scalar(conn, "SELECT count(*) FROM d.t"), TOTAL, "count(*) after a clean restart")
    kh.wait_state(conn, "d.eo_job", "RUNNING", 60)
    time.sleep(1.0)
    eq(kh.scalar(conn, "SELECT count(*) FROM d.t"), TOTAL, "count(*) a while after the clean restart")


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
