"""Iceberg tables partitioned by bucket(n, c) (issue 16), against PostgreSQL 15 (the JDBC catalog), s3rver and npm's
icebird (a reader Sluice did not write):
- sluice_iceberg_bucket, the function appends split rows with, gives the Iceberg spec's own test values (appendix B:
  murmur3 of 34 as int and long, a decimal, a date, a timestamp, a timestamptz and a string);
- CREATE TABLE ... PARTITION BY (bucket(4, id), bucket(3, name)) and one INSERT: one data file per bucket pair, each
  file's partition tuple (as icebird reads it from the manifests) holds exactly the rows of that bucket pair, NULL
  names in the null partition;
- partition pruning by bucket finds every row (a file written to the wrong bucket would be skipped and its row lost)
  while it skips the files of other buckets;
- bucket on a column type Sluice cannot hash (DOUBLE) is refused at CREATE TABLE.
"""
from __future__ import annotations

import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import TestSuite, check, eq  # noqa: E402
from iceberg_harness import error_of, fetched, icebird, q, setup_lake  # noqa: E402
from pg_harness import Postgres  # noqa: E402
from s3_harness import S3rver  # noqa: E402

suite = TestSuite("test_iceberg_bucket")
BUCKET = "lake"
MAX_INT = 2147483647

# The Iceberg spec's appendix B: 32-bit murmur3 hashes of single values. With N = 2^31 - 1 the bucket is the hash's
# non-negative part itself, so the function shows the hash.
SPEC_HASHES = [
    ("'34'", "int", 2017239379),
    ("'34'", "long", 2017239379),
    ("'14.20'", "decimal(9, 2)", -500754589),
    ("'2017-11-16'", "date", -653330422),
    ("'2017-11-16 22:31:08'", "timestamp", -2047944441),
    ("'iceberg'", "string", 1210000089),
]


@suite.test(timeout=300)
def bucket_partitions(t):
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        server = suite.server().start()
        con = server.connect()
        cur = con.cursor()

        for literal, type_name, hash32 in SPEC_HASHES:
            eq(q(cur, f"SELECT sluice_iceberg_bucket({literal}, '{type_name}', {MAX_INT})"),
               [((hash32 & 0x7fffffff) % MAX_INT,)], f"the spec's hash of {literal} as {type_name}")
        # a timestamptz hashes its instant: 14:31:08-08:00 is the 22:31:08 UTC of the spec
        eq(q(cur, "SELECT sluice_iceberg_bucket(CAST(timezone('UTC', TIMESTAMPTZ '2017-11-16 14:31:08-08:00') "
                  f"AS VARCHAR), 'timestamp', {MAX_INT})"),
           [((-2047944441 & 0x7fffffff) % MAX_INT,)], "the spec's hash of a timestamptz")
        eq(q(cur, "SELECT sluice_iceberg_bucket(NULL, 'long', 4)"), [(None,)], "NULL has no bucket")

        setup_lake(con, pg, s3, job_database=None)  # catalog lake, database lake.db
        err = error_of(cur, "CREATE TABLE lake.db.bad (x DOUBLE) PARTITION BY (bucket(4, x))")
        check("bucket" in err and "double" in err, f"bucket of a DOUBLE is refused: {err}")

        cur.execute("CREATE TABLE lake.db.b (id BIGINT NOT NULL, name VARCHAR(32), amount DECIMAL(10,2)) "
                    "PARTITION BY (bucket(4, id), bucket(3, name))")
        create_table = q(cur, "SHOW CREATE TABLE lake.db.b")[0][1]
        check("bucket(4, id)" in create_table and "bucket(3, name)" in create_table,
              f"SHOW CREATE TABLE shows the buckets: {create_table}")
        eq(cur.execute("INSERT INTO lake.db.b SELECT range, CASE WHEN range % 10 = 0 THEN NULL ELSE 'n' || range END, "
                       "range * 0.5 FROM range(200)"), 200, "rows inserted")
        eq(q(cur, "SELECT count(*), count(DISTINCT id), sum(id), count(name) FROM lake.db.b"),
           [(200, 200, 19900, 180)], "count, distinct, sum, names through Sluice")

        # where each row belongs, by the function the spec vectors checked above
        expected = collections.Counter(
            (i, n) for i, n in q(cur, "SELECT sluice_iceberg_bucket(CAST(range AS VARCHAR), 'long', 4), "
                                      "CASE WHEN range % 10 = 0 THEN NULL ELSE sluice_iceberg_bucket('n' || range, "
                                      "'string', 3) END FROM range(200)"))
        metadata = pg.psql("SELECT metadata_location FROM iceberg_tables WHERE table_name = 'b'")[0][0]
        got = icebird(s3, f"s3://{BUCKET}/wh/db/b", metadata)
        eq(sorted(int(r["id"]) for r in got["rows"]), list(range(200)), "icebird reads every id once")
        files = [f for m in got["manifests"] for f in m["files"]]
        written = collections.Counter()
        for f in files:
            part = f["partition"]
            key = (part["id_bucket"], part.get("name_bucket"))  # icebird leaves a null value out
            check(key not in written, f"one file per bucket pair: {key} twice")
            written[key] = int(f["records"])
        eq(written, expected, "each file holds exactly the rows of its (id, name) bucket pair")
        check(any(k[1] is None for k in written), "the NULL names have the null partition")

        # pruning by bucket: every row is found, in one id bucket's files only
        files_of_id_bucket = collections.Counter(k[0] for k in written)
        for row_id in (0, 7, 34, 99, 150, 199):
            b = q(cur, f"SELECT sluice_iceberg_bucket('{row_id}', 'long', 4)")[0][0]
            rows, count, _ = fetched(server, cur, f"SELECT count(*), min(amount) FROM lake.db.b WHERE id = {row_id}")
            eq(rows[0][0], 1, f"the row with id {row_id} is found")
            # column bounds may skip some of the bucket's files too, never a file of another bucket
            check(1 <= count <= files_of_id_bucket[b],
                  f"WHERE id = {row_id} reads {count} file(s), of bucket {b}'s {files_of_id_bucket[b]} only")
        rows, count, _ = fetched(server, cur, "SELECT count(*) FROM lake.db.b WHERE name = 'n7'")
        eq((rows, count < len(files)), ([(1,)], True), "pruning by a string bucket")
        con.close()


if __name__ == "__main__":
    sys.exit(suite.run())
