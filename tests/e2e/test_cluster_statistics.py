#!/usr/bin/python3
"""What a cluster job has loaded, answered the same by every node and kept across a node's death
(docs/cluster.md, "Statistics and loaded files"), with real parts: PostgreSQL 15 (the cluster's database and the
Iceberg JDBC catalog), s3rver (the volume's files and the table's), the test broker and three
`sluice serve --cluster` processes on loopback.

- test_a_moved_volume_pipe_lists_every_file_once_on_every_node: a volume pipe into lake.db.events loads files on
  the node holding pipe:<id>; before anything moves, a node that never ran it lists the same files in
  information_schema.pipe_files; the holder is killed (kill -9), a survivor takes the pipe over and loads more
  files; afterwards every node (the killed one started again too) lists every file exactly once with its row
  count, and DESC PIPE EXTENDED's loaded_files / loaded_rows and information_schema.pipes' LOAD_STATUS equal the
  files and the table's count(*).
- test_routine_load_statistics_are_the_clusters: a routine load on a 12-partition topic split 4/4/4 over three
  nodes: SHOW ROUTINE LOAD's Statistic (loadedRows, totalRows, committedTaskNum, receivedBytes) is the same on
  every node and loadedRows equals the table's count(*); after kill -9 of a node mid-load and the survivors
  loading the rest, the same holds on both survivors (nothing the dead node committed is lost from the figures),
  and each node's own load_history still shows only its own batches. A Kafka pipe on the same topic, split the same
  way: DESC PIPE EXTENDED's counts and LOAD_STATUS are the same on every node and loaded_rows is its table's
  count(*), before and after the kill.

    /usr/bin/python3 tests/e2e/test_cluster_statistics.py --server build/sluice \
        --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check, eq  # noqa: E402
from iceberg_harness import produce_events, wait_count  # noqa: E402
from pg_harness import Postgres  # noqa: E402
from s3_harness import S3rver  # noqa: E402
from test_cluster_jobs import (  # noqa: E402
    PARTITIONS, TIMEOUT, create_job, ids_for, leases_by_node, setup, wait_same,
)
from test_cluster_pipes import LANDING, define_volume, pipe_holder, put_files  # noqa: E402

suite = TestSuite("test_cluster_statistics")


def pipe_files(conn) -> list[tuple]:
    return sorted(kh.query(conn, "SELECT FILE_NAME, FILE_SIZE, LOAD_STATE, LOADED_ROWS, ERROR_ROWS FROM "
                                 "information_schema.pipe_files WHERE DATABASE_NAME = 'd' AND PIPE_NAME = 'vp'"))


def desc_extended(conn, pipe: str) -> dict:
    return {r[0]: r[1] for r in kh.query(conn, f"DESC PIPE EXTENDED d.{pipe}")}


def load_status(conn, pipe: str) -> dict:
    rows = kh.query(conn, f"SELECT LOAD_STATUS FROM information_schema.pipes WHERE DATABASE_NAME = 'd' AND "
                          f"PIPE_NAME = '{pipe}'")
    return json.loads(rows[0][0]) if rows else {}


def check_pipe_views(c: Collector, conns: dict, files: int, per: int, what: str) -> None:
    """Every node: pipe_files lists f0001.csv .. each once, FINISHED with `per` rows; DESC PIPE EXTENDED and
    LOAD_STATUS count the same files and rows, which are the table's count(*)."""
    want = [f"f{k:04d}.csv" for k in range(1, files + 1)]
    for name, conn in conns.items():
        count = kh.scalar(conn, "SELECT count(*) FROM lake.db.events")
        c.eq(count, files * per, f"{what}: the table's count(*) on {name}")
        listed = pipe_files(conn)
        c.eq(sorted(r[0].rsplit("/", 1)[1] for r in listed), want, f"{what}: {name}'s pipe_files, each file once")
        c.check(all(r[2] == "FINISHED" and r[3] == per and r[4] == 0 and r[1] > 0 for r in listed),
                f"{what}: {name}'s pipe_files rows are FINISHED with {per} rows each: {listed[:3]}...")
        desc = desc_extended(conn, "vp")
        c.eq((desc.get("loaded_files"), desc.get("loaded_rows"), desc.get("error_rows")),
             (str(files), str(count), "0"), f"{what}: {name}'s DESC PIPE EXTENDED")
        status = load_status(conn, "vp")
        c.eq((status.get("loadedFiles"), status.get("loadedRows")), (files, count),
             f"{what}: {name}'s information_schema.pipes LOAD_STATUS")


