#!/usr/bin/python3
"""One-shot COPY INTO an Iceberg table from a volume, exactly once (issue 16, part 3), with real parts: PostgreSQL 15
(the JDBC catalog), s3rver (the volume's files and the table's) and npm's icebird (a reader Sluice did not write).

- test_copy_csv_and_json: CSV files and JSON-lines files of an S3 volume (and a CSV file through the transform form)
  loaded into lake.db.events (partitioned by day(ts)) by one snapshot per statement whose summary lists the statement's files (sluice.files.copy); running the
  COPY again loads nothing and commits nothing; after expire_snapshots (the snapshots that list the files are gone)
  it still loads nothing; a new file loads alone; a bad row fails the statement and commits nothing; ON_ERROR =
  CONTINUE is refused; FORCE = TRUE loads a file again; icebird reads exactly the rows Sluice reads.
- test_sigkill_copy: SIGKILL between the Parquet upload and the catalog commit (iceberg_load.after_upload), and
  right after the commit before the local records (iceberg_load.after_commit); COPY again after each restart:
  count = distinct = produced, through Sluice and icebird.

    /usr/bin/python3 tests/e2e/test_iceberg_volume_copy.py --server build/sluice
"""
from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Collector, TestSuite, check, eq  # noqa: E402
from iceberg_harness import check_events, error_of, q  # noqa: E402
from pg_harness import Postgres  # noqa: E402
from s3_harness import ACCESS_ID, ACCESS_KEY, S3rver  # noqa: E402

suite = TestSuite("test_iceberg_volume_copy")
BUCKET = "lake"
LANDING = "landing"
SECRET = "S3RVER"


def setup(cur, pg: Postgres, s3: S3rver):
    cur.execute(f"""CREATE EXTERNAL CATALOG lake PROPERTIES (
        "type" = "iceberg", "iceberg.catalog.type" = "jdbc", "iceberg.catalog.uri" = "{pg.uri}",
        "iceberg.catalog.warehouse" = "s3://{BUCKET}/wh", "aws.s3.endpoint" = "{s3.endpoint}",
        "aws.s3.access_key" = "{ACCESS_ID}", "aws.s3.secret_key" = "{SECRET}",
        "aws.s3.enable_path_style_access" = "true")""")
    cur.execute("CREATE DATABASE lake.db")
    cur.execute("CREATE TABLE lake.db.events (id BIGINT NOT NULL, name VARCHAR, ts DATETIME, amount INT) "
                "PARTITION BY (day(ts))")
    cur.execute(f"CREATE STORAGE CONNECTION s3c TYPE S3 ENDPOINT = '{s3.endpoint}' ACCESS_ID = '{ACCESS_ID}' "
                f"ACCESS_KEY = '{ACCESS_KEY}'")
    cur.execute(f"CREATE EXTERNAL VOLUME landing LOCATION 's3://{LANDING}/in/' USING CONNECTION s3c")


def row(i: int) -> tuple:
    return (i, f"n{i}", f"2024-05-0{1 + i % 3} 0{i % 10}:00:00", i % 97)


def put_csv(s3: S3rver, key: str, ids: list[int]):
    s3.put(LANDING, f"in/{key}", "".join(f"{a},{b},{c},{d}\n" for a, b, c, d in map(row, ids)).encode())


def put_json(s3: S3rver, key: str, ids: list[int]):
    lines = [json.dumps(dict(zip(("id", "name", "ts", "amount"), row(i)))) for i in ids]
    s3.put(LANDING, f"in/{key}", ("\n".join(lines) + "\n").encode())


def check_rows(c: Collector, cur, pg: Postgres, s3: S3rver, ids: list[int], what: str) -> dict:
    return check_events(c, cur, pg, s3, ids, what)


def snapshots(cur) -> int:
    return q(cur, "SELECT count(*) FROM lake.db.events$snapshots")[0][0]


