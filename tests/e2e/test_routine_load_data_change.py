#!/usr/bin/python3
"""Loads that change data end to end (shared/reference/routine-load.md "Data change"), on the test broker.

- the reference's aggregate example (`price double SUM` keyed by commodity/customer/country/pay_time/pay_dt) with
  keys repeated across messages, batches and partitions: the table holds one row per key with the right sum;
- an upsert/delete stream on a PRIMARY KEY table (`COLUMNS (id, v, tmp, __op = tmp)`), small batches so that a key
  changes several times within one batch and across batches: the table ends in the rows a sequential replay of
  each partition gives;
- exactly once with upserts and deletes: the crash test of test_routine_load_exactly_once.py (SIGKILL at random
  moments while the job is behind, restart on the same data directory) against a PRIMARY KEY table; it ends in
  exactly the state the sequential replay gives, and the state a second, uninterrupted job over the same topic
  reaches.

    /usr/bin/python3 tests/e2e/test_routine_load_data_change.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import datetime
import json
import os
import random
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import TestSuite, check, eq  # noqa: E402

suite = TestSuite("test_routine_load_data_change")

LOAD_TIMEOUT = 90.0


broker = kh.shared_broker


def wait_caught_up(conn, job: str, per_partition: dict[int, int], timeout: float = LOAD_TIMEOUT) -> dict:
    """Until Progress shows every message of every partition committed."""
    want = {str(p): str(n - 1) for p, n in per_partition.items()}
    holder = {}

    def probe():
        j = kh.show_job(conn, job)
        holder["job"] = j
        return j if j["Progress"] == want else None

    try:
        return kh.wait_until(probe, timeout, f"job {job} to commit {want}")
    except AssertionError as e:
        raise AssertionError(f"{e}\n  job: {kh.describe_job(holder.get('job', {}))}") from None


def replay(messages_by_partition: dict[int, list[tuple[int, int, int]]]) -> dict[int, int]:
    """The table a sequential replay gives: (id, v, op) per partition in order; op 1 deletes."""
    rows: dict[int, int] = {}
    for msgs in messages_by_partition.values():
        for k, v, op in msgs:
            if op == 1:
                rows.pop(k, None)
            else:
                rows[k] = v
    return rows


def table_rows(conn, table: str) -> dict[int, int]:
    return {int(k): int(v) for k, v in kh.query(conn, f"SELECT id, v FROM {table}")}


def compare_state(actual: dict[int, int], expected: dict[int, int], what: str):
    if actual == expected:
        return
    missing = sorted(set(expected) - set(actual))[:10]
    extra = sorted(set(actual) - set(expected))[:10]
    wrong = [(k, actual[k], expected[k]) for k in sorted(set(actual) & set(expected)) if actual[k] != expected[k]][:10]
    raise AssertionError(f"{what}: {len(actual)} rows, expected {len(expected)}; missing ids {missing}, "
                         f"unexpected ids {extra}, wrong values (id, got, expected) {wrong}")


@suite.test(timeout=150)
def test_aggregate_example_sums(s):
    topic = "ordertest_agg"
    broker().command(f"create {topic} 3")
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE example_db")
    kh.query(conn, "USE example_db")
    kh.query(conn, """CREATE TABLE example_db.example_tbl2 (
    `commodity_id` varchar(26) NULL COMMENT "",
    `customer_name` varchar(26) NULL COMMENT "",
    `country` varchar(26) NULL COMMENT "",
    `pay_time` bigint(20) NULL COMMENT "",
    `pay_dt` date NULL COMMENT "",
    `price` double SUM NULL COMMENT ""
) AGGREGATE KEY(`commodity_id`,`customer_name`,`country`,`pay_time`,`pay_dt`)
DISTRIBUTED BY HASH(`commodity_id`)""")
    rng = random.Random(7)
    customers = ["Ann", "Bob", "Cid", "Dee"]
    countries = ["France", "Italia", "中国"]
    base = 1589191487
    sums: dict[tuple, float] = {}
    messages: dict[int, list[str]] = {p: [] for p in range(3)}
    for i in range(600):
        commodity = str(rng.randrange(1, 6))
        customer = rng.choice(customers)
        country = rng.choice(countries)
        pay_time = base + 86400 * rng.randrange(0, 2)
        price = rng.randrange(1, 2000) / 4  # exact in binary, so the sums are exact
        key = (commodity, customer, country, pay_time,
               datetime.datetime.fromtimestamp(pay_time, datetime.timezone.utc).date())
        sums[key] = sums.get(key, 0.0) + price
        messages[rng.randrange(3)].append(json.dumps({"commodity_id": commodity, "customer_name": customer,
                                                      "country": country, "pay_time": pay_time, "price": price}))
    for p, msgs in messages.items():
        kh.produce(broker().bootstrap, topic, p, msgs)
    kh.query(conn, f"""CREATE ROUTINE LOAD example_db.example_tbl2_ordertest2 ON example_tbl2