@suite.test(timeout=420)
def test_a_moved_volume_pipe_lists_every_file_once_on_every_node(t):
    per, first_files, later_files = 40, 5, 5
    with Postgres() as pg, S3rver() as s3:
        s3.create_bucket(LANDING)
        nodes, conns = setup(t, pg, s3, None)
        define_volume(conns["n1"], s3)
        c = Collector()
        put_files(s3, 1, first_files, per)
        kh.query(conns["n1"], "CREATE PIPE d.vp BATCH_INTERVAL_IN_SECONDS = '1' INGEST_MODE = 'LIST' AS COPY INTO "
                              "lake.db.events FROM VOLUME landing USING CSV REGEXP '.*[.]csv'")
        pid = int(pg.psql("SELECT id FROM sluice_routine_loads WHERE name = 'vp'")[0][0])
        eq(wait_count(conns["n1"], first_files * per, 90), first_files * per, "the first files loaded")
        holder, epoch = kh.wait_until(lambda: pipe_holder(pg, pid), 20, "one node holds pipe:<id>")
        print(f"  pipe:{pid} held by {holder} at epoch {epoch}", flush=True)
        others = [n for n in conns if n != holder]
        c.check(not any("pipe d.vp FROM VOLUME" in nodes[n].log_text() for n in others),
                f"only {holder} ran the pipe so far")
        # Nodes that never ran the pipe already answer with its files.
        check_pipe_views(c, conns, first_files, per, "before the kill")

        nodes[holder].kill_process()
        conns.pop(holder).close()
        survivor, new_epoch = kh.wait_until(
            lambda: (lambda h: h if h and h[0] != holder else None)(pipe_holder(pg, pid)), TIMEOUT + 30,
            "a survivor takes the pipe over")
        print(f"  pipe moved to {survivor} (epoch {new_epoch})", flush=True)
        put_files(s3, first_files + 1, later_files, per)
        total_files = first_files + later_files
        eq(wait_count(conns[survivor], total_files * per, 90), total_files * per, "every file loaded after the move")
        time.sleep(2)  # a late commit would show now
        check_pipe_views(c, conns, total_files, per, "after the move")
        # The killed node, started again, answers the same (it has not run the pipe since).
        nodes[holder].start()
        conns[holder] = nodes[holder].connect()
        kh.wait_until(lambda: desc_extended(conns[holder], "vp").get("loaded_files") == str(total_files), 30,
                      f"{holder} knows the pipe again")
        check_pipe_views(c, conns, total_files, per, "with the killed node back")
        for conn in conns.values():
            conn.close()
        c.done()


STAT_KEYS = ("loadedRows", "totalRows", "errorRows", "unselectedRows", "committedTaskNum", "receivedBytes")


def statistics(conns: dict) -> dict:
    return {name: {k: kh.show_job(conn, "d.ev_job")["Statistic"][k] for k in STAT_KEYS}
            for name, conn in conns.items()}


def check_statistics(c: Collector, conns: dict, total: int, what: str) -> dict:
    stats = statistics(conns)
    first = next(iter(stats.values()))
    c.check(all(s == first for s in stats.values()), f"{what}: Statistic the same on every node: {stats}")
    for name, conn in conns.items():
        count = kh.scalar(conn, "SELECT count(*) FROM lake.db.events")
        c.eq(count, total, f"{what}: the table's count(*) on {name}")
        c.eq(stats[name]["loadedRows"], count, f"{what}: {name}'s loadedRows is the table's count(*)")
        c.eq(stats[name]["totalRows"], count, f"{what}: {name}'s totalRows (no error or filtered rows)")
        c.check(stats[name]["receivedBytes"] > 0 and stats[name]["committedTaskNum"] > 0,
                f"{what}: {name}'s receivedBytes and committedTaskNum count the cluster's tasks")
    return first


def kafka_pipe(bootstrap: str) -> str:
    """A Kafka pipe on the routine load's topic, into a table of its own."""
    return f"""CREATE PIPE d.kp BATCH_INTERVAL_IN_SECONDS = '1' RESET_KAFKA_GROUP_OFFSETS = 'earliest'
    ICEBERG_COMMIT_INTERVAL_IN_SECONDS = '1'
AS COPY INTO lake.db.kp_events FROM (
    SELECT CAST(PARSE_JSON(value::STRING)['id'] AS BIGINT) AS id, PARSE_JSON(value::STRING)['name']::STRING AS name,
           CAST(PARSE_JSON(value::STRING)['ts'] AS TIMESTAMP) AS ts, CAST(PARSE_JSON(value::STRING)['amount'] AS INT) AS amount
    FROM READ_KAFKA('{bootstrap}', 'ev', '', 'kp_group', '', '', '', '', 'raw', 'raw', 0, map())
)"""


