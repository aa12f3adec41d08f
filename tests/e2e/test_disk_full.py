#!/usr/bin/python3
"""A full disk (issue 11, part 1): the data directory on a small tmpfs fills up during a JSON routine load, a Kafka
pipe and a volume pipe.

1. Every job leaves RUNNING with a reason that names the full disk and the directory (routine load: PAUSED; pipes:
   RUNNING with last_error, they go on by themselves); the storage log says it once; queries keep answering, and
   correctly: the routine load's table holds exactly the rows its committed progress says; no stack trace reaches a
   client or the log. A restart (SIGKILL) on the full disk starts and says so. Once the filesystem is enlarged, every
   job continues by itself and every table is exact (count = distinct = produced, sums equal).
2. A checkpoint that fails for lack of space (the test turns off the checkpointer's free-space check) makes DuckDB
   invalidate the database: queries fail with a clear error (no stack trace), jobs pause with the reason, and once
   there is room Sluice restarts itself, replays the WAL and the load ends exact.

Needs root (mount -t tmpfs); skips cleanly where mounting is refused.

    /usr/bin/python3 tests/e2e/test_disk_full.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check, contains, eq  # noqa: E402
from volume_harness import write  # noqa: E402

suite = TestSuite("test_disk_full")
# ~300-byte messages and rows, random so that DuckDB cannot compress them away: a few MiB fill the small disk.
def pad() -> str:
    return os.urandom(120).hex()


class SmallDisk:
    """A tmpfs of `mib` MiB the test mounts, enlarges and unmounts."""

    def __init__(self, mib: int):
        self.path = tempfile.mkdtemp(prefix="sluice-small-disk-")
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={mib}m,mode=0700", "tmpfs", self.path],
                           capture_output=True, text=True)
        self.mounted = r.returncode == 0
        self.error = r.stderr.strip()

    def resize(self, mib: int):
        subprocess.check_call(["mount", "-o", f"remount,size={mib}m", self.path])

    def free_mib(self) -> int:
        st = os.statvfs(self.path)
        return st.f_bavail * st.f_frsize >> 20

    def cleanup(self):
        if self.mounted:
            subprocess.run(["umount", "-l", self.path], capture_output=True)
        os.rmdir(self.path)


def small_disk_or_skip(mib: int) -> SmallDisk | None:
    disk = SmallDisk(mib)
    if not disk.mounted:
        print(f"SKIP: cannot mount a tmpfs here ({disk.error}); the disk-full story needs root")
        disk.cleanup()
        return None
    return disk


def json_messages(lo: int, hi: int) -> list[str]:
    return ['{"id": %d, "s": "%s"}' % (i, pad()) for i in range(lo, hi)]


def csv_file(lo: int, hi: int) -> str:
    return "id,s\n" + "".join(f"{i},{pad()}\n" for i in range(lo, hi))


def no_stack_trace(text: str, what: str):
    check("Stack Trace" not in text and "libduckdb" not in text, f"{what} has a DuckDB stack trace:\n{text[-2000:]}")


def exact(conn, table: str, ids: list[int], c: Collector):
    count, distinct, s = kh.query(conn, f"SELECT count(*), count(DISTINCT id), sum(id) FROM {table}")[0]
    c.eq(count, len(ids), f"{table}: count(*)")
    c.eq(distinct, len(ids), f"{table}: count(DISTINCT id)")
    c.eq(int(s or 0), sum(ids), f"{table}: sum(id)")


def pipe_row(conn, name: str) -> dict:
    with conn.cursor() as cur:
        cur.execute(f"SHOW PIPES LIKE '{name}'")
        names = [d[0] for d in cur.description]
        rows = [dict(zip(names, r)) for r in cur.fetchall()]
    check(len(rows) == 1, f"SHOW PIPES LIKE '{name}': {rows}")
    return rows[0]


def committed_rows(job: dict) -> int:
    """Rows a routine load has committed, by its progress: one row per message, offsets from 0 without gaps."""
    return sum(int(v) + 1 for v in job["Progress"].values() if v not in ("OFFSET_BEGINNING", "OFFSET_END"))


def connect_retrying(srv, timeout: float = 60.0, **kw):
    end = time.monotonic() + timeout
    while True:
        try:
            return srv.connect(**kw)
        except Exception:  # noqa: BLE001 -- the server restarts itself; any connection error means "not yet"
            if time.monotonic() > end:
                raise
            time.sleep(0.3)


@suite.test(timeout=300)
def full_disk_pauses_every_job_and_they_continue_exactly(s: TestSuite):
    disk = small_disk_or_skip(32)
    if disk is None:
        return
    b = kh.adopt_broker(kh.TestBroker({"events": 8, "logs": 4}).start())
    volume_dir = tempfile.mkdtemp(prefix="sluice-disk-full-files-")
    srv = s.server(data_dir=os.path.join(disk.path, "data"), extra_args=["--min-free-disk-mb", "4"]).start()
    try:
        conn = srv.connect()
        kh.query(conn, "CREATE DATABASE d")
        kh.query(conn, "USE d")
        for t in ("events", "logs", "files"):
            kh.query(conn, f"CREATE TABLE {t} (id bigint NOT NULL, s varchar(300)) DUPLICATE KEY(id)")
        kh.query(conn, f"""CREATE ROUTINE LOAD d.rl ON events PROPERTIES ("format" = "json", "max_batch_interval" = "0.3")
