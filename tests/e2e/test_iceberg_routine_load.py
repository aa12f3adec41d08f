#!/usr/bin/python3
"""Routine loads into Iceberg tables, exactly once (issue 16, part 3), with real parts: PostgreSQL 15 (the JDBC
catalog), s3rver (the files), the test broker and npm's icebird (a reader Sluice did not write).

- test_load_into_partitioned_table: 4,000 JSON messages over a 4-partition topic into a table partitioned by
  day(ts); Sluice's SELECT and icebird both read count = distinct = produced and the same sums; the current
  snapshot's summary holds the job's offsets (sluice.offsets.<job id> = every partition's next offset); commit
  pacing keeps the snapshots few; SHOW ROUTINE LOAD / SHOW CREATE / PAUSE / RESUME / STOP work as for DuckDB
  tables; a user without INSERT on the Iceberg table cannot create the job; refused properties.
- test_error_rows_and_max_filter_ratio: error rows into an Iceberg table are weighed as into a DuckDB table
  (test_routine_load_faults.py's test_max_filter_ratio_aborts_the_task): a value that does not convert (strict_mode)
  and a NULL for the required id are error rows; a task above max_filter_ratio commits nothing (no snapshot, no progress, no
  rejected rows) and the job pauses; with a higher ratio and RESUME the good rows load in a snapshot whose summary
  holds the offsets past the bad ones, Sluice and icebird read exactly them, and the rejected rows are recorded.
- test_sigkill_at_commit_points: the server is SIGKILLed between the Parquet upload and the catalog commit
  (iceberg_load.after_upload) and between the catalog commit and the local progress update
  (iceberg_load.after_commit), and at random moments, restarting on the same data directory each time; at the
  end the table holds every message exactly once (no duplicates, no gaps), through Sluice and icebird.

    /usr/bin/python3 tests/e2e/test_iceberg_routine_load.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check, eq  # noqa: E402
from iceberg_harness import (  # noqa: E402
    BUCKET, event_message, icebird, metadata_location, produce_events, query_error, setup_lake, wait_count,
)
from pg_harness import Postgres  # noqa: E402
from s3_harness import S3rver  # noqa: E402

suite = TestSuite("test_iceberg_routine_load")
HERE = os.path.dirname(os.path.abspath(__file__))
PARTITIONS = 4






def check_table(c: Collector, conn, pg, s3, total: int, what: str):
    count, distinct, sum_id, sum_amount = kh.query(
        conn, "SELECT count(*), count(DISTINCT id), sum(id), sum(amount) FROM lake.db.events")[0]
    ids = range(1, total + 1)
    c.eq(count, total, f"{what}: count(*) through Sluice")
    c.eq(distinct, total, f"{what}: count(DISTINCT id) through Sluice")
    c.eq(int(sum_id or 0), sum(ids), f"{what}: sum(id) through Sluice")
    c.eq(int(sum_amount or 0), sum(i % 97 for i in ids), f"{what}: sum(amount) through Sluice")
    got = icebird(s3, f"s3://{BUCKET}/wh/db/events", metadata_location(pg))
    bird_ids = [int(r["id"]) for r in got["rows"]]
    c.eq(len(bird_ids), total, f"{what}: icebird's row count")
    c.eq(len(set(bird_ids)), total, f"{what}: icebird's distinct ids")
    c.eq(sum(bird_ids), sum(ids), f"{what}: icebird's sum(id)")
    c.eq(sum(int(r["amount"]) for r in got["rows"]), sum(i % 97 for i in ids), f"{what}: icebird's sum(amount)")
    return got


def job_id(conn, name: str) -> str:
    return kh.show_job(conn, name)["Id"]


@suite.test(timeout=400)
def test_load_into_partitioned_table(t):
    per = 1000
    total = PARTITIONS * per
    broker = kh.adopt_broker(kh.TestBroker({"ev": PARTITIONS}).start())
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        srv = t.server().start()
        conn = srv.connect()
        setup_lake(conn, pg, s3)
        # half before the job exists, half while it runs
        produce_events(broker, "ev", {p: [i for i in range(1, total + 1) if i % PARTITIONS == p][: per // 2]
                               for p in range(PARTITIONS)})
        create = f"""CREATE ROUTINE LOAD d.ev_job ON lake.db.events COLUMNS (id, name, ts, amount)
PROPERTIES ("format" = "json", "desired_concurrent_number" = "2", "max_batch_interval" = "0.5",
            "iceberg.commit_interval_seconds" = "2")
