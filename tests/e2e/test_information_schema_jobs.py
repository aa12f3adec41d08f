#!/usr/bin/python3
"""information_schema's job views over jobs that load (docs/monitoring.md, "The same in SQL"; the shapes, filters,
masking and privileges are in tests/sql/routine_load/information_schema.test):

1. ROUTINE_LOAD_JOBS of a running routine load has the STATISTICS, PROGRESS, LATEST_SOURCE_POSITION and OFFSET_LAG
   SHOW ROUTINE LOAD gives, and once paused every column equals SHOW's; LOADS has its batches, whose SINK_ROWS add
   up to Statistic.loadedRows, with its rejected rows counted in FILTERED_ROWS.
2. A volume pipe over a local folder: PIPE_FILES has each file with its size, state and rows (a bad file ERROR with
   its error), PIPES' LOAD_STATUS counts them, LOADS has one PIPE row per file, a one-shot COPY INTO a COPY row;
   a user without privileges sees none of it.

    /usr/bin/python3 tests/e2e/test_information_schema_jobs.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import TestSuite, check, eq  # noqa: E402
from volume_harness import write  # noqa: E402

suite = TestSuite("test_information_schema_jobs")

# SHOW ROUTINE LOAD's column -> ROUTINE_LOAD_JOBS' column
SHOW_TO_VIEW = {"Id": "ID", "Name": "NAME", "CreateTime": "CREATE_TIME", "PauseTime": "PAUSE_TIME",
                "EndTime": "END_TIME", "DbName": "DB_NAME", "TableName": "TABLE_NAME", "State": "STATE",
                "DataSourceType": "DATA_SOURCE_TYPE", "CurrentTaskNum": "CURRENT_TASK_NUM",
                "JobProperties": "JOB_PROPERTIES", "DataSourceProperties": "DATA_SOURCE_PROPERTIES",
                "CustomProperties": "CUSTOM_PROPERTIES", "Statistic": "STATISTICS", "Progress": "PROGRESS",
                "TimestampProgress": "TIMESTAMP_PROGRESS", "ReasonOfStateChanged": "REASONS_OF_STATE_CHANGED",
                "ErrorLogUrls": "ERROR_LOG_URLS", "TrackingSQL": "TRACKING_SQL", "OtherMsg": "OTHER_MSG",
                "LatestSourcePosition": "LATEST_SOURCE_POSITION", "OffsetLag": "OFFSET_LAG"}


def rows(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]


def one(conn, sql):
    got = rows(conn, sql)
    eq(len(got), 1, f"one row from {sql}")
    return got[0]


def show_and_view(raw, job):
    return (one(raw, f"SHOW ROUTINE LOAD FOR {job}"),
            one(raw, f"SELECT * FROM information_schema.routine_load_jobs WHERE NAME = '{job}'"))


@suite.test(timeout=180)
def test_routine_load_jobs_and_loads_agree_with_show(s):
    b = kh.adopt_broker(kh.TestBroker({"m": 2}).start())
    for p in range(2):
        kh.produce(b.bootstrap, "m", p, [f"{i},v{i}" for i in range(p, 100, 2)] + [f"bad{p},x"])
    srv = s.server().start()
    conn = srv.connect()
    raw = srv.connect(raw_values=True)  # values as the server sent them: the view's and SHOW's text compare
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(raw, "USE d")
    kh.query(conn, "CREATE TABLE t (id bigint NOT NULL, v varchar(40)) DUPLICATE KEY(id)")
    kh.query(conn, f"""CREATE ROUTINE LOAD j ON t COLUMNS TERMINATED BY ",", COLUMNS (id, v)
