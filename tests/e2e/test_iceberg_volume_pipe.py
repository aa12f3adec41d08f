#!/usr/bin/python3
"""Volume pipes into Iceberg tables, exactly once (issue 16, part 3), with real parts: PostgreSQL 15 (the JDBC
catalog), s3rver (the volume's files and the table's) and npm's icebird (a reader Sluice did not write).

- test_volume_pipe_into_iceberg: `CREATE PIPE d.vp AS COPY INTO lake.db.events FROM VOLUME landing USING CSV ...`
  loads CSV files that arrive over time, one snapshot per task whose summary lists the task's files under
  sluice.files.<pipe id> (and sluice.job); Sluice and icebird read count = distinct = produced; every file is
  listed once over all snapshots; SHOW PIPES, DESC PIPE EXTENDED, information_schema.pipes / pipe_files and
  load_history agree; a file with a bad row is reported (last_error, an ERROR row) while the other files load;
  SUSPENDED loads nothing and a resume goes on; INGEST_MODE = 'LIST_PURGE' deletes the loaded files; a dropped
  table makes its pipe FAILED; CREATE PIPE needs INSERT on the table and USAGE on the volume.
- test_volume_pipe_on_error_continue: a pipe with ON_ERROR = CONTINUE loads the good rows of files with bad rows (a
  value that is not a number, a NULL for the required id) in one snapshot per task; Sluice and icebird read exactly
  the good rows; the rejected rows are in __sluice.volume_rejected_rows, load_history (PARTIALLY_LOADED, error_rows),
  pipe_files (FINISHED), DESC PIPE EXTENDED and the summary ("errors"); the pipe stays RUNNING with no last_error
  and never loads such a file again; a SIGKILL right after a commit (iceberg_load.after_commit) loads nothing
  twice, keeps the rejected rows (written just before the commit) and the records written from the table after the
  restart keep the files PARTIALLY_LOADED.
- test_sigkill_volume_pipe: SIGKILL between the Parquet upload and the catalog commit (iceberg_load.after_upload),
  right after the commit before the local records (iceberg_load.after_commit), and at a random moment, with new
  files before each; after each restart count = distinct = produced through Sluice and icebird, no file is listed
  twice in the table's snapshots, and the pipe's load_history / pipe_files hold each file once (the records a
  crash right after the commit left out are written from the table).

    /usr/bin/python3 tests/e2e/test_iceberg_volume_pipe.py --server build/sluice
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check, eq  # noqa: E402
from iceberg_harness import (  # noqa: E402
    BUCKET, check_events, crash_at, icebird, metadata_location, query_error, setup_lake, wait_count,
)
from pg_harness import Postgres  # noqa: E402
from s3_harness import ACCESS_ID, ACCESS_KEY, S3rver  # noqa: E402

suite = TestSuite("test_iceberg_volume_pipe")
LANDING = "landing"


def setup(conn, pg: Postgres, s3: S3rver):
    s3.create_bucket(BUCKET)
    s3.create_bucket(LANDING)
    setup_lake(conn, pg, s3)
    kh.query(conn, f"CREATE STORAGE CONNECTION s3c TYPE S3 ENDPOINT = '{s3.endpoint}' ACCESS_ID = '{ACCESS_ID}' "
                   f"ACCESS_KEY = '{ACCESS_KEY}'")
    kh.query(conn, f"CREATE EXTERNAL VOLUME landing LOCATION 's3://{LANDING}/in/' USING CONNECTION s3c")


def create_pipe(name: str, props: str = "INGEST_MODE = 'LIST'", table: str = "lake.db.events",
                where: str = "REGEXP '.*[.]csv'") -> str:
    return (f"CREATE PIPE {name} BATCH_INTERVAL_IN_SECONDS = '1' {props} AS COPY INTO {table} FROM VOLUME landing "
            f"USING CSV {where}")


def row(i: int) -> tuple:
    return (i, f"n{i}", f"2024-05-0{1 + i % 3} 0{i % 10}:00:00", i % 97)


def put_csv(s3: S3rver, key: str, ids: list[int]):
    s3.put(LANDING, f"in/{key}", "".join(f"{a},{b},{c},{d}\n" for a, b, c, d in map(row, ids)).encode())


def count(conn, table: str = "lake.db.events") -> int:
    return kh.scalar(conn, f"SELECT count(*) FROM {table}")


def pipe_row(conn, name: str) -> dict:
    with conn.cursor() as cur:
        cur.execute(f"SHOW PIPES FROM d LIKE '{name}'")
        names = [x[0] for x in cur.description]
        rows = [dict(zip(names, r)) for r in cur.fetchall()]
    return rows[0] if rows else {}


def pipe_id(conn, name: str) -> int:
    return int(kh.scalar(conn, f"SELECT PIPE_ID FROM information_schema.pipes WHERE DATABASE_NAME = 'd' AND "
                               f"PIPE_NAME = '{name}'"))


def check_rows(c: Collector, conn, pg: Postgres, s3: S3rver, ids: list[int], what: str) -> dict:
    return check_events(c, conn.cursor(), pg, s3, ids, what)


def files_by_snapshot(conn, jid: int) -> list[list[str]]:
    """The file names each snapshot of lake.db.events lists under sluice.files.<jid>, oldest first."""
    out = []
    for (value,) in kh.query(conn, f"SELECT summary['sluice.files.{jid}'] FROM lake.db.events$snapshots "
                                   "ORDER BY committed_at, snapshot_id"):
        if value:
            out.append(sorted(f["url"].rsplit("/", 1)[1] for f in json.loads(value)))
    return out


def pipe_files(conn, name: str) -> list[tuple]:
    return sorted(kh.query(conn, "SELECT FILE_NAME, LOAD_STATE, LOADED_ROWS FROM information_schema.pipe_files "
                                 f"WHERE DATABASE_NAME = 'd' AND PIPE_NAME = '{name}'"))


def landing_keys(s3: S3rver, prefix: str) -> list[str]:
    status, body = s3._request("GET", f"/{LANDING}?prefix={prefix}")
    check(status == 200, f"listing {LANDING}/{prefix}: HTTP {status}")
    text = body.decode()
    return sorted(part.split("</Key>")[0] for part in text.split("<Key>")[1:])


@contextlib.contextmanager
def lake_and_server():
    """PostgreSQL, s3rver and a server with the lake, the volume and database d set up: (pg, s3, server, conn)."""
    with Postgres() as pg, S3rver() as s3:
        server = suite.server().start()
        conn = server.connect()
        setup(conn, pg, s3)
        yield pg, s3, server, conn


@suite.test(timeout=400)
def test_volume_pipe_into_iceberg(t):
    with lake_and_server() as (pg, s3, server, conn):

        # privileges at CREATE PIPE: INSERT on the Iceberg table and USAGE on the volume, as for COPY INTO
        kh.query(conn, "CREATE USER reader IDENTIFIED BY 'pw'")
        kh.query(conn, "GRANT SELECT ON TABLE lake.db.events TO USER reader")
        kh.query(conn, "GRANT USAGE ON STORAGE VOLUME landing TO USER reader")
        kh.query(conn, "CREATE USER writer IDENTIFIED BY 'pw'")
        kh.query(conn, "GRANT INSERT ON TABLE lake.db.events TO USER writer")
        rcon = server.connect(user="reader", password="pw")
        denied = query_error(rcon, create_pipe("d.vp"))
        check("INSERT" in denied, f"a user without INSERT on lake.db.events: {denied}")
        rcon.close()
        wcon = server.connect(user="writer", password="pw")
        denied = query_error(wcon, create_pipe("d.vp"))
        check("USAGE" in denied and "landing" in denied, f"a user without USAGE on the volume: {denied}")
        wcon.close()
        check("Unknown table" in query_error(conn, create_pipe("d.vp", table="lake.db.nope")), "an unknown table")

        for k in range(3):
            put_csv(s3, f"a{k}.csv", list(range(k * 100 + 1, k * 100 + 101)))
        kh.query(conn, create_pipe("d.vp"))
        jid = pipe_id(conn, "vp")
        eq(wait_count(conn, 300, 60), 300, "the first files loaded")
        # files arrive over time: each listing that finds new files commits them in one snapshot
        ids = list(range(1, 301))
        for k in range(3, 6):
            put_csv(s3, f"a{k}.csv", list(range(k * 100 + 1, k * 100 + 101)))
            ids += list(range(k * 100 + 1, k * 100 + 101))
            eq(wait_count(conn, len(ids), 60), len(ids), f"file a{k}.csv loaded")
        time.sleep(2.5)  # listings that find nothing new commit nothing
        c = Collector()
        got = check_rows(c, conn, pg, s3, ids, "after six files over time")
        c.eq(got["summary"].get("sluice.job"), "d.vp", "the summary names the pipe")
        c.eq(sorted(f["url"].rsplit("/", 1)[1] for f in json.loads(got["summary"].get(f"sluice.files.{jid}", "[]"))),
             ["a5.csv"], "the current snapshot lists its task's file under sluice.files.<pipe id>")
        c.eq(json.loads(got["summary"][f"sluice.files.{jid}"])[0]["rows"], 100, "with its rows")
        listed = files_by_snapshot(conn, jid)
        c.eq(sorted(f for s in listed for f in s), [f"a{k}.csv" for k in range(6)], "every file listed once")
        c.eq(listed[-3:], [["a3.csv"], ["a4.csv"], ["a5.csv"]], "one snapshot per task that found files")
        c.eq(kh.scalar(conn, "SELECT count(*) FROM lake.db.events$snapshots"), len(listed), "and no other snapshot")
        row = pipe_row(conn, "vp")
        c.eq((row["status"], row["pipe_kind"], row["last_error"]), ("RUNNING", "VOLUME", ""), "SHOW PIPES")
        c.check("COPY INTO lake.db.events FROM VOLUME landing" in row["copy_statement"], "SHOW PIPES copy_statement")
        desc = dict(kh.query(conn, "DESC PIPE EXTENDED d.vp"))
        c.eq(desc["output_name"], "lake.db.events", "DESC PIPE output_name")
        c.eq((desc["loaded_files"], desc["loaded_rows"], desc["failed_loads"]), ("6", "600", "0"),
             "DESC PIPE EXTENDED counts")
        latency = json.loads(desc["pipe_latency"])["volume"]
        c.eq((latency["pendingFileCount"], latency["lastIngestedFilePath"]), (0, f"s3://{LANDING}/in/a5.csv"),
             "DESC PIPE pipe_latency")
        c.eq(kh.query(conn, "SELECT TABLE_NAME, PIPE_KIND FROM information_schema.pipes WHERE PIPE_NAME = 'vp'"),
             [("lake.db.events", "VOLUME")], "information_schema.pipes")
        c.eq(pipe_files(conn, "vp"), [(f"s3://{LANDING}/in/a{k}.csv", "FINISHED", 100) for k in range(6)],
             "information_schema.pipe_files")
        c.eq(kh.query(conn, "SELECT count(*), sum(loaded_rows) FROM load_history('lake.db.events') WHERE "
                            "job_name = 'vp' AND status = 'LOADED'"), [(6, 600)], "load_history")
        c.done()

        # files with a bad row (a value that is not a number; NULL into the required id): reported, nothing of them
        # loaded; the other new file still loads
        s3.put(LANDING, "in/b0.csv", b"601,n601,2024-05-01 00:00:00,1\nnot-a-number,x,2024-05-01 00:00:00,2\n")
        put_csv(s3, "b1.csv", list(range(611, 621)))
        s3.put(LANDING, "in/b2.csv", b"621,n621,2024-05-01 00:00:00,1\n,no-id,2024-05-01 00:00:00,2\n")
        ids += list(range(611, 621))
        eq(wait_count(conn, len(ids), 60), len(ids), "the good file loads beside the bad ones")
        err = kh.wait_until(lambda: pipe_row(conn, "vp")["last_error"], 30, "last_error to name a bad file")
        check("b0.csv" in err, f"last_error: {err}")
        eq(pipe_row(conn, "vp")["status"], "RUNNING", "a bad file does not stop the pipe at once")
        errors = [f for f in pipe_files(conn, "vp") if f[1] == "ERROR"]
        eq(sorted({f[0] for f in errors}), ["s3://landing/in/b0.csv", "s3://landing/in/b2.csv"],
           "pipe_files has the bad files' ERROR rows")
        time.sleep(1.5)
        eq(count(conn), len(ids), "nothing of the bad files is loaded")
        s3.delete(LANDING, "in/b0.csv")
        s3.delete(LANDING, "in/b2.csv")
        kh.wait_until(lambda: pipe_row(conn, "vp")["last_error"] == "", 30, "last_error to clear")

        # SUSPENDED loads nothing; resumed, it goes on
        kh.query(conn, "ALTER PIPE d.vp SET PIPE_EXECUTION_PAUSED = true")
        eq(pipe_row(conn, "vp")["status"], "SUSPENDED", "ALTER PIPE ... PAUSED = true")
        put_csv(s3, "c0.csv", list(range(701, 751)))
        time.sleep(2.5)
        eq(count(conn), len(ids), "a suspended pipe loads nothing")
        kh.query(conn, "ALTER PIPE d.vp SET PIPE_EXECUTION_PAUSED = false")
        ids += list(range(701, 751))
        eq(wait_count(conn, len(ids), 60), len(ids), "resumed, it loads the new file")
        c = Collector()
        check_rows(c, conn, pg, s3, ids, "after a bad file and a pause")
        c.eq(sorted(f for s in files_by_snapshot(conn, jid) for f in s),
             sorted([f"a{k}.csv" for k in range(6)] + ["b1.csv", "c0.csv"]), "every loaded file listed once")
        c.done()

        # LIST_PURGE into another table: the loaded files are deleted; a dropped table makes the pipe FAILED
        kh.query(conn, "CREATE TABLE lake.db.purged (id BIGINT NOT NULL, name VARCHAR, ts DATETIME, amount INT)")
        for k in range(2):
            put_csv(s3, f"p{k}.txt", list(range(1000 + k * 10, 1010 + k * 10)))
        kh.query(conn, create_pipe("d.pp", props="", table="lake.db.purged", where="REGEXP '.*[.]txt'"))
        eq(wait_count(conn, 20, 60, table="lake.db.purged"), 20, "LIST_PURGE pipe loaded its files")
        kh.wait_until(lambda: not [k for k in landing_keys(s3, "in/") if k.endswith(".txt")], 30,
                      "the loaded files to be deleted")
        check("in/a0.csv" in landing_keys(s3, "in/"), "the LIST pipe's files stay")
        pid = pipe_id(conn, "pp")
        purged = json.loads(icebird(s3, f"s3://{BUCKET}/wh/db/purged",
                                    metadata_location(pg, "purged"))["summary"][f"sluice.files.{pid}"])
        eq(sorted(f["url"] for f in purged), [f"s3://{LANDING}/in/p{k}.txt" for k in range(2)], "its summary's files")
        kh.query(conn, "DROP TABLE lake.db.purged")
        reason = kh.wait_until(lambda: pipe_row(conn, "pp").get("status") == "FAILED" and pipe_row(conn, "pp"), 30,
                               "the pipe of a dropped table to fail")["last_error"]
        check("lake.db.purged was dropped" in reason, f"the FAILED reason: {reason}")
        eq(pipe_row(conn, "vp")["status"], "RUNNING", "the other pipe runs on")
        conn.close()


def csv_with_bad_rows(ids: list[int], bad: list[str]) -> bytes:
    """CSV rows of `ids` with the `bad` lines after the first row."""
    lines = [",".join(map(str, row(i))) + "\n" for i in ids]
    return "".join(lines[:1] + [b + "\n" for b in bad] + lines[1:]).encode()


def rejected_rows(conn, prefix: str) -> list[tuple]:
    return kh.query(conn, "SELECT file_url, line, column_name FROM __sluice.volume_rejected_rows WHERE file_url "
                          f"LIKE 's3://{LANDING}/in/{prefix}%' ORDER BY file_url, line")


@suite.test(timeout=400)
def test_volume_pipe_on_error_continue(t):
    with lake_and_server() as (pg, s3, server, conn):
        s3.put(LANDING, "in/e0.csv", csv_with_bad_rows(list(range(1, 11)), ["7000,x,2024-05-01 00:00:00,not-a-number"]))
        s3.put(LANDING, "in/e1.csv", csv_with_bad_rows(list(range(11, 21)), [",no-id,2024-05-01 00:00:00,1"]))
        put_csv(s3, "e2.csv", list(range(21, 31)))
        kh.query(conn, create_pipe("d.vc", where="REGEXP '.*[.]csv' ON_ERROR = CONTINUE"))
        jid = pipe_id(conn, "vc")
        ids = list(range(1, 31))
        eq(wait_count(conn, len(ids), 60), len(ids), "the good rows of the files loaded")
        time.sleep(2.5)  # later listings find the files loaded: nothing more
        c = Collector()
        got = check_rows(c, conn, pg, s3, ids, "a pipe with ON_ERROR = CONTINUE")
        listed = {f["url"].rsplit("/", 1)[1]: (f["rows"], f.get("errors"))
                  for v in [got["summary"].get(f"sluice.files.{jid}", "[]")] for f in json.loads(v)}
        c.eq(listed, {"e0.csv": (10, 1), "e1.csv": (10, 1), "e2.csv": (10, None)},
             "one snapshot lists the three files with their rows and rejected rows")
        c.eq(kh.scalar(conn, "SELECT count(*) FROM lake.db.events$snapshots"), 1, "and it is the only snapshot")
        c.eq(rejected_rows(conn, "e"), [(f"s3://{LANDING}/in/e0.csv", 2, "amount"),
                                        (f"s3://{LANDING}/in/e1.csv", 0, "id")], "the rejected rows")
        c.eq(sorted(kh.query(conn, "SELECT source, status, loaded_rows, error_rows FROM load_history('lake.db.events') "
                                   "WHERE job_name = 'vc'")),
             [(f"s3://{LANDING}/in/e0.csv", "PARTIALLY_LOADED", 10, 1),
              (f"s3://{LANDING}/in/e1.csv", "PARTIALLY_LOADED", 10, 1),
              (f"s3://{LANDING}/in/e2.csv", "LOADED", 10, 0)], "load_history")
        c.eq(pipe_files(conn, "vc"), [(f"s3://{LANDING}/in/e{k}.csv", "FINISHED", 10) for k in range(3)],
             "pipe_files: each file FINISHED")
        row = pipe_row(conn, "vc")
        c.eq((row["status"], row["last_error"]), ("RUNNING", ""), "SHOW PIPES: running, no error")
        desc = dict(kh.query(conn, "DESC PIPE EXTENDED d.vc"))
        c.eq((desc["loaded_files"], desc["loaded_rows"], desc["failed_loads"]), ("3", "30", "0"),
             "DESC PIPE EXTENDED counts")
        c.done()

        # a SIGKILL right after the commit, before the local records: nothing loads twice, and the records written
        # from the table after the restart keep the files' rejected-row counts
        server.kill_process()
        s3.put(LANDING, "in/f0.csv", csv_with_bad_rows(list(range(31, 41)), ["y,bad,2024-05-01 00:00:00,1"]))
        put_csv(s3, "f1.csv", list(range(41, 51)))
        ids += list(range(31, 51))
        server.extra_env = {"SLUICE_TEST_POINTS": "iceberg_load.after_commit=crash"}
        server.start()
        crash_at(server, "iceberg_load.after_commit")
        conn = server.connect()
        before = count(conn)
        eq(before, len(ids), "the commit before the crash holds the new files' good rows")
        kh.wait_until(lambda: len(pipe_files(conn, "vc")) == 5, 60, "the records of the committed files")
        time.sleep(2.5)
        c = Collector()
        check_rows(c, conn, pg, s3, ids, "after a crash right after the commit")
        c.eq(sorted(f for s in files_by_snapshot(conn, jid) for f in s),
             ["e0.csv", "e1.csv", "e2.csv", "f0.csv", "f1.csv"], "every file listed once in the snapshots")
        c.eq(sorted(kh.query(conn, "SELECT source, status, loaded_rows, error_rows FROM load_history('lake.db.events') "
                                   "WHERE job_name = 'vc' AND source LIKE '%/f_.csv'")),
             [(f"s3://{LANDING}/in/f0.csv", "PARTIALLY_LOADED", 10, 1),
              (f"s3://{LANDING}/in/f1.csv", "LOADED", 10, 0)], "load_history written from the table")
        c.check("had no local load records" in server.log_text(), "the records were written from the table")
        c.eq(rejected_rows(conn, "f"), [(f"s3://{LANDING}/in/f0.csv", 2, "id")],
             "the rejected row, written before the commit, survives the crash once")
        c.eq(pipe_row(conn, "vc")["status"], "RUNNING", "the pipe runs")
        c.done()
        conn.close()


@suite.test(timeout=400)
def test_sigkill_volume_pipe(t):
    with lake_and_server() as (pg, s3, server, conn):
        kh.query(conn, create_pipe("d.vk"))
        jid = pipe_id(conn, "vk")
        conn.close()
        produced: list[int] = []
        files: list[str] = []
        history = []

        def put_round(r: int):
            ids = list(range(r * 1000 + 1, r * 1000 + 401))
            for k in range(4):
                put_csv(s3, f"r{r}-{k}.csv", ids[k * 100:(k + 1) * 100])
                files.append(f"r{r}-{k}.csv")
            produced.extend(ids)

        for r, point in enumerate(["iceberg_load.after_upload", "iceberg_load.after_commit", None]):
            if point:
                server.kill_process()
                put_round(r)
                server.extra_env = {"SLUICE_TEST_POINTS": f"{point}=crash"}
                server.start()
                crash_at(server, point)
            else:
                put_round(r)
                time.sleep(0.6)
                server.restart(signal.SIGKILL)  # a kill at a random moment of the load
            conn = server.connect()
            before, distinct = kh.query(conn, "SELECT count(*), count(DISTINCT id) FROM lake.db.events")[0]
            eq(distinct, before, f"after a crash at {point}: count(DISTINCT id) vs count(*)")
            eq(wait_count(conn, len(produced), 60), len(produced), f"after a crash at {point}: every file loaded")
            time.sleep(1.5)
            history.append((point, before, count(conn)))
            c = Collector()
            check_rows(c, conn, pg, s3, produced, f"after a crash at {point}")
            listed = [f for s in files_by_snapshot(conn, jid) for f in s]
            c.eq(sorted(listed), sorted(files), f"after a crash at {point}: every file listed once in the snapshots")
            c.eq(pipe_files(conn, "vk"), sorted((f"s3://{LANDING}/in/{f}", "FINISHED", 100) for f in files),
                 f"after a crash at {point}: pipe_files has each file once")
            desc = dict(kh.query(conn, "DESC PIPE EXTENDED d.vk"))
            c.eq((desc["loaded_files"], desc["loaded_rows"]), (str(len(files)), str(len(produced))),
                 f"after a crash at {point}: DESC PIPE EXTENDED")
            c.eq(pipe_row(conn, "vk")["status"], "RUNNING", f"after a crash at {point}: the pipe runs")
            if point == "iceberg_load.after_commit":
                c.check("had no local load records" in server.log_text(),
                        "the records the crash left out were written from the table")
            c.done()
            conn.close()
        print(f"  (crash point, rows after the restart, rows at the end): {history}", flush=True)
        eq([h[0:2] for h in history[:2]], [("iceberg_load.after_upload", 0), ("iceberg_load.after_commit", 800)],
           "a crash before the commit loads the files again; one after it keeps them, loaded once")


if __name__ == "__main__":
    sys.exit(suite.run())
