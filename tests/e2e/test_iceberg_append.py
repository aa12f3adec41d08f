"""Iceberg tables written by Sluice's Iceberg layer (src/iceberg), read back by a reader Sluice did not write.

PostgreSQL 15 holds the JDBC catalog (Iceberg's iceberg_tables layout), s3rver holds the files, tools/icebergtool
drives src/iceberg (its own DuckDB writes the Parquet files with the table's field ids), and npm's icebird
(tests/clients/icebird_read.mjs) reads the table from the metadata location the catalog names:
- two appends, the first of two files in two day partitions, each commit's snapshot summary holding the job's
  offsets; icebird reads exactly the rows, the second snapshot carries the first one's manifest forward, and the
  summary chain gives the newest offsets back;
- two writers staged on the same table version race on the catalog's compare-and-swap: exactly one commits, the
  other is told "conflict", and the table holds the winner's rows only.
"""
from __future__ import annotations

import datetime
import json
import os
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import TestSuite, check, eq, free_port  # noqa: E402
from pg_harness import Postgres  # noqa: E402
from s3_harness import ACCESS_ID, ACCESS_KEY, S3rver  # noqa: E402

suite = TestSuite("test_iceberg_append")
HERE = os.path.dirname(os.path.abspath(__file__))
CLIENTS = os.path.normpath(os.path.join(HERE, "..", "clients"))
BUCKET = "lake"


def tool_path() -> str:
    return os.path.join(os.path.dirname(suite.server_path), "tools", "icebergtool", "icebergtool")


class Env:
    def __init__(self, pg: Postgres, s3: S3rver):
        self.pg, self.s3 = pg, s3

    def tool(self, command: str, *args: str, expect_rc=(0,)) -> dict | None:
        argv = [tool_path(), command, "--catalog-uri", self.pg.uri, "--s3-endpoint", self.s3.endpoint,
                "--access-id", ACCESS_ID, "--access-key", ACCESS_KEY, *args]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if r.returncode not in expect_rc:
            raise AssertionError(f"icebergtool {command} exited {r.returncode}: {r.stderr}{r.stdout}")
        return json.loads(r.stdout) if r.stdout.strip() else None

    def icebird(self, table_location: str, metadata_location: str) -> dict:
        name = metadata_location.rsplit("/", 1)[1]
        r = subprocess.run(["node", os.path.join(CLIENTS, "icebird_read.mjs"), self.s3.endpoint, table_location, name],
                           capture_output=True, text=True, timeout=120, cwd=CLIENTS)
        if r.returncode != 0:
            raise AssertionError(f"icebird failed: {r.stderr}")
        return json.loads(r.stdout)


def rows_sql(lo: int, hi: int, day: str) -> str:
    return (f"SELECT range AS id, 'name-' || range AS name, TIMESTAMP '{day}' + to_minutes(range) AS ts, "
            f"(range * 1.25)::DECIMAL(10,2) AS amount FROM range({lo}, {hi})")


