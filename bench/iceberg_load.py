"""The `iceberg` scenario of `make bench`: the same JSON routine load into a DuckDB table and into an Iceberg table
on s3rver (a JDBC catalog in a PostgreSQL 15 the bench starts with initdb in a temp folder, files in s3rver, both on
loopback), runs interleaved so both see the same machine. Reported per target: rows/s, the Sluice server's CPU
seconds per million rows (utime+stime over the timed window), and for Iceberg the objects written to S3 (data
files, manifests, manifest lists, metadata.json) per minute of loading and per commit, plus s3rver's own CPU (node,
one process). PostgreSQL's CPU is not counted (its backends are forked children).

Then a steady phase: each target's job runs on an empty topic while a producer writes `--iceberg-steady-rate`
messages a second for `--iceberg-steady-seconds`, the Iceberg job at Sluice's default commit pacing (10 s): the
objects written per minute of a job that keeps up with its topic, and the CPU per row at that rate."""
from __future__ import annotations

import os
import statistics
import sys
import time

from benchlib import (REPO, TABLE_DDL, Broker, count_messages, partition_payloads, proc_cpu_seconds, produce_topic,
                      routine_load_sql, wait_for_count)

sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))
from harness import SluiceServer  # noqa: E402
from pg_harness import Postgres  # noqa: E402
from s3_harness import ACCESS_ID, S3rver  # noqa: E402

BUCKET = "lake"
TOPIC = "iceberg_orders"
STEADY_PARTITIONS = 4


def _s3_objects(s3: S3rver, prefix: str) -> int:
    root = os.path.join(s3.data_dir, BUCKET)
    n = 0
    for dirpath, _, names in os.walk(root):
        for name in names:
            if name.endswith("._S3rver_object") and os.path.relpath(dirpath, root).startswith(prefix):
                n += 1
    return n


def define_lake(cur, pg: Postgres, s3: S3rver) -> None:
    """The jobs' database `bench` and the external catalog `lake` (JDBC catalog in `pg`, files in `s3`) on one
    server; catalogs are per node, so a cluster runs this on every node."""
    cur.execute("CREATE DATABASE IF NOT EXISTS bench")
    cur.execute("USE bench")
    cur.execute(f"""CREATE EXTERNAL CATALOG IF NOT EXISTS lake PROPERTIES (
        "type" = "iceberg", "iceberg.catalog.type" = "jdbc", "iceberg.catalog.uri" = "{pg.uri}",
        "iceberg.catalog.warehouse" = "s3://{BUCKET}/wh", "aws.s3.endpoint" = "{s3.endpoint}",
        "aws.s3.access_key" = "{ACCESS_ID}", "aws.s3.secret_key" = "S3RVER",
        "aws.s3.enable_path_style_access" = "true")""")


def _create_target(cur, iceberg: bool, name: str, pg: Postgres, s3: S3rver) -> str:
    if not iceberg:
        cur.execute("CREATE DATABASE IF NOT EXISTS bench")
        cur.execute("USE bench")
        cur.execute(TABLE_DDL.format(table=name))
        return f"bench.{name}"
    define_lake(cur, pg, s3)
    cur.execute("CREATE DATABASE IF NOT EXISTS lake.bench")
    cur.execute(TABLE_DDL.format(table=name).replace("bench.", "lake.bench.", 1))
    return f"lake.bench.{name}"


