#!/usr/bin/python3
"""Compaction of Iceberg tables (issue 16, table care): ALTER TABLE ... EXECUTE rewrite_data_files(...), with real
parts: PostgreSQL 15 (the JDBC catalog), s3rver (the files), the test broker and npm's icebird (a reader Sluice did
not write).

- test_rewrite_after_inserts: six INSERTs make six small files in each of three day partitions; rewrite_data_files
  merges them into one file per partition in one "replace" snapshot; count and sums are unchanged through Sluice
  and icebird, $files lists 3 files, the replaced entries are DELETED in the new manifests, time travel to the
  snapshot before still reads the same rows, a second rewrite has nothing to do, and after expire_snapshots the
  small files are gone from S3. Bad arguments are refused.
- test_rewrite_beside_routine_load: a routine load keeps committing while rewrite_data_files runs; the rewrite
  stalls after its upload (test point iceberg_rewrite.after_upload=sleep) until a load commit landed, so its first
  compare-and-swap loses and it commits on top; the replace snapshot carries the job's offsets, the load goes on
  exactly once: count = distinct = produced, through Sluice and icebird.
- test_automatic_care_policy: a server with --iceberg-care-check-seconds 1 and a table whose sluice.care.*
  properties ask for compaction at 4 small files, expiry of snapshots older than 0 s (keeping 1) and removal of
  orphans older than an hour: after four INSERTs the policy merges the 12 files into 3, expires the old snapshots
  (the small files leave S3) and removes a backdated orphan, with the rows unchanged through Sluice and icebird; catalog.db.t$care shows the runs (trigger 'policy'); a table without
  a policy is left alone and shows only its manual run; a malformed property is logged and skipped.

    /usr/bin/python3 tests/e2e/test_iceberg_compaction.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import json
import os
import re
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check, eq  # noqa: E402
from iceberg_harness import (  # noqa: E402
    BUCKET, event_message, icebird, metadata_location, query_error, setup_lake, wait_count,
)
from pg_harness import Postgres  # noqa: E402
from s3_harness import S3rver  # noqa: E402

suite = TestSuite("test_iceberg_compaction")




def s3_data_keys(s3: S3rver) -> list[str]:
    root = os.path.join(s3.data_dir, BUCKET)
    out = []
    for dirpath, _, names in os.walk(root):
        for n in names:
            if n.endswith("._S3rver_object"):
                key = os.path.relpath(os.path.join(dirpath, n[:-len("._S3rver_object")]), root)
                if key.startswith("wh/db/events/data/"):
                    out.append(key)
    return sorted(out)


def totals(conn) -> tuple:
    count, distinct, sum_id, sum_amount = kh.query(
        conn, "SELECT count(*), count(DISTINCT id), sum(id), sum(amount) FROM lake.db.events")[0]
    return int(count), int(distinct), int(sum_id or 0), int(sum_amount or 0)


def bird_totals(got: dict) -> tuple:
    ids = [int(r["id"]) for r in got["rows"]]
    return len(ids), len(set(ids)), sum(ids), sum(int(r["amount"]) for r in got["rows"])


def live_files(got: dict) -> list[dict]:
    return [f for m in got["manifests"] for f in m["files"] if f["status"] != 2]


@suite.test(timeout=300)
def test_rewrite_after_inserts(t):
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        srv = t.server().start()
        conn = srv.connect()
        setup_lake(conn, pg, s3, job_database=None)
        for k in range(6):  # each INSERT: one file in each of 3 day partitions
            kh.query(conn, f"INSERT INTO lake.db.events SELECT i, 'n' || i, TIMESTAMP '2024-05-01 10:00:00' + "
                           f"INTERVAL (i % 3) DAY, i % 97 FROM range({k * 200 + 1}, {(k + 1) * 200 + 1}) r(i)")
        ids = range(1, 1201)
        want = (1200, 1200, sum(ids), sum(i % 97 for i in ids))
        eq(totals(conn), want, "the rows before the rewrite")
        eq(kh.scalar(conn, "SELECT count(*) FROM lake.db.events$files"), 18, "18 small files before")
        before = kh.scalar(conn, "SELECT snapshot_id FROM lake.db.events$snapshots ORDER BY committed_at DESC, "
                                 "snapshot_id LIMIT 1")

        check("min_input_files must be at least 1" in query_error(
            conn, "ALTER TABLE lake.db.events EXECUTE rewrite_data_files(min_input_files = 0)"), "min_input_files 0")
        check("takes target_file_size_bytes, min_input_files, min_file_size_bytes, not nope" in query_error(
            conn, "ALTER TABLE lake.db.events EXECUTE rewrite_data_files(nope = 1)"), "an unknown argument")
        check("takes a whole number" in query_error(
            conn, "ALTER TABLE lake.db.events EXECUTE rewrite_data_files('big')"), "a string for a size")
        eq(kh.query(conn, "ALTER TABLE lake.db.events EXECUTE rewrite_data_files(min_input_files = 7)"),
           [(0, 0, 0, 0)], "six small files per partition are fewer than min_input_files = 7: nothing to do")

        r = kh.query(conn, "ALTER TABLE lake.db.events EXECUTE rewrite_data_files()")
        eq(r[0][:2], (18, 3), f"18 files rewritten into 3: {r}")
        check(r[0][2] > r[0][3] > 0, f"the merged files are smaller than the 18 they replace together: {r}")

        c = Collector()
        c.eq(totals(conn), want, "count, distinct, sums through Sluice after the rewrite")
        c.eq(kh.scalar(conn, "SELECT count(*) FROM lake.db.events$files"), 3, "one file per partition after")
        c.eq(kh.query(conn, "SELECT operation, summary['added-data-files'], summary['deleted-data-files'], "
                            "summary['total-data-files'], summary['total-records'] FROM lake.db.events$snapshots "
                            "ORDER BY committed_at DESC, snapshot_id LIMIT 1"),
             [("replace", "3", "18", "3", "1200")], "the replace snapshot's summary")
        got = icebird(s3, f"s3://{BUCKET}/wh/db/events", metadata_location(pg))
        c.eq(bird_totals(got), want, "icebird reads the same rows")
        c.eq(got["summary"].get("operation"), "replace", "icebird sees a replace snapshot")
        c.eq(len(live_files(got)), 3, "icebird: 3 live data files")
        c.eq(sum(1 for m in got["manifests"] for f in m["files"] if f["status"] == 2), 18,
             "icebird: the 18 replaced files are DELETED entries")
        c.eq(sorted(int(f["records"]) for f in live_files(got)), [400, 400, 400], "400 rows in each merged file")
        c.eq(kh.query(conn, f"SELECT count(*), sum(id) FROM lake.db.events FOR VERSION AS OF {before}"),
             [(1200, sum(ids))], "time travel to the snapshot before the rewrite reads the same rows")
        c.done()

        eq(kh.query(conn, "ALTER TABLE lake.db.events EXECUTE rewrite_data_files()"), [(0, 0, 0, 0)],
           "a second rewrite has nothing to do")
        # the small files stay as long as a kept snapshot reads them; expiring those snapshots deletes them
        eq(len(s3_data_keys(s3)), 21, "18 small + 3 merged files in S3 while old snapshots are kept")
        r = kh.query(conn, "ALTER TABLE lake.db.events EXECUTE expire_snapshots(older_than = '2100-01-01 00:00:00', "
                           "retain_last = 1)")
        eq((r[0][0], r[0][3]), (6, 18), f"6 snapshots expired, the 18 small files deleted: {r}")
        eq(len(s3_data_keys(s3)), 3, "only the merged files are left in S3")
        eq(totals(conn), want, "the rows after expire_snapshots")
        eq(bird_totals(icebird(s3, f"s3://{BUCKET}/wh/db/events", metadata_location(pg))), want,
           "icebird after expire_snapshots")



@suite.test(timeout=400)
def test_rewrite_beside_routine_load(t):
    partitions = 2
    broker = kh.adopt_broker(kh.TestBroker({"ev": partitions}).start())
    next_id = [1]

    def produce_round(n: int):
        ids = list(range(next_id[0], next_id[0] + n))
        next_id[0] += n
        for p in range(partitions):
            kh.produce(broker.bootstrap, "ev", p, [event_message(i) for i in ids if i % partitions == p])

            time.sleep(0.3)
        return n

    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        # the rewrite stalls 5 s between its upload and its commit, once: a load commits meanwhile
        srv = t.server(extra_env={"SLUICE_TEST_POINTS": "iceberg_rewrite.after_upload=sleep:5000"}).start()
        conn = srv.connect()
        setup_lake(conn, pg, s3, job_database=None)
        kh.query(conn, "CREATE DATABASE d")
        kh.query(conn, f"""CREATE ROUTINE LOAD d.ev_job ON lake.db.events COLUMNS (id, name, ts, amount)
