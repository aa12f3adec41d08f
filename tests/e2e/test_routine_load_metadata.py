#!/usr/bin/python3
"""INCLUDE METADATA end to end (shared/reference/routine-load.md "INCLUDE METADATA"), on the test broker.

The `orders_with_meta` example: JSON orders whose order_id comes from the payload, while the topic, partition,
offset, message time (from TIMESTAMP_MS) and the `trace-id` header go into their own columns, plus the key. Messages
are produced one kcat call each, with and without a key, with no headers, another header only, and a repeated
`trace-id` (the last one wins). What the broker stored (offset and timestamp of each message) is read back with
kcat, and every loaded row is checked against it. A second job with strip_outer_array checks that every row of a
message gets that message's metadata, that metadata works in WHERE, and that a key or header that is not UTF-8
loads with U+FFFD in place of the bad bytes.

    /usr/bin/python3 tests/e2e/test_routine_load_metadata.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import TestSuite, check, eq  # noqa: E402

suite = TestSuite("test_routine_load_metadata")

LOAD_TIMEOUT = 60.0


broker = kh.shared_broker


def produce_one(topic: str, partition: int, payload: str, key: str | bytes | None,
                headers: list[tuple[str, str | bytes]]):
    """One message with kcat; keys and header values may be bytes (not UTF-8)."""
    cmd = [b"kcat", b"-P", b"-b", broker().bootstrap.encode(), b"-t", topic.encode(), b"-p", str(partition).encode()]
    if key is not None:
        cmd += [b"-k", key if isinstance(key, bytes) else key.encode()]
    for name, value in headers:
        cmd += [b"-H", name.encode() + b"=" + (value if isinstance(value, bytes) else value.encode())]
    r = subprocess.run(cmd, input=payload.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    if r.returncode != 0:
        raise kh.BrokerError(f"kcat failed: {r.stderr.decode('utf-8', 'replace')[-1000:]}")


def stored_messages(topic: str, partition: int, count: int) -> list[tuple[int, int, str]]:
    """(offset, timestamp_ms, payload) of the first `count` messages of a partition, as the broker keeps them."""
    r = subprocess.run(["kcat", "-C", "-b", broker().bootstrap, "-t", topic, "-p", str(partition), "-o", "beginning",
                        "-c", str(count), "-e", "-f", "%o %T %s\\n"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    if r.returncode != 0:
        raise kh.BrokerError(f"kcat -C failed: {r.stderr.decode('utf-8', 'replace')[-1000:]}")
    out = []
    for line in r.stdout.decode().splitlines():
        offset, ts, payload = line.split(" ", 2)
        out.append((int(offset), int(ts), payload))
    eq(len(out), count, f"messages read back from {topic}/{partition}")
    return out


def utc_seconds(ts_ms: int) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(ts_ms // 1000, datetime.timezone.utc).replace(tzinfo=None)


@suite.test(timeout=150)
def test_orders_with_meta_example(s):
    topic = "orders_meta"
    broker().command(f"create {topic} 2")
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, """CREATE TABLE orders_with_meta (
    order_id bigint NOT NULL, price double, src_topic varchar(64), src_partition int, src_offset bigint,
    msg_time datetime, trace_id varchar(64), msg_key varchar(64)) DUPLICATE KEY(order_id)""")

    # (partition, order_id, key, headers, trace-id expected in the table)
    plan = []
    for i in range(12):
        p = i % 2
        key = None if i % 3 == 0 else f"customer-{i % 4}"
        if i % 4 == 0:
            headers, trace = [], None
        elif i % 4 == 1:
            headers, trace = [("trace-id", f"t-{i}"), ("source", "web")], f"t-{i}"
        elif i % 4 == 2:
            headers, trace = [("trace-id", f"first-{i}"), ("x", "y"), ("trace-id", f"last-{i}")], f"last-{i}"
        else:
            headers, trace = [("other", "no-trace")], None
        plan.append((p, 100 + i, key, headers, trace))
    for p, order_id, key, headers, _ in plan:
        produce_one(topic, p, json.dumps({"order_id": order_id, "price": order_id / 2}), key, headers)
    # a malformed message is an error row and does not disturb the others
    produce_one(topic, 1, '{"order_id": ', "bad", [("trace-id", "bad")])

    kh.query(conn, f"""CREATE ROUTINE LOAD d.orders_meta ON orders_with_meta
COLUMNS (order_id, price, src_topic = m_topic, src_partition = m_partition, src_offset = offset,
         msg_time = from_unixtime(m_timestamp / 1000), trace_id = element_at(m_headers, 'trace-id'), msg_key = m_key),
