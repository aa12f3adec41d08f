#!/usr/bin/python3
"""Kafka pipes (Lakehouse CREATE PIPE ... READ_KAFKA) on the test broker, through the routine load engine.

1. The JSON log pipe of the reference: {"time", "level", "message"} messages on two partitions loaded into
   kafka_logs(log_time TIMESTAMP, level STRING, message STRING) with PARSE_JSON expressions and a WHERE, checked row
   by row; DROP PIPE, more messages, CREATE PIPE with the same group id: it resumes, nothing is loaded twice; a new
   group with RESET_KAFKA_GROUP_OFFSETS = 'latest' loads only what comes after it.
2. max errors (READ_KAFKA argument 11): within it, bad rows are recorded and skipped; beyond it the batch is not
   committed, and after MAX_SKIP_BATCH_COUNT_ON_ERROR batches the pipe is FAILED with the reason; SHOW PIPES says so.
3. SIGKILL during loads: every message is in the table exactly once after restarts.

    /usr/bin/python3 tests/e2e/test_kafka_pipes.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check, eq  # noqa: E402

suite = TestSuite("test_kafka_pipes")
state: dict = {}
LEVELS = ["info", "warn", "error", "debug"]


def broker():
    if "broker" not in state:
        state["broker"] = kh.TestBroker({"logs": 2, "bad": 1, "crash": 2, "vc": 2}).start()
    return state["broker"]


def log_message(p: int, i: int) -> dict:
    return {"time": f"2024-05-01 10:{(i // 60) % 60:02d}:{i % 60:02d}", "level": LEVELS[i % 4],
            "message": f"m-{p}-{i}"}


def produce_logs(b, topic: str, p: int, lo: int, hi: int):
    kh.produce(b.bootstrap, topic, p, [json.dumps(log_message(p, i)) for i in range(lo, hi)])


def pipe_rows(conn, like: str = "%") -> list[dict]:
    with conn.cursor() as cur:
        cur.execute(f"SHOW PIPES LIKE '{like}'")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]


def desc_pipe(conn, name: str, extended: bool = False) -> dict:
    rows = kh.query(conn, f"DESC PIPE {'EXTENDED ' if extended else ''}{name}")
    return {k: v for k, v in rows}


def wait_status(conn, name: str, status: str, timeout: float = 60.0) -> dict:
    return kh.wait_until(lambda: next((r for r in pipe_rows(conn, name) if r["status"] == status), None), timeout,
                         f"pipe {name} to be {status} (now {pipe_rows(conn, name)})")


def create_log_pipe(conn, bootstrap: str, group: str, extra: str = "", name: str = "logs_pipe"):
    kh.query(conn, f"""CREATE PIPE {name} VIRTUAL_CLUSTER = 'default' BATCH_INTERVAL_IN_SECONDS = '1' {extra}
