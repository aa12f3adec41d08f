#!/usr/bin/python3
"""A job whose brokers refuse connections says so within seconds (issue 12): a routine load's OtherMsg and a Kafka
pipe's last_error name the broker and "Connection refused" while the job keeps retrying, instead of an empty
message for the 10 s metadata timeout followed by "Local: Broker transport failure".

    /usr/bin/python3 tests/e2e/test_broker_unreachable.py --server build/sluice
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, free_port  # noqa: E402

suite = TestSuite("test_broker_unreachable")


@suite.test(timeout=60)
def test_refused_connections_are_reported_within_seconds(s):
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE t (id bigint)")
    kh.query(conn, "CREATE TABLE logs (id bigint)")
    address = f"127.0.0.1:{free_port()}"  # nothing listens there
    t0 = time.monotonic()
    kh.query(conn, f"""CREATE ROUTINE LOAD rl ON t PROPERTIES ("format" = "json")
FROM KAFKA ("kafka_broker_list" = "{address}", "kafka_topic" = "orders")""")
    kh.query(conn, f"""CREATE PIPE kp AS COPY INTO logs FROM (
    SELECT PARSE_JSON(value::STRING)['id']::BIGINT
    FROM READ_KAFKA('{address}', 'orders', '', 'g', '', '', '', '', 'raw', 'raw', 0, map()))""")

    job = kh.wait_until(lambda: (lambda j: j if "Connection refused" in j["OtherMsg"] else None)(kh.show_job(conn, "rl")),
                        8, "the routine load's OtherMsg to say the connection is refused")
    elapsed = time.monotonic() - t0

    def pipe_error():
        with conn.cursor() as cur:
            cur.execute("SHOW PIPES LIKE 'kp'")
            row = cur.fetchone()
        return row[7] if row and "Connection refused" in (row[7] or "") else None
    pipe_msg = kh.wait_until(pipe_error, 8, "the pipe's last_error to say the connection is refused")
    c = Collector()
    c.check(elapsed < 8, f"reported after {elapsed:.1f} s")
    c.contains(job["OtherMsg"], address, "OtherMsg names the broker")
    c.contains(job["OtherMsg"], "retrying", "OtherMsg says the job retries")
    c.check("[thrd:" not in job["OtherMsg"], f"no librdkafka thread names: {job['OtherMsg']}")
    c.eq(job["State"], "NEED_SCHEDULE", "the job waits for its brokers")
    c.contains(pipe_msg, address, "last_error names the broker")
    c.done()


def pipe_row(conn, name: str) -> dict:
    with conn.cursor() as cur:
        cur.execute(f"SHOW PIPES LIKE '{name}'")
        cols = [d[0] for d in cur.description]
        return dict(zip(cols, cur.fetchone()))


@suite.test(timeout=150)
def test_a_running_pipe_reports_a_broker_outage(s):
    """A pipe that was loading says so in last_error within seconds when its broker goes away, keeps RUNNING, loads
    what was produced meanwhile exactly once when the broker is back, and clears last_error."""
    b = kh.adopt_broker(kh.TestBroker({"logs": 2}).start())
    srv = s.server().start()
    conn = srv.connect()
    for sql in ["CREATE DATABASE d", "USE d", "CREATE TABLE logs (id bigint)"]:
        kh.query(conn, sql)
    for p in range(2):
        kh.produce(b.bootstrap, "logs", p, [f'{{"id": {p * 1000 + i}}}' for i in range(100)])
    kh.query(conn, f"""CREATE PIPE kp BATCH_INTERVAL_IN_SECONDS = '1' RESET_KAFKA_GROUP_OFFSETS = 'earliest'
AS COPY INTO logs FROM (SELECT PARSE_JSON(value::STRING)['id']::BIGINT
    FROM READ_KAFKA('{b.bootstrap}', 'logs', '', 'g', '', '', '', '', 'raw', 'raw', 0, map()))""")
    kh.wait_rows(conn, "logs", 200, 60)
    b.command("broker down 1")
    t0 = time.monotonic()
    row = kh.wait_until(lambda: (lambda r: r if r["last_error"] else None)(pipe_row(conn, "kp")), 25,
                        "the pipe's last_error to tell about the broker outage")
    elapsed = time.monotonic() - t0
    c = Collector()
    c.check(elapsed < 25, f"reported after {elapsed:.1f} s")
    c.eq(row["status"], "RUNNING", "the pipe keeps retrying")
    c.contains(row["last_error"], "Connection refused", "last_error says why")
    c.contains(row["last_error"], b.bootstrap.split(",")[0], "last_error names the broker")
    b.command("broker up 1")
    for p in range(2):
        kh.produce(b.bootstrap, "logs", p, [f'{{"id": {p * 1000 + i}}}' for i in range(100, 150)])
    kh.wait_rows(conn, "logs", 300, 90)
    time.sleep(2)
    c.eq(kh.scalar(conn, "SELECT count(DISTINCT id) FROM logs"), 300, "every message once")
    c.eq(kh.scalar(conn, "SELECT count(*) FROM logs"), 300, "no message twice")
    kh.wait_until(lambda: not pipe_row(conn, "kp")["last_error"], 30, "last_error to clear once loading again")
    c.done()


if __name__ == "__main__":
    sys.exit(kh.run_suite(suite))
