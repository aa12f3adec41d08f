#!/usr/bin/python3
"""Crash, error and stall in every phase of a load, through the named test points of common/test_points.h
(issue 11, parts 3 and 4). The server is started with SLUICE_TEST_POINTS naming one point; the test checks that it
died by SIGKILL at that point (its log line), starts it again without the point, waits until everything produced is
loaded, and checks the table exactly: count = distinct = produced, sums equal, and the progress committed with the
rows (Statistic / DESC PIPE EXTENDED / volume_loads) says the same.

- routine load: after fetch, after decode, inside the commit, after the commit (before the Kafka group commit); a
  DuckDB error injected into the commit (the task rolls back, the job pauses by the rules, RESUME goes on); a crash
  inside ALTER ROUTINE LOAD (the job is altered or not, never half); a commit slower than task_timeout_second (the
  task is replaced; the late commit and the new task's are fenced, exactly one wins); a crash inside DROP TABLE of
  the job's table and inside UNDROP TABLE (the table is dropped or not, never half).
- Kafka pipe: the same four crash points, an injected commit error, a crash inside ALTER PIPE.
- volume pipe (LIST_PURGE): after a file's download, inside its commit, before its delete; an injected commit error.

    /usr/bin/python3 tests/e2e/test_crash_points.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import TestSuite, check, contains, eq  # noqa: E402
from volume_harness import q, write  # noqa: E402

suite = TestSuite("test_crash_points")


# ---- server restarts with a point armed ---------------------------------------------------------------------------

def restart(srv, spec: str = ""):
    """SIGKILLs the server (when it runs) and starts it again, with SLUICE_TEST_POINTS = spec (none when empty).
    Returns the log offset where this start begins."""
    srv.extra_env = {"SLUICE_TEST_POINTS": spec} if spec else {}
    srv.kill_process()
    offset = srv._log_size()
    srv.start()
    return offset


def wait_fired(srv, offset: int, point: str, timeout: float = 40.0) -> str:
    """Waits until the log (from offset) says that the point fired; returns that part of the log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = srv._read_log(offset)
        if f"test point {point} fired" in text:
            return text
        if not srv.alive():
            break
        time.sleep(0.05)
    raise AssertionError(f"test point {point} did not fire within {timeout:.0f}s; log:\n{srv._read_log(offset)[-3000:]}")


def wait_crashed(srv, offset: int, point: str, timeout: float = 40.0):
    """Waits for the server to die by SIGKILL at `point` (its log line says so)."""
    wait_fired(srv, offset, point, timeout)
    try:
        code = srv.proc.wait(15)
    except Exception:  # noqa: BLE001
        code = None
    eq(code, -signal.SIGKILL, f"exit of the server crashed at {point}")
    contains(srv._read_log(offset), f"test point {point} fired", "server log")
    contains(srv._read_log(offset), "crashing with SIGKILL", "server log")
    srv.kill_process()  # closes the log handle


def connect(srv, db="d"):
    conn = srv.connect()
    kh.query(conn, f"USE {db}")
    return conn


# ---- data ---------------------------------------------------------------------------------------------------------

class Producer:
    """Messages `{"id": n, "amount": n % 997}` (or `n,amount` as CSV) with ids 1.. over the partitions of a topic,
    in rounds; remembers what was produced, per partition."""

    def __init__(self, topic: str, partitions: int, csv: bool):
        self.topic, self.partitions, self.csv = topic, partitions, csv
        self.next_id = 1
        self.per_partition = [0] * partitions

    def round(self, per_partition: int):
        b = kh.shared_broker()
        for p in range(self.partitions):
            ids = range(self.next_id, self.next_id + per_partition)
            self.next_id += per_partition
            msgs = [f"{i},{i % 997}" if self.csv else json.dumps({"id": i, "amount": i % 997}) for i in ids]
            kh.produce(b.bootstrap, self.topic, p, msgs)
            self.per_partition[p] += per_partition

    @property
    def total(self) -> int:
        return self.next_id - 1


def check_table(conn, table: str, n: int, what: str):
    """count = distinct = n, ids 1..n, sums equal."""
    ids = range(1, n + 1)
    got = kh.query(conn, f"SELECT count(*), count(DISTINCT id), sum(id), sum(amount) FROM {table}")[0]
    eq(tuple(int(v or 0) for v in got), (n, n, sum(ids), sum(i % 997 for i in ids)),
       f"{what}: count, distinct ids, sum(id), sum(amount)")