AS COPY INTO kafka_logs FROM (
    SELECT CAST(PARSE_JSON(value::STRING)['time'] AS TIMESTAMP),
           PARSE_JSON(value::STRING)['level']::STRING,
           PARSE_JSON(value::STRING)['message']::STRING
    FROM READ_KAFKA('{bootstrap}', 'logs', '', '{group}', '', '', '', '', 'raw', 'raw', 0, map())
    WHERE PARSE_JSON(value::STRING)['level']::STRING <> 'debug'
)""")


def expected_logs(ranges) -> list[tuple]:
    out = []
    for p, lo, hi in ranges:
        for i in range(lo, hi):
            m = log_message(p, i)
            if m["level"] != "debug":
                out.append((m["time"], m["level"], m["message"]))
    return sorted(out, key=lambda r: r[2])


def table_logs(conn) -> list[tuple]:
    rows = kh.query(conn, "SELECT strftime(log_time, '%Y-%m-%d %H:%M:%S'), level, message FROM kafka_logs "
                          "ORDER BY message")
    return [tuple(r) for r in rows]


@suite.test(timeout=180)
def test_json_log_pipe_resumes_by_group(s):
    b = broker()
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE lake")
    kh.query(conn, "USE lake")
    kh.query(conn, "CREATE TABLE kafka_logs (log_time TIMESTAMP, level STRING, message STRING)")
    for p in range(2):
        produce_logs(b, "logs", p, 0, 300)
    create_log_pipe(conn, b.bootstrap, "log_group", "RESET_KAFKA_GROUP_OFFSETS = 'earliest'")
    first = expected_logs([(0, 0, 300), (1, 0, 300)])
    kh.wait_rows(conn, "kafka_logs", len(first), 60)
    c = Collector()
    c.eq(table_logs(conn), first, "rows of the first 600 messages (debug ones filtered)")
    pipe = pipe_rows(conn, "logs_pipe")[0]
    c.eq((pipe["status"], pipe["pipe_kind"], pipe["virtual_cluster"]), ("RUNNING", "READ_KAFKA", "default"), "SHOW PIPES")
    lat = kh.wait_until(lambda: (lambda d: d if d["kafka"]["offsetLag"] == 0 and d["kafka"]["timeLag"] >= 0 else None)(
        json.loads(desc_pipe(conn, "logs_pipe")["pipe_latency"])), 30, "offsetLag 0")
    c.eq(lat["kafka"]["lags"], {"0": 0, "1": 0}, "per-partition lags")
    ext = desc_pipe(conn, "logs_pipe", extended=True)
    c.eq(int(ext["loaded_rows"]), len(first), "DESC PIPE EXTENDED loaded_rows")
    c.eq(int(ext["filtered_rows"]), 600 - len(first), "DESC PIPE EXTENDED filtered_rows (WHERE)")
    c.eq(json.loads(ext["next_offsets"]), {"0": 300, "1": 300}, "next offsets")
    # load_history: one row per committed batch, whose offset ranges cover each partition once, without gaps
    hist = kh.query(conn, "SELECT job_name, job_kind, source, loaded_rows, error_rows, filtered_rows, first_error, "
                          "status, start_time <= end_time FROM load_history('lake.kafka_logs')")
    c.check(len(hist) >= 1, "load_history has rows")
    c.eq({(h[0], h[1], h[4], h[6], h[7], h[8]) for h in hist}, {("logs_pipe", "PIPE", 0, None, "LOADED", True)},
         "load_history rows: name, kind, no errors, LOADED")
    c.eq(sum(h[3] for h in hist), len(first), "load_history loaded_rows add up")
    c.eq(sum(h[5] for h in hist), 600 - len(first), "load_history filtered_rows add up")
    covered = {0: [], 1: []}
    for h in hist:
        check(h[2].startswith("kafka://logs/"), f"source {h[2]}")
        for part in h[2][len("kafka://logs/"):].split("),"):
            p, rng = part.split(":")
            lo, hi = rng.strip("[)").split(",")
            covered[int(p)].append((int(lo), int(hi)))
    for p in (0, 1):
        spans = sorted(covered[p])
        c.check(spans[0][0] == 0 and spans[-1][1] == 300 and all(a[1] == b[0] for a, b in zip(spans, spans[1:])),
                f"partition {p} ranges {spans}")
    c.eq(kh.query(conn, "SELECT count(*) FROM load_history('kafka_logs')"), [(len(hist),)], "load_history('table')")
    c.done()

    # DROP PIPE keeps the data and the group's progress; CREATE PIPE with the same group resumes
    kh.query(conn, "DROP PIPE logs_pipe")
    eq(pipe_rows(conn), [], "SHOW PIPES after DROP PIPE")
    for p in range(2):
        produce_logs(b, "logs", p, 300, 450)
    time.sleep(1.5)
    eq(kh.scalar(conn, "SELECT count(*) FROM kafka_logs"), len(first), "rows while no pipe exists")
    create_log_pipe(conn, b.bootstrap, "log_group")
    second = expected_logs([(0, 0, 450), (1, 0, 450)])
    kh.wait_rows(conn, "kafka_logs", len(second), 60)
    time.sleep(2.0)  # a pipe that re-read old messages would add them now
    eq(table_logs(conn), second, "rows after the pipe was recreated with the same group (no duplicates)")

    # a routine load over the same topic writes to load_history too
    kh.query(conn, "CREATE TABLE rl_logs (level STRING, message STRING)")
    kh.query(conn, f"""CREATE ROUTINE LOAD lake.rl ON rl_logs COLUMNS (level, message)