COLUMNS(commodity_id, customer_name, country, pay_time, price, pay_dt=from_unixtime(pay_time, '%Y%m%d'))
PROPERTIES
(
    "desired_concurrent_number"="3",
    "max_batch_interval" = "0.5",
    "max_batch_rows" = "50",
    "format" ="json",
    "jsonpaths" ="[\\"$.commodity_id\\",\\"$.customer_name\\",\\"$.country\\",\\"$.pay_time\\",\\"$.price\\"]"
 )
FROM KAFKA
(
    "kafka_broker_list" ="{broker().bootstrap}",
    "kafka_topic" = "{topic}",
    "property.kafka_default_offsets" = "OFFSET_BEGINNING"
)""")
    job = wait_caught_up(conn, "example_tbl2_ordertest2", {p: len(m) for p, m in messages.items()})
    eq(job["Statistic"]["loadedRows"], 600, "Statistic.loadedRows counts every message")
    eq(job["Statistic"]["errorRows"], 0, "errorRows")
    actual = {tuple(r[:5]): r[5] for r in kh.query(
        conn, "SELECT commodity_id, customer_name, country, pay_time, pay_dt, price FROM example_tbl2")}
    eq(len(actual), len(sums), "one row per key")
    for key, total in sorted(sums.items()):
        eq(actual.get(key), total, f"sum of price for {key}")
    check(len(sums) < 600, "keys repeat, so rows were combined")


@suite.test(timeout=150)
def test_upsert_delete_stream_on_a_primary_key_table(s):
    topic = "pk_stream"
    broker().command(f"create {topic} 2")
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE t (id bigint NOT NULL, v bigint, note varchar(10) DEFAULT 'new') PRIMARY KEY(id)")
    rng = random.Random(11)
    msgs: dict[int, list[tuple[int, int, int]]] = {0: [], 1: []}
    for seq in range(3000):
        k = rng.randrange(0, 150)
        op = 1 if rng.random() < 0.25 else 0
        msgs[k % 2].append((k, seq, op))
    for p in range(2):
        # the op in the words users write, and numbers
        kh.produce(broker().bootstrap, topic, p,
                   [f"{k},{v},{['upsert', 'delete'][op] if v % 3 else op}" for k, v, op in msgs[p]])
    kh.query(conn, f"""CREATE ROUTINE LOAD d.pk_job ON t COLUMNS TERMINATED BY ",", COLUMNS (id, v, tmp, __op = tmp)
