#!/usr/bin/python3
"""Routine load under faults (issue 3, parts 4 and 7), on the test broker.

- a broker taken down and brought back during a load (1 broker, and 3 brokers with one down): the job keeps
  RUNNING (OtherMsg says it is retrying) and the final table is exact; a partition whose leader is down when the job
  starts waits alone while the others load, and joins once its leader is back;
- injected Fetch / ListOffsets errors (NOT_LEADER_FOR_PARTITION, REQUEST_TIMED_OUT, dropped connections): the job
  recovers by itself and the final table is exact;
- bad messages: counted in errorRows, recorded in __sluice.routine_load_rejected_rows with partition, offset, reason
  and raw bytes; max_error_number 0 pauses right after the first task that had an error (its good rows committed);
  a large max_error_number keeps running; log_rejected_record_num bounds what is kept; max_filter_ratio aborts the
  task (nothing committed, abortedTaskNum 1) and pauses;
- offset out of range pauses with a reason that says how to continue; that ALTER + RESUME loads the data;
- dropping the target table (or its database) cancels the job, also a PAUSED one and a suspended pipe;
- a partition the topic lacks and a topic that does not exist pause with advice that works (ALTER
  kafka_partitions replaces the list and keeps the progress of partitions that stay; a pipe gets pipe advice);
- SHOW ROUTINE LOAD TASK shows each group's task status (RUNNING / COMMITTED / NO_DATA) and start time;
- PAUSE / RESUME during a load: no duplicates; a PAUSED job stays PAUSED across a restart.

    /usr/bin/python3 tests/e2e/test_routine_load_faults.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check, contains, eq, expect_mysql_error  # noqa: E402

suite = TestSuite("test_routine_load_faults")
LOAD_TIMEOUT = 90.0


def new_broker(topics: dict[str, int], brokers: int = 1) -> kh.TestBroker:
    return kh.adopt_broker(kh.TestBroker(topics, brokers=brokers).start())


def setup_db(s: TestSuite, table_sql: str = "CREATE TABLE t (id bigint NOT NULL, v varchar(40)) DUPLICATE KEY(id)",
             **kw):
    srv = s.server(**kw).start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, table_sql)
    return srv, conn


def csv_lines(lo: int, hi: int) -> list[str]:
    return [f"{i},v{i}" for i in range(lo, hi)]


def create_job(conn, name: str, bootstrap: str, topic: str, props: str = "", extra_kafka: str = "", table: str = "t"):
    props = ('"max_batch_interval" = "0.3"' + (", " + props if props else ""))
    kh.query(conn, f"""CREATE ROUTINE LOAD {name} ON {table} COLUMNS TERMINATED BY ",", COLUMNS (id, v)
