#!/usr/bin/python3
"""Routine loads into RANGE / LIST partitioned tables (issue 12), on the test broker.

- a row whose partition value is in no partition is an error row (reason names the column and value), counted in
  Statistic.errorRows and toward max_error_number (a job allowed none pauses); NULL goes to the partition that
  starts at MINVALUE;
- PARTITION (p0) loads only the rows of p0: rows of other partitions are error rows too, as StarRocks filters them;
- ALTER TABLE ... ADD PARTITION reaches a running job: rows of the new partition load from then on;
  DROP PARTITION deletes the partition's rows, and later rows of it are error rows; a job whose PARTITION (...)
  names the dropped partition pauses;
- a Kafka pipe (COPY INTO t FROM (SELECT ... FROM READ_KAFKA(...))) makes rows in no partition error rows too.

    /usr/bin/python3 tests/e2e/test_routine_load_partitions.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import TestSuite, eq  # noqa: E402

suite = TestSuite("test_routine_load_partitions")
LOAD_TIMEOUT = 90.0

TABLE = """CREATE TABLE r (dt date, id int, v varchar(20)) DUPLICATE KEY(dt, id)
PARTITION BY RANGE(dt) (
  PARTITION p0 VALUES LESS THAN ("2024-01-01"),
  PARTITION p1 VALUES [("2024-01-01"), ("2024-02-01"))
) DISTRIBUTED BY HASH(id) BUCKETS 1"""

MESSAGES = [
    "2023-12-31,1,p0",
    "2024-01-01,2,p1",
    "2024-03-05,3,none",  # no partition
    "\\N,4,null",         # NULL: the lowest partition, p0
    "2024-01-31,5,p1",
    "2030-01-01,6,none",  # no partition
    "1999-01-01,7,p0",
]


def create_job(conn, name: str, table: str, topic: str, extra: str = "", max_errors: int = 100):
    kh.query(conn, f"""CREATE ROUTINE LOAD {name} ON {table}
COLUMNS TERMINATED BY ",", COLUMNS (dt, id, v){extra}
PROPERTIES ("max_batch_interval" = "0.5", "max_error_number" = "{max_errors}")
FROM KAFKA ("kafka_broker_list" = "{kh.shared_broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")


def wait_committed(conn, job: str, messages: int) -> dict:
    want = {"0": str(messages - 1)}

    def probe():
        j = kh.show_job(conn, job)
        return j if j["Progress"] == want else None

    return kh.wait_until(probe, LOAD_TIMEOUT, f"job {job} to commit {want}")


def ids(conn, table: str) -> list[int]:
    return [int(r[0]) for r in kh.query(conn, f"SELECT id FROM {table} ORDER BY id")]


@suite.test(timeout=150)
def test_rows_in_no_partition_are_error_rows(s):
    topic = kh.new_topic("part_none", 1)
    kh.produce(kh.shared_broker().bootstrap, topic, 0, MESSAGES)
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, TABLE)
    create_job(conn, "j_all", "r", topic)
    job = wait_committed(conn, "j_all", len(MESSAGES))
    eq(job["Statistic"]["loadedRows"], 5, "loadedRows: the rows of p0 and p1, NULL in p0")
    eq(job["Statistic"]["errorRows"], 2, "errorRows: the two rows in no partition")
    eq(ids(conn, "r"), [1, 2, 4, 5, 7], "rows loaded")
    reasons = [(r["Offset"], r["Reason"]) for r in kh.rejected_rows(conn, "d", "j_all")]
    eq(reasons, [(2, "no partition for this row: column 'dt' = '2024-03-05' is in no partition of table 'r'"),
                 (5, "no partition for this row: column 'dt' = '2030-01-01' is in no partition of table 'r'")],
       "the error rows and their reasons")

    # error rows count toward max_error_number: a job allowed none pauses
    kh.query(conn, TABLE.replace("TABLE r", "TABLE r2"))
    create_job(conn, "j_strict", "r2", topic, max_errors=0)
    paused = kh.wait_state(conn, "j_strict", "PAUSED", LOAD_TIMEOUT)
    if "2 error rows" not in paused["ReasonOfStateChanged"]:
        raise AssertionError(f"the pause does not count the partition error rows: {kh.describe_job(paused)}")
    eq([r["Reason"] for r in kh.rejected_rows(conn, "d", "j_strict")],
       ["no partition for this row: column 'dt' = '2024-03-05' is in no partition of table 'r2'",
        "no partition for this row: column 'dt' = '2030-01-01' is in no partition of table 'r2'"],
       "the strict job's error rows")