PROPERTIES ("format" = "json", "max_batch_interval" = "1")
FROM KAFKA ("kafka_broker_list" = "{b.bootstrap}", "kafka_topic" = "logs", "kafka_partitions" = "0",
            "kafka_offsets" = "OFFSET_BEGINNING")""")
    kh.wait_rows(conn, "rl_logs", 450, 60)
    eq(kh.query(conn, "SELECT DISTINCT job_name, job_kind, status FROM load_history('lake.rl_logs')"),
       [("rl", "ROUTINE_LOAD", "LOADED")], "load_history of a routine load")
    eq(kh.scalar(conn, "SELECT sum(loaded_rows) FROM load_history('lake.rl_logs')"), 450, "routine load rows")
    kh.query(conn, "STOP ROUTINE LOAD FOR rl")

    # another group starting at 'latest' loads only what is produced after it
    kh.query(conn, "CREATE TABLE later_logs (log_time TIMESTAMP, level STRING, message STRING)")
    kh.query(conn, f"""CREATE PIPE later_pipe BATCH_INTERVAL_IN_SECONDS = '1' RESET_KAFKA_GROUP_OFFSETS = 'latest'
AS COPY INTO later_logs FROM (SELECT CAST(PARSE_JSON(value::STRING)['time'] AS TIMESTAMP) AS log_time,
    PARSE_JSON(value::STRING)['message']::STRING AS message
    FROM READ_KAFKA('{b.bootstrap}', 'logs', '', 'later_group', '', '', '', '', 'raw', 'raw', 0, map()))""")
    kh.wait_until(lambda: json.loads(desc_pipe(conn, "later_pipe", True)["next_offsets"]) == {"0": 450, "1": 450}, 30,
                  "later_pipe to start at the end")
    produce_logs(b, "logs", 1, 450, 460)
    kh.wait_rows(conn, "later_logs", 10, 30)
    eq(kh.query(conn, "SELECT min(message), max(message), count(level) FROM later_logs")[0], ("m-1-450", "m-1-459", 0),
       "later_pipe loaded only the new messages, into the columns its aliases name")


@suite.test(timeout=120)
def test_max_errors_and_failed(s):
    b = broker()
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE lake")
    kh.query(conn, "USE lake")
    msgs = [json.dumps(log_message(0, i)) for i in range(10)]
    msgs[3] = "not json at all"
    msgs[7] = '{"level": "info", "message": "no time"}'
    kh.produce(b.bootstrap, "bad", 0, msgs)
    for t in ("tolerant", "strict"):
        kh.query(conn, f"CREATE TABLE {t} (log_time TIMESTAMP NOT NULL, message STRING)")

    def create(name, table, group, max_errors, extra=""):
        kh.query(conn, f"""CREATE PIPE {name} BATCH_INTERVAL_IN_SECONDS = '1' RESET_KAFKA_GROUP_OFFSETS = 'earliest' {extra}
