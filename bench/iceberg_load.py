"""The `iceberg` scenario of `make bench`: the same JSON routine load into a DuckDB table and into an Iceberg table
on s3rver (a JDBC catalog in a PostgreSQL 15 the bench starts with initdb in a temp folder, files in s3rver, both on
loopback), runs interleaved so both see the same machine. Reported per target: rows/s, the Sluice server's CPU
seconds per million rows (utime+stime over the timed window), and for Iceberg the objects written to S3 (data
files, manifests, manifest lists, metadata.json) per minute of loading and per commit, plus s3rver's own CPU (node,
one process). PostgreSQL's CPU is not counted (its backends are forked children)."""
from __future__ import annotations

import os
import statistics
import sys
import time

from benchlib import (REPO, TABLE_DDL, Broker, count_messages, partition_payloads, proc_cpu_seconds, produce_topic,
                      routine_load_sql)

sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))
from harness import SluiceServer  # noqa: E402
from pg_harness import Postgres  # noqa: E402
from s3_harness import ACCESS_ID, S3rver  # noqa: E402

BUCKET = "lake"
TOPIC = "iceberg_orders"


def _s3_objects(s3: S3rver, prefix: str) -> int:
    root = os.path.join(s3.data_dir, BUCKET)
    n = 0
    for dirpath, _, names in os.walk(root):
        for name in names:
            if name.endswith("._S3rver_object") and os.path.relpath(dirpath, root).startswith(prefix):
                n += 1
    return n


def _wait_count(srv, cur, table: str, rows: int, timeout: float) -> float:
    deadline = time.monotonic() + timeout
    while True:
        cur.execute(f"SELECT count(*) FROM {table}")
        count = int(cur.fetchone()[0])
        if count >= rows:
            if count != rows:
                raise RuntimeError(f"{table}: {count} rows, expected {rows}")
            return time.monotonic()
        if time.monotonic() > deadline:
            raise RuntimeError(f"{table}: only {count} of {rows} rows after {timeout:.0f}s:\n{srv.log_tail(20)}")
        if not srv.alive():
            raise RuntimeError(f"sluice exited:\n{srv.log_tail(30)}")
        time.sleep(0.1)


def _load_once(args, bootstrap: str, rows: int, iceberg: bool, run: int, pg: Postgres, s3: S3rver) -> dict:
    srv = SluiceServer(args.sluice, extra_args=["--log-level", "warn"] + args.server_arg).start()
    try:
        conn = srv.connect(read_timeout=300)
        name = f"orders_{'iceberg' if iceberg else 'duckdb'}_{run}"
        job_props = list(args.job_property)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE IF NOT EXISTS bench")
            cur.execute("USE bench")
            if iceberg:
                cur.execute(f"""CREATE EXTERNAL CATALOG lake PROPERTIES (
                    "type" = "iceberg", "iceberg.catalog.type" = "jdbc", "iceberg.catalog.uri" = "{pg.uri}",
                    "iceberg.catalog.warehouse" = "s3://{BUCKET}/wh", "aws.s3.endpoint" = "{s3.endpoint}",
                    "aws.s3.access_key" = "{ACCESS_ID}", "aws.s3.secret_key" = "S3RVER",
                    "aws.s3.enable_path_style_access" = "true")""")
                cur.execute("CREATE DATABASE IF NOT EXISTS lake.bench")
                cur.execute(TABLE_DDL.format(table=name).replace("bench.", "lake.bench.", 1))
                table = f"lake.bench.{name}"
                job_props.append(f"iceberg.commit_interval_seconds={args.iceberg_commit_interval}")
            else:
                cur.execute(TABLE_DDL.format(table=name))
                table = f"bench.{name}"
            objects0 = _s3_objects(s3, f"wh/bench/{name}")
            cpu0, s3cpu0 = proc_cpu_seconds(srv.proc.pid), proc_cpu_seconds(s3.proc.pid)
            t0 = time.monotonic()
            target = table if iceberg else name  # a DuckDB table is named in the job's database
            cur.execute(routine_load_sql(f"job_{name}", target, "json", bootstrap, TOPIC, args.concurrency, job_props))
            secs = _wait_count(srv, cur, table, rows, 60 + rows / 1000) - t0
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
    broker = Broker(args.testbroker, {TOPIC: partitions}).start()
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
    finally:
        broker.stop()
    med = lambda target, key: statistics.median(r[key] for r in runs[target])  # noqa: E731
    out = {"rows": rows, "partitions": partitions, "concurrency": args.concurrency,
           "commit_interval": args.iceberg_commit_interval, "runs": runs}
    for target in ("duckdb", "iceberg"):
        out[target] = {k: med(target, k) for k in runs[target][0]}
    out["ratio"] = out["iceberg"]["rows_per_s"] / out["duckdb"]["rows_per_s"]
    print(f"bench: iceberg / duckdb rows/s {out['ratio']:.2f}", flush=True)
    return out


def render_iceberg_load(r: dict) -> str:
    d, i = r["duckdb"], r["iceberg"]
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
    ])