PROPERTIES ("desired_concurrent_number" = "2", "max_batch_rows" = "100", "max_batch_interval" = "0.2")
FROM KAFKA ("kafka_broker_list" = "{broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    job = wait_caught_up(conn, "pk_job", {p: len(m) for p, m in msgs.items()})
    eq(job["Statistic"]["errorRows"], 0, "errorRows")
    eq(job["Statistic"]["totalRows"], 3000, "totalRows")
    expected = replay(msgs)
    compare_state(table_rows(conn, "t"), expected, "table t")
    eq(kh.scalar(conn, "SELECT count(*) FROM t WHERE note = 'new'"), len(expected), "unloaded columns get defaults")
    check(0 < len(expected) < 150, f"deletes removed some keys ({len(expected)} of 150 left)")


PARTITIONS = 4
PER_PARTITION = 10_000
ROUNDS = 10
KEYS = 2000
MIN_KILLS = 4


@suite.test(timeout=300)
def test_sigkill_with_upserts_and_deletes_ends_like_a_clean_run(s):
    seed = int(os.environ.get("SLUICE_TEST_SEED", str(int(time.time()))))
    rng = random.Random(seed)
    print(f"  seed {seed} (set SLUICE_TEST_SEED to repeat)", flush=True)
    topic = "pk_crash"
    broker().command(f"create {topic} {PARTITIONS}")
    # key k always goes to partition k % PARTITIONS, so each key's history is in one partition's order
    msgs: dict[int, list[tuple[int, int, int]]] = {p: [] for p in range(PARTITIONS)}
    seq = 0
    while any(len(m) < PER_PARTITION for m in msgs.values()):
        k = rng.randrange(KEYS)
        p = k % PARTITIONS
        if len(msgs[p]) < PER_PARTITION:
            msgs[p].append((k, seq, 1 if rng.random() < 0.2 else 0))
            seq += 1
    expected = replay(msgs)

    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE t (id bigint NOT NULL, v bigint) PRIMARY KEY(id)")
    chunk = PER_PARTITION // ROUNDS
    produced = {"rounds": 0, "error": None}

    def produce_round(r):
        for p in range(PARTITIONS):
            kh.produce(broker().bootstrap, topic, p,
                       [f"{k},{v},{op}" for k, v, op in msgs[p][r * chunk:(r + 1) * chunk]])

    produce_round(0)
    produced["rounds"] = 1
    kh.query(conn, f"""CREATE ROUTINE LOAD d.crash_job ON t COLUMNS TERMINATED BY ",", COLUMNS (id, v, tmp, __op = tmp)
PROPERTIES ("desired_concurrent_number" = "4", "max_batch_rows" = "1000", "max_batch_interval" = "0.2")
FROM KAFKA ("kafka_broker_list" = "{broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    kh.wait_state(conn, "crash_job", "RUNNING", 60)

    def producer():
        try:
            for r in range(1, ROUNDS):
                time.sleep(rng.uniform(0.3, 1.0))
                produce_round(r)
                produced["rounds"] = r + 1
        except Exception as e:  # noqa: BLE001
            produced["error"] = e

    prod = threading.Thread(target=producer, daemon=True)
    prod.start()

    def committed(c) -> int:
        progress = kh.show_job(c, "crash_job")["Progress"]
        return sum(int(v) + 1 for v in progress.values() if v.lstrip("-").isdigit())

    total = PARTITIONS * PER_PARTITION
    kills, behind_kills, history = 0, 0, []
    deadline = time.monotonic() + 150
    # Kill at random moments, preferably while the job is behind, until MIN_KILLS such kills happened and the
    # producer is done — or, on a machine fast enough to never fall behind again, until everything is loaded.
    before = 0
    while produced["rounds"] < ROUNDS or (behind_kills < MIN_KILLS and before < total):
        check(time.monotonic() < deadline, f"kill loop did not finish; history {history}")
        time.sleep(rng.uniform(0.05, 0.8))
        wait_behind = time.monotonic() + 3.0
        while True:  # a round was just produced or is about to be: catch the job behind it
            before = committed(conn)
            behind = before < produced["rounds"] * chunk * PARTITIONS
            if behind or time.monotonic() > wait_behind or before >= total:
                break
            time.sleep(0.02)
        if not behind and behind_kills >= MIN_KILLS:
            continue
        srv.restart(signal.SIGKILL)
        kills += 1
        behind_kills += behind
        conn = srv.connect()
        kh.query(conn, "USE d")
        after = committed(conn)
        history.append((before, after, "behind" if behind else "idle"))
        check(after >= before, f"kill {kills}: progress went back from {before} to {after}")
        kh.wait_state(conn, "crash_job", "RUNNING", 60)
    print(f"  {kills} kills, {behind_kills} while behind (committed before, after): {history}", flush=True)
    check(behind_kills >= 1 and kills >= MIN_KILLS, f"too few kills mid-load: {history}")
    prod.join(60)
    check(not prod.is_alive(), "the producer did not finish")
    if produced["error"] is not None:
        raise produced["error"]

    per_partition = {p: PER_PARTITION for p in range(PARTITIONS)}
    job = wait_caught_up(conn, "crash_job", per_partition, 120)
    eq(job["Statistic"]["totalRows"], PARTITIONS * PER_PARTITION, "Statistic.totalRows (committed with the rows)")
    eq(job["Statistic"]["errorRows"], 0, "errorRows")
    compare_state(table_rows(conn, "t"), expected, "after the crashes, table t vs the sequential replay")

    # a second job over the same topic, never interrupted, reaches the same table
    kh.query(conn, "CREATE TABLE t_clean (id bigint NOT NULL, v bigint) PRIMARY KEY(id)")
    kh.query(conn, f"""CREATE ROUTINE LOAD d.clean_job ON t_clean COLUMNS TERMINATED BY ",",
COLUMNS (id, v, tmp, __op = tmp)
PROPERTIES ("desired_concurrent_number" = "4", "max_batch_rows" = "1000", "max_batch_interval" = "0.2")
FROM KAFKA ("kafka_broker_list" = "{broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    wait_caught_up(conn, "clean_job", per_partition, 120)
    compare_state(table_rows(conn, "t"), table_rows(conn, "t_clean"), "table t vs the clean run's t_clean")
    eq(kh.scalar(conn, "SELECT count(*) FROM (SELECT * FROM t EXCEPT SELECT * FROM t_clean)"), 0, "t EXCEPT t_clean")


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