INCLUDE METADATA (TOPIC AS m_topic, PARTITION AS m_partition, OFFSET, TIMESTAMP_MS AS m_timestamp, KEY AS m_key,
                  HEADERS AS m_headers)
PROPERTIES ("format" = "json", "max_batch_interval" = "0.5", "max_error_number" = "5")
FROM KAFKA ("kafka_broker_list" = "{broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    kh.wait_rows(conn, "orders_with_meta", len(plan), LOAD_TIMEOUT, job="orders_meta")

    stored = {}
    for p in range(2):
        n = sum(1 for x in plan if x[0] == p) + (1 if p == 1 else 0)
        for offset, ts, payload in stored_messages(topic, p, n):
            stored[(p, offset)] = (ts, payload)
    expected = []
    next_offset = {0: 0, 1: 0}
    for p, order_id, key, headers, trace in plan:
        offset = next_offset[p]
        next_offset[p] += 1
        ts, payload = stored[(p, offset)]
        eq(json.loads(payload)["order_id"], order_id, f"message at {p}/{offset}")
        check(ts > 0, f"the broker kept a timestamp for {p}/{offset}")
        expected.append((order_id, order_id / 2, topic, p, offset, utc_seconds(ts), trace, key))
    actual = [tuple(r) for r in kh.query(conn, "SELECT order_id, price, src_topic, src_partition, src_offset, msg_time, "
                                               "trace_id, msg_key FROM orders_with_meta ORDER BY order_id")]
    for a, e in zip(actual, expected):
        eq(a, e, f"row of order {e[0]}")
    eq(len(actual), len(expected), "rows loaded")

    def caught_up():
        j = kh.show_job(conn, "orders_meta")
        return j if j["Statistic"].get("totalRows") == len(plan) + 1 else None

    job = kh.wait_until(caught_up, LOAD_TIMEOUT, "the malformed message counted")
    eq(job["Statistic"]["errorRows"], 1, "errorRows (the malformed message)")
    eq(job["State"], "RUNNING", "State")
    create = kh.query(conn, "SHOW CREATE ROUTINE LOAD d.orders_meta")[0][1]
    check("INCLUDE METADATA (TOPIC AS `m_topic`, PARTITION AS `m_partition`, OFFSET, TIMESTAMP_MS AS `m_timestamp`, "
          "KEY AS `m_key`, HEADERS AS `m_headers`)" in create, f"SHOW CREATE prints the clause: {create}")


@suite.test(timeout=120)
def test_every_row_of_a_message_gets_its_metadata(s):
    topic = "meta_arrays"
    broker().command(f"create {topic} 1")
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE items (id int, msg_offset bigint, msg_key varchar(20), tenant varchar(20))")
    produce_one(topic, 0, json.dumps([{"id": 1}, {"id": 2}, {"id": 3}]), "k0", [("tenant", "acme")])
    produce_one(topic, 0, json.dumps([{"id": 4}]), "k1", [("tenant", "skip-me")])
    produce_one(topic, 0, json.dumps([{"id": 5}, {"id": 6}]), None, [("tenant", "globex"), ("tenant", "initech")])
    # bytes that are not UTF-8 become U+FFFD; the row loads
    produce_one(topic, 0, json.dumps([{"id": 7}]), b"k\xff", [("tenant", b"t\xfe\xfex")])
    kh.query(conn, f"""CREATE ROUTINE LOAD d.items_job ON items
COLUMNS (id, msg_offset = o, msg_key = k, tenant = element_at(h, 'tenant')),
INCLUDE METADATA (OFFSET AS o, KEY AS k, HEADERS AS h),
WHERE element_at(h, 'tenant') <> 'skip-me'
PROPERTIES ("format" = "json", "strip_outer_array" = "true", "max_batch_interval" = "0.5")
FROM KAFKA ("kafka_broker_list" = "{broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    kh.wait_rows(conn, "items", 6, LOAD_TIMEOUT, job="items_job")
    actual = [tuple(r) for r in kh.query(conn, "SELECT id, msg_offset, msg_key, tenant FROM items ORDER BY id")]
    eq(actual, [(1, 0, "k0", "acme"), (2, 0, "k0", "acme"), (3, 0, "k0", "acme"),
                (5, 2, None, "initech"), (6, 2, None, "initech"), (7, 3, "k\ufffd", "t\ufffd\ufffdx")], "items")
    job = kh.wait_until(lambda: (lambda j: j if j["Statistic"].get("totalRows") == 7 else None)(
        kh.show_job(conn, "items_job")), LOAD_TIMEOUT, "all rows counted")
    eq(job["Statistic"]["unselectedRows"], 1, "unselectedRows (WHERE on a header)")


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