@suite.test(timeout=300)
def appends_read_back_by_icebird(t):
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        env = Env(pg, s3)
        created = env.tool("create", "--table", "db.events", "--warehouse", f"s3://{BUCKET}/wh",
                           "--columns", "id BIGINT NOT NULL, name VARCHAR, ts TIMESTAMP, amount DECIMAL(10,2)",
                           "--partition-by", "day(ts)")
        location = created["location"]
        eq(location, f"s3://{BUCKET}/wh/db/events", "the table's location under the warehouse")
        # the catalog row is Iceberg's JDBC layout, readable by any engine's JdbcCatalog
        eq(pg.psql("SELECT catalog_name, table_namespace, table_name, metadata_location, "
                   "coalesce(previous_metadata_location, '-') FROM iceberg_tables"),
           [["sluice", "db", "events", created["metadata_location"], "-"]], "iceberg_tables after CREATE")
        eq(pg.psql("SELECT namespace, property_key, property_value FROM iceberg_namespace_properties"),
           [["db", "exists", "true"]], "the namespace marker Java's JdbcCatalog writes")

        first = env.tool("append", "--table", "db.events", "--sql", rows_sql(0, 100, "2024-05-01"),
                         "--sql", rows_sql(100, 150, "2024-05-02"),
                         "--summary", 'sluice.offsets.job1={"0":149}')
        eq(first["outcome"], "committed", "first append")
        second = env.tool("append", "--table", "db.events", "--sql", rows_sql(150, 200, "2024-05-03"),
                          "--summary", 'sluice.offsets.job1={"0":199}')
        eq(second["outcome"], "committed", "second append")
        eq(pg.psql("SELECT metadata_location, previous_metadata_location FROM iceberg_tables"),
           [[second["metadata_location"], first["metadata_location"]]], "the CAS moved the pointer on")
        check(second["metadata_location"].split("/")[-1].startswith("00002-"), "metadata files are numbered")

        got = env.icebird(location, second["metadata_location"])
        ids = sorted(int(r["id"]) for r in got["rows"])
        eq(ids, list(range(200)), "icebird reads exactly the appended ids")
        by_id = {int(r["id"]): r for r in got["rows"]}
        eq(by_id[7]["name"], "name-7", "a string column")
        eq(by_id[7]["ts"], "2024-05-01T00:07:00.000Z", "a timestamp column")
        eq(float(by_id[7]["amount"]), 8.75, "a decimal column")
        eq(by_id[160]["ts"], "2024-05-03T02:40:00.000Z", "a row of the second commit")
        eq(got["snapshots"], 2, "two snapshots")
        eq(got["summary"]["sluice.offsets.job1"], '{"0":199}', "the commit's offsets are in its summary")
        eq(got["summary"]["operation"], "append", "operation")
        eq(got["summary"]["total-records"], "200", "total-records")
        eq(got["summary"]["added-records"], "50", "added-records")
        eq(len(got["manifests"]), 2, "the second snapshot carries the first one's manifest forward")
        files = [f for m in got["manifests"] for f in m["files"]]
        eq(sorted(int(f["records"]) for f in files), [50, 50, 100], "three data files")
        days = sorted(f["partition"]["ts_day"] for f in files)
        # the partition value is a date (days since 1970 with Avro's date logical type), which icebird decodes
        eq(days, ["2024-05-01T00:00:00.000Z", "2024-05-02T00:00:00.000Z", "2024-05-03T00:00:00.000Z"],
           "each file's day partition")
        check(all("/data/ts_day=2024-05-0" in f["path"] for f in files), "data files laid out by partition")
        eq(sorted(int(f["sequence_number"]) for f in files), [1, 1, 2], "sequence numbers inherited per commit")
        # column metrics from DuckDB's parquet_metadata(), in Iceberg's single-value serialization (field ids 1..4)
        third = next(f for f in files if f["partition"]["ts_day"].startswith("2024-05-03"))
        lower = {e["key"]: bytes.fromhex(e["value"]) for e in third["lower_bounds"]}
        upper = {e["key"]: bytes.fromhex(e["value"]) for e in third["upper_bounds"]}
        eq((struct.unpack("<q", lower[1])[0], struct.unpack("<q", upper[1])[0]), (150, 199), "id bounds (long)")
        eq((lower[2], upper[2]), (b"name-150", b"name-199"), "name bounds (string)")
        may3 = int(datetime.datetime(2024, 5, 3, tzinfo=datetime.timezone.utc).timestamp()) * 1_000_000
        eq((struct.unpack("<q", lower[3])[0], struct.unpack("<q", upper[3])[0]),
           (may3 + 150 * 60_000_000, may3 + 199 * 60_000_000), "ts bounds (timestamp, microseconds)")
        eq((int.from_bytes(lower[4], "big", signed=True), int.from_bytes(upper[4], "big", signed=True)),
           (18750, 24875), "amount bounds (decimal: unscaled, big-endian)")
        eq({e["key"]: int(e["value"]) for e in third["value_counts"]}, {1: 50, 2: 50, 3: 50, 4: 50}, "value counts")
        eq({e["key"]: int(e["value"]) for e in third["null_value_counts"]}, {1: 0, 2: 0, 3: 0, 4: 0}, "null counts")

        # Sluice's own manifest reader sees the same files as icebird, and the first snapshot's files by id
        mine = env.tool("files", "--table", "db.events")
        eq(sorted(f["path"] for f in mine), sorted(f["path"] for f in files), "Sluice lists the files icebird read")
        eq(sorted((f["partition"][0], f["records"], f["sequence_number"]) for f in mine),
           [("2024-05-01", 100, 1), ("2024-05-02", 50, 1), ("2024-05-03", 50, 2)], "partitions, counts, sequences")
        first_snapshot = env.tool("show", "--table", "db.events")["snapshot_ids"][0]
        eq(sorted(f["records"] for f in env.tool("files", "--table", "db.events", "--snapshot", str(first_snapshot))),
           [50, 100], "the first snapshot's files")

        # a restart resumes from the table: the newest offsets along the snapshot chain
        eq(env.tool("summary", "--table", "db.events", "--key", "sluice.offsets.job1")["value"], '{"0":199}',
           "ReadSummaryChain")
        eq(env.tool("summary", "--table", "db.events", "--key", "sluice.offsets.nobody"), None, "absent key")

        # a file that spans two days cannot be given one partition tuple: refused, nothing committed
        r = subprocess.run([tool_path(), "append", "--catalog-uri", pg.uri, "--s3-endpoint", s3.endpoint,
                            "--access-id", ACCESS_ID, "--access-key", ACCESS_KEY, "--table", "db.events",
                            "--sql", "SELECT 1 AS id, 'x' AS name, TIMESTAMP '2024-05-01' + to_hours(range * 20) AS ts, "
                                     "1 AS amount FROM range(3)"], capture_output=True, text=True, timeout=120)
        eq(r.returncode, 1, "a file over two partitions is refused")
        check("spans more than one partition" in r.stderr, f"the error says why: {r.stderr}")
        eq(env.tool("show", "--table", "db.events")["snapshots"], 2, "still two snapshots")