def _steady_once(args, bootstrap: str, iceberg: bool, pg: Postgres, s3: S3rver) -> dict:
    target = "iceberg" if iceberg else "duckdb"
    topic, name = f"iceberg_steady_{target}", f"steady_{target}"
    rate, seconds = args.iceberg_steady_rate, args.iceberg_steady_seconds
    srv = SluiceServer(args.sluice, extra_args=["--log-level", "warn"] + args.server_arg).start()
    try:
        conn = srv.connect(read_timeout=300)
        with conn.cursor() as cur:
            table = _create_target(cur, iceberg, name, pg, s3)
            props = list(args.job_property) + (["iceberg.commit_interval_seconds=10"] if iceberg else [])
            cur.execute(routine_load_sql(f"job_{name}", table if iceberg else name, "json", bootstrap, topic,
                                         args.concurrency, props))
            time.sleep(2.0)  # the job's tasks are polling the empty topic
            objects0 = _s3_objects(s3, f"wh/bench/{name}")
            cpu0 = proc_cpu_seconds(srv.proc.pid)
            t0 = time.monotonic()
            chunk, _ = partition_payloads(rate, STEADY_PARTITIONS, "json")
            for second in range(int(seconds)):
                produce_topic(bootstrap, topic, chunk, parallel=STEADY_PARTITIONS)
                time.sleep(max(0.0, t0 + second + 1 - time.monotonic()))
            produced_s = time.monotonic() - t0
            # Per minute over the producing window: what a job that keeps up with its topic writes.
            if iceberg:
                objects_mid = _s3_objects(s3, f"wh/bench/{name}") - objects0
                cur.execute(f"SELECT count(*) FROM {table}$snapshots")
                commits_mid = int(cur.fetchone()[0])
            rows = rate * int(seconds)
            secs = wait_for_count(srv, conn, table, rows, 60 + rows / 1000, poll=0.1) - t0
            cpu = proc_cpu_seconds(srv.proc.pid) - cpu0
            out = {"rows": rows, "seconds": secs, "cpu_s_per_m": cpu / rows * 1e6,
                   "cpu_share": cpu / secs}
            if iceberg:
                cur.execute(f"SELECT count(*) FROM {table}$snapshots")
                commits = int(cur.fetchone()[0])
                objects = _s3_objects(s3, f"wh/bench/{name}") - objects0
                out.update({"commits": commits, "commits_per_min": commits_mid / produced_s * 60,
                            "objects": objects, "objects_per_min": objects_mid / produced_s * 60})
            cur.execute(f"STOP ROUTINE LOAD FOR bench.job_{name}")
        conn.close()
        return out
    finally:
        srv.stop()
        srv.cleanup()


def _load_once(args, bootstrap: str, rows: int, iceberg: bool, run: int, pg: Postgres, s3: S3rver) -> dict:
    srv = SluiceServer(args.sluice, extra_args=["--log-level", "warn"] + args.server_arg).start()
    try:
        conn = srv.connect(read_timeout=300)
        name = f"orders_{'iceberg' if iceberg else 'duckdb'}_{run}"
        job_props = list(args.job_property)
        if iceberg:
            job_props.append(f"iceberg.commit_interval_seconds={args.iceberg_commit_interval}")
        with conn.cursor() as cur:
            table = _create_target(cur, iceberg, name, pg, s3)
            objects0 = _s3_objects(s3, f"wh/bench/{name}")
            cpu0, s3cpu0 = proc_cpu_seconds(srv.proc.pid), proc_cpu_seconds(s3.proc.pid)
            t0 = time.monotonic()
            target = table if iceberg else name  # a DuckDB table is named in the job's database
            cur.execute(routine_load_sql(f"job_{name}", target, "json", bootstrap, TOPIC, args.concurrency, job_props))
            secs = wait_for_count(srv, conn, table, rows, 60 + rows / 1000, poll=0.1) - t0
            cpu, s3cpu = proc_cpu_seconds(srv.proc.pid) - cpu0, proc_cpu_seconds(s3.proc.pid) - s3cpu0
            out = {"seconds": secs, "rows_per_s": rows / secs, "cpu_s_per_m": cpu / rows * 1e6}
            if iceberg:
                cur.execute(f"SELECT count(*) FROM lake.bench.{name}$snapshots")
                commits = int(cur.fetchone()[0])
                objects = _s3_objects(s3, f"wh/bench/{name}") - objects0
                out.update({"commits": commits, "objects": objects, "objects_per_min": objects / secs * 60,
                            "objects_per_commit": objects / max(1, commits), "s3rver_cpu_s_per_m": s3cpu / rows * 1e6})
            cur.execute(f"STOP ROUTINE LOAD FOR bench.job_{name}")
        conn.close()
        return out
    finally:
        srv.stop()
        srv.cleanup()


