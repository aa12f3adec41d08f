#!/usr/bin/python3
"""ALTER TABLE while routine loads run on the table (issue 13, item 5), on the test broker.

- a JSON job (columns by name) keeps running while a column is added AFTER another and one is dropped: rows
  produced after the ADD fill the new column, rows produced after the DROP still load, and every message is in the
  table exactly once (messages keep arriving while the table is rebuilt);
- a CSV job whose COLUMNS names a dropped column pauses saying so and what to do; ALTER ROUTINE LOAD ... COLUMNS and
  RESUME make it load again;
- a job's tasks prepare their statements once per plan (storage's Connection::QueryPrepared): ALTER ROUTINE LOAD
  changing COLUMNS and WHERE, and ALTER TABLE ADD COLUMN, are each obeyed by the next task.

    /usr/bin/python3 tests/e2e/test_alter_table_loads.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import TestSuite, eq  # noqa: E402

suite = TestSuite("test_alter_table_loads")
LOAD_TIMEOUT = 90.0


def wait_committed(conn, job: str, messages: int) -> dict:
    want = {"0": str(messages - 1)}

    def probe():
        j = kh.show_job(conn, job)
        if j["State"] == "PAUSED":
            raise AssertionError(f"job {job} paused: {kh.describe_job(j)}")
        return j if j["Progress"] == want else None

    return kh.wait_until(probe, LOAD_TIMEOUT, f"job {job} to commit {want}")


@suite.test(timeout=240)
def test_json_job_sees_added_and_dropped_columns(s):
    topic = kh.new_topic("alter_json", 1)
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE t (id int NOT NULL, v varchar(10), old int) DUPLICATE KEY(id)")
    kh.query(conn, f"""CREATE ROUTINE LOAD j ON t
PROPERTIES ("format" = "json", "max_batch_interval" = "0.2", "max_batch_rows" = "20")
FROM KAFKA ("kafka_broker_list" = "{kh.shared_broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")

    def msg(i: int) -> str:
        return json.dumps({"id": i, "v": f"v{i}", "old": i, "extra": f"e{i}"})

    # messages keep arriving in small bursts while the table is altered twice
    total = 300

    def producer():
        for start in range(0, total, 10):
            kh.produce(kh.shared_broker().bootstrap, topic, 0, [msg(i) for i in range(start, start + 10)])
            time.sleep(0.05)

    first = [msg(i) for i in range(1000, 1005)]
    kh.produce(kh.shared_broker().bootstrap, topic, 0, first)
    wait_committed(conn, "j", 5)

    t = threading.Thread(target=producer)
    t.start()
    time.sleep(0.3)
    kh.query(conn, "ALTER TABLE t ADD COLUMN extra varchar(10) AFTER id")
    time.sleep(0.5)
    kh.query(conn, "ALTER TABLE t DROP COLUMN old")
    t.join()
    kh.produce(kh.shared_broker().bootstrap, topic, 0, [msg(i) for i in range(2000, 2010)])
    total += 10
    job = wait_committed(conn, "j", 5 + total)
    eq(job["State"], "RUNNING", "the job keeps running")
    eq([r[0] for r in kh.query(conn, "DESC t")], ["id", "extra", "v"], "DESC after the ALTERs")
    eq(kh.scalar(conn, "SELECT count(*) FROM t"), 5 + total, "every message once")
    eq(kh.scalar(conn, "SELECT count(DISTINCT id) FROM t"), 5 + total, "no message twice")
    eq(kh.scalar(conn, "SELECT count(*) FROM t WHERE id BETWEEN 1000 AND 1004 AND extra IS NOT NULL"), 0,
       "rows loaded before the ADD have no value in it")
    # the last burst was produced after both ALTERs were done: its rows fill the new column
    eq(kh.scalar(conn, "SELECT count(*) FROM t WHERE id >= 2000 AND extra = 'e' || id"), 10,
       "rows loaded after the ADD fill the new column")