PROPERTIES ("format" = "json", "max_batch_interval" = "0.5", "iceberg.commit_interval_seconds" = "1")
FROM KAFKA ("kafka_broker_list" = "{broker.bootstrap}", "kafka_topic" = "ev",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
        kh.wait_state(conn, "d.ev_job", "RUNNING", 60)
        for _ in range(6):  # six rounds, each committed on its own: many small files per day
            produce_round(300)
            eq(wait_count(conn, next_id[0] - 1, 60), next_id[0] - 1, "a round loaded")
            time.sleep(1.2)
        files_before = kh.scalar(conn, "SELECT count(*) FROM lake.db.events$files")
        check(files_before >= 15, f"{files_before} small files before the rewrite")
        jid = kh.show_job(conn, "d.ev_job")["Id"]

        outcome = {}

        def rewrite():
            try:
                wconn = srv.connect()
                outcome["rows"] = kh.query(wconn, "ALTER TABLE lake.db.events EXECUTE rewrite_data_files()")
                wconn.close()
            except Exception as e:  # noqa: BLE001
                outcome["error"] = str(e)

        worker = threading.Thread(target=rewrite)
        worker.start()
        time.sleep(1.0)  # the rewrite is reading and writing files, then stalls before its commit
        produce_round(300)
        loaded_during = wait_count(conn, next_id[0] - 1, 30)
        worker.join(90)
        check(not worker.is_alive(), "the rewrite finished")
        check("error" not in outcome, f"the rewrite succeeded: {outcome}")
        r = outcome["rows"][0]
        check(r[0] >= 15 and r[1] <= 3, f"the rewrite merged the small files: {r}")
        eq(loaded_during, next_id[0] - 1, "the load committed while the rewrite waited")
        attempts = re.findall(r"rewrote \d+ data file\(s\) into \d+ \(snapshot \d+, after (\d+) attempt",
                              srv.log_text())
        check(attempts and int(attempts[-1]) >= 2,
              f"the rewrite lost its first compare-and-swap to the load and committed on top: {attempts}")

        # the replace snapshot carries the job's offsets: the load goes on from there, exactly once
        carried = kh.query(conn, f"SELECT summary['sluice.offsets.{jid}'] FROM lake.db.events$snapshots "
                                 "WHERE operation = 'replace'")
        eq(len(carried), 1, "one replace snapshot")
        check(carried[0][0] is not None and sum(json.loads(carried[0][0]).values()) == next_id[0] - 1,
              f"its summary holds the job's offsets: {carried}")
        produce_round(300)
        total = next_id[0] - 1
        eq(wait_count(conn, total, 60), total, "the load goes on after the rewrite")
        time.sleep(1.5)
        ids = range(1, total + 1)
        want = (total, total, sum(ids), sum(i % 97 for i in ids))
        c = Collector()
        c.eq(totals(conn), want, "count = distinct = produced, sums, through Sluice")
        got = icebird(s3, f"s3://{BUCKET}/wh/db/events", metadata_location(pg))
        c.eq(bird_totals(got), want, "the same through icebird")
        files_after = kh.scalar(conn, "SELECT count(*) FROM lake.db.events$files")
        c.check(files_after < files_before, f"fewer files: {files_before} before, {files_after} after")
        c.done()
        kh.query(conn, "STOP ROUTINE LOAD FOR d.ev_job")


@suite.test(timeout=300)
def test_automatic_care_policy(t):
    def insert(table: str, k: int):
        kh.query(conn, f"INSERT INTO lake.db.{table} SELECT i, 'n' || i, TIMESTAMP '2024-05-01 10:00:00' + "
                       f"INTERVAL (i % 3) DAY, i % 97 FROM range({k * 100 + 1}, {(k + 1) * 100 + 1}) r(i)")

    def wait_for(fn, timeout: float, what: str):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if fn():
                return
            time.sleep(0.5)
        raise AssertionError(f"timed out waiting for {what}:\n{srv.log_tail(20)}")

    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        srv = t.server(extra_args=["--iceberg-care-check-seconds", "1"]).start()
        conn = srv.connect()
        setup_lake(conn, pg, s3, job_database=None)  # lake.db.events: no policy
        kh.query(conn, """CREATE TABLE lake.db.cared (id BIGINT NOT NULL, name VARCHAR, ts DATETIME, amount INT)
            PARTITION BY (day(ts)) PROPERTIES (
              "sluice.care.rewrite_data_files.min_input_files" = "4",
              "sluice.care.expire_snapshots.older_than_seconds" = "0",
              "sluice.care.expire_snapshots.retain_last" = "1",
              "sluice.care.remove_orphan_files.older_than_seconds" = "3600",
              "sluice.care.interval_seconds" = "1")""")
        # an orphan two hours old (a crashed load's upload): the policy's orphan removal takes it
        orphan_key = "wh/db/cared/data/ts_day=2024-05-01/orphan-0001.parquet"
        s3.put(BUCKET, orphan_key, b"PAR1 not really")
        old = time.time() - 7200
        os.utime(os.path.join(s3.data_dir, BUCKET, orphan_key + "._S3rver_object"), (old, old))
        kh.query(conn, """CREATE TABLE lake.db.odd (id BIGINT) PROPERTIES (
              "sluice.care.rewrite_data_files.min_input_files" = "many")""")
        for k in range(4):  # 4 small files per day partition: the policy merges them only once all four are there
            insert("cared", k)
            insert("events", k)
        ids = range(1, 401)
        want = (400, 400, sum(ids), sum(i % 97 for i in ids))

        wait_for(lambda: kh.scalar(conn, "SELECT count(*) FROM lake.db.cared$files") == 3, 60,
                 "the policy to merge the 12 files into 3")
        wait_for(lambda: kh.scalar(conn, "SELECT count(*) FROM lake.db.cared$snapshots") == 1, 30,
                 "the policy to expire every snapshot but the current one")
        c = Collector()
        c.eq(kh.query(conn, "SELECT count(*), count(DISTINCT id), sum(id), sum(amount) FROM lake.db.cared")[0],
             want, "the rows after the policy's care, through Sluice")
        loc = pg.psql("SELECT metadata_location FROM iceberg_tables WHERE table_name = 'cared'")[0][0]
        c.eq(bird_totals(icebird(s3, f"s3://{BUCKET}/wh/db/cared", loc)), want, "and through icebird")
        wait_for(lambda: orphan_key not in s3_objects(s3, "wh/db/cared/"), 30, "the policy to remove the orphan")
        data = [k for k in s3_objects(s3, "wh/db/cared/data/")]
        c.eq(len(data), 3, f"the small files left S3 with their snapshots: {data}")
        runs = kh.query(conn, "SELECT procedure, trigger, outcome, detail FROM lake.db.cared$care ORDER BY ran_at")
        c.check(any(r[0] == "rewrite_data_files" and r[1] == "policy" and r[2] == "ok" and
                    "rewritten_data_files=12, added_data_files=3" in r[3] for r in runs),
                f"$care shows the policy's rewrite: {runs}")
        c.check(any(r[0] == "expire_snapshots" and r[1] == "policy" and r[2] == "ok" and
                    "deleted_data_files=12" in r[3] for r in runs), f"and its expiry of the old files: {runs}")
        c.check(any(r[0] == "remove_orphan_files" and r[1] == "policy" and r[2] == "ok" and
                    r[3].startswith("removed_files=1") for r in runs), f"and its removal of the orphan: {runs}")
        c.check(orphan_key not in s3_objects(s3, "wh/db/cared/"), "the orphan left S3")
        c.eq(kh.scalar(conn, "SELECT count(*) FROM lake.db.events$files"), 12, "a table without a policy keeps its files")
        c.eq(kh.query(conn, "SELECT count(*) FROM lake.db.events$care"), [(0,)], "and has no care runs")
        c.check("sluice.care.rewrite_data_files.min_input_files = 'many' is not a whole number" in srv.log_text(),
                "a malformed policy property is logged")
        c.done()
        kh.query(conn, "ALTER TABLE lake.db.events EXECUTE expire_snapshots('2000-01-01 00:00:00')")
        eq(kh.query(conn, "SELECT procedure, trigger, outcome FROM lake.db.events$care"),
           [("expire_snapshots", "manual", "ok")], "a statement's care run is in $care too")

        # ALTER TABLE ... SET turns a policy on for a table that has none
        err = query_error(conn, 'ALTER TABLE lake.db.events SET ("sluice.care.rewrite_data_files.min_input_files" = "x")')
        check("is not a whole number" in err, f"a malformed policy value is refused at SET: {err}")
        err = query_error(conn, 'ALTER TABLE lake.db.events SET ("sluice.care.nonsense" = "1")')
        check("unknown table property sluice.care.nonsense" in err, f"an unknown policy key is refused: {err}")
        eq(kh.query(conn, 'ALTER TABLE lake.db.events SET ("sluice.care.rewrite_data_files.min_input_files" = "4", '
                          '"sluice.care.interval_seconds" = "1", "owner" = "shop")'), [(3,)], "three properties set")
        eq(kh.query(conn, 'ALTER TABLE lake.db.events SET ("owner" = "shop")'), [(0,)], "setting a value again changes nothing")
        create = kh.query(conn, "SHOW CREATE TABLE lake.db.events")[0][1]
        check('"sluice.care.rewrite_data_files.min_input_files" = "4"' in create and '"owner" = "shop"' in create,
              f"SHOW CREATE TABLE shows the new properties: {create}")
        wait_for(lambda: kh.scalar(conn, "SELECT count(*) FROM lake.db.events$files") == 3, 60,
                 "the policy set by ALTER TABLE to merge the 12 files into 3")
        eq(kh.query(conn, "SELECT count(*), count(DISTINCT id), sum(id), sum(amount) FROM lake.db.events")[0], want,
           "the rows after the policy's merge")
        loc = pg.psql("SELECT metadata_location FROM iceberg_tables WHERE table_name = 'events'")[0][0]
        got = icebird(s3, f"s3://{BUCKET}/wh/db/events", loc)
        eq(bird_totals(got), want, "and through icebird")


def s3_objects(s3: S3rver, prefix: str) -> list[str]:
    root = os.path.join(s3.data_dir, BUCKET)
    out = []
    for dirpath, _, names in os.walk(root):
        for n in names:
            if n.endswith("._S3rver_object"):
                key = os.path.relpath(os.path.join(dirpath, n[:-len("._S3rver_object")]), root)
                if key.startswith(prefix):
                    out.append(key)
    return sorted(out)


if __name__ == "__main__":
    sys.exit(kh.run_suite(suite))