def files_in(summary: dict) -> list[str]:
    return sorted(f["url"].rsplit("/", 1)[1] for f in json.loads(summary.get("sluice.files.copy", "[]")))


COPY_CSV = "COPY INTO lake.db.events FROM VOLUME landing USING CSV REGEXP '.*[.]csv'"
COPY_JSON = "COPY INTO lake.db.events FROM VOLUME landing USING JSON REGEXP '.*[.]jsonl'"


@suite.test(timeout=400)
def test_copy_csv_and_json(t):
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        s3.create_bucket(LANDING)
        server = suite.server().start()
        con = server.connect()
        cur = con.cursor()
        setup(cur, pg, s3)
        for k in range(3):
            put_csv(s3, f"a{k}.csv", list(range(k * 100 + 1, k * 100 + 101)))
        c = Collector()
        out = q(cur, COPY_CSV)
        c.eq(sorted((r[0], r[1], r[2]) for r in out), [(f"a{k}.csv", "LOADED", 100) for k in range(3)],
             "COPY INTO's rows: one per file")
        c.eq(snapshots(cur), 1, "one snapshot for the statement")
        got = check_rows(c, cur, pg, s3, list(range(1, 301)), "after the CSV copy")
        c.eq(files_in(got["summary"]), ["a0.csv", "a1.csv", "a2.csv"], "the snapshot's summary lists the files")
        c.done()

        # again: nothing new, no snapshot
        eq(q(cur, COPY_CSV), [], "COPY again loads nothing")
        eq(snapshots(cur), 1, "and commits nothing")

        # JSON lines, and one more CSV file: each statement's summary holds only its own files
        put_json(s3, "b0.jsonl", list(range(301, 351)))
        put_json(s3, "b1.jsonl", list(range(351, 401)))
        eq(sorted((r[0], r[2]) for r in q(cur, COPY_JSON)), [("b0.jsonl", 50), ("b1.jsonl", 50)], "the JSON files")
        put_csv(s3, "a3.csv", list(range(401, 421)))
        eq([(r[0], r[2]) for r in q(cur, COPY_CSV)], [("a3.csv", 20)], "only the new CSV file")
        c = Collector()
        got = check_rows(c, cur, pg, s3, list(range(1, 421)), "after the JSON copy and a new file")
        c.eq(files_in(got["summary"]), ["a3.csv"], "the newest snapshot lists only its own file")
        c.eq(snapshots(cur), 3, "three statements, three snapshots")
        c.done()

        # a bad row fails the statement, and nothing of it is committed; ON_ERROR = CONTINUE is refused
        put_csv(s3, "a4.csv", list(range(421, 431)))
        s3.put(LANDING, "in/a5.csv", b"431,n431,2024-05-01 00:00:00,1\nnot-a-number,x,2024-05-01 00:00:00,2\n")
        err = error_of(cur, COPY_CSV)
        check("a5.csv" in err and "nothing of the statement was committed" in err, f"a bad row: {err}")
        eq(snapshots(cur), 3, "the failed statement committed nothing")
        err = error_of(cur, COPY_CSV + " ON_ERROR = CONTINUE")
        check("ON_ERROR = CONTINUE is not supported yet for Iceberg tables" in err, f"ON_ERROR = CONTINUE: {err}")
        s3.delete(LANDING, "in/a5.csv")
        eq([(r[0], r[2]) for r in q(cur, COPY_CSV)], [("a4.csv", 10)], "with the bad file gone, the rest loads")

        # the table's snapshots that list the files expire: the local records still know them
        cur.execute("ALTER TABLE lake.db.events EXECUTE expire_snapshots(older_than = '2999-01-01 00:00:00', "
                    "retain_last = 1)")
        eq(snapshots(cur), 1, "expire_snapshots kept one snapshot")
        eq(q(cur, COPY_CSV) + q(cur, COPY_JSON), [], "expired snapshots do not make files load again")
        ids = list(range(1, 431))
        c = Collector()
        check_rows(c, cur, pg, s3, ids, "after expire_snapshots and COPY again")
        c.done()

        # the transform form: the SELECT list over the file's columns fills the table's by position
        put_csv(s3, "t0.txt", list(range(431, 441)))
        transform = ("COPY INTO lake.db.events FROM (SELECT CAST(column0 AS BIGINT), upper(column1), "
                     "CAST(column2 AS TIMESTAMP), CAST(column3 AS INT) FROM VOLUME landing USING CSV "
                     "FILES ('t0.txt') WHERE CAST(column0 AS BIGINT) % 2 = 0)")
        eq([(r[0], r[2]) for r in q(cur, transform)], [("t0.txt", 5)], "the transform form loads the even ids")
        eq(q(cur, "SELECT min(name), count(*) FROM lake.db.events WHERE id > 430"), [("N432", 5)],
           "with the SELECT list applied")
        eq(q(cur, transform), [], "and once")
        ids += [i for i in range(431, 441) if i % 2 == 0]

        # FORCE loads a file again (as for DuckDB tables); a user without INSERT cannot COPY
        eq([(r[0], r[2]) for r in q(cur, "COPY INTO lake.db.events FROM VOLUME landing USING CSV FILES ('a3.csv') "
                                         "FORCE = TRUE")], [("a3.csv", 20)], "FORCE = TRUE loads it again")
        eq(q(cur, "SELECT count(*), count(DISTINCT id) FROM lake.db.events")[0], (len(ids) + 20, len(ids)),
           "FORCE added the file's rows once more")
        cur.execute("CREATE USER reader IDENTIFIED BY 'pw'")
        cur.execute("GRANT SELECT ON TABLE lake.db.events TO USER reader")
        cur.execute("GRANT USAGE ON STORAGE VOLUME landing TO USER reader")
        rcon = server.connect(user="reader", password="pw")
        denied = error_of(rcon.cursor(), COPY_CSV)
        check("INSERT" in denied, f"a user without INSERT on lake.db.events: {denied}")
        rcon.close()
        con.close()


