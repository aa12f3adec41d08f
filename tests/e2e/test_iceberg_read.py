"""Reading Iceberg tables from SQL (issue 16): pruning, time travel, metadata tables and table care, against
PostgreSQL 15 (the JDBC catalog), s3rver (the files) and npm's icebird (a reader Sluice did not write).
- pruning: a table partitioned by day(ts) with one file per day and INSERT; WHERE predicates on the partition
  column and on a plain column (column bounds) fetch only the files that may match -- counted in the read cache
  folder, which the test empties first -- the note in SHOW WARNINGS says the same, and the results equal those
  of the same query with pruning defeated (a predicate wrapped so that it is not understood), also for an
  inner join, while a LEFT JOIN's null-extended side is not pruned;
- time travel: FOR VERSION AS OF <id> and FOR TIMESTAMP AS OF '<time>' read old snapshots; $snapshots, $history
  and $files list them; unknown ids and times before the first snapshot are clear errors;
- table care: ALTER TABLE ... EXECUTE expire_snapshots / remove_orphan_files delete what no kept snapshot needs,
  icebird still reads the same rows, and time travel to an expired snapshot errors clearly.
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import TestSuite, check, eq  # noqa: E402
from iceberg_harness import error_of, fetched, icebird, q  # noqa: E402
from pg_harness import Postgres  # noqa: E402
from s3_harness import ACCESS_ID, S3rver  # noqa: E402

suite = TestSuite("test_iceberg_read")
HERE = os.path.dirname(os.path.abspath(__file__))
BUCKET = "lake"
SECRET = "S3RVER"  # s3rver accepts only its own key pair


def s3_keys(s3: S3rver, prefix: str) -> list[str]:
    root = os.path.join(s3.data_dir, BUCKET)
    out = []
    for dirpath, _, names in os.walk(root):
        for n in names:
            if n.endswith("._S3rver_object"):
                key = os.path.relpath(os.path.join(dirpath, n[:-len("._S3rver_object")]), root)
                if key.startswith(prefix):
                    out.append(key)
    return sorted(out)


@suite.test(timeout=500)
def pruning_time_travel_and_care(t):
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(BUCKET)
        server = suite.server().start()
        con = server.connect()
        cur = con.cursor()
        cur.execute(f"""CREATE EXTERNAL CATALOG lake PROPERTIES (
            "type" = "iceberg", "iceberg.catalog.type" = "jdbc", "iceberg.catalog.uri" = "{pg.uri}",
            "iceberg.catalog.warehouse" = "s3://{BUCKET}/wh", "aws.s3.endpoint" = "{s3.endpoint}",
            "aws.s3.access_key" = "{ACCESS_ID}", "aws.s3.secret_key" = "{SECRET}",
            "aws.s3.enable_path_style_access" = "true")""")
        cur.execute("CREATE DATABASE lake.db")
        cur.execute("CREATE TABLE lake.db.ev (id BIGINT, name VARCHAR, ts DATETIME, amount DECIMAL(10,2)) "
                    "PARTITION BY (day(ts))")
        eq(q(cur, "SELECT count(*) FROM lake.db.ev$snapshots"), [(0,)], "no snapshots before the first INSERT")
        check("no snapshots yet" in error_of(cur, "SELECT * FROM lake.db.ev FOR TIMESTAMP AS OF "
                                             "'2024-01-01 00:00:00'"), "time travel on an empty table")
        # three INSERTs, each over the same four days (one file per day and INSERT: 12 files); ids grow with
        # each INSERT, so a bound on id selects one INSERT's files
        snapshots = []
        for k in range(3):
            cur.execute(f"INSERT INTO lake.db.ev SELECT {k} * 1000 + range, 'n' || range, "
                        f"TIMESTAMP '2024-05-01 00:00:00' + to_hours(range), range * 0.5 FROM range(96)")
            snapshots.append(q(cur, "SELECT snapshot_id, committed_at FROM lake.db.ev$snapshots "
                                    "ORDER BY committed_at DESC LIMIT 1")[0])
            time.sleep(0.05)
        eq(q(cur, "SELECT count(*) FROM lake.db.ev$files"), [(12,)], "$files: 12 data files")
        eq(q(cur, "SELECT count(*), count(DISTINCT snapshot_id) FROM lake.db.ev$snapshots"), [(3, 3)], "$snapshots")
        eq(q(cur, "SELECT operation, summary['added-records'] FROM lake.db.ev$snapshots LIMIT 1"),
           [("append", "96")], "$snapshots summary")
        eq(q(cur, "SELECT count(*), sum(CAST(is_current_ancestor AS INT)) FROM lake.db.ev$history"), [(3, 3)],
           "$history")

        # pruning by partition (day(ts)), the results compared with an unprunable form of the same filter
        cases = [
            ("ts >= '2024-05-03 00:00:00'", "CAST(ts AS VARCHAR) >= '2024-05-03 00:00:00'", 6),
            ("ts BETWEEN '2024-05-02 00:00:00' AND '2024-05-02 23:59:59'",
             "CAST(ts AS VARCHAR) BETWEEN '2024-05-02 00:00:00' AND '2024-05-02 23:59:59'", 3),
            ("ts < DATE '2024-05-02' AND id > 1999", "CAST(ts AS VARCHAR) < '2024-05-02' AND id + 0 > 1999", 1),
            ("id IN (5, 1030, 2095)", "id + 0 IN (5, 1030, 2095)", 3),
            ("id = 99999", "id + 0 = 99999", 0),
            ("name IS NULL", "coalesce(name, 'x') = 'x' AND name IS NULL OR false", 0),
            ("amount > 40 AND ts < '2024-05-04'", "amount + 0 > 40 AND CAST(ts AS VARCHAR) < '2024-05-04'", 0),
        ]
        for pruned, plain, files in cases:
            sql = "SELECT count(*), sum(id), min(ts), max(amount) FROM lake.db.ev WHERE {}"
            rows, count, note = fetched(server, cur, sql.format(pruned))
            base_rows, base_count, _ = fetched(server, cur, sql.format(plain))
            eq(rows, base_rows, f"same result with and without pruning: {pruned}")
            eq(count, files, f"data files fetched for WHERE {pruned}")
            eq(base_count, 12, f"every file fetched for WHERE {plain}")
            check(f"read {files} of 12 data file(s)" in note and f"{12 - files} pruned" in note,
                  f"the note says so: {note}")
        # an alias, a qualified column, a subquery: each reference pruned on its own
        rows, count, _ = fetched(server, cur, "SELECT (SELECT count(*) FROM lake.db.ev e WHERE e.id < 10), "
                                              "count(*) FROM lake.db.ev AS x WHERE x.ts >= '2024-05-04'")
        eq(rows, [(10, 72)], "alias and subquery")
        eq(count, 1 + 3, "files for the subquery (one) and the outer query (three)")
        # the Iceberg table in an inner join: its qualified terms prune; in a LEFT JOIN's null-extended side not
        cur.execute("CREATE DATABASE shop")
        cur.execute("CREATE TABLE shop.k (id BIGINT)")
        cur.execute("INSERT INTO shop.k VALUES (5), (1030), (77777)")
        join = ("SELECT count(*), sum(e.id) FROM lake.db.ev AS e JOIN shop.k ON k.id = e.id "
                "WHERE {}")
        rows, count, _ = fetched(server, cur, join.format("e.ts < '2024-05-02'"))
        base_rows, _, _ = fetched(server, cur, join.format("CAST(e.ts AS VARCHAR) < '2024-05-02'"))
        eq(rows, base_rows, "a join: same result with and without pruning")
        eq(rows, [(1, 5)], "a join: the row of day one")
        eq(count, 3, "a join: the day-one files only")
        left = ("SELECT count(*), count(e.id) FROM shop.k LEFT JOIN lake.db.ev AS e ON k.id = e.id "
                "WHERE e.id IS NULL")
        rows, count, _ = fetched(server, cur, left)
        eq((rows, count), ([(1, 0)], 12), "the null-extended side of a LEFT JOIN is not pruned")
        # OR is not understood: nothing pruned
        _, count, _ = fetched(server, cur, "SELECT count(*) FROM lake.db.ev WHERE id = 1 OR id = 2")
        eq(count, 12, "OR is not pruned")

        # time travel
        first_id, first_at = snapshots[0]
        eq(q(cur, f"SELECT count(*), max(id) FROM lake.db.ev FOR VERSION AS OF {first_id}"), [(96, 95)],
           "FOR VERSION AS OF the first snapshot")
        eq(q(cur, f"SELECT count(*) FROM lake.db.ev FOR VERSION AS OF {snapshots[1][0]} AS e WHERE e.id >= 1000"),
           [(96,)], "FOR VERSION AS OF with an alias and a WHERE")
        eq(q(cur, f"SELECT count(*) FROM lake.db.ev FOR TIMESTAMP AS OF '{first_at}'"), [(96,)],
           "FOR TIMESTAMP AS OF the first commit time")
        eq(q(cur, f"SELECT count(*) FROM lake.db.ev FOR TIMESTAMP AS OF '{snapshots[2][1]}'"), [(288,)],
           "FOR TIMESTAMP AS OF the last commit time")
        eq(q(cur, f"SELECT count(*) FROM lake.db.ev$files FOR VERSION AS OF {first_id}"), [(4,)],
           "$files of an old snapshot")
        eq(q(cur, f"SELECT count(*) FROM lake.db.ev$files FOR TIMESTAMP AS OF '{snapshots[1][1]}'"), [(8,)],
           "$files as of the second commit")
        check("time travel applies to the table and to $files" in
              error_of(cur, f"SELECT * FROM lake.db.ev$snapshots FOR VERSION AS OF {first_id}"),
              "no time travel on $snapshots")
        check("has no snapshot 12345" in error_of(cur, "SELECT * FROM lake.db.ev FOR VERSION AS OF 12345"),
              "unknown snapshot id")
        err = error_of(cur, "SELECT * FROM lake.db.ev FOR TIMESTAMP AS OF '2020-01-01 00:00:00'")
        check("no snapshot at or before 2020-01-01" in err and "oldest kept snapshot" in err,
              f"a time before the first snapshot: {err}")
        check("snapshot id" in error_of(cur, "SELECT * FROM lake.db.ev FOR VERSION AS OF 'x'"), "a bad version")

        # privileges: a reader with SELECT reads the metadata tables too; table care needs ALTER
        cur.execute("CREATE USER reader IDENTIFIED BY 'pw'")
        cur.execute("GRANT SELECT ON ALL TABLES IN DATABASE lake.db TO USER reader")
        rcon = server.connect(user="reader", password="pw")
        rcur = rcon.cursor()
        eq(q(rcur, "SELECT count(*) FROM lake.db.ev$snapshots"), [(3,)], "a reader reads $snapshots")
        check("ALTER command denied" in error_of(rcur, "ALTER TABLE lake.db.ev EXECUTE "
                                                       "expire_snapshots('2100-01-01 00:00:00')"),
              "a reader cannot expire snapshots")
        check("ALTER command denied" in error_of(rcur, "ALTER TABLE lake.db.ev EXECUTE remove_orphan_files()"),
              "nor remove orphan files")
        cur.execute("CREATE USER keeper IDENTIFIED BY 'pw'")
        cur.execute("GRANT ALTER ON ALL TABLES IN DATABASE lake.db TO USER keeper")
        kcon = server.connect(user="keeper", password="pw")
        eq(q(kcon.cursor(), "ALTER TABLE lake.db.ev EXECUTE expire_snapshots('2000-01-01 00:00:00')"),
           [(0, 0, 0, 0)], "ALTER is enough for table care (nothing older than 2000 to expire)")
        kcon.close()
        check("at least an hour ago" in error_of(cur, "ALTER TABLE lake.db.ev EXECUTE remove_orphan_files("
                                                      f"'{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())}')"),
              "orphan removal refuses a time less than an hour ago")
        check("retain_last" in error_of(cur, "ALTER TABLE lake.db.ev EXECUTE expire_snapshots(retain_last = 0)"),
              "retain_last below 1")
        check("not supported" in error_of(cur, "ALTER TABLE lake.db.ev EXECUTE rewrite_manifests()"),
              "an unknown procedure")
        cur.execute("CREATE USER nobody IDENTIFIED BY 'pw'")
        ncon = server.connect(user="nobody", password="pw")
        check("SELECT command denied" in error_of(ncon.cursor(), "SELECT * FROM lake.db.ev$snapshots"),
              "no SELECT, no metadata table")
        ncon.close()

        if os.environ.get("SLUICE_SKIP_CARE") != "1":
            table_care(server, cur, rcur, pg, s3, snapshots)
        rcon.close()
        con.close()


def table_care(server, cur, rcur, pg, s3, snapshots):
    location = f"s3://{BUCKET}/wh/db/ev"
    before = s3_keys(s3, "wh/db/ev/")
    manifest_lists = [k for k in before if "/snap-" in k]
    eq(len(manifest_lists), 3, "three manifest lists before care")
    # an orphan: a data file no snapshot lists (a crashed load's upload), backdated past the safety age
    orphan_key = "wh/db/ev/data/ts_day=2024-05-01/orphan-0001.parquet"
    s3.put(BUCKET, orphan_key, b"PAR1 not really")
    young_key = "wh/db/ev/data/ts_day=2024-05-01/young-0002.parquet"
    s3.put(BUCKET, young_key, b"PAR1 uploading")
    old = time.time() - 3 * 86400
    os.utime(os.path.join(s3.data_dir, BUCKET, orphan_key + "._S3rver_object"), (old, old))
    rows_before = q(cur, "SELECT count(*), sum(id), sum(amount) FROM lake.db.ev")

    # keep the newest two: the first snapshot goes, its manifest list with it; the data files stay (the later
    # snapshots still list them all: appends only add)
    r = q(cur, "ALTER TABLE lake.db.ev EXECUTE expire_snapshots(older_than = '2100-01-01 00:00:00', "
               "retain_last = 2)")
    eq(r[0][:2], (1, 1), f"one snapshot expired, one manifest list deleted: {r}")
    eq(q(cur, "SELECT count(*) FROM lake.db.ev$snapshots"), [(2,)], "two snapshots kept")
    err = error_of(cur, f"SELECT * FROM lake.db.ev FOR VERSION AS OF {snapshots[0][0]}")
    check(f"has no snapshot {snapshots[0][0]}" in err and "expired" in err, f"time travel to an expired one: {err}")
    eq(q(cur, f"SELECT count(*) FROM lake.db.ev FOR VERSION AS OF {snapshots[1][0]}"), [(192,)],
       "a kept old snapshot still reads")
    after = s3_keys(s3, "wh/db/ev/")
    eq(sorted(set(before) - set(after)), [k for k in manifest_lists if str(snapshots[0][0]) in k],
       "exactly the expired snapshot's manifest list is gone")

    # the orphan older than the safety age goes; the young one and every referenced file stay
    r = q(cur, "ALTER TABLE lake.db.ev EXECUTE remove_orphan_files(older_than = '" +
          time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(time.time() - 86400)) + "')")
    eq(r[0][0], 1, f"one orphan removed: {r}")
    keys = s3_keys(s3, "wh/db/ev/")
    check(orphan_key not in keys and young_key in keys, "the old orphan went, the young file stayed")
    eq(sorted(set(after) - set(keys)), [orphan_key], "nothing else removed")

    eq(q(cur, "SELECT count(*), sum(id), sum(amount) FROM lake.db.ev"), rows_before, "Sluice reads the same rows")
    metadata = pg.psql("SELECT metadata_location FROM iceberg_tables WHERE table_name = 'ev'")[0][0]
    got = icebird(s3, location, metadata)
    eq(len(got["rows"]), 288, "icebird reads every row after care")
    eq(sorted(int(r["id"]) for r in got["rows"]), sorted(k * 1000 + i for k in range(3) for i in range(96)),
       "icebird reads exactly the same ids")
    eq(got["snapshots"], 2, "icebird sees the two kept snapshots")


if __name__ == "__main__":
    sys.exit(suite.run())
