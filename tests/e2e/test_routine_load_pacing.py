#!/usr/bin/python3
"""How often a caught-up routine load commits, on the test broker.

A task group that has caught up starts its next task max_batch_interval after its previous task started (at once
when that task took longer). So against a steady trickle of messages:

- it commits at most about once per max_batch_interval per group (never a task per message), and
- every message is visible about an interval plus a commit after it was produced, not two intervals;
- every message is loaded exactly once.

    /usr/bin/python3 tests/e2e/test_routine_load_pacing.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import TestSuite, check, eq  # noqa: E402

suite = TestSuite("test_routine_load_pacing")

INTERVAL_S = 1.0    # max_batch_interval of the job
PRODUCE_S = 6.0     # how long the trickle runs
EVERY_S = 0.05      # one message this often (plus a kcat start per message)


def committed_tasks(conn) -> int:
    stat = kh.show_job(conn, "j")["Statistic"]
    return int((json.loads(stat) if isinstance(stat, str) else stat)["committedTaskNum"])


@suite.test(timeout=120)
def test_caught_up_group_commits_once_per_interval_and_stays_fresh(s):
    b = kh.adopt_broker(kh.TestBroker({"trickle": 1}).start())
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE t (id bigint NOT NULL, v varchar(20)) DUPLICATE KEY(id)")
    kh.query(conn, f"""CREATE ROUTINE LOAD j ON t COLUMNS TERMINATED BY ",", COLUMNS (id, v)
PROPERTIES ("max_batch_interval" = "{INTERVAL_S}")
FROM KAFKA ("kafka_broker_list" = "{b.bootstrap}", "kafka_topic" = "trickle",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    kh.wait_state(conn, "j", "RUNNING", 30)
    time.sleep(1.5)  # the first tasks find the empty partition

    sent_at: list[float] = []
    seen_at: dict[int, float] = {}
    done = threading.Event()

    def watch():
        wconn = srv.connect()
        try:
            while not done.is_set():
                n = int(kh.scalar(wconn, "SELECT count(*) FROM d.t"))
                now = time.monotonic()
                for i in range(n):
                    seen_at.setdefault(i, now)
                time.sleep(0.02)
        finally:
            wconn.close()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    tasks_before = committed_tasks(conn)
    t0 = time.monotonic()
    i = 0
    while time.monotonic() - t0 < PRODUCE_S:
        kh.produce(b.bootstrap, "trickle", 0, [f"{i},v{i}"])  # returns once the broker has it
        sent_at.append(time.monotonic())
        i += 1
        time.sleep(EVERY_S)
    kh.wait_rows(conn, "t", len(sent_at), 30, job="j")
    time.sleep(0.1)
    done.set()
    watcher.join(10)
    elapsed = time.monotonic() - t0
    tasks = committed_tasks(conn) - tasks_before

    # Exactly once.
    count, distinct = kh.query(conn, "SELECT count(*), count(DISTINCT id) FROM t")[0]
    eq((int(count), int(distinct)), (len(sent_at), len(sent_at)), "rows loaded once each")
    # About one commit per interval: never a task per message (len(sent_at) is several dozen).
    check(tasks <= elapsed / INTERVAL_S + 2,
          f"{tasks} commits in {elapsed:.1f} s with max_batch_interval {INTERVAL_S} s ({len(sent_at)} messages)")
    check(tasks >= 3, f"{tasks} commits in {elapsed:.1f} s: the trickle is loaded as it comes")
    # Fresh: a message waits about an interval plus a commit (the watcher polls every 20 ms), not two intervals.
    waits = sorted(seen_at[k] - sent_at[k] for k in range(len(sent_at)) if k in seen_at)
    worst = waits[int(0.95 * (len(waits) - 1))]
    print(f"  {tasks} commits in {elapsed:.1f} s for {len(sent_at)} messages; 95% visible within {worst:.2f} s")
    check(worst < INTERVAL_S + 0.5,
          f"95% of the messages were visible within {worst:.2f} s (max_batch_interval {INTERVAL_S} s)")


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