@suite.test(timeout=180)
def test_csv_job_naming_a_dropped_column_pauses(s):
    topic = kh.new_topic("alter_csv", 1)
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE c (id int NOT NULL, v varchar(10), w int) DUPLICATE KEY(id)")
    kh.query(conn, f"""CREATE ROUTINE LOAD jc ON c
COLUMNS TERMINATED BY ",", COLUMNS (id, v, w)
PROPERTIES ("max_batch_interval" = "0.2")
FROM KAFKA ("kafka_broker_list" = "{kh.shared_broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    kh.produce(kh.shared_broker().bootstrap, topic, 0, ["1,a,10", "2,b,20"])
    wait_committed(conn, "jc", 2)
    kh.query(conn, "ALTER TABLE c DROP COLUMN w")
    paused = kh.wait_state(conn, "jc", "PAUSED", LOAD_TIMEOUT)
    reason = paused["ReasonOfStateChanged"]
    for part in ("column w was dropped from table d.c", "ALTER ROUTINE LOAD FOR jc COLUMNS (...)",
                 "RESUME ROUTINE LOAD FOR jc"):
        if part not in reason:
            raise AssertionError(f"pause reason lacks {part!r}: {reason}")
    kh.produce(kh.shared_broker().bootstrap, topic, 0, ["3,c,30"])
    kh.query(conn, "ALTER ROUTINE LOAD FOR jc COLUMNS (id, v, w_unused)")
    kh.query(conn, "RESUME ROUTINE LOAD FOR jc")
    wait_committed(conn, "jc", 3)
    eq(kh.query(conn, "SELECT id, v FROM c ORDER BY id"), [(1, "a"), (2, "b"), (3, "c")], "rows after the RESUME")


@suite.test(timeout=180)
def test_next_task_follows_altered_columns_where_and_table(s):
    topic = kh.new_topic("alter_plan", 1)
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE p (id int NOT NULL, w int, x int) DUPLICATE KEY(id)")
    kh.query(conn, f"""CREATE ROUTINE LOAD jp ON p
COLUMNS TERMINATED BY ",", COLUMNS (id, w, x = w * 2), WHERE w > 10
PROPERTIES ("max_batch_interval" = "0.2")
FROM KAFKA ("kafka_broker_list" = "{kh.shared_broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    bootstrap = kh.shared_broker().bootstrap
    # several tasks of the first plan, so its statements are prepared and run again
    for i, w in enumerate([5, 20, 30, 1]):
        kh.produce(bootstrap, topic, 0, [f"{i + 1},{w}"])
        wait_committed(conn, "jp", i + 1)
    eq(kh.query(conn, "SELECT id, w, x FROM p ORDER BY id"), [(2, 20, 40), (3, 30, 60)], "the first plan")

    kh.query(conn, "PAUSE ROUTINE LOAD FOR jp")
    kh.wait_state(conn, "jp", "PAUSED", LOAD_TIMEOUT)
    kh.query(conn, "ALTER ROUTINE LOAD FOR jp COLUMNS (id, w, x = w * 3), WHERE w < 10")
    kh.query(conn, "RESUME ROUTINE LOAD FOR jp")
    kh.produce(bootstrap, topic, 0, ["5,6", "6,60"])
    wait_committed(conn, "jp", 6)
    eq(kh.query(conn, "SELECT id, w, x FROM p WHERE id > 4 ORDER BY id"), [(5, 6, 18)],
       "the next task after ALTER ROUTINE LOAD uses the new COLUMNS and WHERE")

    # the table changes under the running job; its load SQL stays the same text
    kh.query(conn, "ALTER TABLE p ADD COLUMN y int DEFAULT 7")
    kh.produce(bootstrap, topic, 0, ["7,2"])
    job = wait_committed(conn, "jp", 7)
    eq(job["State"], "RUNNING", "the job keeps running after ALTER TABLE")
    eq(kh.query(conn, "SELECT id, w, x, y FROM p WHERE id = 7"), [(7, 2, 6, 7)],
       "the next task after ALTER TABLE ADD COLUMN fills the new column's default")
    kh.query(conn, "PAUSE ROUTINE LOAD FOR jp")
    kh.wait_state(conn, "jp", "PAUSED", LOAD_TIMEOUT)
    kh.query(conn, "ALTER ROUTINE LOAD FOR jp COLUMNS (id, w, x = w * 3, y = w + 100), WHERE w < 10")
    kh.query(conn, "RESUME ROUTINE LOAD FOR jp")
    kh.produce(bootstrap, topic, 0, ["8,3"])
    wait_committed(conn, "jp", 8)
    eq(kh.query(conn, "SELECT id, w, x, y FROM p WHERE id = 8"), [(8, 3, 9, 103)],
       "the next task loads the added column once COLUMNS names it")
    eq(kh.scalar(conn, "SELECT count(*) FROM p"), 5, "rows of every plan, each once")


if __name__ == "__main__":
    sys.exit(kh.run_suite(suite))