FROM KAFKA ("kafka_broker_list" = "{broker.bootstrap}", "kafka_topic" = "ev",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")"""

        # privileges: INSERT on the Iceberg table, as INSERT INTO lake.db.events needs
        kh.query(conn, "CREATE USER loader IDENTIFIED BY 'pw'")
        kh.query(conn, "GRANT SELECT ON ALL TABLES IN DATABASE lake.db TO USER loader")
        kh.query(conn, "GRANT CREATE TABLE ON DATABASE d TO USER loader")
        lcon = srv.connect(user="loader", password="pw")
        check("INSERT" in query_error(lcon, create), "a user without INSERT on lake.db.events cannot create the job")
        lcon.close()
        # refused: an unknown Iceberg table, an Iceberg-only property on a DuckDB table
        check("Unknown table" in query_error(conn, create.replace("lake.db.events", "lake.db.nope")),
              "an unknown Iceberg table")
        kh.query(conn, "CREATE TABLE d.plain (id BIGINT)")
        check("applies to loads into Iceberg tables" in query_error(
            conn, create.replace("lake.db.events", "plain").replace("COLUMNS (id, name, ts, amount)", "")),
            "iceberg.commit_interval_seconds on a DuckDB table")

        kh.query(conn, create)
        kh.wait_state(conn, "d.ev_job", "RUNNING", 60)
        produce_events(broker, "ev", {p: [i for i in range(1, total + 1) if i % PARTITIONS == p][per // 2:]
                               for p in range(PARTITIONS)})
        started = time.monotonic()
        n = wait_count(conn, total, 120)
        elapsed = time.monotonic() - started
        eq(n, total, "every message loaded")
        time.sleep(1.0)
        c = Collector()
        got = check_table(c, conn, pg, s3, total, "after the load")
        jid = job_id(conn, "d.ev_job")
        offsets = json.loads(got["summary"].get(f"sluice.offsets.{jid}", "{}"))
        c.eq(offsets, {str(p): per for p in range(PARTITIONS)},
             "the current snapshot's summary holds every partition's next offset")
        c.eq(got["summary"].get("sluice.job"), "d.ev_job", "and the job's name")
        # pacing: two task groups commit at most once per 2 s each after they caught up
        c.check(got["snapshots"] <= 2 * (elapsed / 2 + 2) + 4,
                f"{got['snapshots']} snapshots in {elapsed:.1f} s with commit_interval 2 s and 2 groups")
        files = [f for m in got["manifests"] for f in m["files"]]
        c.check(all("/data/ts_day=2024-05-0" in f["path"] for f in files), "data files laid out by day")
        job = kh.show_job(conn, "d.ev_job")
        c.eq(job["TableName"], "lake.db.events", "SHOW ROUTINE LOAD's TableName")
        c.eq(job["Progress"], {str(p): str(per - 1) for p in range(PARTITIONS)}, "Progress (the local cache)")
        c.eq(job["Statistic"]["loadedRows"], total, "Statistic.loadedRows")
        c.eq(job["JobProperties"].get("iceberg.commit_interval_seconds"), "2", "JobProperties shows the pacing")
        show_create = kh.query(conn, "SHOW CREATE ROUTINE LOAD d.ev_job")[0][1]
        c.check("ON `lake`.`db`.`events`" in show_create and '"iceberg.commit_interval_seconds" = "2"' in show_create,
                f"SHOW CREATE ROUTINE LOAD: {show_create}")
        # a user who may read the Iceberg table sees its job everywhere a job is shown
        lcon = srv.connect(user="loader", password="pw")
        c.eq([r[1] for r in kh.query(lcon, "SHOW ROUTINE LOAD FROM d")], ["ev_job"], "SHOW ROUTINE LOAD as loader")
        c.eq(kh.query(lcon, "SELECT NAME, TABLE_NAME FROM information_schema.routine_load_jobs"),
             [("ev_job", "lake.db.events")], "information_schema.routine_load_jobs as loader")
        lcon.close()
        status, body = srv.http_get("/api/jobs", auth=("loader", "pw"))
        c.eq(status, 200, "/api/jobs as loader")
        c.check('"ev_job"' in body, f"/api/jobs lists the job to loader: {body[:300]}")
        c.done()

        # PAUSE / RESUME / STOP as for DuckDB tables
        kh.query(conn, "PAUSE ROUTINE LOAD FOR d.ev_job")
        kh.wait_state(conn, "d.ev_job", "PAUSED", 30)
        check("cannot change the offsets" in query_error(
            conn, 'ALTER ROUTINE LOAD FOR d.ev_job FROM KAFKA ("kafka_partitions" = "0", "kafka_offsets" = "0")'),
            "ALTER cannot move the offsets the table holds")
        produce_events(broker, "ev", {0: [total + 4, total + 8]})  # ids total+4, total+8 ... land in partition 0
        time.sleep(2.0)
        eq(kh.scalar(conn, "SELECT count(*) FROM lake.db.events"), total, "nothing loaded while PAUSED")
        kh.query(conn, "RESUME ROUTINE LOAD FOR d.ev_job")
        kh.wait_state(conn, "d.ev_job", "RUNNING", 30)
        eq(wait_count(conn, total + 2, 60), total + 2, "loaded after RESUME")
        # a restart continues from the table's offsets: nothing again
        eq(srv.restart(signal.SIGTERM), 0, "exit code on SIGTERM")
        conn = srv.connect()
        kh.wait_state(conn, "d.ev_job", "RUNNING", 60)
        time.sleep(2.0)
        eq(kh.query(conn, "SELECT count(*), count(DISTINCT id) FROM lake.db.events")[0], (total + 2, total + 2),
           "nothing loaded twice after a restart")
        kh.query(conn, "STOP ROUTINE LOAD FOR d.ev_job")
        eq(kh.show_job(conn, "d.ev_job")["State"], "STOPPED", "STOP")
        conn.close()


@suite.test(timeout=300)
def test_error_rows_and_max_filter_ratio(t):
    broker = kh.adopt_broker(kh.TestBroker({"er": 1}).start())
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        srv = t.server().start()
        conn = srv.connect()
        setup_lake(conn, pg, s3)
        good = {0: 1, 3: 4}  # offset -> id
        bad = ['{"id": "x", "name": "a", "ts": "2024-05-01 00:00:00", "amount": 1}',
               '{"id": null, "name": "no id", "ts": "2024-05-01 00:00:00", "amount": 1}',
               '{"id": 7, "name": "g", "ts": "2024-05-01 00:00:00", "amount": "not-a-number"}']
        messages = [event_message(good[o]) if o in good else bad[o % 3] for o in range(10)]
        kh.produce(broker.bootstrap, "er", 0, messages)
        kh.query(conn, f"""CREATE ROUTINE LOAD d.er_job ON lake.db.events COLUMNS (id, name, ts, amount)
PROPERTIES ("format" = "json", "max_batch_interval" = "0.5", "iceberg.commit_interval_seconds" = "0",
            "max_filter_ratio" = "0.1", "max_error_number" = "1000", "strict_mode" = "true")
FROM KAFKA ("kafka_broker_list" = "{broker.bootstrap}", "kafka_topic" = "er",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
        job = kh.wait_state(conn, "d.er_job", "PAUSED", 60)
        c = Collector()
        c.eq(kh.scalar(conn, "SELECT count(*) FROM lake.db.events"), 0, "rows after the aborted task")
        c.eq(kh.scalar(conn, "SELECT count(*) FROM lake.db.events$snapshots"), 0, "no snapshot")
        c.eq((job["Statistic"]["abortedTaskNum"], job["Statistic"]["committedTaskNum"]), (1, 0), "task counts")
        c.eq(job["Progress"], {"0": "OFFSET_ZERO"}, "Progress (nothing committed)")
        c.contains(job["ReasonOfStateChanged"], "8 of 10 rows", "ReasonOfStateChanged")
        c.contains(job["ReasonOfStateChanged"], "max_filter_ratio", "ReasonOfStateChanged")
        c.eq(kh.rejected_rows(conn, "d", "er_job"), [], "rejected rows of an aborted task")
        c.done()

        kh.query(conn, 'ALTER ROUTINE LOAD FOR d.er_job PROPERTIES ("max_filter_ratio" = "0.9")')
        kh.query(conn, "RESUME ROUTINE LOAD FOR d.er_job")
        job = kh.wait_until(lambda: (lambda j: j if j["Statistic"]["totalRows"] == 10 else None)(
            kh.show_job(conn, "d.er_job")), 60, "totalRows 10")
        c = Collector()
        c.eq(job["State"], "RUNNING", "State after ALTER + RESUME")
        c.eq((job["Statistic"]["loadedRows"], job["Statistic"]["errorRows"]), (2, 8), "loaded / error rows")
        c.eq(job["Progress"], {"0": "9"}, "Progress")
        c.eq(sorted(kh.query(conn, "SELECT id FROM lake.db.events")), [(1,), (4,)], "the good rows through Sluice")
        got = icebird(s3, f"s3://{BUCKET}/wh/db/events", metadata_location(pg))
        c.eq(sorted(int(r["id"]) for r in got["rows"]), [1, 4], "the good rows through icebird")
        c.eq(json.loads(got["summary"].get(f"sluice.offsets.{job_id(conn, 'd.er_job')}", "{}")), {"0": 10},
             "the summary's offsets are past the bad rows")
        rejected = kh.rejected_rows(conn, "d", "er_job")
        c.eq([r["Offset"] for r in rejected], [o for o in range(10) if o not in good], "rejected offsets")
        c.check(any("id" in r["Reason"] for r in rejected), f"a reason names the column: {rejected[:2]}")
        c.eq(kh.query(conn, "SELECT status, sum(loaded_rows), sum(error_rows) FROM load_history('lake.db.events') "
                            "WHERE job_name = 'er_job' AND status <> 'FAILED' GROUP BY status"),
             [("PARTIALLY_LOADED", 2, 8)], "load_history names the table with its catalog")
        c.done()
        conn.close()


@suite.test(timeout=500)
def test_sigkill_at_commit_points(t):
    rounds = 6
    per = 2400
    total = PARTITIONS * per
    broker = kh.adopt_broker(kh.TestBroker({"eo": PARTITIONS}).start())
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        srv = t.server().start()
        conn = srv.connect()
        setup_lake(conn, pg, s3)
        by_p = {p: [i for i in range(1, total + 1) if i % PARTITIONS == p] for p in range(PARTITIONS)}
        chunk = per // rounds
        produce_events(broker, "eo", {p: ids[:chunk] for p, ids in by_p.items()})
        kh.query(conn, f"""CREATE ROUTINE LOAD d.eo_job ON lake.db.events COLUMNS (id, name, ts, amount)
PROPERTIES ("format" = "json", "desired_concurrent_number" = "2", "max_batch_interval" = "0.2",
            "max_batch_rows" = "700", "iceberg.commit_interval_seconds" = "0")
FROM KAFKA ("kafka_broker_list" = "{broker.bootstrap}", "kafka_topic" = "eo",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
        kh.wait_state(conn, "d.eo_job", "RUNNING", 60)
        # each restart arms one crash point, hit by the next commit of a task
        points = ["iceberg_load.after_upload", "iceberg_load.after_commit", "iceberg_load.after_upload:2",
                  "iceberg_load.after_commit:3", None]  # rounds - 1 of them
        history = []
        for r in range(1, rounds):
            # everything produced so far is in the table, then the next round meets the armed point
            eq(wait_count(conn, r * chunk * PARTITIONS, 120), r * chunk * PARTITIONS, f"round {r}: loaded so far")
            spec = points[r - 1]
            before = kh.scalar(conn, "SELECT count(*) FROM lake.db.events")
            if spec:
                name, _, n = spec.partition(":")
                srv.kill_process()
                srv.extra_env = {"SLUICE_TEST_POINTS": f"{name}=crash" + (f":{n}" if n else "")}
                srv.start()
                produce_events(broker, "eo", {p: ids[r * chunk:(r + 1) * chunk] for p, ids in by_p.items()})
                end = time.monotonic() + 60
                while srv.alive() and time.monotonic() < end:
                    time.sleep(0.1)
                check(not srv.alive(), f"round {r}: the server did not reach {spec}")
                srv.kill_process()
                srv.extra_env = {}
                srv.start()
            else:
                produce_events(broker, "eo", {p: ids[r * chunk:(r + 1) * chunk] for p, ids in by_p.items()})
                time.sleep(0.3)
                srv.restart(signal.SIGKILL)   # a kill at a random moment of the load
            conn = srv.connect()
            after, distinct = kh.query(conn, "SELECT count(*), count(DISTINCT id) FROM lake.db.events")[0]
            history.append((spec, before, after))
            eq(distinct, after, f"round {r} ({spec}): count(DISTINCT id) vs count(*) after the restart")
            kh.wait_state(conn, "d.eo_job", "RUNNING", 60)
        print(f"  (crash point, rows before, rows after): {history}", flush=True)
        n = wait_count(conn, total, 150)
        eq(n, total, "every message loaded after the kills")
        time.sleep(1.0)
        c = Collector()
        got = check_table(c, conn, pg, s3, total, "after the kills")
        jid = job_id(conn, "d.eo_job")
        offsets = json.loads(got["summary"].get(f"sluice.offsets.{jid}", "{}"))
        c.eq(offsets, {str(p): per for p in range(PARTITIONS)}, "the summary's offsets at the end")
        job = kh.wait_until(lambda: (lambda j: j if j["Progress"] == {str(p): str(per - 1) for p in range(PARTITIONS)}
                                     else None)(kh.show_job(conn, "d.eo_job")), 30, "Progress catches up")
        c.eq(job["State"], "RUNNING", "State at the end")
        c.done()
        conn.close()


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