PROPERTIES ("max_batch_interval" = "1", "max_error_number" = "10")
FROM KAFKA ("kafka_broker_list" = "{b.bootstrap}", "kafka_topic" = "m",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING", "property.sasl.password" = "hunter2")""")
    kh.wait_rows(conn, "t", 100, 60, job="j")
    kh.wait_until(lambda: kh.show_job(conn, "j")["Statistic"].get("errorRows") == 2, 30, "the 2 bad rows counted")
    kh.wait_until(lambda: kh.show_job(conn, "j")["OffsetLag"] == {"0": 0, "1": 0}, 30, "lag 0 on both partitions")

    # Running: the values that say how far the job got are SHOW's (a commit between the two reads would differ:
    # read again then).
    live = ["Statistic", "Progress", "LatestSourcePosition", "OffsetLag", "State", "Id", "DataSourceProperties"]
    for attempt in range(10):
        show, view = show_and_view(raw, "j")
        if all(show[c] == view[SHOW_TO_VIEW[c]] for c in live):
            break
        time.sleep(0.3)
    for c in live:
        eq(view[SHOW_TO_VIEW[c]], show[c], f"{SHOW_TO_VIEW[c]} of the running job equals SHOW's {c}")
    eq(view["STATE"], "RUNNING", "the job runs")
    eq(json.loads(view["STATISTICS"])["loadedRows"], 100, "STATISTICS.loadedRows")
    check("hunter2" not in json.dumps(view), f"the password never shows: {view}")

    # Paused, nothing moves: every column is SHOW's.
    kh.query(conn, "PAUSE ROUTINE LOAD FOR j")
    kh.wait_state(conn, "j", "PAUSED")
    kh.wait_until(lambda: kh.show_job(conn, "j")["CurrentTaskNum"] in ("0", 0), 30, "no task running")
    show, view = show_and_view(raw, "j")
    for c, v in SHOW_TO_VIEW.items():
        eq(view[v], show[c], f"{v} of the paused job equals SHOW's {c}")
    eq(rows(conn, "SELECT NAME FROM information_schema.routine_load_jobs WHERE STATE = 'PAUSED'"), [{"NAME": "j"}],
       "the paused job, by filter")

    # LOADS: the job's batches, as load_history has them
    loads = rows(conn, "SELECT TYPE, STATE, count(*) AS n, sum(SINK_ROWS) AS sink, sum(FILTERED_ROWS) AS filtered, "
                       "sum(SCAN_ROWS) AS scan, count(DISTINCT ID) AS ids, min(LABEL) AS label, "
                       "bool_and(LOAD_FINISH_TIME >= LOAD_START_TIME) AS ordered "
                       "FROM information_schema.loads WHERE JOB_NAME = 'j' GROUP BY TYPE, STATE")
    eq(len(loads), 1, f"one kind of load: {loads}")
    l = loads[0]
    eq((l["TYPE"], l["STATE"]), ("ROUTINE_LOAD", "FINISHED"), "committed routine load batches")
    eq(int(l["sink"]), json.loads(show["Statistic"])["loadedRows"], "SINK_ROWS add up to Statistic.loadedRows")
    eq(int(l["filtered"]), 2, "the bad rows are FILTERED_ROWS")
    eq(int(l["scan"]), 102, "SCAN_ROWS counts every row read")
    eq(l["ids"], l["n"], "each load has its own ID")
    check(l["label"].startswith("kafka://m/"), f"LABEL is the batch's source: {l['label']}")
    check(l["ordered"] in (1, True), "LOAD_FINISH_TIME is not before LOAD_START_TIME")
    # joined with the job it belongs to
    joined = one(conn, "SELECT j.NAME, sum(l.SINK_ROWS) AS sink FROM information_schema.routine_load_jobs j JOIN "
                       "information_schema.loads l ON l.JOB_NAME = j.NAME AND l.DB_NAME = j.DB_NAME GROUP BY j.NAME")
    eq((joined["NAME"], int(joined["sink"])), ("j", 100), "ROUTINE_LOAD_JOBS joined with LOADS")