FROM KAFKA ("kafka_broker_list" = "{b.bootstrap}", "kafka_topic" = "events",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
        kh.query(conn, f"""CREATE PIPE kp BATCH_INTERVAL_IN_SECONDS = '1' AS COPY INTO logs FROM (
    SELECT PARSE_JSON(value::STRING)['id']::BIGINT, PARSE_JSON(value::STRING)['s']::STRING
    FROM READ_KAFKA('{b.bootstrap}', 'logs', '', 'kp_group', '', '', '', '', 'raw', 'raw', 0, map()))""")
        kh.query(conn, f"CREATE VOLUME vol LOCATION 'file://{volume_dir}/'")
        kh.query(conn, "CREATE PIPE vp BATCH_INTERVAL_IN_SECONDS = '1' AS COPY INTO files FROM VOLUME vol "
                       "USING CSV OPTIONS ('header' = 'true')")

        # A first small batch loads normally.
        events, logs, files = [], [], []
        per = 250
        for p in range(8):
            b.produce("events", p, json_messages(p * per, (p + 1) * per))
        events += list(range(0, 8 * per))
        for p in range(4):
            b.produce("logs", p, json_messages(p * per, (p + 1) * per))
        logs += list(range(0, 4 * per))
        write(f"{volume_dir}/f000.csv", csv_file(0, 500))
        files += list(range(0, 500))
        kh.wait_rows(conn, "events", len(events), 60, job="rl")
        kh.wait_until(lambda: kh.scalar(conn, "SELECT count(*) FROM logs") == len(logs), 60, "the Kafka pipe loads")
        kh.wait_until(lambda: kh.scalar(conn, "SELECT count(*) FROM files") == len(files), 60, "the volume pipe loads")

        # Then more than the disk holds: about 60 MiB of rows for a 32 MiB disk.
        per = 12000
        for p in range(8):
            b.produce("events", p, json_messages(100_000 + p * per, 100_000 + (p + 1) * per))
            events += list(range(100_000 + p * per, 100_000 + (p + 1) * per))
        for p in range(4):
            b.produce("logs", p, json_messages(100_000 + p * per, 100_000 + (p + 1) * per))
            logs += list(range(100_000 + p * per, 100_000 + (p + 1) * per))
        for f in range(1, 16):
            write(f"{volume_dir}/f{f:03d}.csv", csv_file(f * 10_000, f * 10_000 + 3000))
            files += list(range(f * 10_000, f * 10_000 + 3000))

        def all_waiting_for_disk():
            job = kh.show_job(conn, "rl")
            kp, vp = pipe_row(conn, "kp"), pipe_row(conn, "vp")
            return (job["State"] == "PAUSED" and "disk full" in job["ReasonOfStateChanged"] and
                    "disk full" in str(kp.get("last_error")) and "disk full" in str(vp.get("last_error")))
        kh.wait_until(all_waiting_for_disk, 90, "every job waits for the disk")
        job = kh.show_job(conn, "rl")
        c = Collector()
        c.contains(job["ReasonOfStateChanged"], os.path.join(disk.path, "data"), "the reason names the directory")
        c.contains(job["ReasonOfStateChanged"], "resumes by itself", "the reason says what happens next")
        # An account without administrator rights that may see the job reads the same reason without the server's
        # path (DESIGN.md decision 10); the log keeps it.
        kh.query(conn, "CREATE USER 'watcher'@'%' IDENTIFIED BY 'pw'")
        kh.query(conn, "GRANT SELECT ON d.events TO 'watcher'@'%'")
        watcher = srv.connect(user="watcher", password="pw", database="d")
        seen = kh.show_job(watcher, "rl")["ReasonOfStateChanged"]
        c.contains(seen, "disk full", "the watcher reads why the job waits")
        c.contains(seen, "<data directory>", "in place of the path")
        c.check(disk.path not in seen, f"no server path for the watcher: {seen!r}")
        watcher.close()
        # The HTTP API shows the watcher the same: the job's reason without the path; root sees it.
        for path in ("/api/jobs", "/api/jobs/d/rl"):
            status, body = srv.http_get(path, auth=("watcher", "pw"))
            c.eq(status, 200, f"the watcher's GET {path}")
            c.contains(body, "<data directory>", f"the watcher's {path}: the reason without the path")
            c.check(disk.path not in body, f"no server path in the watcher's {path}: {body[:600]!r}")
        status, body = srv.http_get("/api/jobs/d/rl")
        c.contains(body, os.path.join(disk.path, "data"), "root's /api/jobs/d/rl names the directory")
        c.check(disk.path in srv.log_text(), "the log names the directory")
        kp, vp = pipe_row(conn, "kp"), pipe_row(conn, "vp")
        c.eq(kp.get("status"), "RUNNING", "a Kafka pipe waiting for the disk is not FAILED")
        c.eq(vp.get("status"), "RUNNING", "a volume pipe waiting for the disk is not FAILED")
        c.done()

        # Queries answer, and correctly: the table holds exactly what the committed progress says, whatever the
        # moment (a few reads, a second apart).
        for _ in range(3):
            job = kh.show_job(conn, "rl")
            count, distinct = kh.query(conn, "SELECT count(*), count(DISTINCT id) FROM events")[0]
            eq(count, committed_rows(job), "rows in the table = rows the committed progress accounts for")
            eq(distinct, count, "no row twice")
            time.sleep(1)
        loaded = sum(kh.scalar(conn, f"SELECT count(*) FROM {t}") for t in ("events", "logs", "files"))
        check(loaded < len(events) + len(logs) + len(files), "the disk filled before the loads ended (the test needs it)")
        log = srv.log_text()
        no_stack_trace(log, "the server log")
        storage_errors = [line for line in log.splitlines() if "ERROR [storage]" in line]
        eq(len(storage_errors), 1, f"the full disk is logged once by storage: {storage_errors}")
        contains(storage_errors[0], "disk", "the storage error")
        files_left = sorted(os.listdir(volume_dir))
        check(files_left, "volume files whose load did not commit are still there (LIST_PURGE deletes after commit)")

        # A restart on the full disk starts, and says so.
        srv.kill_process()
        srv.start()
        conn = srv.connect(database="d")
        kh.wait_until(lambda: "disk full" in kh.show_job(conn, "rl")["ReasonOfStateChanged"], 30,
                      "after a restart on the full disk the job waits for it again")
        contains(srv.log_text().split("==== start 2")[-1], "disk", "the restarted server's log")
        count = kh.scalar(conn, "SELECT count(*) FROM events")
        eq(count, committed_rows(kh.show_job(conn, "rl")), "after the restart: rows = committed progress")

        # Room again: everything continues by itself and ends exact.
        disk.resize(512)
        kh.wait_rows(conn, "events", len(events), 120, job="rl")
        kh.wait_until(lambda: kh.scalar(conn, "SELECT count(*) FROM logs") >= len(logs), 120, "the Kafka pipe ends")
        kh.wait_until(lambda: kh.scalar(conn, "SELECT count(*) FROM files") >= len(files), 120, "the volume pipe ends")
        time.sleep(1.5)  # one more round of every job: nothing more may arrive
        c = Collector()
        exact(conn, "events", events, c)
        exact(conn, "logs", logs, c)
        exact(conn, "files", files, c)
        c.eq(kh.show_job(conn, "rl")["State"], "RUNNING", "the routine load runs again")
        c.eq(pipe_row(conn, "kp").get("last_error") or "", "", "the Kafka pipe's last_error is cleared")
        c.eq(sorted(os.listdir(volume_dir)), [], "every loaded volume file is purged")
        c.done()
        no_stack_trace(srv.log_text(), "the server log")
    finally:
        srv.kill_process()  # the suite shows its log on failure, then removes it
        disk.cleanup()


@suite.test(timeout=300)
def invalidated_database_is_reopened_and_nothing_is_lost(s: TestSuite):
    disk = small_disk_or_skip(14)
    if disk is None:
        return
    b = kh.adopt_broker(kh.TestBroker({"events": 8}).start())
    srv = s.server(data_dir=os.path.join(disk.path, "data"),
                       extra_args=["--min-free-disk-mb", "1", "--checkpoint-wal-mb", "3"])
    srv_env = srv.environment

    def env_with_checkpoint_fault():
        e = srv_env()
        e["SLUICE_TEST_CHECKPOINT_IGNORES_FREE_SPACE"] = "1"
        return e
    srv.environment = env_with_checkpoint_fault
    srv.start()
    try:
        conn = srv.connect()
        kh.query(conn, "CREATE DATABASE d")
        kh.query(conn, "USE d")
        kh.query(conn, "CREATE TABLE events (id bigint NOT NULL, s varchar(300)) DUPLICATE KEY(id)")
        events = []
        per = 10000
        for p in range(8):
            b.produce("events", p, json_messages(p * per, (p + 1) * per))
            events += list(range(p * per, (p + 1) * per))
        kh.query(conn, f"""CREATE ROUTINE LOAD d.rl ON events PROPERTIES ("format" = "json", "max_batch_interval" = "0.3")
FROM KAFKA ("kafka_broker_list" = "{b.bootstrap}", "kafka_topic" = "events",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
        kh.wait_until(lambda: "DuckDB stopped the database" in srv.log_text(), 90,
                      "a checkpoint fails for lack of space and DuckDB invalidates the database")
        error = ""
        try:
            kh.query(conn, "SELECT count(*) FROM events")
        except Exception as e:  # noqa: BLE001 -- the error text is what is checked
            error = str(e)
        c = Collector()
        c.contains(error, "the database stopped after a failed write", "a query on the invalidated database")
        c.contains(error, "Nothing committed is lost", "the error says what happens")
        c.check("Stack Trace" not in error, f"no stack trace to the client: {error}")
        show_error = ""
        try:
            kh.show_job(conn, "rl")
        except Exception as e:  # noqa: BLE001
            show_error = str(e)
        c.contains(show_error, "the database stopped after a failed write", "SHOW ROUTINE LOAD on it")
        c.check("Stack Trace" not in show_error, f"no stack trace: {show_error}")
        c.done()
        pid = srv.proc.pid
        disk.resize(512)
        kh.wait_until(lambda: "restarting to reopen the database" in srv.log_text(), 30, "Sluice reopens the database")
        eq(srv.proc.pid, pid, "the same process (it restarts itself in place)")
        check(srv.proc.poll() is None, "the server runs")
        conn = connect_retrying(srv, database="d")
        kh.wait_rows(conn, "events", len(events), 120, job="rl")
        time.sleep(1)
        c = Collector()
        exact(conn, "events", events, c)
        c.eq(kh.show_job(conn, "rl")["State"], "RUNNING", "the job runs again")
        c.done()
        no_stack_trace(srv.log_text(), "the server log")
    finally:
        srv.kill_process()  # the suite shows its log on failure, then removes it
        disk.cleanup()


if __name__ == "__main__":
    sys.exit(kh.run_suite(suite))