AS COPY INTO {table} FROM (SELECT CAST(PARSE_JSON(value::STRING)['time'] AS TIMESTAMP), PARSE_JSON(value::STRING)['message']::STRING
    FROM READ_KAFKA('{b.bootstrap}', 'bad', '', '{group}', '', '', '', '', 'raw', 'raw', {max_errors}, map()))""")

    create("tolerant_pipe", "tolerant", "g_tolerant", 2)
    create("strict_pipe", "strict", "g_strict", 1, "MAX_SKIP_BATCH_COUNT_ON_ERROR = '2'")
    kh.wait_rows(conn, "tolerant", 8, 30)
    c = Collector()
    c.eq([r[0] for r in kh.query(conn, "SELECT message FROM tolerant ORDER BY message")],
         [f"m-0-{i}" for i in range(10) if i not in (3, 7)], "good rows of the tolerant pipe")
    ext = kh.wait_until(lambda: (lambda d: d if d["error_rows"] == "2" else None)(desc_pipe(conn, "tolerant_pipe", True)),
                        20, "error_rows 2")
    c.eq(ext["pipe_status"], "RUNNING", "tolerant pipe status")
    rejected = kh.query(conn, "SELECT RawData, Reason FROM __sluice.routine_load_rejected_rows WHERE JobName = "
                              "'tolerant_pipe' ORDER BY \"Offset\"")
    c.eq([r[0] for r in rejected], [msgs[3], msgs[7]], "rejected rows keep the message value")
    c.check(all("log_time" in r[1] for r in rejected), f"reasons name the column: {rejected}")
    hist = kh.query(conn, "SELECT status, loaded_rows, error_rows, first_error FROM load_history('lake.tolerant')")
    c.eq([h[:3] for h in hist], [("PARTIALLY_LOADED", 8, 2)], "load_history of the tolerant pipe")
    c.check(hist and "log_time" in (hist[0][3] or ""), f"first_error: {hist}")

    failed = wait_status(conn, "strict_pipe", "FAILED", 40)
    c.check("above max errors 1 (READ_KAFKA argument 11)" in failed["last_error"] and
            "MAX_SKIP_BATCH_COUNT_ON_ERROR 2" in failed["last_error"], f"last_error: {failed['last_error']}")
    c.eq(kh.scalar(conn, "SELECT count(*) FROM strict"), 0, "nothing of the failing batch is committed")
    failed_hist = kh.query(conn, "SELECT DISTINCT status, loaded_rows, error_rows, source FROM load_history('strict')")
    c.eq(failed_hist, [("FAILED", 0, 2, "kafka://bad/0:[0,10)")], "load_history of the failing batches")
    d = desc_pipe(conn, "strict_pipe")
    c.eq(d["pipe_status"], "FAILED", "DESC PIPE pipe_status")
    c.check("above max errors" in d["invalid_reason"], f"invalid_reason: {d['invalid_reason']}")
    c.eq(json.loads(d["pipe_latency"])["kafka"]["timeLag"], -1, "timeLag while failing")
    # altered, it runs again (and fails again: the data did not change)
    kh.query(conn, "ALTER PIPE strict_pipe SET PIPE_EXECUTION_PAUSED = false")
    c.eq(pipe_rows(conn, "strict_pipe")[0]["status"], "RUNNING", "status after ALTER ... PAUSED = false")
    wait_status(conn, "strict_pipe", "FAILED", 40)
    c.done()


@suite.test(timeout=240)
def test_sigkill_exactly_once(s):
    b = broker()
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE lake")
    kh.query(conn, "USE lake")
    kh.query(conn, "CREATE TABLE events (p INT, seq BIGINT, kafka_offset BIGINT, message STRING)")
    per_round, max_rounds = 4000, 30
    kh.query(conn, f"""CREATE PIPE crash_pipe BATCH_INTERVAL_IN_SECONDS = '1' BATCH_SIZE_PER_KAFKA_PARTITION = '700'
    RESET_KAFKA_GROUP_OFFSETS = 'earliest'