@suite.test(timeout=150)
def test_volume_pipe_files_and_loads(s):
    srv = s.server().start()
    conn = srv.connect()
    folder = os.path.join(srv.root, "volume")  # removed with the server's directory
    good = "id,amount\n1,1.5\n2,2.5\n"
    write(os.path.join(folder, "a.csv"), good)
    write(os.path.join(folder, "bad.csv"), "id,amount\n3,3.5\nnot-a-number,1\n")
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE tv (id INT, amount DOUBLE)")
    kh.query(conn, f"CREATE VOLUME vol LOCATION 'file://{folder}/'")
    kh.query(conn, "CREATE PIPE vp BATCH_INTERVAL_IN_SECONDS = '1' INGEST_MODE = 'LIST' AS COPY INTO tv FROM VOLUME "
                   "vol USING CSV OPTIONS ('header' = 'true') ON_ERROR = ABORT")
    kh.wait_until(lambda: len(rows(conn, "SELECT 1 FROM information_schema.pipe_files")) == 2, 60,
                  "both files in PIPE_FILES")
    files = {os.path.basename(f["FILE_NAME"]): f for f in rows(
        conn, "SELECT FILE_NAME, FILE_SIZE, LOAD_STATE, LOADED_ROWS, ERROR_MSG, PIPE_NAME, FINISH_LOAD_TIME, "
              "LAST_MODIFIED FROM information_schema.pipe_files")}
    a = files["a.csv"]
    eq((a["LOAD_STATE"], a["LOADED_ROWS"], a["FILE_SIZE"], a["PIPE_NAME"]), ("FINISHED", 2, len(good), "vp"),
       "a.csv loaded")
    check(a["FILE_NAME"] == f"file://{folder}/a.csv", f"FILE_NAME is the file's URL: {a['FILE_NAME']}")
    check(a["FINISH_LOAD_TIME"] is not None and a["LAST_MODIFIED"] is not None, f"times: {a}")
    bad = files["bad.csv"]
    eq(bad["LOAD_STATE"], "ERROR", "bad.csv could not load")
    check(bool(bad["ERROR_MSG"]), f"bad.csv's error says what was wrong: {bad}")

    pipe = one(conn, "SELECT PIPE_NAME, TABLE_NAME, PIPE_KIND, LOAD_STATUS FROM information_schema.pipes")
    status = json.loads(pipe["LOAD_STATUS"])
    eq((pipe["PIPE_NAME"], pipe["TABLE_NAME"], status["loadedFiles"], status["loadedRows"]), ("vp", "tv", 1, 2),
       f"PIPES' LOAD_STATUS counts what PIPE_FILES lists: {status}")
    check(status["failedFiles"] >= 1, f"the failed file is counted: {status}")

    # a one-shot COPY INTO is a load too
    kh.query(conn, "COPY INTO tv FROM VOLUME vol USING CSV OPTIONS ('header' = 'true') FILES ('a.csv') FORCE = TRUE")
    kinds = {(r["TYPE"], r["STATE"], os.path.basename(r["LABEL"])): r for r in rows(
        conn, "SELECT TYPE, STATE, LABEL, SINK_ROWS, JOB_NAME FROM information_schema.loads")}
    check(("PIPE", "FINISHED", "a.csv") in kinds, f"the pipe's load of a.csv: {sorted(kinds)}")
    check(("PIPE", "CANCELLED", "bad.csv") in kinds, f"the pipe's failed load of bad.csv: {sorted(kinds)}")
    copy = kinds.get(("COPY", "FINISHED", "a.csv"))
    check(copy is not None and copy["SINK_ROWS"] == 2 and copy["JOB_NAME"] is None, f"the COPY INTO: {sorted(kinds)}")

    # a user without privileges sees none of it; with SELECT on the table, the pipe's files and loads
    kh.query(conn, "CREATE USER 'nobody'@'%' IDENTIFIED BY 'n-pw'")
    other = srv.connect(user="nobody", password="n-pw")
    for view in ("pipes", "pipe_files", "loads", "routine_load_jobs"):
        eq(kh.scalar(other, f"SELECT count(*) FROM information_schema.{view}"), 0, f"{view} for a user without rights")
    kh.query(conn, "GRANT SELECT ON d.tv TO 'nobody'@'%'")
    other = srv.connect(user="nobody", password="n-pw")
    eq(kh.scalar(other, "SELECT count(*) FROM information_schema.pipe_files"), 2, "pipe_files once granted")
    check(kh.scalar(other, "SELECT count(*) FROM information_schema.loads") >= 3, "loads once granted")


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
