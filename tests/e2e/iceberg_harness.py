"""Reading Iceberg tables back with npm icebird, an Iceberg reader Sluice did not write (tests/clients/icebird_read.mjs
maps s3:// to the s3rver endpoint given)."""
from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import time

import kafka_harness as kh
from s3_harness import ACCESS_ID, S3rver

BUCKET = "lake"
SECRET = "S3RVER"

CLIENTS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients"))


def icebird(s3: S3rver, table_location: str, metadata_location: str) -> dict:
    """The table as icebird reads it from `metadata_location` (its rows and snapshot summary, as JSON)."""
    name = metadata_location.rsplit("/", 1)[1]
    r = subprocess.run(["node", os.path.join(CLIENTS, "icebird_read.mjs"), s3.endpoint, table_location, name],
                       capture_output=True, text=True, timeout=120, cwd=CLIENTS)
    if r.returncode != 0:
        raise AssertionError(f"icebird failed: {r.stderr}")
    return json.loads(r.stdout)


def cache_dir(server) -> str:
    """The server's read cache of Iceberg data files (under its data directory)."""
    found = glob.glob(os.path.join(server.data_dir, "**", "iceberg-cache"), recursive=True)
    if len(found) != 1:
        raise AssertionError(f"one read cache folder under the data directory: {found}")
    return found[0]


def fetched(server, cur, sql: str) -> tuple[list[tuple], int, str]:
    """Runs `sql` on a pymysql cursor with an empty read cache: its rows, how many data files it fetched, and its
    note in SHOW WARNINGS (what pruning skipped)."""
    folder = cache_dir(server)
    shutil.rmtree(folder)
    os.makedirs(folder)
    rows = q(cur, sql)
    notes = q(cur, "SHOW WARNINGS")
    count = len([f for f in os.listdir(folder) if ".part-" not in f])
    return rows, count, " | ".join(n[2] for n in notes)


def q(cur, sql: str) -> list[tuple]:
    """The rows of `sql` on a pymysql cursor."""
    cur.execute(sql)
    return list(cur.fetchall())


def error_of(cur, sql: str) -> str:
    """The error `sql` fails with on a pymysql cursor; a statement that succeeds fails the test."""
    try:
        cur.execute(sql)
    except Exception as e:  # pymysql's OperationalError / ProgrammingError
        return str(e)
    raise AssertionError(f"expected an error from: {sql}")


def query_error(conn, sql: str) -> str:
    """The error `sql` fails with on a connection of kafka_harness; a statement that succeeds fails the test."""
    try:
        kh.query(conn, sql)
    except Exception as e:  # noqa: BLE001
        return str(e)
    raise AssertionError(f"expected an error from: {sql}")


def setup_lake(conn, pg, s3: S3rver, *, job_database: str | None = "d"):
    """Catalog `lake` (JDBC on `pg`, warehouse s3://lake/wh on `s3`), database lake.db, the table lake.db.events
    partitioned by day(ts), and a Sluice database for the jobs."""
    import kafka_harness as kh
    kh.query(conn, f"""CREATE EXTERNAL CATALOG lake PROPERTIES (
        "type" = "iceberg", "iceberg.catalog.type" = "jdbc", "iceberg.catalog.uri" = "{pg.uri}",
        "iceberg.catalog.warehouse" = "s3://{BUCKET}/wh", "aws.s3.endpoint" = "{s3.endpoint}",
        "aws.s3.access_key" = "{ACCESS_ID}", "aws.s3.secret_key" = "{SECRET}",
        "aws.s3.enable_path_style_access" = "true")""")
    kh.query(conn, "CREATE DATABASE lake.db")
    kh.query(conn, "CREATE TABLE lake.db.events (id BIGINT NOT NULL, name VARCHAR, ts DATETIME, amount INT) "
                   "PARTITION BY (day(ts))")
    if job_database:
        kh.query(conn, f"CREATE DATABASE {job_database}")


def event_message(i: int) -> str:
    """Event i as JSON: ids 1..N, ts over three days, amount i % 97."""
    return json.dumps({"id": i, "name": f"n{i}", "ts": f"2024-05-0{1 + i % 3} 0{i % 10}:00:00", "amount": i % 97})


def produce_events(broker, topic: str, ids_by_partition: dict[int, list[int]]):
    import kafka_harness as kh
    for p, ids in ids_by_partition.items():
        if ids:
            kh.produce(broker.bootstrap, topic, p, [event_message(i) for i in ids])


def crash_at(server, point: str, timeout: float = 60.0):
    """Waits for `server`, started with SLUICE_TEST_POINTS="<point>=crash", to kill itself there (failing the test
    when it does not within `timeout`), then starts it again without test points on the same data directory."""
    end = time.monotonic() + timeout
    while server.alive() and time.monotonic() < end:
        time.sleep(0.1)
    if server.alive():
        raise AssertionError(f"the server did not reach {point}")
    server.kill_process()
    server.extra_env = {}
    server.start()


def metadata_location(pg, table: str = "events") -> str:
    """The current metadata.json of lake.db.<table>, as the JDBC catalog in `pg` holds it."""
    return pg.psql(f"SELECT metadata_location FROM iceberg_tables WHERE table_name = '{table}'")[0][0]


def wait_count(conn, want: int, timeout: float, table: str = "lake.db.events") -> int:
    """Polls count(*) of `table` until it reaches `want` or `timeout` seconds pass; returns the last count."""
    import kafka_harness as kh
    end = time.monotonic() + timeout
    n = -1
    while time.monotonic() < end:
        n = kh.scalar(conn, f"SELECT count(*) FROM {table}")
        if n >= want:
            return n
        time.sleep(0.3)
    return n


def check_events(c, cur, pg, s3: S3rver, ids: list[int], what: str) -> dict:
    """Checks on Collector `c` that lake.db.events (setup_lake's table, amount = id % 97) holds exactly `ids`, read
    through Sluice on the pymysql cursor `cur` and by icebird; icebird's answer is returned."""
    count, distinct, sum_id, sum_amount = q(cur, "SELECT count(*), count(DISTINCT id), sum(id), sum(amount) "
                                                 "FROM lake.db.events")[0]
    c.eq((count, distinct), (len(ids), len(set(ids))), f"{what}: count(*), count(DISTINCT id) through Sluice")
    c.eq((int(sum_id or 0), int(sum_amount or 0)), (sum(ids), sum(i % 97 for i in ids)), f"{what}: sums through Sluice")
    got = icebird(s3, f"s3://{BUCKET}/wh/db/events", metadata_location(pg))
    bird = sorted(int(r["id"]) for r in got["rows"])
    c.eq(bird, sorted(ids), f"{what}: icebird reads exactly these ids")
    c.eq(sum(int(r["amount"]) for r in got["rows"]), sum(i % 97 for i in ids), f"{what}: icebird's sum(amount)")
    return got