def iceberg_load(args) -> dict:
    rows, partitions = args.iceberg_rows, 16  # the test broker keeps ~4.5 MB per partition
    broker = Broker(args.testbroker, {TOPIC: partitions, "iceberg_steady_duckdb": STEADY_PARTITIONS,
                                      "iceberg_steady_iceberg": STEADY_PARTITIONS}).start()
    try:
        payloads, _ = partition_payloads(rows, partitions, "json")
        produce_topic(broker.bootstrap, TOPIC, payloads, parallel=4)
        if count_messages(broker.bootstrap, TOPIC) != rows:
            raise RuntimeError(f"the broker did not keep all {rows} messages")
        runs: dict[str, list[dict]] = {"duckdb": [], "iceberg": []}
        with Postgres() as pg, S3rver() as s3:
            s3.create_bucket(BUCKET)
            for run in range(args.iceberg_runs):
                runs["duckdb"].append(_load_once(args, broker.bootstrap, rows, False, run, pg, s3))
                runs["iceberg"].append(_load_once(args, broker.bootstrap, rows, True, run, pg, s3))
                print(f"bench: iceberg run {run}: duckdb {runs['duckdb'][-1]['rows_per_s']:,.0f} rows/s, "
                      f"iceberg {runs['iceberg'][-1]['rows_per_s']:,.0f} rows/s, "
                      f"{runs['iceberg'][-1]['objects_per_min']:.0f} objects/min", flush=True)
            steady = {t: _steady_once(args, broker.bootstrap, t == "iceberg", pg, s3) for t in ("duckdb", "iceberg")}
            print(f"bench: iceberg steady: {steady}", flush=True)
    finally:
        broker.stop()
    med = lambda target, key: statistics.median(r[key] for r in runs[target])  # noqa: E731
    out = {"rows": rows, "partitions": partitions, "concurrency": args.concurrency,
           "commit_interval": args.iceberg_commit_interval, "runs": runs, "steady": steady,
           "steady_rate": args.iceberg_steady_rate, "steady_seconds": args.iceberg_steady_seconds}
    for target in ("duckdb", "iceberg"):
        out[target] = {k: med(target, k) for k in runs[target][0]}
    out["ratio"] = out["iceberg"]["rows_per_s"] / out["duckdb"]["rows_per_s"]
    print(f"bench: iceberg / duckdb rows/s {out['ratio']:.2f}", flush=True)
    return out


def render_iceberg_load(r: dict) -> str:
    d, i = r["duckdb"], r["iceberg"]
    sd, si = r["steady"]["duckdb"], r["steady"]["iceberg"]
    runs = lambda target: ", ".join(f"{x['rows_per_s']:,.0f}" for x in r["runs"][target])  # noqa: E731
    return "\n".join([
        f"JSON routine load, {r['rows']:,} messages over {r['partitions']} partitions, desired_concurrent_number "
        f"{r['concurrency']}; the Iceberg job with `iceberg.commit_interval_seconds` = {r['commit_interval']}.",
        "",
        "| target | rows/s (runs) | Sluice CPU s / M rows | commits | S3 objects written | objects / min | "
        "objects / commit | s3rver CPU s / M rows |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        f"| DuckDB table | {d['rows_per_s']:,.0f} ({runs('duckdb')}) | {d['cpu_s_per_m']:.2f} | – | – | – | – | – |",
        f"| Iceberg table (JDBC catalog on PostgreSQL 15, s3rver) | {i['rows_per_s']:,.0f} ({runs('iceberg')}) | "
        f"{i['cpu_s_per_m']:.2f} | {i['commits']:.0f} | {i['objects']:.0f} | {i['objects_per_min']:.0f} | "
        f"{i['objects_per_commit']:.1f} | {i['s3rver_cpu_s_per_m']:.2f} |",
        "",
        f"Iceberg / DuckDB rows/s: **{r['ratio']:.2f}**.",
        "",
        f"Steady: {r['steady_rate']:,} messages/s for {r['steady_seconds']:g} s into {STEADY_PARTITIONS} partitions, "
        "the Iceberg job at the default `iceberg.commit_interval_seconds` = 10:",
        "",
        "| target | rows | seconds to the last row | Sluice CPU s / M rows | share of a core | commits / min | "
        "S3 objects / min (while producing) |",
        "|---|---:|---:|---:|---:|---:|---:|",
        f"| DuckDB table | {sd['rows']:,} | {sd['seconds']:.1f} | {sd['cpu_s_per_m']:.2f} | {sd['cpu_share']:.2f} | – | – |",
        f"| Iceberg table | {si['rows']:,} | {si['seconds']:.1f} | {si['cpu_s_per_m']:.2f} | {si['cpu_share']:.2f} | "
        f"{si['commits_per_min']:.1f} | {si['objects_per_min']:.1f} |",
    ])