AS COPY INTO events FROM (SELECT partition, PARSE_JSON(value::STRING)['seq']::BIGINT, offset, PARSE_JSON(value::STRING)['message']::STRING
    FROM READ_KAFKA('{b.bootstrap}', 'crash', '', 'crash_group', '', '', '', '', 'raw', 'raw', 0, map()))""")
    produced = {"rounds": 0, "error": None, "stop": False}

    def producer():
        # rounds of messages until the killer has what it needs (or max_rounds)
        try:
            for r in range(max_rounds):
                if produced["stop"]:
                    break
                for p in range(2):
                    kh.produce(b.bootstrap, "crash", p, [json.dumps({"seq": r * per_round + i, "message": f"e-{p}-{r * per_round + i}"})
                                                         for i in range(per_round)])
                produced["rounds"] = r + 1
                time.sleep(0.3)
        except Exception as e:  # noqa: BLE001
            produced["error"] = e

    prod = threading.Thread(target=producer, daemon=True)
    prod.start()
    kills = 0
    deadline = time.monotonic() + 150
    # Kill only while the pipe is behind (rows produced that are not loaded yet), 3 times.
    while kills < 3 and time.monotonic() < deadline and prod.is_alive():
        time.sleep(0.2)
        before = kh.scalar(conn, "SELECT count(*) FROM events")
        if not 0 < before < produced["rounds"] * per_round * 2:
            continue
        srv.restart(signal.SIGKILL)
        kills += 1
        conn = srv.connect()
        kh.query(conn, "USE lake")
        # one query: the pipe goes on loading between two
        after, distinct = kh.query(conn, "SELECT count(*), count(DISTINCT message) FROM events")[0]
        check(after >= before, f"kill {kills}: {before} rows before, {after} after")
        eq(distinct, after, f"kill {kills}: no duplicates")
    produced["stop"] = True
    prod.join(60)
    if produced["error"] is not None:
        raise produced["error"]
    check(kills >= 3, f"only {kills} kills while the pipe was behind ({produced['rounds']} rounds produced)")
    print(f"  {kills} kills while the pipe was behind; {produced['rounds']} rounds produced", flush=True)
    total = produced["rounds"] * per_round * 2
    kh.wait_rows(conn, "events", total, 90)
    c = Collector()
    c.eq(kh.scalar(conn, "SELECT count(DISTINCT message) FROM events"), total, "distinct messages")
    c.eq(kh.query(conn, "SELECT p, count(*), min(kafka_offset), max(kafka_offset), count(DISTINCT seq) FROM events "
                        "GROUP BY p ORDER BY p"),
         [(p, total // 2, 0, total // 2 - 1, total // 2) for p in range(2)], "per partition: rows, offsets, seqs")
    c.eq(kh.scalar(conn, "SELECT count(*) FROM events WHERE message <> concat('e-', p, '-', seq)"), 0,
         "partition and value agree")
    c.eq(pipe_rows(conn, "crash_pipe")[0]["status"], "RUNNING", "status")
    c.eq(int(kh.scalar(conn, "SELECT sum(loaded_rows) FROM load_history('lake.events')")), total,
         "load_history agrees with the table across crashes (written in the batch's transaction)")
    c.check(kh.scalar(conn, "SELECT max(loaded_rows) FROM load_history('lake.events')") <= 700,
            "a batch reads at most BATCH_SIZE_PER_KAFKA_PARTITION messages per partition (one partition per task here)")
    c.done()


@suite.test(timeout=120)
def test_read_kafka_preview(s):
    b = broker()
    srv = s.server().start()
    conn = srv.connect()
    args = lambda start="", end="", ts_start="", ts_end="": (  # noqa: E731
        f"'{b.bootstrap}', 'logs', '', 'preview_group', '{start}', '{end}', '{ts_start}', '{ts_end}', 'raw', 'raw', 0, map()")
    # topic logs holds what the first test produced (or nothing yet): produce a known tail to preview
    before = {p: kh.scalar(conn, f"SELECT count(*) FROM READ_KAFKA({args()}) WHERE partition = {p}") for p in range(2)}
    produce_logs(b, "logs", 0, 1000, 1020)
    c = Collector()
    rows = kh.query(conn, f"""SELECT topic, partition, "offset", timestamp_type, headers, key,
        PARSE_JSON_TEXT FROM (SELECT *, json_extract_string(value, '$.message') AS PARSE_JSON_TEXT
        FROM READ_KAFKA({args(start=f"0:{before[0]}")})) ORDER BY "offset" """)
    c.eq([r[6] for r in rows], [f"m-0-{i}" for i in range(1000, 1020)], "values of partition 0 from an offset")
    c.eq({(r[0], r[1], r[3], r[4], r[5]) for r in rows}, {("logs", 0, "CreateTime", "{}", None)}, "metadata columns")
    c.eq([r[2] for r in rows], list(range(before[0], before[0] + 20)), "offsets")
    # offsets bound the range (the end is exclusive); LIMIT stops early
    c.eq(kh.scalar(conn, f"SELECT count(*) FROM READ_KAFKA({args(start=f'0:{before[0] + 5}', end=f'0:{before[0] + 8}')})"),
         3, "a range of offsets")
    c.eq(kh.scalar(conn, f"SELECT count(*) FROM (SELECT * FROM READ_KAFKA({args()}) LIMIT 4)"), 4, "LIMIT")
    # timestamps: everything from a moment on
    time.sleep(0.05)
    cut = int(time.time() * 1000)
    time.sleep(0.05)
    produce_logs(b, "logs", 1, 2000, 2003)
    c.eq([r[0] for r in kh.query(conn, f"SELECT json_extract_string(value, '$.message') FROM READ_KAFKA({args(ts_start=cut)}) "
                                        "ORDER BY \"offset\"")],
         ["m-1-2000", "m-1-2001", "m-1-2002"], "messages from a timestamp on")
    c.eq(kh.scalar(conn, f"SELECT count(*) FROM READ_KAFKA({args(ts_end=cut)}) WHERE partition = 1"), before[1],
         "messages before a timestamp")
    c.done()


@suite.test(timeout=120)
def test_virtual_cluster_bounds_tasks(s):
    b = broker()
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE lake")
    kh.query(conn, "USE lake")
    kh.query(conn, "CREATE VCLUSTER one_at_a_time VCLUSTER_SIZE = 1")
    per_partition = 6000
    for p in range(2):
        kh.produce(b.bootstrap, "vc", p, [json.dumps({"n": i}) for i in range(per_partition)])
    for name in ("a", "b"):
        kh.query(conn, f"CREATE TABLE vc_{name} (n BIGINT)")
        kh.query(conn, f"""CREATE PIPE vc_pipe_{name} VIRTUAL_CLUSTER = 'one_at_a_time' BATCH_INTERVAL_IN_SECONDS = '1'
    BATCH_SIZE_PER_KAFKA_PARTITION = '100' RESET_KAFKA_GROUP_OFFSETS = 'earliest'