PROPERTIES ({props})
FROM KAFKA ("kafka_broker_list" = "{bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING"{", " + extra_kafka if extra_kafka else ""})""")


def check_exact(conn, ids: list[int], what: str = "t"):
    count, distinct, s = kh.query(conn, f"SELECT count(*), count(DISTINCT id), sum(id) FROM {what}")[0]
    c = Collector()
    c.eq(count, len(ids), f"{what}: count(*)")
    c.eq(distinct, len(set(ids)), f"{what}: count(DISTINCT id)")
    c.eq(int(s or 0), sum(ids), f"{what}: sum(id)")
    c.done()


def wait_loaded(conn, job: str, n: int, timeout: float = LOAD_TIMEOUT):
    kh.wait_rows(conn, "t", n, timeout, job=job)


def never_paused_until(conn, job: str, cond, timeout: float, what: str) -> list[dict]:
    """Polls SHOW until cond(job) holds; fails if the job is ever PAUSED/CANCELLED/STOPPED meanwhile. Returns the
    snapshots seen."""
    seen = []
    end = time.monotonic() + timeout
    while True:
        j = kh.show_job(conn, job)
        seen.append(j)
        check(j["State"] in ("RUNNING", "NEED_SCHEDULE"), f"{what}: the job left RUNNING: {kh.describe_job(j)}")
        if cond(j):
            return seen
        check(time.monotonic() < end, f"{what}: timed out; last {kh.describe_job(j)}")
        time.sleep(0.3)


# ---- broker faults ----------------------------------------------------------------------------------------------

@suite.test(timeout=180)
def test_broker_down_and_up_single_broker(s):
    b = new_broker({"f1": 2}, brokers=1)
    srv, conn = setup_db(s)
    for p in range(2):
        kh.produce(b.bootstrap, "f1", p, csv_lines(p * 100_000, p * 100_000 + 20_000))
    # small fetch buffers (property.* goes to librdkafka), so the consumer runs dry soon after the broker is gone
    create_job(conn, "j1", b.bootstrap, "f1", '"max_batch_rows" = "500"',
               '"property.queued.max.messages.kbytes" = "1", "property.fetch.max.bytes" = "4096", '
               '"property.max.partition.fetch.bytes" = "2048", "property.message.max.bytes" = "1000"')
    kh.wait_until(lambda: kh.scalar(conn, "SELECT count(*) FROM t") > 0, 60, "the first rows")
    b.command("broker down 1")
    # while the broker is down the job stays RUNNING, retries, and says so (OtherMsg, or the task's Message)
    messages = []

    def says_retrying(j):
        task_msgs = [t["Message"] or "" for t in kh.show_rows(conn, 'SHOW ROUTINE LOAD TASK WHERE JobName = "j1"')]
        messages.extend(m for m in [j["OtherMsg"]] + task_msgs if m and m not in messages)
        return any("retrying" in m for m in [j["OtherMsg"] or ""] + task_msgs)

    never_paused_until(conn, "j1", says_retrying, 40, "broker down: a message saying the job retries")
    check(any("no messages could be fetched" in m or "Timed out" in m or "broker" in m.lower() for m in messages),
          f"the retry message tells what is wrong: {messages}")
    time.sleep(2.0)
    eq(kh.show_job(conn, "j1")["State"], "RUNNING", "State while the broker is down")
    b.command("broker up 1")
    for p in range(2):
        kh.produce(b.bootstrap, "f1", p, csv_lines(p * 100_000 + 20_000, p * 100_000 + 25_000))
    ids = [i for p in range(2) for i in range(p * 100_000, p * 100_000 + 25_000)]
    never_paused_until(conn, "j1", lambda j: j["Statistic"]["loadedRows"] == len(ids), LOAD_TIMEOUT,
                       "loading after the broker came back")
    check_exact(conn, ids)
    j = kh.wait_until(lambda: (lambda j: j if "retrying" not in (j["OtherMsg"] or "") else None)(
        kh.show_job(conn, "j1")), 30, "OtherMsg without the retry message")
    eq(j["State"], "RUNNING", "State")
    eq(j["Progress"], {"0": "24999", "1": "24999"}, "Progress")


@suite.test(timeout=180)
def test_one_of_three_brokers_down_and_up(s):
    """3 brokers, partition 0 led by broker 2: with broker 2 down, partitions 1 and 2 keep loading while partition
    0's task retries; after broker 2 is back everything is loaded exactly once."""
    b = new_broker({"f3": 3}, brokers=3)
    for p, leader in ((0, 2), (1, 1), (2, 3)):
        b.command(f"leader f3 {p} {leader}")
    srv, conn = setup_db(s)
    for p in range(3):
        kh.produce(b.bootstrap, "f3", p, csv_lines(p * 100_000, p * 100_000 + 8000))
    create_job(conn, "j3", b.bootstrap, "f3", '"max_batch_rows" = "400", "desired_concurrent_number" = "3"',
               '"property.queued.max.messages.kbytes" = "1", "property.fetch.max.bytes" = "4096", '
               '"property.max.partition.fetch.bytes" = "2048", "property.message.max.bytes" = "1000"')
    kh.wait_until(lambda: kh.scalar(conn, "SELECT count(*) FROM t") > 0, 60, "the first rows")
    b.command("broker down 2")
    messages = []

    def partition0_retries(j):
        for t in kh.show_rows(conn, 'SHOW ROUTINE LOAD TASK WHERE JobName = "j3"'):
            if "0" in t["DataSourceProperties"] and "retrying" in (t["Message"] or ""):
                messages.append(t["Message"])
        return bool(messages)

    never_paused_until(conn, "j3", partition0_retries, 60, "broker 2 down: partition 0's task retries")
    for p in range(3):   # partitions 1 and 2 are not affected
        if p != 0:
            kh.produce(b.bootstrap, "f3", p, csv_lines(p * 100_000 + 8000, p * 100_000 + 9000))
    never_paused_until(conn, "j3", lambda j: kh.scalar(conn, "SELECT count(*) FROM t WHERE id >= 100000") == 18000,
                       LOAD_TIMEOUT, "partitions 1 and 2 while broker 2 is down")
    b.command("broker up 2")
    kh.produce(b.bootstrap, "f3", 0, csv_lines(8000, 9000))
    ids = [i for p in range(3) for i in range(p * 100_000, p * 100_000 + 9000)]
    never_paused_until(conn, "j3", lambda j: j["Statistic"]["loadedRows"] == len(ids), LOAD_TIMEOUT,
                       "loading after broker 2 came back")
    check_exact(conn, ids)
    eq(kh.show_job(conn, "j3")["Progress"], {"0": "8999", "1": "8999", "2": "8999"}, "Progress")


@suite.test(timeout=180)
def test_a_partition_whose_leader_is_down_at_the_start_waits_alone(s):
    """3 brokers, partition 0 led by broker 2, which is down when the job starts: partitions 1 and 2 load at once,
    OtherMsg names partition 0, and partition 0 joins by itself once broker 2 is back, every row exactly once."""
    b = new_broker({"f4": 3}, brokers=3)
    for p, leader in ((0, 2), (1, 1), (2, 3)):
        b.command(f"leader f4 {p} {leader}")
    for p in range(3):
        kh.produce(b.bootstrap, "f4", p, csv_lines(p * 100_000, p * 100_000 + 500))
    b.command("broker down 2")
    srv, conn = setup_db(s)
    create_job(conn, "j4", b.bootstrap, "f4")
    never_paused_until(conn, "j4", lambda j: kh.scalar(conn, "SELECT count(*) FROM t WHERE id >= 100000") == 1000,
                       LOAD_TIMEOUT, "partitions 1 and 2 while partition 0's leader is down")
    job = kh.show_job(conn, "j4")
    contains(job["OtherMsg"] or "", "partition(s) 0 not started", "OtherMsg names the waiting partition")
    eq(kh.scalar(conn, "SELECT count(*) FROM t WHERE id < 100000"), 0, "partition 0 rows before its leader is back")
    b.command("broker up 2")
    ids = [i for p in range(3) for i in range(p * 100_000, p * 100_000 + 500)]
    never_paused_until(conn, "j4", lambda j: j["Statistic"]["loadedRows"] == len(ids), LOAD_TIMEOUT,
                       "partition 0 after its leader came back")
    check_exact(conn, ids)
    eq(kh.show_job(conn, "j4")["Progress"], {"0": "499", "1": "499", "2": "499"}, "Progress")


