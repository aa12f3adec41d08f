#!/usr/bin/python3
"""A pipe created on a topic that already holds data (issue 12): with RESET_KAFKA_GROUP_OFFSETS = 'none' (the
default) a new group starts at the end, as in the Lakehouse guide, and DESC PIPE's start_position says where it
started and how many messages it leaves behind; with 'earliest' it loads them all, exactly.

    /usr/bin/python3 tests/e2e/test_kafka_pipe_start.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite  # noqa: E402

suite = TestSuite("test_kafka_pipe_start")


def create_pipe(conn, name: str, table: str, bootstrap: str, group: str, reset: str = ""):
    kh.query(conn, f"CREATE TABLE {table} (id bigint)")
    kh.query(conn, f"""CREATE PIPE {name} BATCH_INTERVAL_IN_SECONDS = '1' {reset} AS COPY INTO {table} FROM (
    SELECT PARSE_JSON(value::STRING)['id']::BIGINT
    FROM READ_KAFKA('{bootstrap}', 'logs', '', '{group}', '', '', '', '', 'raw', 'raw', 0, map()))""")


def desc(conn, name: str) -> dict:
    return {k: v for k, v in kh.query(conn, f"DESC PIPE {name}")}


@suite.test(timeout=90)
def test_a_new_pipe_says_what_it_leaves_behind(s):
    b = kh.adopt_broker(kh.TestBroker({"logs": 2}).start())
    for p in range(2):
        b.produce("logs", p, ['{"id": %d}' % i for i in range(p * 100, p * 100 + 100 + 25 * p)])
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    create_pipe(conn, "at_end", "t_end", b.bootstrap, "g_end")
    note = kh.wait_until(lambda: desc(conn, "at_end").get("start_position"), 30, "start_position of a new pipe")
    c = Collector()
    c.contains(note, "partition:offset 0:100, 1:125", "where it started")
    c.contains(note, "225 message(s) already in the topic", "how many it leaves behind")
    c.contains(note, "RESET_KAFKA_GROUP_OFFSETS = 'earliest'", "how to load them")
    c.done()
    # New messages after the start are loaded; the old ones are not.
    b.produce("logs", 0, ['{"id": %d}' % i for i in range(1000, 1010)])
    kh.wait_rows(conn, "t_end", 10, 30)

    create_pipe(conn, "from_start", "t_all", b.bootstrap, "g_all", "RESET_KAFKA_GROUP_OFFSETS = 'earliest'")
    kh.wait_rows(conn, "t_all", 235, 30)
    count, distinct, total = kh.query(conn, "SELECT count(*), count(DISTINCT id), sum(id) FROM t_all")[0]
    ids = list(range(0, 100)) + list(range(100, 225)) + list(range(1000, 1010))
    c = Collector()
    c.eq((count, distinct, int(total)), (len(ids), len(ids), sum(ids)), "'earliest' loads everything once")
    c.contains(desc(conn, "from_start")["start_position"], "partition:offset 0:0, 1:0", "it started at the beginning")
    c.check("already in the topic" not in desc(conn, "from_start")["start_position"], "and leaves nothing behind")
    c.done()


if __name__ == "__main__":
    sys.exit(kh.run_suite(suite))