def check_routine_load(conn, prod: Producer, what: str, timeout: float = 60.0):
    """Waits until the job loaded everything produced; rows and committed progress agree exactly."""
    kh.wait_rows(conn, "t", prod.total, timeout, job="j")
    check_table(conn, "t", prod.total, what)
    job = kh.show_job(conn, "j")
    eq(job["Statistic"]["loadedRows"], prod.total, f"{what}: Statistic.loadedRows (committed with the rows)")
    eq(job["Progress"], {str(p): str(n - 1) for p, n in enumerate(prod.per_partition)}, f"{what}: Progress")


# ---- routine load -------------------------------------------------------------------------------------------------

@suite.test(timeout=240)
def test_routine_load_phases(s):
    topic = kh.new_topic("cp_rl", 2)
    prod = Producer(topic, 2, csv=True)
    srv = s.server()
    srv.start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE t (id BIGINT NOT NULL, amount INT) DUPLICATE KEY(id)")
    kh.query(conn, f"""CREATE ROUTINE LOAD d.j ON t COLUMNS TERMINATED BY ",", COLUMNS (id, amount)
PROPERTIES ("desired_concurrent_number" = "2", "max_batch_rows" = "100", "max_batch_interval" = "0.2")
FROM KAFKA ("kafka_broker_list" = "{kh.shared_broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    kh.wait_state(conn, "j", "RUNNING", 30)

    # Crash in each phase of a task; tasks of 100 rows, so a hit number N > 1 lands after N-1 commits.
    for point, hit in [("routine_load.after_fetch", 1), ("routine_load.after_decode", 2),
                       ("routine_load.inside_commit", 2), ("routine_load.after_commit", 3)]:
        offset = restart(srv, f"{point}=crash:{hit}")
        prod.round(300)
        wait_crashed(srv, offset, point)
        restart(srv)
        check_routine_load(connect(srv), prod, f"after a crash at {point}")

    # A DuckDB error in the middle of the commit: the task rolls back; the error is not retriable, so the job
    # pauses (the rule for a failed task) with the error as its reason; nothing of the batch is committed.
    offset = restart(srv, "storage.commit.routine_load=error:2")
    prod.round(300)
    wait_fired(srv, offset, "storage.commit.routine_load")
    conn = connect(srv)
    job = kh.wait_state(conn, "j", "PAUSED", 30)
    contains(job["ReasonOfStateChanged"], "injected failure at test point storage.commit.routine_load", "reason")
    rows = kh.scalar(conn, "SELECT count(*) FROM t")
    eq(job["Statistic"]["loadedRows"], rows, "paused after the failed commit: progress and rows agree")
    eq(sum(int(v) + 1 for v in job["Progress"].values()), rows, "paused: Progress covers exactly the rows")
    check(rows < prod.total, f"the failed commit left data to load ({rows} of {prod.total})")

    # A crash inside ALTER ROUTINE LOAD (new offsets for both partitions, and new properties): after the restart
    # the job is as it was, not half altered (its progress forgotten under the old definition would load the
    # topic from the beginning again).
    offset = restart(srv, "alter_routine_load.inside=crash")
    conn = connect(srv)
    job = kh.show_job(conn, "j")
    eq(job["State"], "PAUSED", "state after the restart")
    positions = {int(p): int(v) + 1 for p, v in job["Progress"].items()}
    alter = (f"""ALTER ROUTINE LOAD FOR j PROPERTIES ("max_batch_rows" = "150", "task_consume_second" = "1",
"task_timeout_second" = "3") FROM KAFKA ("kafka_partitions" = "0,1", "kafka_offsets" = "{positions[0]},{positions[1]}")""")
    try:
        kh.query(conn, alter)
    except Exception:  # noqa: BLE001 - the connection dies with the server
        pass
    wait_crashed(srv, offset, "alter_routine_load.inside")
    restart(srv)
    conn = connect(srv)
    after = kh.show_job(conn, "j")
    eq((after["State"], after["Progress"], after["Statistic"]["loadedRows"]),
       (job["State"], job["Progress"], job["Statistic"]["loadedRows"]), "the job after a crash inside ALTER")
    eq(after["JobProperties"].get("maxBatchRows"), "100", "max_batch_rows is not altered")
    kh.query(conn, alter)
    altered = kh.show_job(conn, "j")
    # the named partitions start over from the given offsets (resolved when the job is scheduled)
    eq((altered["JobProperties"].get("maxBatchRows"), altered["Progress"]),
       ("150", {"0": "OFFSET_NOT_RESOLVED", "1": "OFFSET_NOT_RESOLVED"}), "ALTER after the restart")
    kh.query(conn, "RESUME ROUTINE LOAD FOR j")
    check_routine_load(conn, prod, "after RESUME")

    # A commit slower than task_timeout_second (3 s): the scheduler gives the task up and starts another on the
    # same offsets; the slow one commits late (it passed its last check before COMMIT) and the new one's fenced
    # progress update then conflicts, or the other way round: either way each row is committed once.
    offset = restart(srv, "routine_load.inside_commit=sleep:6000")
    prod.round(300)
    text = wait_fired(srv, offset, "routine_load.inside_commit")
    conn = connect(srv)
    kh.wait_until(lambda: "passed task_timeout_second" in srv._read_log(offset), 20, "the task timeout")
    kh.wait_until(lambda: "woke up" in srv._read_log(offset), 20, "the slow commit to end")
    check_routine_load(conn, prod, "after a commit slower than task_timeout_second")
    check("passed task_timeout_second" in srv._read_log(offset) and text, "the slow task was replaced")

    # A crash inside DROP TABLE of the job's table: the table and its rows stay, and the job goes on.
    offset = restart(srv, "drop_table.inside=crash")
    conn = connect(srv)
    try:
        kh.query(conn, "DROP TABLE t")
    except Exception:  # noqa: BLE001
        pass
    wait_crashed(srv, offset, "drop_table.inside")
    restart(srv)
    conn = connect(srv)
    eq(kh.query(conn, "SHOW TABLES"), [("t",)], "SHOW TABLES after a crash inside DROP TABLE")
    check_table(conn, "t", prod.total, "after a crash inside DROP TABLE")
    eq(kh.show_job(conn, "j")["State"], "RUNNING", "the job after a crash inside DROP TABLE")
    prod.round(200)
    check_routine_load(conn, prod, "loading after a crash inside DROP TABLE")

    # A crash inside UNDROP TABLE: the table stays dropped (and can be restored later), with all its rows.
    kh.query(conn, "CREATE TABLE u (id BIGINT, amount INT)")
    kh.query(conn, "INSERT INTO u SELECT i, i % 997 FROM range(1, 1001) r(i)")
    kh.query(conn, "DROP TABLE u")
    offset = restart(srv, "undrop_table.inside=crash")
    conn = connect(srv)
    try:
        kh.query(conn, "UNDROP TABLE u")
    except Exception:  # noqa: BLE001
        pass
    wait_crashed(srv, offset, "undrop_table.inside")
    restart(srv)
    conn = connect(srv)
    eq(kh.query(conn, "SHOW TABLES"), [("t",)], "SHOW TABLES after a crash inside UNDROP TABLE")
    kh.query(conn, "UNDROP TABLE u")
    check_table(conn, "u", 1000, "u restored after the crash")
    prod.round(100)
    check_routine_load(conn, prod, "at the end")


# ---- Kafka pipe ---------------------------------------------------------------------------------------------------

def desc_pipe(conn, name: str) -> dict:
    return {k: v for k, v in kh.query(conn, f"DESC PIPE EXTENDED {name}")}


def pipe_status(conn, name: str) -> str:
    with conn.cursor() as cur:
        cur.execute(f"SHOW PIPES LIKE '{name}'")
        names = [d[0] for d in cur.description]
        return dict(zip(names, cur.fetchall()[0]))["status"]


def check_pipe(conn, prod: Producer, what: str, timeout: float = 60.0):
    kh.wait_rows(conn, "t", prod.total, timeout)
    check_table(conn, "t", prod.total, what)
    d = desc_pipe(conn, "p")
    eq(int(d["loaded_rows"]), prod.total, f"{what}: loaded_rows (committed with the rows)")
    eq(json.loads(d["next_offsets"]), {str(p): n for p, n in enumerate(prod.per_partition)}, f"{what}: next offsets")


@suite.test(timeout=200)
def test_kafka_pipe_phases(s):
    topic = kh.new_topic("cp_pipe", 2)
    prod = Producer(topic, 2, csv=False)
    srv = s.server()
    srv.start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE t (id BIGINT, amount INT)")
    kh.query(conn, f"""CREATE PIPE p BATCH_INTERVAL_IN_SECONDS = '1' BATCH_SIZE_PER_KAFKA_PARTITION = '50'
RESET_KAFKA_GROUP_OFFSETS = 'earliest'
AS COPY INTO t FROM (
    SELECT CAST(PARSE_JSON(value::STRING)['id'] AS BIGINT), CAST(PARSE_JSON(value::STRING)['amount'] AS INT)
    FROM READ_KAFKA('{kh.shared_broker().bootstrap}', '{topic}', '', 'cp_group', '', '', '', '', 'raw', 'raw', 0, map())
)""")
    for point, hit in [("kafka_pipe.after_fetch", 1), ("kafka_pipe.after_decode", 2),
                       ("kafka_pipe.inside_commit", 2), ("kafka_pipe.after_commit", 3)]:
        offset = restart(srv, f"{point}=crash:{hit}")
        prod.round(200)
        wait_crashed(srv, offset, point)
        restart(srv)
        check_pipe(connect(srv), prod, f"after a crash at {point}")

    # An injected commit error: the batch rolls back and the pipe fails (a task error that is not retriable);
    # resumed, it loads the rest exactly once.
    offset = restart(srv, "storage.commit.kafka_pipe=error:2")
    prod.round(200)
    wait_fired(srv, offset, "storage.commit.kafka_pipe")
    conn = connect(srv)
    kh.wait_until(lambda: pipe_status(conn, "p") == "FAILED", 30, "the pipe to fail")
    rows = kh.scalar(conn, "SELECT count(*) FROM t")
    eq(int(desc_pipe(conn, "p")["loaded_rows"]), rows, "failed pipe: progress and rows agree")
    kh.query(conn, "ALTER PIPE p SET PIPE_EXECUTION_PAUSED = false")
    check_pipe(conn, prod, "after the failed commit and the resume")

    # A crash inside ALTER PIPE (after the new definition is stored, before the pipe is regrouped): after the
    # restart the pipe has the new setting and goes on.
    offset = restart(srv, "alter_pipe.after_definition=crash")
    conn = connect(srv)
    try:
        kh.query(conn, "ALTER PIPE p SET BATCH_SIZE_PER_KAFKA_PARTITION = '70'")
    except Exception:  # noqa: BLE001
        pass
    wait_crashed(srv, offset, "alter_pipe.after_definition")
    restart(srv)
    conn = connect(srv)
    eq(json.loads(desc_pipe(conn, "p")["properties"])["BATCH_SIZE_PER_KAFKA_PARTITION"], "70",
       "DESC PIPE after a crash inside ALTER PIPE: the new setting")
    eq(pipe_status(conn, "p"), "RUNNING", "the pipe after a crash inside ALTER PIPE")
    prod.round(200)
    check_pipe(conn, prod, "at the end")


# ---- volume pipe --------------------------------------------------------------------------------------------------

@suite.test(timeout=150)
def test_volume_pipe_phases(s):
    folder = tempfile.mkdtemp(prefix="sluice-crashpoints-")
    try:
        state = {"files": 0}
        rows_per_file = 20

        def add_files(n):
            for _ in range(n):
                f = state["files"]
                write(f"{folder}/part-{f:04d}.csv",
                      "".join(f"{f * rows_per_file + r + 1},{(f * rows_per_file + r + 1) % 997}\n"
                              for r in range(rows_per_file)))
                state["files"] += 1

        def check_loaded(conn, what):
            n = state["files"]
            kh.wait_until(lambda: q(conn, "SELECT count(*) FROM __sluice.volume_loads")[0][0] >= n and
                          not os.listdir(folder), 60, f"{n} files loaded and purged")
            check_table(conn, "t", n * rows_per_file, what)
            eq(q(conn, "SELECT count(*), count(DISTINCT file_url), sum(rows_loaded) FROM __sluice.volume_loads"),
               [(n, n, n * rows_per_file)], f"{what}: one load record per file")

        srv = s.server()
        srv.start()
        conn = srv.connect()
        q(conn, "CREATE DATABASE d")
        q(conn, "USE d")
        q(conn, "CREATE TABLE t (id BIGINT, amount INT)")
        q(conn, f"CREATE VOLUME v LOCATION 'file://{folder}/'")
        # ON_ERROR = CONTINUE: each file in its own transaction
        q(conn, "CREATE PIPE vp BATCH_INTERVAL_IN_SECONDS = '1' INGEST_MODE = 'LIST_PURGE' "
                "AS COPY INTO t FROM VOLUME v USING CSV ON_ERROR = CONTINUE")
        for point, hit in [("volume_pipe.after_download", 2), ("volume_pipe.inside_commit", 3),
                           ("volume_pipe.before_purge", 2)]:
            offset = restart(srv, f"{point}=crash:{hit}")
            add_files(6)
            wait_crashed(srv, offset, point)
            restart(srv)
            check_loaded(connect(srv), f"after a crash at {point}")

        # An injected commit error: that file is not loaded (a FAILED load_history row), the pipe retries it.
        offset = restart(srv, "storage.commit.volume_pipe=error:2")
        add_files(6)
        wait_fired(srv, offset, "storage.commit.volume_pipe")
        conn = connect(srv)
        check_loaded(conn, "after a failed commit")
        eq(q(conn, "SELECT count(*) FROM load_history('d.t') WHERE status = 'FAILED'"), [(1,)],
           "the failed commit's load_history row")
        eq(q(conn, "SELECT count(*), sum(loaded_rows) FROM load_history('d.t') WHERE status = 'LOADED'"),
           [(state["files"], state["files"] * rows_per_file)], "one LOADED load_history row per file")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(kh.run_suite(suite))