AS COPY INTO vc_{name} FROM (SELECT PARSE_JSON(value::STRING)['n']::BIGINT
    FROM READ_KAFKA('{b.bootstrap}', 'vc', '', 'vc_group_{name}', '', '', '', '', 'raw', 'raw', 0, map()))""")
    seen = []
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        rows = {r[0]: r for r in kh.query(conn, "SHOW VCLUSTERS")}
        seen.append(rows["one_at_a_time"][2])
        if kh.scalar(conn, "SELECT (SELECT count(*) FROM vc_a) + (SELECT count(*) FROM vc_b)") == 4 * per_partition:
            break
        time.sleep(0.01)
    c = Collector()
    for name in ("a", "b"):
        c.eq(kh.scalar(conn, f"SELECT count(DISTINCT n) FROM vc_{name}"), per_partition, f"pipe {name} loaded everything")
    c.check(max(seen) <= 1, f"running tasks of a size-1 virtual cluster: {sorted(set(seen))}")
    c.check(1 in seen, f"no task of the cluster was seen running ({len(seen)} samples)")
    c.eq(rows["one_at_a_time"][1:4:2], (1, 2), "SHOW VCLUSTERS size and pipes")
    c.done()


@suite.test(timeout=60)
def test_initial_delay_and_execute(s):
    b = broker()
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE lake")
    kh.query(conn, "USE lake")
    kh.query(conn, "CREATE TABLE delayed (message STRING)")
    produce_logs(b, "logs", 1, 5000, 5005)
    in_topic = kh.scalar(conn, f"SELECT count(*) FROM READ_KAFKA('{b.bootstrap}', 'logs', '', '', '', '', '', '', "
                               "'raw', 'raw', 0, map())")
    start = time.monotonic()
    kh.query(conn, f"""CREATE PIPE delayed_pipe INITIAL_DELAY_IN_SECONDS = '3' BATCH_INTERVAL_IN_SECONDS = '3600'
    RESET_KAFKA_GROUP_OFFSETS = 'earliest'
AS COPY INTO delayed FROM (SELECT PARSE_JSON(value::STRING)['message']::STRING
    FROM READ_KAFKA('{b.bootstrap}', 'logs', '', 'delay_group', '', '', '', '', 'raw', 'raw', 0, map()))""")
    time.sleep(1.5)
    eq(kh.scalar(conn, "SELECT count(*) FROM delayed"), 0, "nothing before INITIAL_DELAY_IN_SECONDS")
    kh.wait_rows(conn, "delayed", in_topic, 20)
    check(time.monotonic() - start >= 3.0, "the first batch ran before the initial delay")
    produce_logs(b, "logs", 1, 5005, 5008)
    time.sleep(1.5)
    eq(kh.scalar(conn, "SELECT count(*) FROM delayed"), in_topic, "no batch before the next interval (an hour)")
    kh.query(conn, "ALTER PIPE delayed_pipe EXECUTE")
    kh.wait_rows(conn, "delayed", in_topic + 3, 20)
    eq(kh.scalar(conn, "SELECT count(*) FROM delayed WHERE message IN ('m-1-5005', 'm-1-5006', 'm-1-5007')"), 3,
       "ALTER PIPE ... EXECUTE ran a batch now")


def main() -> int:
    argv = kh.parse_args()
    rc = 1
    try:
        rc = suite.run(argv)
    finally:
        b = state.get("broker")
        if b is not None:
            if rc != 0:
                print(f"--- testbroker stderr (last 20 lines) ---\n{b.log_tail(20)}")
            b.cleanup()
    return rc


if __name__ == "__main__":
    sys.exit(main())
