#!/usr/bin/python3
"""Kafka pipes into Iceberg tables, exactly once (issue 16, part 3), with real parts: PostgreSQL 15 (the JDBC
catalog), s3rver (the files), the test broker and npm's icebird (a reader Sluice did not write).

- test_kafka_pipe_into_iceberg: `CREATE PIPE d.p AS COPY INTO lake.db.events FROM (SELECT ... FROM READ_KAFKA(...))`
  loads 2,000 JSON messages of a 4-partition topic into a table partitioned by day(ts); Sluice and icebird both
  read count = distinct = produced and the same sums; the current snapshot's summary holds the pipe's offsets
  (sluice.offsets.<pipe id>) and its name; SHOW PIPES / DESC PIPE / information_schema.pipes name the target with
  its catalog; a user without INSERT on the Iceberg table cannot create the pipe; DROP PIPE and CREATE PIPE with
  the same group go on from the offsets the table holds.
- test_kafka_pipe_max_errors: error rows into Iceberg tables as into DuckDB tables (test_kafka_pipes.py's
  test_max_errors_and_failed): within max errors (READ_KAFKA argument 11) bad rows are recorded and skipped and the
  good rows commit (Sluice and icebird), beyond it the batch commits nothing (no snapshot) and after
  MAX_SKIP_BATCH_COUNT_ON_ERROR batches the pipe is FAILED.
- test_sigkill_kafka_pipe: SIGKILL between the Parquet upload and the catalog commit (iceberg_load.after_upload),
  right after the commit (iceberg_load.after_commit) and at random moments, restarting on the same data directory;
  at the end the table holds every message exactly once, through Sluice and icebird.

    /usr/bin/python3 tests/e2e/test_iceberg_pipe.py --server build/sluice --testbroker build/tools/testbroker/testbroker
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
    BUCKET, icebird, metadata_location, produce_events, query_error, setup_lake, wait_count,
)
from pg_harness import Postgres  # noqa: E402
from s3_harness import S3rver  # noqa: E402

suite = TestSuite("test_iceberg_pipe")
PARTITIONS = 4






def create_pipe(name: str, bootstrap: str, topic: str, group: str, props: str, reset: str = "earliest") -> str:
    return f"""CREATE PIPE {name} BATCH_INTERVAL_IN_SECONDS = 1 RESET_KAFKA_GROUP_OFFSETS = '{reset}' {props}
