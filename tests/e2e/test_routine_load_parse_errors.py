#!/usr/bin/python3
"""Routine load properties about messages that do not fit (issue 12), on the test broker.

- fill_mismatch_column_with = null: a CSV row with fewer fields than COLUMNS loads with NULLs, a longer one loads its
  first fields; with the default (none) both are error rows; under strict_mode a short row stays an error row;
- pause_on_fatal_parse_error = false (default): an unparseable JSON message (not JSON, an array without
  strip_outer_array, a bare number) is an error row with its reason in the error log, the job stays RUNNING at
  max_error_number 0 and loads the messages after it; OtherMsg says what was skipped;
- pause_on_fatal_parse_error = true: the job pauses at the bad message with a reason naming the partition, the offset
  and the parse error; the rows before it are committed, none after; the ALTER in the reason skips exactly that
  message and RESUME loads the rest, each row once.

    /usr/bin/python3 tests/e2e/test_routine_load_parse_errors.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import TestSuite, check, eq  # noqa: E402

suite = TestSuite("test_routine_load_parse_errors")

LOAD_TIMEOUT = 90.0
broker = kh.shared_broker
new_topic = kh.new_topic


def start(s: TestSuite):
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    return srv, conn


def rows(conn, sql: str) -> list[tuple]:
    return [tuple(r) for r in kh.query(conn, sql)]


def wait_total(conn, job: str, total: int) -> dict:
    def probe():
        j = kh.show_job(conn, job)
        return j if j["Statistic"].get("totalRows") == total else None
    return kh.wait_until(probe, LOAD_TIMEOUT, f"job {job} to read {total} rows")


def create_job(conn, name: str, table: str, topic: str, props: str, csv: bool = True):
    sep = 'COLUMNS TERMINATED BY ","' if csv else ""
    kh.query(conn, f"""CREATE ROUTINE LOAD {name} ON {table} {sep}
PROPERTIES ("max_batch_interval" = "0.5"{", " + props if props else ""})
FROM KAFKA ("kafka_broker_list" = "{broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")


@suite.test(timeout=150)
def test_fill_mismatch_column_with_null(s):
    topic = new_topic("fill_mismatch", 1)
    srv, conn = start(s)
    for t in ("t_fill", "t_none", "t_strict"):
        kh.query(conn, f"CREATE TABLE {t} (id int NOT NULL, a varchar(20), b int) DUPLICATE KEY(id)")
    kh.produce(broker().bootstrap, topic, 0, ["1,x,10", "2,y", "3", "4,z,40,extra,more"])
    create_job(conn, "j_fill", "t_fill", topic, '"fill_mismatch_column_with" = "NULL"')
    create_job(conn, "j_none", "t_none", topic, '"max_error_number" = "10"')
    create_job(conn, "j_strict", "t_strict", topic,
               '"fill_mismatch_column_with" = "null", "strict_mode" = "true", "max_error_number" = "10"')
    kh.wait_rows(conn, "t_fill", 4, LOAD_TIMEOUT, job="j_fill")
    eq(rows(conn, "SELECT id, a, b FROM t_fill ORDER BY id"),
       [(1, "x", 10), (2, "y", None), (3, None, None), (4, "z", 40)], "short rows padded, long rows cut")
    job = kh.show_job(conn, "j_fill")
    eq(job["State"], "RUNNING", "State")
    eq(job["Statistic"]["errorRows"], 0, "errorRows with fill_mismatch_column_with = null")
    eq(job["JobProperties"]["fill_mismatch_column_with"], "null", "JobProperties shows the property")
    wait_total(conn, "j_none", 4)
    eq(rows(conn, "SELECT id FROM t_none ORDER BY id"), [(1,)], "the default: mismatched rows are error rows")
    eq(kh.show_job(conn, "j_none")["Statistic"]["errorRows"], 3, "errorRows with the default")
    wait_total(conn, "j_strict", 4)
    eq(rows(conn, "SELECT id FROM t_strict ORDER BY id"), [(1,), (4,)], "strict_mode rejects short rows")
    rej = kh.rejected_rows(conn, "d", "j_strict")
    eq([r["Offset"] for r in rej], [1, 2], "the short rows are the rejected ones")
    check(all("expected 3 columns, got" in r["Reason"] for r in rej), f"reasons name the count: {rej!r}")