@suite.test(timeout=300)
def every_mapped_type(t):
    """Each column type of the README's mapping, written through DuckDB and read back by icebird; the bounds of each
    decode to the values written."""
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        env = Env(pg, s3)
        created = env.tool("create", "--table", "db.types", "--warehouse", f"s3://{BUCKET}/wh", "--columns",
                           "b BOOLEAN, si SMALLINT, i INTEGER, l BIGINT, f FLOAT, d DOUBLE, dec DECIMAL(38,10), "
                           "dt DATE, tm TIME, ts TIMESTAMP, tz TIMESTAMPTZ, s VARCHAR, u UUID, bl BLOB",
                           "--partition-by", "month(tz)", "--partition-by", "i")
        sql = ("SELECT range % 2 = 0 AS b, range AS si, 7 AS i, range * 1000000000000 AS l, range / 4 AS f, "
               "range / 8 AS d, (range + 0.0123456789)::DECIMAL(38,10) AS dec, DATE '2024-01-01' + range::INT AS dt, "
               "TIME '10:00:00' + to_seconds(range) AS tm, TIMESTAMP '2024-01-02 03:04:05.123456' + to_days(range) AS ts, "
               "TIMESTAMPTZ '2024-01-02 03:04:05+00' + to_hours(range) AS tz, 'héllo-' || range AS s, "
               "'f79c3e09-677c-4bbd-a479-3f349cb785e7'::UUID AS u, '\\x01\\x02'::BLOB AS bl FROM range(10)")
        out = env.tool("append", "--table", "db.types", "--sql", sql)
        eq(out["outcome"], "committed", "append")
        got = env.icebird(created["location"], out["metadata_location"])
        rows = sorted(got["rows"], key=lambda r: int(r["si"]))
        eq(len(rows), 10, "rows")
        r3 = rows[3]
        eq(r3["b"], False, "boolean")
        eq(int(r3["i"]), 7, "int")
        eq(int(r3["l"]), 3_000_000_000_000, "long")
        eq(float(r3["f"]), 0.75, "float")
        eq(float(r3["d"]), 0.375, "double")
        eq(round(float(r3["dec"]), 6), 3.012346, "decimal")
        eq(r3["dt"], "2024-01-04T00:00:00.000Z", "date")
        eq(r3["ts"], "2024-01-05T03:04:05.123Z", "timestamp")
        eq(r3["tz"], "2024-01-02T06:04:05.000Z", "timestamptz")
        eq(r3["s"], "héllo-3", "string")
        files = [f for m in got["manifests"] for f in m["files"]]
        eq(len(files), 1, "one file")
        eq(files[0]["partition"], {"tz_month": (2024 - 1970) * 12, "i": 7}, "partition tuple")
        lower = {e["key"]: bytes.fromhex(e["value"]) for e in files[0]["lower_bounds"]}
        upper = {e["key"]: bytes.fromhex(e["value"]) for e in files[0]["upper_bounds"]}
        eq((lower[1], upper[1]), (b"\x00", b"\x01"), "boolean bounds")
        eq((struct.unpack("<i", lower[2])[0], struct.unpack("<i", upper[2])[0]), (0, 9), "smallint -> int bounds")
        eq(struct.unpack("<f", upper[5])[0], 2.25, "float bounds")
        eq(struct.unpack("<d", upper[6])[0], 1.125, "double bounds")
        eq(int.from_bytes(upper[7], "big", signed=True), 90123456789, "decimal(38,10) bounds")
        eq(struct.unpack("<i", upper[8])[0], 19723 + 9, "date bounds (days)")
        eq(struct.unpack("<q", upper[9])[0], (10 * 3600 + 9) * 1_000_000, "time bounds (microseconds)")
        jan2 = int(datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc).timestamp()) * 1_000_000
        eq(struct.unpack("<q", lower[11])[0], jan2, "timestamptz bounds (UTC microseconds)")
        eq(struct.unpack("<q", lower[10])[0], jan2 + 123456, "timestamp bounds")
        eq((lower[12].decode(), upper[12].decode()), ("héllo-0", "héllo-9"), "string bounds (UTF-8)")
        eq(lower[13].hex(), "f79c3e09677c4bbda4793f349cb785e7", "uuid bounds (16 bytes, big-endian)")
        check(14 not in lower and 14 not in upper, "no bounds for binary")