@suite.test(timeout=180)
def test_injected_request_errors(s):
    b = new_broker({"fe": 2}, brokers=1)
    srv, conn = setup_db(s)
    for p in range(2):
        kh.produce(b.bootstrap, "fe", p, csv_lines(p * 100_000, p * 100_000 + 2000))
    # errors while the job resolves its starting offsets
    b.command("errors ListOffsets REQUEST_TIMED_OUT NOT_LEADER_FOR_PARTITION 7 6")
    create_job(conn, "je", b.bootstrap, "fe", '"max_batch_rows" = "300"')
    kh.wait_until(lambda: kh.scalar(conn, "SELECT count(*) FROM t") > 0, 60, "the first rows")
    # errors on the data path, in several waves
    for wave, codes in enumerate(["6 6 6", "7 7 7", "NOT_LEADER_FOR_PARTITION REQUEST_TIMED_OUT _TRANSPORT",
                                  "_TRANSPORT _TRANSPORT 6 7"]):
        b.command(f"errors Fetch {codes}")
        for p in range(2):
            lo = p * 100_000 + 2000 + wave * 1000
            kh.produce(b.bootstrap, "fe", p, csv_lines(lo, lo + 1000))
        time.sleep(1.0)
    ids = [i for p in range(2) for i in range(p * 100_000, p * 100_000 + 6000)]
    never_paused_until(conn, "je", lambda j: j["Statistic"]["loadedRows"] == len(ids), LOAD_TIMEOUT,
                       "loading through injected errors")
    check_exact(conn, ids)
    j = kh.show_job(conn, "je")
    eq(j["Statistic"]["errorRows"], 0, "errorRows")
    eq(j["Progress"], {"0": "5999", "1": "5999"}, "Progress")


# ---- bad messages -----------------------------------------------------------------------------------------------

@suite.test(timeout=120)
def test_one_bad_row_pauses_with_max_error_number_0(s):
    """Default max_error_number 0: the task that read the bad row commits its good rows, then the job pauses; the
    rest stays unread until RESUME."""
    topic = kh.new_topic("bad1", 1)
    srv, conn = setup_db(s)
    lines = csv_lines(0, 120) + ["oops-not-a-row"] + csv_lines(121, 300)   # the bad row is offset 120
    kh.produce(kh.shared_broker().bootstrap, topic, 0, lines)
    create_job(conn, "jb", kh.shared_broker().bootstrap, topic, '"max_batch_rows" = "50"')
    job = kh.wait_state(conn, "jb", "PAUSED", LOAD_TIMEOUT)
    c = Collector()
    # tasks read offsets 0-49, 50-99, 100-149: the third has the error, commits 49 good rows, and the job pauses
    c.eq(kh.scalar(conn, "SELECT count(*) FROM t"), 149, "rows loaded before the pause")
    c.eq(kh.scalar(conn, "SELECT max(id) FROM t"), 149, "last id loaded")
    c.eq(job["Progress"], {"0": "149"}, "Progress at the pause")
    st = job["Statistic"]
    c.eq((st["loadedRows"], st["errorRows"], st["totalRows"]), (149, 1, 150), "loaded/error/total rows")
    c.eq(st["committedTaskNum"], 3, "committedTaskNum")
    c.eq(st["abortedTaskNum"], 0, "abortedTaskNum")
    c.contains(job["ReasonOfStateChanged"], "max_error_number", "ReasonOfStateChanged")
    c.contains(job["ReasonOfStateChanged"], "RESUME ROUTINE LOAD FOR jb", "ReasonOfStateChanged")
    c.check(job["PauseTime"] is not None, "PauseTime is set")
    c.check(job["ErrorLogUrls"].startswith("http://"), f"ErrorLogUrls: {job['ErrorLogUrls']!r}")
    rej = kh.rejected_rows(conn, "d", "jb")
    c.eq([(r["DbName"], r["JobName"], r["Partition"], r["Offset"], r["RawData"]) for r in rej],
         [("d", "jb", 0, 120, "oops-not-a-row")], "the rejected row")
    if rej:
        c.check("column" in rej[0]["Reason"].lower(), f"the reason tells about the columns: {rej[0]['Reason']!r}")
    # it stays paused
    time.sleep(1.5)
    c.eq(kh.scalar(conn, "SELECT count(*) FROM t"), 149, "rows while paused")
    c.eq(kh.show_job(conn, "jb")["State"], "PAUSED", "State a while later")
    c.done()
    kh.query(conn, "RESUME ROUTINE LOAD FOR jb")
    wait_loaded(conn, "jb", 299)
    check_exact(conn, [i for i in range(300) if i != 120])
    job = kh.wait_state(conn, "jb", "RUNNING", 30)
    eq(job["ReasonOfStateChanged"], "", "ReasonOfStateChanged after RESUME")
    eq(job["Statistic"]["errorRows"], 1, "errorRows after RESUME (the counters are cumulative)")