def check_kafka_pipe(c: Collector, conns: dict, total: int, what: str) -> None:
    """DESC PIPE EXTENDED's and LOAD_STATUS's counts of the Kafka pipe are the same on every node and equal its
    table's count(*)."""
    views = {}
    for name, conn in conns.items():
        count = kh.scalar(conn, "SELECT count(*) FROM lake.db.kp_events")
        c.eq(count, total, f"{what}: lake.db.kp_events' count(*) on {name}")
        desc = desc_extended(conn, "kp")
        c.eq(desc.get("loaded_rows"), str(count), f"{what}: {name}'s DESC PIPE EXTENDED loaded_rows")
        c.eq(load_status(conn, "kp").get("loadedRows"), count, f"{what}: {name}'s LOAD_STATUS loadedRows")
        views[name] = {k: desc.get(k) for k in ("loaded_rows", "error_rows", "filtered_rows", "committed_batches",
                                                "received_bytes", "next_offsets")}
    first = next(iter(views.values()))
    c.check(all(v == first for v in views.values()), f"{what}: the Kafka pipe's counts on every node: {views}")


def own_batches(conn) -> int:
    return kh.scalar(conn, "SELECT coalesce(sum(loaded_rows), 0) FROM __sluice.load_history WHERE job_name = 'ev_job'")


@suite.test(timeout=420)
def test_routine_load_statistics_are_the_clusters(t):
    per = 150
    total = PARTITIONS * per
    broker = kh.adopt_broker(kh.TestBroker({"ev": PARTITIONS}).start())
    with Postgres() as pg, S3rver() as s3:
        nodes, conns = setup(t, pg, s3, broker)
        c = Collector()
        create_job(conns["n1"], broker)
        kh.query(conns["n1"], "CREATE TABLE lake.db.kp_events (id BIGINT NOT NULL, name VARCHAR, ts DATETIME, "
                              "amount INT)")
        kh.query(conns["n2"], kafka_pipe(broker.bootstrap))
        jid = wait_same(conns, "d.ev_job", "RUNNING", 60)["Id"]
        kh.wait_until(lambda: leases_by_node(pg, jid) == {"n1": 4, "n2": 4, "n3": 4}, 60, "4/4/4")
        produce_events(broker, "ev", ids_for(1, total // 2))
        eq(wait_count(conns["n1"], total // 2, 120), total // 2, "the first half loaded")
        eq(wait_count(conns["n1"], total // 2, 120, "lake.db.kp_events"), total // 2, "the pipe loaded the first half")
        time.sleep(1.5)  # the last commits' offsets of partitions with nothing new
        first = check_statistics(c, conns, total // 2, "split 4/4/4")
        mine = {name: own_batches(conn) for name, conn in conns.items()}
        print(f"  Statistic {first}; each node's own load_history rows: {mine}", flush=True)
        c.eq(sum(mine.values()), total // 2, "the nodes' own load_history adds up to the table")
        c.check(all(v < total // 2 for v in mine.values()), f"each node loaded only its share itself: {mine}")
        check_kafka_pipe(c, conns, total // 2, "split over three nodes")

        # kill -9 of n3 mid-load: what it committed stays in the figures, the survivors add the rest.
        produce_events(broker, "ev", ids_for(total // 2 + 1, total))
        wait_count(conns["n1"], total // 2 + 100, 60)
        nodes["n3"].kill_process()
        conns.pop("n3").close()
        kh.wait_until(lambda: leases_by_node(pg, jid) == {"n1": 6, "n2": 6}, TIMEOUT + 30, "6/6 after the kill")
        eq(wait_count(conns["n1"], total, 180), total, "every message loaded")
        eq(wait_count(conns["n1"], total, 180, "lake.db.kp_events"), total, "the pipe loaded every message")
        time.sleep(2)  # any late commit would show now
        after = check_statistics(c, conns, total, "after the kill")
        check_kafka_pipe(c, conns, total, "after the kill")
        c.check(after["committedTaskNum"] > first["committedTaskNum"], "the survivors' tasks were added")
        for conn in conns.values():
            conn.close()
        c.done()


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