@suite.test(timeout=300)
def catalog_created_by_java_v1_and_unreachable(t):
    """A catalog database whose tables Java's JdbcCatalog made with jdbc.schema-version=V1 (the iceberg_type column,
    views in the same table): Sluice's tables are marked TABLE and views are not tables. A catalog that cannot be
    reached is a clear error."""
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        env = Env(pg, s3)
        pg.psql("CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL, "
                "table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000), "
                "previous_metadata_location VARCHAR(1000), iceberg_type VARCHAR(5), "
                "PRIMARY KEY (catalog_name, table_namespace, table_name))")
        pg.psql("INSERT INTO iceberg_tables VALUES ('sluice', 'db', 'v', 's3://lake/wh/db/v/metadata/x.json', NULL, 'VIEW')")
        env.tool("create", "--table", "db.t", "--warehouse", f"s3://{BUCKET}/wh", "--columns", "id BIGINT")
        eq(pg.psql("SELECT table_name, iceberg_type FROM iceberg_tables ORDER BY 1"), [["t", "TABLE"], ["v", "VIEW"]],
           "the new table is marked TABLE")
        out = env.tool("append", "--table", "db.t", "--sql", "SELECT 1 AS id")
        eq(out["outcome"], "committed", "append")
        r = subprocess.run([tool_path(), "show", "--catalog-uri", pg.uri, "--table", "db.v"], capture_output=True,
                           text=True, timeout=60)
        eq(r.returncode, 1, "a view is not a table")
        check("Iceberg table db.v does not exist in catalog sluice" in r.stderr, r.stderr)
        r = subprocess.run([tool_path(), "create", "--catalog-uri", pg.uri, "--table", "db.t", "--warehouse",
                            f"s3://{BUCKET}/wh", "--columns", "id BIGINT", "--s3-endpoint", s3.endpoint,
                            "--access-id", ACCESS_ID, "--access-key", ACCESS_KEY],
                           capture_output=True, text=True, timeout=60)
        eq(r.returncode, 1, "the name is taken")
        check("already exists" in r.stderr, r.stderr)
        dead = pg.uri.replace(f"port={pg.port}", f"port={free_port()}")
        r = subprocess.run([tool_path(), "show", "--catalog-uri", dead, "--table", "db.t"], capture_output=True,
                           text=True, timeout=60)
        eq(r.returncode, 1, "unreachable catalog")
        check("cannot connect to the Iceberg JDBC catalog" in r.stderr, r.stderr)