@suite.test(timeout=150)
def test_fatal_parse_errors_are_skipped_by_default(s):
    topic = new_topic("fatal_default", 1)
    srv, conn = start(s)
    kh.query(conn, "CREATE TABLE t (k int NOT NULL, v varchar(20)) DUPLICATE KEY(k)")
    kh.produce(broker().bootstrap, topic, 0,
               ['{"k": 1, "v": "a"}', 'abcd', '[{"k": 9}]', '42', '{"k": 2, "v": "b"}', '{"k": "x", "v": "c"}'])
    # max_error_number 0 (the default): the unparseable messages do not count, the bad value at offset 5 does
    create_job(conn, "j", "t", topic, '"format" = "json", "strict_mode" = "true"', csv=False)
    job = kh.wait_state(conn, "j", "PAUSED", LOAD_TIMEOUT)
    check("1 error rows" in job["ReasonOfStateChanged"] and "max_error_number 0" in job["ReasonOfStateChanged"],
          f"only the bad value counts against max_error_number: {job['ReasonOfStateChanged']!r}")
    eq(rows(conn, "SELECT k, v FROM t ORDER BY k"), [(1, "a"), (2, "b")], "the parseable rows load")
    rej = kh.rejected_rows(conn, "d", "j")
    eq([r["Offset"] for r in rej], [1, 2, 3, 5], "every error row is in the error log")
    check("malformed JSON" in rej[0]["Reason"], f"reason of 'abcd': {rej[0]['Reason']!r}")
    check("strip_outer_array" in rej[1]["Reason"], f"reason of the array: {rej[1]['Reason']!r}")
    check("expected a JSON object" in rej[2]["Reason"], f"reason of 42: {rej[2]['Reason']!r}")
    eq(job["Statistic"]["errorRows"], 4, "errorRows counts the skipped messages too")

    # a job that only meets unparseable messages stays RUNNING at max_error_number 0
    topic2 = new_topic("fatal_running", 1)
    kh.produce(broker().bootstrap, topic2, 0, ['{"k": 3, "v": "c"}', '{"k": ', '{"k": 4, "v": "d"}'])
    kh.query(conn, "CREATE TABLE t2 (k int NOT NULL, v varchar(20)) DUPLICATE KEY(k)")
    create_job(conn, "j2", "t2", topic2, '"format" = "json"', csv=False)
    kh.wait_rows(conn, "t2", 2, LOAD_TIMEOUT, job="j2")
    job = wait_total(conn, "j2", 3)
    eq(job["State"], "RUNNING", "State after an unparseable message")
    check("partition 0 offset 1" in job["OtherMsg"] and "malformed JSON" in job["OtherMsg"],
          f"OtherMsg names the skipped message: {job['OtherMsg']!r}")


@suite.test(timeout=180)
def test_pause_on_fatal_parse_error(s):
    topic = new_topic("fatal_pause", 2)
    srv, conn = start(s)
    kh.query(conn, "CREATE TABLE t (k int NOT NULL, v varchar(20)) DUPLICATE KEY(k)")
    kh.produce(broker().bootstrap, topic, 0, ['{"k": 1, "v": "a"}', '{"k": 2, "v": "b"}', 'not json',
                                              '{"k": 3, "v": "c"}'])
    kh.produce(broker().bootstrap, topic, 1, ['{"k": 10, "v": "p1"}', '{"k": 11, "v": "p1"}'])
    create_job(conn, "jp", "t", topic, '"format" = "json", "pause_on_fatal_parse_error" = "true"', csv=False)
    job = kh.wait_state(conn, "jp", "PAUSED", LOAD_TIMEOUT)
    reason = job["ReasonOfStateChanged"]
    check("partition 0 offset 2" in reason and "malformed JSON" in reason, f"the reason names it: {reason!r}")
    loaded = {k for (k,) in rows(conn, "SELECT k FROM t")}
    check({1, 2} <= loaded and 3 not in loaded, f"rows before the bad message are loaded, none after: {loaded}")
    eq(job["JobProperties"]["pause_on_fatal_parse_error"], "true", "JobProperties")
    m = re.search(r"(ALTER ROUTINE LOAD FOR jp FROM KAFKA \(.*?\));", reason)
    check(m is not None, f"the reason holds an ALTER: {reason!r}")
    kh.query(conn, m.group(1))
    kh.query(conn, "RESUME ROUTINE LOAD FOR jp")
    kh.wait_rows(conn, "t", 5, LOAD_TIMEOUT, job="jp")
    eq(rows(conn, "SELECT k, count(*) FROM t GROUP BY k ORDER BY k"),
       [(1, 1), (2, 1), (3, 1), (10, 1), (11, 1)], "every row once after skipping the bad message")
    eq(kh.show_job(conn, "jp")["State"], "RUNNING", "State after RESUME")

    # the other way out: pause_on_fatal_parse_error = false records it as an error row and goes on
    kh.produce(broker().bootstrap, topic, 1, ['[1, 2]', '{"k": 12, "v": "p1"}'])
    kh.wait_state(conn, "jp", "PAUSED", LOAD_TIMEOUT)
    kh.query(conn, 'ALTER ROUTINE LOAD FOR jp PROPERTIES ("pause_on_fatal_parse_error" = "false")')
    kh.query(conn, "RESUME ROUTINE LOAD FOR jp")
    kh.wait_rows(conn, "t", 6, LOAD_TIMEOUT, job="jp")
    eq(kh.show_job(conn, "jp")["State"], "RUNNING", "State with pause_on_fatal_parse_error = false")
    eq([r["Offset"] for r in kh.rejected_rows(conn, "d", "jp")], [2], "the skipped array is an error row")


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