@suite.test(timeout=150)
def test_partition_property_restricts_rows(s):
    topic = kh.new_topic("part_p0", 1)
    kh.produce(kh.shared_broker().bootstrap, topic, 0, MESSAGES)
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, TABLE)
    create_job(conn, "j_p0", "r", topic, extra=",\nPARTITION (p0)")
    job = wait_committed(conn, "j_p0", len(MESSAGES))
    eq(ids(conn, "r"), [1, 4, 7], "only p0's rows (NULL is p0's)")
    eq(job["Statistic"]["loadedRows"], 3, "loadedRows")
    eq(job["Statistic"]["errorRows"], 4, "errorRows: rows of p1 and rows in no partition, as StarRocks filters them")
    eq(job["JobProperties"]["partitions"], "p0", "JobProperties.partitions")
    reasons = {r["Offset"]: r["Reason"] for r in kh.rejected_rows(conn, "d", "j_p0")}
    eq(reasons.get(1), "no partition for this row among the load's PARTITION (p0): column 'dt' = '2024-01-01' "
                       "belongs to another partition of the table", "reason of a p1 row")
    eq(reasons.get(2), "no partition for this row: column 'dt' = '2024-03-05' is in no partition of table 'r'",
       "reason of a row in no partition")


@suite.test(timeout=180)
def test_add_and_drop_partition_reach_a_running_job(s):
    topic = kh.new_topic("part_alter", 1)
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, TABLE)
    create_job(conn, "j", "r", topic)
    first = ["2023-06-01,1,p0", "2024-03-10,2,none yet"]
    kh.produce(kh.shared_broker().bootstrap, topic, 0, first)
    job = wait_committed(conn, "j", 2)
    eq(job["Statistic"]["errorRows"], 1, "March has no partition yet")
    kh.query(conn, 'ALTER TABLE r ADD PARTITION p2 VALUES [("2024-03-01"), ("2024-04-01"))')
    kh.produce(kh.shared_broker().bootstrap, topic, 0, ["2024-03-11,3,p2", "2024-01-05,4,p1"])
    job = wait_committed(conn, "j", 4)
    eq(ids(conn, "r"), [1, 3, 4], "a row of the added partition loads")
    eq(job["Statistic"]["errorRows"], 1, "no new error rows")
    with conn.cursor() as cur:
        eq(cur.execute("ALTER TABLE r DROP PARTITION p0"), 1, "DROP PARTITION reports the rows it deleted")
    kh.produce(kh.shared_broker().bootstrap, topic, 0, ["2023-07-01,5,p0 gone", "2024-03-12,6,p2"])
    job = wait_committed(conn, "j", 6)
    eq(ids(conn, "r"), [3, 4, 6], "p0's rows are gone, and a later row of it is refused")
    eq(job["Statistic"]["errorRows"], 2, "the row of the dropped partition is an error row")
    eq(job["State"], "RUNNING", "the job keeps running")

    # a job whose PARTITION (...) names a partition that is dropped pauses, saying so
    create_job(conn, "j_p2", "r", topic, extra=",\nPARTITION (p2)")
    wait_committed(conn, "j_p2", 6)
    kh.query(conn, "ALTER TABLE r DROP PARTITION p2")
    paused = kh.wait_state(conn, "j_p2", "PAUSED", LOAD_TIMEOUT)
    if "Unknown partition 'p2'" not in paused["ReasonOfStateChanged"]:
        raise AssertionError(f"pause reason: {kh.describe_job(paused)}")
    kh.wait_state(conn, "j", "RUNNING", LOAD_TIMEOUT)  # regrouped after the DROP, it runs on


@suite.test(timeout=150)
def test_kafka_pipe_rows_in_no_partition_are_error_rows(s):
    topic = kh.new_topic("part_pipe", 1)
    kh.produce(kh.shared_broker().bootstrap, topic, 0,
               ['{"dt": "2023-05-01", "id": 1}', '{"dt": "2024-09-01", "id": 2}', '{"dt": "2024-01-09", "id": 3}'])
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, TABLE)
    kh.query(conn, f"""CREATE PIPE pp BATCH_INTERVAL_IN_SECONDS = '1' RESET_KAFKA_GROUP_OFFSETS = 'earliest'
AS COPY INTO r FROM (SELECT CAST(PARSE_JSON(value::STRING)['dt'] AS DATE), PARSE_JSON(value::STRING)['id']::INT, 'pipe'
    FROM READ_KAFKA('{kh.shared_broker().bootstrap}', '{topic}', '', 'g_pp', '', '', '', '', 'raw', 'raw', 5, map()))""")
    kh.wait_rows(conn, "r", 2, LOAD_TIMEOUT)
    rejected = kh.wait_until(lambda: kh.query(conn, "SELECT \"Offset\", Reason FROM __sluice.routine_load_rejected_rows "
                                                    "WHERE JobName = 'pp'"), LOAD_TIMEOUT, "the pipe's error row")
    eq(rejected, [(1, "no partition for this row: column 'dt' = '2024-09-01' is in no partition of table 'r'")],
       "the pipe's error row")
    eq(ids(conn, "r"), [1, 3], "rows loaded by the pipe")


if __name__ == "__main__":
    sys.exit(kh.run_suite(suite))