@suite.test(timeout=400)
def test_sigkill_copy(t):
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        s3.create_bucket(LANDING)
        server = suite.server().start()
        con = server.connect()
        setup(con.cursor(), pg, s3)
        con.close()
        produced: list[int] = []
        history = []
        for r, point in enumerate(["iceberg_load.after_upload", "iceberg_load.after_commit"]):
            ids = list(range(r * 1000 + 1, r * 1000 + 1001))
            for k in range(4):
                put_csv(s3, f"r{r}-{k}.csv", ids[k * 250:(k + 1) * 250])
            produced += ids
            server.kill_process()
            server.extra_env = {"SLUICE_TEST_POINTS": f"{point}=crash"}
            server.start()
            con = server.connect()
            try:
                con.cursor().execute(COPY_CSV)
            except Exception:  # noqa: BLE001  the server dies inside the statement
                pass
            end = time.monotonic() + 30
            while server.alive() and time.monotonic() < end:
                time.sleep(0.1)
            check(not server.alive(), f"the server did not reach {point}")
            server.kill_process()
            server.extra_env = {}
            server.start()
            con = server.connect()
            cur = con.cursor()
            before = q(cur, "SELECT count(*) FROM lake.db.events")[0][0]
            loaded = sum(x[2] for x in q(cur, COPY_CSV))
            history.append((point, before, loaded))
            c = Collector()
            check_rows(c, cur, pg, s3, produced, f"after a crash at {point} and COPY again")
            c.done()
            con.close()
        print(f"  (crash point, rows after the restart, rows the next COPY loaded): {history}", flush=True)
        eq(history, [("iceberg_load.after_upload", 0, 1000), ("iceberg_load.after_commit", 2000, 0)],
           "a crash before the commit loads the files again; one after it loads nothing twice")


if __name__ == "__main__":
    sys.exit(suite.run())