@suite.test(timeout=150)
def test_many_bad_rows_with_large_max_error_number(s):
    """Bad rows in every partition: each is counted and recorded with its partition, offset, reason and raw bytes;
    the job keeps running. log_rejected_record_num: -1 keeps all, N keeps the N newest, 0 the 100 newest."""
    topic = kh.new_topic("bad_many", 3)
    srv, conn = setup_db(s, "CREATE TABLE t (id bigint NOT NULL, v varchar(40)) DUPLICATE KEY(id)")
    for t in ("t_default", "t_five"):
        kh.query(conn, f"CREATE TABLE {t} (id bigint NOT NULL, v varchar(40)) DUPLICATE KEY(id)")
    bad = {}            # (partition, offset) -> raw
    good_ids = []
    for p in range(3):
        lines = []
        for k in range(200):
            i = p * 1000 + k
            if k % 4 == 1:
                raw = [f"{i}", f"{i},a,b", f"{i},x,\\N,\\N", f"{i};semicolon"][k // 4 % 4]
                lines.append(raw)
                bad[(p, k)] = raw
            else:
                lines.append(f"{i},v{i}")
                good_ids.append(i)
        kh.produce(kh.shared_broker().bootstrap, topic, p, lines)
    bs = kh.shared_broker().bootstrap
    create_job(conn, "j_all", bs, topic, '"max_error_number" = "100000", "max_batch_rows" = "40", '
                                        '"log_rejected_record_num" = "-1"')
    create_job(conn, "j_default", bs, topic, '"max_error_number" = "100000", "max_batch_rows" = "40"',
               table="t_default")
    create_job(conn, "j_five", bs, topic, '"max_error_number" = "100000", "max_batch_rows" = "40", '
                                         '"log_rejected_record_num" = "5"', table="t_five")
    for job, table in (("j_all", "t"), ("j_default", "t_default"), ("j_five", "t_five")):
        kh.wait_rows(conn, table, len(good_ids), LOAD_TIMEOUT, job=job)
        check_exact(conn, good_ids, table)
    c = Collector()
    for job in ("j_all", "j_default", "j_five"):
        j = kh.wait_until(lambda: (lambda j: j if j["Statistic"]["totalRows"] == 600 else None)(
            kh.show_job(conn, job)), 30, f"{job}: totalRows 600")
        c.eq(j["State"], "RUNNING", f"{job} State")
        c.eq((j["Statistic"]["loadedRows"], j["Statistic"]["errorRows"]), (len(good_ids), len(bad)),
             f"{job} loaded/error rows")
    rej = kh.rejected_rows(conn, "d", "j_all")
    c.eq({(r["Partition"], r["Offset"]): r["RawData"] for r in rej}, bad, "j_all: every rejected row with its raw data")
    c.eq(len(rej), len(bad), "j_all: no rejected row recorded twice")
    for r in rej:
        c.check(r["Reason"] and r["TaskId"] is not None, f"rejected row without reason or task: {r}")
    rej_default = kh.rejected_rows(conn, "d", "j_default")
    c.eq(len(rej_default), 100, "j_default (log_rejected_record_num 0): keeps 100 rejected rows")
    rej_five = kh.rejected_rows(conn, "d", "j_five")
    c.eq(len(rej_five), 5, "j_five (log_rejected_record_num 5): keeps 5 rejected rows")
    # the kept ones are the newest: in each partition (read in order), the last bad rows
    for name, kept in (("j_default", rej_default), ("j_five", rej_five)):
        for p in range(3):
            offs = sorted(r["Offset"] for r in kept if r["Partition"] == p)
            newest = sorted(o for (pp, o) in bad if pp == p)[len(bad) // 3 - len(offs):]
            c.eq(offs, newest, f"{name}: kept rejected rows of partition {p} are its newest")
    c.done()


@suite.test(timeout=120)
def test_max_filter_ratio_aborts_the_task(s):
    """A task whose error ratio is above max_filter_ratio is not committed (nothing loaded, no progress, no
    rejected rows) and the job pauses with abortedTaskNum 1; raising the ratio and RESUME loads the good rows."""
    topic = kh.new_topic("ratio", 1)
    srv, conn = setup_db(s)
    lines = ["1,a", "bad", "bad,x,y", "4,d", "bad", "bad", "bad", "bad", "bad", "bad"]
    kh.produce(kh.shared_broker().bootstrap, topic, 0, lines)
    create_job(conn, "jr", kh.shared_broker().bootstrap, topic, '"max_filter_ratio" = "0.1", "max_error_number" = "1000"')
    job = kh.wait_state(conn, "jr", "PAUSED", LOAD_TIMEOUT)
    c = Collector()
    c.eq(kh.scalar(conn, "SELECT count(*) FROM t"), 0, "rows after the aborted task")
    c.eq(job["Statistic"]["abortedTaskNum"], 1, "abortedTaskNum")
    c.eq(job["Statistic"]["committedTaskNum"], 0, "committedTaskNum")
    c.eq(job["Statistic"]["loadedRows"], 0, "loadedRows")
    c.eq(job["Progress"], {"0": "OFFSET_ZERO"}, "Progress (nothing committed)")
    c.contains(job["ReasonOfStateChanged"], "max_filter_ratio", "ReasonOfStateChanged")
    c.contains(job["ReasonOfStateChanged"], "8 of 10 rows", "ReasonOfStateChanged")
    c.contains(job["ReasonOfStateChanged"], "not committed", "ReasonOfStateChanged")
    c.eq(kh.rejected_rows(conn, "d", "jr"), [], "rejected rows of an aborted task")
    c.done()
    kh.query(conn, 'ALTER ROUTINE LOAD FOR jr PROPERTIES ("max_filter_ratio" = "0.9")')
    kh.query(conn, "RESUME ROUTINE LOAD FOR jr")
    wait_loaded(conn, "jr", 2)
    job = kh.wait_until(lambda: (lambda j: j if j["Statistic"]["totalRows"] == 10 else None)(
        kh.show_job(conn, "jr")), 30, "totalRows 10")
    eq(job["State"], "RUNNING", "State after ALTER + RESUME")
    eq((job["Statistic"]["loadedRows"], job["Statistic"]["errorRows"]), (2, 8), "loaded/error rows")
    eq(job["Progress"], {"0": "9"}, "Progress")
    eq(sorted(r["Offset"] for r in kh.rejected_rows(conn, "d", "jr")), [1, 2, 4, 5, 6, 7, 8, 9], "rejected offsets")


# ---- offsets, dropped tables ------------------------------------------------------------------------------------

@suite.test(timeout=120)
def test_offset_out_of_range_pauses_and_alter_continues(s):
    topic = kh.new_topic("oor", 2)
    srv, conn = setup_db(s)
    for p in range(2):
        kh.produce(kh.shared_broker().bootstrap, topic, p, csv_lines(p * 1000, p * 1000 + 100))
    kh.query(conn, f"""CREATE ROUTINE LOAD jo ON t COLUMNS TERMINATED BY ","
PROPERTIES ("max_batch_interval" = "0.3")
FROM KAFKA ("kafka_broker_list" = "{kh.shared_broker().bootstrap}", "kafka_topic" = "{topic}",
            "kafka_partitions" = "0,1", "kafka_offsets" = "OFFSET_BEGINNING,1000000")""")
    job = kh.wait_state(conn, "jo", "PAUSED", LOAD_TIMEOUT)
    reason = job["ReasonOfStateChanged"]
    c = Collector()
    c.contains(reason, "partition 1", "ReasonOfStateChanged")
    c.contains(reason, "1000000", "ReasonOfStateChanged")
    # past the end, not deleted by retention: the reason says which, and offers both ways on
    c.contains(reason, "is beyond the end of the partition", "ReasonOfStateChanged")
    c.contains(reason, "The offset is past the last message", "ReasonOfStateChanged")
    c.check("retention" not in reason, f"the reason does not blame retention: {reason}")
    c.contains(reason, 'ALTER ROUTINE LOAD FOR jo FROM KAFKA ("kafka_partitions" = "0,1", "kafka_offsets" = "',
               "ReasonOfStateChanged")
    c.contains(reason, ',OFFSET_BEGINNING");', "ReasonOfStateChanged")
    c.contains(reason, ',OFFSET_END");', "ReasonOfStateChanged")
    c.contains(reason, "RESUME ROUTINE LOAD FOR jo", "ReasonOfStateChanged")
    c.done()
    # do what the reason says
    start = reason.index("ALTER ROUTINE LOAD")
    end = reason.index(");", start) + 1
    alter = reason[start:end]
    kh.query(conn, alter)
    kh.query(conn, "RESUME ROUTINE LOAD FOR jo")
    wait_loaded(conn, "jo", 200)
    check_exact(conn, list(range(100)) + list(range(1000, 1100)))
    job = kh.wait_state(conn, "jo", "RUNNING", 30)
    eq(job["Progress"], {"0": "99", "1": "99"}, "Progress")


@suite.test(timeout=150)
def test_alter_kafka_partitions_repairs_a_missing_partition(s):
    """Issue 12: a job naming a partition the topic lacks pauses; the ALTER its reason gives (kafka_partitions
    without the missing one) takes effect, keeps the progress of the partitions that stay, and RESUME loads them."""
    topic = kh.new_topic("missing_part", 2)
    srv, conn = setup_db(s)
    for p in range(2):
        kh.produce(kh.shared_broker().bootstrap, topic, p, csv_lines(p * 1000, p * 1000 + 50))
    create_job(conn, "jm", kh.shared_broker().bootstrap, topic, extra_kafka='"kafka_partitions" = "0,1"')
    wait_loaded(conn, "jm", 100)
    kh.query(conn, "PAUSE ROUTINE LOAD FOR jm")
    kh.query(conn, 'ALTER ROUTINE LOAD FOR jm FROM KAFKA ("kafka_partitions" = "0,1,2")')
    kh.query(conn, "RESUME ROUTINE LOAD FOR jm")
    job = kh.wait_state(conn, "jm", "PAUSED", LOAD_TIMEOUT)
    reason = job["ReasonOfStateChanged"]
    c = Collector()
    c.contains(reason, f"partition 2 of topic '{topic}' does not exist (it has 2 partitions: 0,1)", "reason")
    c.contains(reason, 'ALTER ROUTINE LOAD FOR jm FROM KAFKA ("kafka_partitions" = "0,1")', "reason")
    c.contains(reason, "RESUME ROUTINE LOAD FOR jm", "reason")
    c.done()
    start = reason.index("ALTER ROUTINE LOAD")
    kh.query(conn, reason[start:reason.index(")", reason.index("(", start)) + 1])
    create = kh.query(conn, "SHOW CREATE ROUTINE LOAD jm")[0][1]
    contains(create, '"kafka_partitions" = "0,1",', "SHOW CREATE ROUTINE LOAD after the ALTER")
    eq(kh.show_job(conn, "jm")["DataSourceProperties"]["currentKafkaPartitions"], "0,1", "currentKafkaPartitions")
    for p in range(2):
        kh.produce(kh.shared_broker().bootstrap, topic, p, csv_lines(p * 1000 + 50, p * 1000 + 80))
    kh.query(conn, "RESUME ROUTINE LOAD FOR jm")
    wait_loaded(conn, "jm", 160)
    check_exact(conn, [i for p in range(2) for i in range(p * 1000, p * 1000 + 80)])
    job = kh.wait_state(conn, "jm", "RUNNING", 30)
    eq(job["Progress"], {"0": "79", "1": "79"}, "Progress (committed progress kept: nothing loaded twice)")
    # narrowing to one partition: only it is loaded from then on
    kh.query(conn, "PAUSE ROUTINE LOAD FOR jm")
    kh.query(conn, 'ALTER ROUTINE LOAD FOR jm FROM KAFKA ("kafka_partitions" = "1")')
    for p in range(2):
        kh.produce(kh.shared_broker().bootstrap, topic, p, csv_lines(p * 1000 + 80, p * 1000 + 90))
    kh.query(conn, "RESUME ROUTINE LOAD FOR jm")
    wait_loaded(conn, "jm", 170)
    time.sleep(1.5)
    check_exact(conn, [i for i in range(80)] + [i for i in range(1000, 1090)])
    job = kh.wait_state(conn, "jm", "RUNNING", 30)
    eq(job["Progress"], {"1": "89"}, "Progress after narrowing")
    eq(job["DataSourceProperties"]["currentKafkaPartitions"], "1", "currentKafkaPartitions after narrowing")


@suite.test(timeout=120)
def test_missing_topic_advice_works_for_jobs_and_pipes(s):
    """Issue 12: a topic that does not exist pauses a routine load (and fails a pipe) with advice that works:
    ALTER cannot change kafka_topic, so create the topic and RESUME (a pipe: ALTER PIPE ... = false)."""
    srv, conn = setup_db(s)
    topic = "not_yet_" + str(os.getpid())
    kh.query(conn, "CREATE TABLE pt (id bigint, v varchar(40))")
    create_job(conn, "jw", kh.shared_broker().bootstrap, topic)
    kh.query(conn, f"""CREATE PIPE pw BATCH_INTERVAL_IN_SECONDS = '1' RESET_KAFKA_GROUP_OFFSETS = 'earliest'
AS COPY INTO pt FROM (SELECT CAST(split_part(value::STRING, ',', 1) AS BIGINT) AS id,
    split_part(value::STRING, ',', 2) AS v
    FROM READ_KAFKA('{kh.shared_broker().bootstrap}', '{topic}', '', 'pw_group', '', '', '', '', 'raw', 'raw', 0, map()))""")
    job = kh.wait_state(conn, "jw", "PAUSED", LOAD_TIMEOUT)
    reason = job["ReasonOfStateChanged"]
    c = Collector()
    c.contains(reason, f"topic '{topic}' does not exist", "routine load reason")
    c.contains(reason, "create the topic, then RESUME ROUTINE LOAD FOR jw", "routine load reason")
    c.contains(reason, "STOP ROUTINE LOAD FOR jw and CREATE ROUTINE LOAD again with the right kafka_topic",
               "routine load reason")
    c.check("fix kafka_topic" not in reason, f"no advice ALTER refuses: {reason}")
    pipe = kh.wait_until(lambda: next((r for r in kh.show_rows(conn, "SHOW PIPES LIKE 'pw'")
                                       if r["status"] == "FAILED"), None), LOAD_TIMEOUT, "pipe pw FAILED")
    err = pipe["last_error"]
    c.contains(err, "create the topic, then ALTER PIPE pw SET PIPE_EXECUTION_PAUSED = false", "pipe last_error")
    c.contains(err, "DROP PIPE pw and CREATE PIPE again", "pipe last_error")
    c.check("ROUTINE LOAD" not in err and "kafka_topic" not in err, f"no routine load advice for a pipe: {err}")
    c.done()
    # the advice works
    kh.new_topic(topic, 1)
    kh.produce(kh.shared_broker().bootstrap, topic, 0, csv_lines(0, 30))
    kh.query(conn, "RESUME ROUTINE LOAD FOR jw")
    kh.query(conn, "ALTER PIPE pw SET PIPE_EXECUTION_PAUSED = false")
    wait_loaded(conn, "jw", 30)
    check_exact(conn, list(range(30)))
    kh.wait_rows(conn, "pt", 30, LOAD_TIMEOUT)
    check_exact(conn, list(range(30)), "pt")


@suite.test(timeout=90)
def test_show_routine_load_task_status_and_start(s):
    """Issue 12: SHOW ROUTINE LOAD TASK tells how each group's last task ended and when it started."""
    topic = kh.new_topic("taskstatus", 2)
    srv, conn = setup_db(s)
    for p in range(2):
        kh.produce(kh.shared_broker().bootstrap, topic, p, csv_lines(p * 1000, p * 1000 + 20))
    create_job(conn, "jt2", kh.shared_broker().bootstrap, topic, '"desired_concurrent_number" = "2"')
    wait_loaded(conn, "jt2", 40)
    seen = set()

    def tasks():
        rows = kh.show_rows(conn, 'SHOW ROUTINE LOAD TASK WHERE JobName = "jt2"')
        for r in rows:
            seen.add(r["TxnStatus"])
        return rows

    rows = tasks()
    eq(len(rows), 2, "one row per task group")
    for r in rows:
        check(r["TxnStatus"] in ("RUNNING", "COMMITTED", "NO_DATA"), f"TxnStatus: {r}")
        check(r["ExecuteStartTime"] is not None, f"ExecuteStartTime: {r}")
    # caught up: every group's last task found nothing new
    kh.wait_until(lambda: all(r["TxnStatus"] == "NO_DATA" for r in tasks()) or None, 30, "NO_DATA in every group")
    for p in range(2):
        kh.produce(kh.shared_broker().bootstrap, topic, p, csv_lines(p * 1000 + 20, p * 1000 + 30))
    kh.wait_until(lambda: any(r["TxnStatus"] == "COMMITTED" for r in tasks()) or None, 30, "a COMMITTED task")
    wait_loaded(conn, "jt2", 60)
    check("UNKNOWN" not in seen and None not in seen, f"statuses seen: {seen}")


@suite.test(timeout=120)
def test_alter_offsets_reloads_from_a_given_offset(s):
    """ALTER kafka_offsets while PAUSED moves the starting point; RESUME reads from there."""
    topic = kh.new_topic("realter", 1)
    srv, conn = setup_db(s)
    kh.produce(kh.shared_broker().bootstrap, topic, 0, csv_lines(0, 50))
    create_job(conn, "ja", kh.shared_broker().bootstrap, topic)
    wait_loaded(conn, "ja", 50)
    kh.query(conn, "PAUSE ROUTINE LOAD FOR ja")
    kh.query(conn, "DELETE FROM t WHERE id >= 40")
    kh.query(conn, 'ALTER ROUTINE LOAD FOR ja FROM KAFKA ("kafka_partitions" = "0", "kafka_offsets" = "40")')
    kh.query(conn, "RESUME ROUTINE LOAD FOR ja")
    wait_loaded(conn, "ja", 50)
    check_exact(conn, list(range(50)))
    eq(kh.wait_state(conn, "ja", "RUNNING", 30)["Progress"], {"0": "49"}, "Progress")


@suite.test(timeout=120)
def test_kafka_offsets_datetime_starts_at_the_first_message_at_or_after_it(s):
    """kafka_offsets as a datetime (which StarRocks cannot do): the test broker answers ListOffsets-by-time with -1,
    so this exercises Sluice's binary search over message timestamps."""
    topic = kh.new_topic("fromtime", 1)
    srv, conn = setup_db(s)
    kh.produce(kh.shared_broker().bootstrap, topic, 0, csv_lines(0, 30))
    time.sleep(1.5)
    start = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(time.time()))
    time.sleep(1.5)
    kh.produce(kh.shared_broker().bootstrap, topic, 0, csv_lines(30, 70))
    create_job(conn, "jt", kh.shared_broker().bootstrap, topic,
               extra_kafka=f'"kafka_partitions" = "0", "kafka_offsets" = "{start}"')
    wait_loaded(conn, "jt", 40)
    check_exact(conn, list(range(30, 70)))


@suite.test(timeout=120)
def test_dropping_the_table_cancels_the_job(s):
    topic = kh.new_topic("dropme", 1)
    srv, conn = setup_db(s)
    kh.query(conn, "CREATE DATABASE d2")
    kh.query(conn, "CREATE TABLE d2.t (id bigint NOT NULL, v varchar(40)) DUPLICATE KEY(id)")
    kh.produce(kh.shared_broker().bootstrap, topic, 0, csv_lines(0, 20))
    create_job(conn, "jd", kh.shared_broker().bootstrap, topic)
    kh.query(conn, "USE d2")
    create_job(conn, "jd2", kh.shared_broker().bootstrap, topic)
    kh.wait_rows(conn, "d.t", 20, LOAD_TIMEOUT, job="d.jd")
    kh.wait_rows(conn, "d2.t", 20, LOAD_TIMEOUT, job="d2.jd2")
    kh.query(conn, "USE d")
    kh.query(conn, "DROP TABLE t")
    kh.query(conn, "DROP DATABASE d2")
    kh.produce(kh.shared_broker().bootstrap, topic, 0, csv_lines(20, 40))
    job = kh.wait_state(conn, "jd", "CANCELLED", LOAD_TIMEOUT)
    contains(job["ReasonOfStateChanged"], "dropped", "ReasonOfStateChanged")
    check(job["EndTime"] is not None, "EndTime is set")
    expect_mysql_error(lambda: kh.query(conn, "RESUME ROUTINE LOAD FOR jd"), 1105, "CANCELLED, which is final")
    rows = kh.show_rows(conn, "SHOW ROUTINE LOAD")
    eq([r["Name"] for r in rows], [], "SHOW ROUTINE LOAD hides the cancelled job")
    eq([r["State"] for r in kh.show_rows(conn, "SHOW ALL ROUTINE LOAD")], ["CANCELLED"], "SHOW ALL ROUTINE LOAD")
    job2 = kh.wait_until(lambda: (lambda r: r if r and r[0]["State"] == "CANCELLED" else None)(
        kh.show_rows(conn, "SHOW ALL ROUTINE LOAD FROM d2")), LOAD_TIMEOUT, "jd2 CANCELLED after DROP DATABASE")
    contains(job2[0]["ReasonOfStateChanged"], "dropped", "jd2 ReasonOfStateChanged")


@suite.test(timeout=90)
def test_dropping_the_table_cancels_a_paused_job_and_pipe(s):
    """Issue 12: DROP TABLE cancels a PAUSED routine load and a suspended pipe at once, with the reason."""
    topic = kh.new_topic("droppaused", 1)
    srv, conn = setup_db(s)
    kh.produce(kh.shared_broker().bootstrap, topic, 0, csv_lines(0, 10))
    create_job(conn, "jdp", kh.shared_broker().bootstrap, topic)
    kh.query(conn, f"""CREATE PIPE pdp BATCH_INTERVAL_IN_SECONDS = '1' RESET_KAFKA_GROUP_OFFSETS = 'earliest'
AS COPY INTO t FROM (SELECT 1000 + CAST(split_part(value::STRING, ',', 1) AS BIGINT) AS id,
    split_part(value::STRING, ',', 2) AS v
    FROM READ_KAFKA('{kh.shared_broker().bootstrap}', '{topic}', '', 'pdp_group', '', '', '', '', 'raw', 'raw', 0, map()))""")
    wait_loaded(conn, "jdp", 20)
    kh.query(conn, "PAUSE ROUTINE LOAD FOR jdp")
    kh.query(conn, "ALTER PIPE pdp SET PIPE_EXECUTION_PAUSED = true")
    kh.query(conn, "DROP TABLE t")
    job = kh.show_rows(conn, "SHOW ALL ROUTINE LOAD FOR jdp")[0]
    eq(job["State"], "CANCELLED", "State right after DROP TABLE")
    eq(job["ReasonOfStateChanged"], "the target table d.t was dropped while the routine load was PAUSED; create the "
       "table and a new routine load to load again", "ReasonOfStateChanged")
    pipe = kh.show_rows(conn, "SHOW PIPES LIKE 'pdp'")[0]
    eq(pipe["status"], "FAILED", "pipe status right after DROP TABLE")
    contains(pipe["last_error"], "the target table d.t was dropped while the pipe was PAUSED", "pipe last_error")


@suite.test(timeout=90)
def test_dropping_the_table_cancels_an_idle_job(s):
    """A job that has caught up (no new data arrives) is cancelled too when its table is dropped: SHOW must not
    keep saying RUNNING for a job that can never load again."""
    topic = kh.new_topic("dropidle", 1)
    srv, conn = setup_db(s)
    kh.produce(kh.shared_broker().bootstrap, topic, 0, csv_lines(0, 10))
    create_job(conn, "jdi", kh.shared_broker().bootstrap, topic)
    wait_loaded(conn, "jdi", 10)
    kh.query(conn, "DROP TABLE t")
    job = kh.wait_state(conn, "jdi", "CANCELLED", 40)
    contains(job["ReasonOfStateChanged"], "dropped", "ReasonOfStateChanged")


# ---- PAUSE / RESUME / restart -----------------------------------------------------------------------------------

@suite.test(timeout=180)
def test_pause_resume_during_load_no_duplicates(s):
    topic = kh.new_topic("pr", 3)
    srv, conn = setup_db(s)
    ids = []

    def produce_round(r):
        for p in range(3):
            lo = p * 1_000_000 + r * 4000
            kh.produce(kh.shared_broker().bootstrap, topic, p, csv_lines(lo, lo + 4000))
            ids.extend(range(lo, lo + 4000))

    produce_round(0)
    create_job(conn, "jp", kh.shared_broker().bootstrap, topic, '"max_batch_rows" = "700", "desired_concurrent_number" = "3"')
    for r in range(1, 6):
        time.sleep(0.3 + 0.2 * r)
        kh.query(conn, "PAUSE ROUTINE LOAD FOR jp")
        eq(kh.show_job(conn, "jp")["State"], "PAUSED", f"round {r}: State after PAUSE")
        time.sleep(0.3)   # a commit already under way when PAUSE came may still land
        paused = kh.scalar(conn, "SELECT count(*) FROM t")
        produce_round(r)
        time.sleep(0.7)
        eq(kh.scalar(conn, "SELECT count(*) FROM t"), paused, f"round {r}: rows loaded while PAUSED")
        eq(kh.scalar(conn, "SELECT count(*) - count(DISTINCT id) FROM t"), 0, f"round {r}: duplicates")
        kh.query(conn, "RESUME ROUTINE LOAD FOR jp")
    wait_loaded(conn, "jp", len(ids))
    check_exact(conn, ids)
    job = kh.wait_state(conn, "jp", "RUNNING", 30)
    eq(job["Statistic"]["loadedRows"], len(ids), "loadedRows")
    eq(job["Progress"], {str(p): str(6 * 4000 - 1) for p in range(3)}, "Progress")


@suite.test(timeout=150)
def test_paused_job_stays_paused_across_restarts(s):
    topic = kh.new_topic("restart_paused", 2)
    srv, conn = setup_db(s)
    for p in range(2):
        kh.produce(kh.shared_broker().bootstrap, topic, p, csv_lines(p * 1000, p * 1000 + 100))
    create_job(conn, "jr2", kh.shared_broker().bootstrap, topic)
    wait_loaded(conn, "jr2", 200)
    kh.query(conn, "PAUSE ROUTINE LOAD FOR jr2")
    for p in range(2):
        kh.produce(kh.shared_broker().bootstrap, topic, p, csv_lines(p * 1000 + 100, p * 1000 + 200))
    for how in (signal.SIGTERM, signal.SIGKILL):
        code = srv.restart(how)
        if how == signal.SIGTERM:
            eq(code, 0, "exit code on SIGTERM")
        conn = srv.connect()
        kh.query(conn, "USE d")
        time.sleep(2.0)
        job = kh.show_job(conn, "jr2")
        eq(job["State"], "PAUSED", f"State after restart ({how.name})")
        eq(job["ReasonOfStateChanged"], "paused by the user (PAUSE ROUTINE LOAD)", "ReasonOfStateChanged")
        eq(job["Progress"], {"0": "99", "1": "99"}, "Progress")
        eq(kh.scalar(conn, "SELECT count(*) FROM t"), 200, f"rows after restart ({how.name})")
    kh.query(conn, "RESUME ROUTINE LOAD FOR jr2")
    wait_loaded(conn, "jr2", 400)
    check_exact(conn, [i for p in range(2) for i in range(p * 1000, p * 1000 + 200)])
    # a RUNNING job continues after a restart
    for p in range(2):
        kh.produce(kh.shared_broker().bootstrap, topic, p, csv_lines(p * 1000 + 200, p * 1000 + 300))
    srv.restart(signal.SIGTERM)
    conn = srv.connect()
    kh.query(conn, "USE d")
    kh.wait_state(conn, "jr2", "RUNNING", 60)
    wait_loaded(conn, "jr2", 600)
    check_exact(conn, [i for p in range(2) for i in range(p * 1000, p * 1000 + 300)])


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