AS COPY INTO lake.db.events FROM (
    SELECT CAST(PARSE_JSON(value::STRING)['id'] AS BIGINT) AS id,
           PARSE_JSON(value::STRING)['name']::STRING AS name,
           CAST(PARSE_JSON(value::STRING)['ts'] AS TIMESTAMP) AS ts,
           CAST(PARSE_JSON(value::STRING)['amount'] AS INT) AS amount
    FROM READ_KAFKA('{bootstrap}', '{topic}', '', '{group}', '', '', '', '', 'raw', 'raw', 0, map())
)"""


def bad_rows_pipe(name: str, table: str, bootstrap: str, topic: str, group: str, max_errors: int,
                  props: str = "") -> str:
    return (create_pipe(name, bootstrap, topic, group, "ICEBERG_COMMIT_INTERVAL_IN_SECONDS = 0 " + props)
            .replace("lake.db.events", table).replace("'raw', 'raw', 0, map()", f"'raw', 'raw', {max_errors}, map()"))


def pipe_rows(conn, like: str = "%") -> list[dict]:
    with conn.cursor() as cur:
        cur.execute(f"SHOW PIPES FROM d LIKE '{like}'")
        names = [x[0] for x in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]


def wait_running(conn, name: str, timeout: float = 60.0) -> dict:
    return kh.wait_until(lambda: next((r for r in pipe_rows(conn, name) if r["status"] == "RUNNING"), None), timeout,
                         f"pipe {name} to be RUNNING (now {pipe_rows(conn, name)})")


def pipe_id(conn, name: str) -> int:
    return int(kh.scalar(conn, f"SELECT PIPE_ID FROM information_schema.pipes WHERE DATABASE_NAME = 'd' AND "
                               f"PIPE_NAME = '{name}'"))


def check_table(c: Collector, conn, pg, s3, ids: list[int], what: str) -> dict:
    count, distinct, sum_id, sum_amount = kh.query(
        conn, "SELECT count(*), count(DISTINCT id), sum(id), sum(amount) FROM lake.db.events")[0]
    c.eq(count, len(ids), f"{what}: count(*) through Sluice")
    c.eq(distinct, len(ids), f"{what}: count(DISTINCT id) through Sluice")
    c.eq(int(sum_id or 0), sum(ids), f"{what}: sum(id) through Sluice")
    c.eq(int(sum_amount or 0), sum(i % 97 for i in ids), f"{what}: sum(amount) through Sluice")
    got = icebird(s3, f"s3://{BUCKET}/wh/db/events", metadata_location(pg))
    bird_ids = [int(r["id"]) for r in got["rows"]]
    c.eq(len(bird_ids), len(ids), f"{what}: icebird's row count")
    c.eq(len(set(bird_ids)), len(ids), f"{what}: icebird's distinct ids")
    c.eq(sum(bird_ids), sum(ids), f"{what}: icebird's sum(id)")
    c.eq(sum(int(r["amount"]) for r in got["rows"]), sum(i % 97 for i in ids), f"{what}: icebird's sum(amount)")
    return got


@suite.test(timeout=400)
def test_kafka_pipe_into_iceberg(t):
    per = 500
    total = PARTITIONS * per
    broker = kh.adopt_broker(kh.TestBroker({"ev": PARTITIONS}).start())
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        srv = t.server().start()
        conn = srv.connect()
        setup_lake(conn, pg, s3)
        by_p = {p: [i for i in range(1, total + 1) if i % PARTITIONS == p] for p in range(PARTITIONS)}
        produce_events(broker, "ev", {p: ids[: per // 2] for p, ids in by_p.items()})
        create = create_pipe("d.ev_pipe", broker.bootstrap, "ev", "g1", "ICEBERG_COMMIT_INTERVAL_IN_SECONDS = 2")

        # privileges: INSERT on the Iceberg table, as for routine loads and INSERT INTO lake.db.events
        kh.query(conn, "CREATE USER loader IDENTIFIED BY 'pw'")
        kh.query(conn, "GRANT SELECT ON ALL TABLES IN DATABASE lake.db TO USER loader")
        lcon = srv.connect(user="loader", password="pw")
        denied = query_error(lcon, create)
        check("INSERT" in denied and "events" in denied, f"a user without INSERT on lake.db.events: {denied}")
        lcon.close()
        # refused: an unknown Iceberg table, a SELECT alias that is not a column, pacing into a DuckDB table
        check("Unknown table" in query_error(conn, create.replace("lake.db.events", "lake.db.nope")),
              "an unknown Iceberg table")
        bad_alias = query_error(conn, create.replace("AS amount", "AS amt"))
        check("'amt' is not a column of table 'lake.db.events'" in bad_alias, f"a bad alias: {bad_alias}")
        kh.query(conn, "CREATE TABLE d.plain (id BIGINT, name VARCHAR, ts DATETIME, amount INT)")
        check("applies to pipes into Iceberg tables" in query_error(conn, create.replace("lake.db.events", "d.plain")),
              "ICEBERG_COMMIT_INTERVAL_IN_SECONDS into a DuckDB table")

        kh.query(conn, create)
        wait_running(conn, "ev_pipe")
        produce_events(broker, "ev", {p: ids[per // 2:] for p, ids in by_p.items()})
        started = time.monotonic()
        eq(wait_count(conn, total, 120), total, "every message loaded")
        elapsed = time.monotonic() - started
        time.sleep(1.0)
        c = Collector()
        got = check_table(c, conn, pg, s3, list(range(1, total + 1)), "after the load")
        jid = pipe_id(conn, "ev_pipe")
        offsets = json.loads(got["summary"].get(f"sluice.offsets.{jid}", "{}"))
        c.eq(offsets, {str(p): per for p in range(PARTITIONS)},
             "the current snapshot's summary holds every partition's next offset")
        c.eq(got["summary"].get("sluice.job"), "d.ev_pipe", "and the pipe's name")
        # pacing: each of the 4 task groups (one per partition) commits at most once per 2 s after it caught up
        c.check(got["snapshots"] <= PARTITIONS * (elapsed / 2 + 2) + 4,
                f"{got['snapshots']} snapshots in {elapsed:.1f} s, commit interval 2 s, {PARTITIONS} task groups")
        files = [f for m in got["manifests"] for f in m["files"]]
        c.check(all("/data/ts_day=2024-05-0" in f["path"] for f in files), "data files laid out by day")
        row = pipe_rows(conn, "ev_pipe")[0]
        c.eq((row["status"], row["pipe_kind"]), ("RUNNING", "READ_KAFKA"), "SHOW PIPES")
        c.check("COPY INTO lake.db.events FROM" in row["copy_statement"], f"copy_statement: {row['copy_statement']}")
        desc = dict(kh.query(conn, "DESC PIPE EXTENDED d.ev_pipe"))
        c.eq(desc["output_name"], "lake.db.events", "DESC PIPE output_name")
        c.eq(json.loads(desc["properties"]).get("ICEBERG_COMMIT_INTERVAL_IN_SECONDS"), "2", "DESC PIPE properties")
        c.eq(int(desc["loaded_rows"]), total, "DESC PIPE EXTENDED loaded_rows")
        c.eq(json.loads(desc["next_offsets"]), {str(p): per for p in range(PARTITIONS)}, "DESC PIPE next_offsets")
        c.eq(kh.query(conn, "SELECT PIPE_NAME, TABLE_NAME FROM information_schema.pipes WHERE DATABASE_NAME = 'd'"),
             [("ev_pipe", "lake.db.events")], "information_schema.pipes")
        # a user who may read the Iceberg table sees the pipe
        lcon = srv.connect(user="loader", password="pw")
        c.eq([r[0] for r in kh.query(lcon, "SHOW PIPES FROM d")], ["ev_pipe"], "SHOW PIPES as loader")
        lcon.close()
        c.done()

        # ALTER the pacing; then a restart continues from the table's offsets: nothing twice
        kh.query(conn, "ALTER PIPE d.ev_pipe SET ICEBERG_COMMIT_INTERVAL_IN_SECONDS = 0")
        eq(srv.restart(signal.SIGTERM), 0, "exit code on SIGTERM")
        conn = srv.connect()
        wait_running(conn, "ev_pipe")
        time.sleep(2.0)
        eq(kh.query(conn, "SELECT count(*), count(DISTINCT id) FROM lake.db.events")[0], (total, total),
           "nothing loaded twice after a restart")
        # DROP PIPE and CREATE PIPE with the same group go on where the table's offsets are
        kh.query(conn, "DROP PIPE d.ev_pipe")
        more = {p: [i for i in range(total + 1, total + 201) if i % PARTITIONS == p] for p in range(PARTITIONS)}
        produce_events(broker, "ev", more)
        # (RESET_KAFKA_GROUP_OFFSETS = 'none': the group's offsets, which the table holds, not the topic's start)
        kh.query(conn, create_pipe("d.ev_pipe2", broker.bootstrap, "ev", "g1", "", reset="none"))
        extra = sum(len(v) for v in more.values())
        eq(wait_count(conn, total + extra, 90), total + extra, "the new pipe loads what came after")
        time.sleep(1.5)
        c = Collector()
        ids = list(range(1, total + 1)) + [i for v in more.values() for i in v]
        got = check_table(c, conn, pg, s3, ids, "after DROP PIPE and CREATE PIPE")
        jid2 = pipe_id(conn, "ev_pipe2")
        c.eq(json.loads(got["summary"].get(f"sluice.offsets.{jid2}", "{}")),
             {str(p): per + len(more[p]) for p in range(PARTITIONS)}, "the new pipe's offsets in the summary")
        c.done()
        conn.close()


@suite.test(timeout=300)
def test_kafka_pipe_max_errors(t):
    broker = kh.adopt_broker(kh.TestBroker({"bad": 1}).start())
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        srv = t.server().start()
        conn = srv.connect()
        setup_lake(conn, pg, s3)
        msgs = [json.dumps({"id": i, "name": f"n{i}", "ts": "2024-05-01 00:00:00", "amount": i % 97})
                for i in range(1, 11)]
        msgs[3] = "not json at all"
        msgs[7] = '{"name": "no id", "ts": "2024-05-01 00:00:00", "amount": 1}'
        kh.produce(broker.bootstrap, "bad", 0, msgs)
        for name in ("tolerant", "strict"):
            kh.query(conn, f"CREATE TABLE lake.db.{name} (id BIGINT NOT NULL, name VARCHAR, ts DATETIME, amount INT)")
        kh.query(conn, bad_rows_pipe("d.tolerant_pipe", "lake.db.tolerant", broker.bootstrap, "bad", "g_t", 2))
        kh.query(conn, bad_rows_pipe("d.strict_pipe", "lake.db.strict", broker.bootstrap, "bad", "g_s", 1,
                                     "MAX_SKIP_BATCH_COUNT_ON_ERROR = '2'"))
        good = [i for i in range(1, 11) if i not in (4, 8)]
        eq(wait_count(conn, len(good), 60, table="lake.db.tolerant"), len(good), "the tolerant pipe's good rows")
        c = Collector()
        c.eq(sorted(r[0] for r in kh.query(conn, "SELECT id FROM lake.db.tolerant")), good, "through Sluice")
        got = icebird(s3, f"s3://{BUCKET}/wh/db/tolerant", metadata_location(pg, "tolerant"))
        c.eq(sorted(int(r["id"]) for r in got["rows"]), good, "through icebird")
        c.eq(json.loads(got["summary"].get(f"sluice.offsets.{pipe_id(conn, 'tolerant_pipe')}", "{}")), {"0": 10},
             "the summary's offsets are past the bad rows")
        ext = kh.wait_until(lambda: (lambda d: d if d.get("error_rows") == "2" else None)(
            dict(kh.query(conn, "DESC PIPE EXTENDED d.tolerant_pipe"))), 20, "error_rows 2")
        c.eq(ext["pipe_status"], "RUNNING", "the tolerant pipe runs")
        rejected = kh.query(conn, "SELECT RawData FROM __sluice.routine_load_rejected_rows WHERE JobName = "
                                  "'tolerant_pipe' ORDER BY \"Offset\"")
        c.eq([r[0] for r in rejected], [msgs[3], msgs[7]], "rejected rows keep the message value")
        c.eq([h[:3] for h in kh.query(conn, "SELECT status, loaded_rows, error_rows FROM "
                                            "load_history('lake.db.tolerant')")],
             [("PARTIALLY_LOADED", 8, 2)], "load_history of the tolerant pipe")

        failed = kh.wait_until(lambda: next((r for r in pipe_rows(conn, "strict_pipe") if r["status"] == "FAILED"),
                                            None), 40, "the strict pipe to fail")
        c.check("above max errors 1 (READ_KAFKA argument 11)" in failed["last_error"] and
                "MAX_SKIP_BATCH_COUNT_ON_ERROR 2" in failed["last_error"], f"last_error: {failed['last_error']}")
        c.eq(kh.scalar(conn, "SELECT count(*) FROM lake.db.strict"), 0, "nothing of the failing batch is committed")
        c.eq(kh.scalar(conn, "SELECT count(*) FROM lake.db.strict$snapshots"), 0, "no snapshot")
        c.eq(kh.query(conn, "SELECT DISTINCT status, loaded_rows, error_rows FROM load_history('lake.db.strict')"),
             [("FAILED", 0, 2)], "load_history of the failing batches")
        c.done()
        conn.close()


@suite.test(timeout=500)
def test_sigkill_kafka_pipe(t):
    rounds = 5
    per = 1200
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
        kh.query(conn, create_pipe("d.eo_pipe", broker.bootstrap, "eo", "g2",
                                   "BATCH_SIZE_PER_KAFKA_PARTITION = 150 ICEBERG_COMMIT_INTERVAL_IN_SECONDS = 0"))
        wait_running(conn, "eo_pipe")
        points = ["iceberg_load.after_upload", "iceberg_load.after_commit", "iceberg_load.after_upload:2", None]
        history = []
        for r in range(1, rounds):
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
                time.sleep(1.2)
                srv.restart(signal.SIGKILL)  # a kill at a random moment of the load
            conn = srv.connect()
            after, distinct = kh.query(conn, "SELECT count(*), count(DISTINCT id) FROM lake.db.events")[0]
            history.append((spec, before, after))
            eq(distinct, after, f"round {r} ({spec}): count(DISTINCT id) vs count(*) after the restart")
            wait_running(conn, "eo_pipe")
        print(f"  (crash point, rows before, rows after): {history}", flush=True)
        eq(wait_count(conn, total, 150), total, "every message loaded after the kills")
        time.sleep(1.0)
        c = Collector()
        got = check_table(c, conn, pg, s3, list(range(1, total + 1)), "after the kills")
        jid = pipe_id(conn, "eo_pipe")
        c.eq(json.loads(got["summary"].get(f"sluice.offsets.{jid}", "{}")), {str(p): per for p in range(PARTITIONS)},
             "the summary's offsets at the end")
        c.done()
        conn.close()


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