@suite.test(timeout=300)
def two_writers_race_on_the_cas(t):
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        env = Env(pg, s3)
        created = env.tool("create", "--table", "db.race", "--warehouse", f"s3://{BUCKET}/wh",
                           "--columns", "id BIGINT, writer VARCHAR")
        base = env.tool("append", "--table", "db.race", "--sql", "SELECT range AS id, 'seed' AS writer FROM range(10)")
        eq(base["outcome"], "committed", "seed commit")
        hold = tempfile.mkdtemp(prefix="sluice-race-")
        results: dict[str, subprocess.CompletedProcess] = {}

        def writer(name: str, lo: int, *extra: str):
            argv = [tool_path(), "append", "--catalog-uri", pg.uri, "--s3-endpoint", s3.endpoint, "--access-id",
                    ACCESS_ID, "--access-key", ACCESS_KEY, "--table", "db.race",
                    "--hold-before-commit", os.path.join(hold, name),
                    "--sql", f"SELECT range AS id, '{name}' AS writer FROM range({lo}, {lo + 5})",
                    "--summary", f"sluice.offsets.{name}={lo + 4}", *extra]
            results[name] = subprocess.run(argv, capture_output=True, text=True, timeout=120)

        threads = [threading.Thread(target=writer, args=("a", 100)), threading.Thread(target=writer, args=("b", 200))]
        for th in threads:
            th.start()
        # both writers loaded the same table version and staged their files before either commits
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not all(os.path.exists(os.path.join(hold, f"{n}.ready")) for n in "ab"):
            time.sleep(0.05)
        check(all(os.path.exists(os.path.join(hold, f"{n}.ready")) for n in "ab"), "both writers staged")
        for n in "ab":
            open(os.path.join(hold, n), "w").close()
        for th in threads:
            th.join(120)
        outcomes = sorted(json.loads(r.stdout)["outcome"] for r in results.values())
        eq(outcomes, ["committed", "conflict"], f"exactly one writer wins: {[r.stderr for r in results.values()]}")
        winner = next(n for n, r in results.items() if r.returncode == 0)
        loser = next(n for n, r in results.items() if r.returncode == 3)
        meta = env.tool("show", "--table", "db.race")
        eq(meta["snapshots"], 2, "the loser added no snapshot")
        got = env.icebird(created["location"], meta["metadata_location"])
        eq(sorted(r["writer"] for r in got["rows"]).count(winner), 5, "the winner's rows are there")
        eq(sum(1 for r in got["rows"] if r["writer"] == loser), 0, "the loser's rows are not")
        eq(len(got["rows"]), 15, "seed + winner")
        eq(got["summary"].get(f"sluice.offsets.{winner}") is not None, True, "the winner's offsets are committed")
        eq(env.tool("summary", "--table", "db.race", "--key", f"sluice.offsets.{loser}"), None,
           "the loser's offsets are not")
        # the losing attempt's metadata.json and manifest list were deleted; its staged data file and manifest stay
        # for the caller to reuse or discard (table care will find them if it crashes)
        metadata_dir = os.path.join(s3.data_dir, BUCKET, "wh", "db", "race", "metadata")
        names = sorted(n.replace("._S3rver_object", "") for n in os.listdir(metadata_dir)
                       if n.endswith("._S3rver_object"))
        eq(sum(n.endswith(".metadata.json") for n in names), 3, f"three versions' metadata.json: {names}")
        eq(sum(n.startswith("snap-") for n in names), 2, f"two manifest lists: {names}")
        eq(sum(n.endswith("-m0.avro") for n in names), 3, f"seed, winner and the loser's staged manifest: {names}")

        # again, but the loser rebases: it commits the files it staged on top of the winner's version
        for n in "ab":
            for suffix in ("", ".ready"):
                os.remove(os.path.join(hold, n + suffix))
        results.clear()
        threads = [threading.Thread(target=writer, args=("a", 300, "--rebase-on-conflict", "true")),
                   threading.Thread(target=writer, args=("b", 400, "--rebase-on-conflict", "true"))]
        for th in threads:
            th.start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not all(os.path.exists(os.path.join(hold, f"{n}.ready")) for n in "ab"):
            time.sleep(0.05)
        for n in "ab":
            open(os.path.join(hold, n), "w").close()
        for th in threads:
            th.join(120)
        eq(sorted(json.loads(r.stdout)["outcome"] for r in results.values()), ["committed", "committed"],
           f"both commit after a rebase: {[r.stderr for r in results.values()]}")
        meta = env.tool("show", "--table", "db.race")
        eq(meta["snapshots"], 4, "one snapshot each")
        got = env.icebird(created["location"], meta["metadata_location"])
        eq(len(got["rows"]), 25, "no snapshot lost")
        eq(len({int(r["id"]) for r in got["rows"]}), 25, "no row twice")
        eq(len(got["manifests"]), 4, "every commit's manifest is in the newest list")
        for n, lo in (("a", 300), ("b", 400)):
            eq(env.tool("summary", "--table", "db.race", "--key", f"sluice.offsets.{n}")["value"], str(lo + 4),
               f"writer {n}'s newest offsets")


if __name__ == "__main__":
    sys.exit(suite.run())
