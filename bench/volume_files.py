"""The file workloads of `make bench`: CSV files and JSON-lines files in a local folder volume, loaded by Sluice's
`COPY INTO ... FROM VOLUME` against DuckDB itself loading the same files (`INSERT INTO t SELECT * FROM
read_csv(...)` / `read_json(...)`) with bench/duckdb_load.cpp on the same libduckdb, in the same run."""
from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import REPO, TABLE_DDL, order_line, proc_cpu_seconds

sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))
from harness import SluiceServer  # noqa: E402  (tests/e2e/harness.py)

HEADER = "commodity_id,customer_name,country,pay_time,price"
DUCKDB_DDL = ("CREATE TABLE t (commodity_id VARCHAR, customer_name VARCHAR, country VARCHAR, pay_time BIGINT, "
              "price DOUBLE)")


def write_files(folder: str, fmt: str, total_mb: float, files: int) -> tuple[int, int]:
    """`files` files of about total_mb MB together; returns (rows, bytes)."""
    os.makedirs(folder, exist_ok=True)
    target = total_mb * 1e6 / files
    rows = nbytes = 0
    i = 0
    for f in range(files):
        path = os.path.join(folder, f"orders_{f:03d}.{'csv' if fmt == 'csv' else 'jsonl'}")
        lines = [HEADER] if fmt == "csv" else []
        size = len(HEADER) + 1 if fmt == "csv" else 0
        while size < target:
            line = order_line(i, fmt)
            lines.append(line)
            size += len(line) + 1
            i += 1
            rows += 1
        with open(path, "w") as fh:
            fh.write("\n".join(lines) + "\n")
        nbytes += os.path.getsize(path)
    return rows, nbytes


def duckdb_run(binary: str, folder: str, fmt: str, rows: int) -> dict:
    work = tempfile.mkdtemp(prefix="sluice-bench-duckdb-")
    try:
        reader = (f"read_csv('{folder}/*.csv', header = true)" if fmt == "csv"
                  else f"read_json('{folder}/*.jsonl', format = 'newline_delimited')")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        r = subprocess.run([binary, os.path.join(work, "ref.duckdb"), DUCKDB_DDL,
                            f"INSERT INTO t SELECT commodity_id, customer_name, country, pay_time, price FROM {reader}",
                            "CHECKPOINT"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=900)
        secs = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if r.returncode != 0:
            raise RuntimeError(f"duckdb_load failed: {r.stderr.decode('utf-8', 'replace')[-400:]}")
        inserted = int(r.stdout.decode().splitlines()[1].split("\t")[1])
        if inserted != rows:
            raise RuntimeError(f"DuckDB loaded {inserted} rows, expected {rows}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return {"seconds": secs, "cpu_s_per_m": cpu / rows * 1e6}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def sluice_run(args, folder: str, fmt: str, rows: int) -> dict:
    srv = SluiceServer(args.sluice, extra_args=["--log-level", "warn"] + args.server_arg)
    srv.start()
    try:
        conn = srv.connect(read_timeout=900)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE bench")
            cur.execute("USE bench")
            cur.execute(TABLE_DDL.format(table="t"))
            cur.execute(f"CREATE VOLUME files LOCATION 'file://{folder}/'")
            using = "CSV OPTIONS ('header' = 'true')" if fmt == "csv" else "JSON"
            cpu0 = proc_cpu_seconds(srv.proc.pid)
            t0 = time.monotonic()
            cur.execute(f"COPY INTO bench.t FROM VOLUME files USING {using}")
            results = cur.fetchall()
            secs = time.monotonic() - t0
            cpu = proc_cpu_seconds(srv.proc.pid) - cpu0
            cur.execute("SELECT count(*) FROM bench.t")
            count = int(cur.fetchone()[0])
        if count != rows:
            raise RuntimeError(f"Sluice loaded {count} rows, expected {rows}: {results[:3]}")
        conn.close()
        return {"seconds": secs, "cpu_s_per_m": cpu / rows * 1e6, "files": len(results)}
    finally:
        srv.stop()
        srv.cleanup()


def volume_files(args) -> dict:
    binary = os.path.join(os.path.dirname(args.sluice), "bench", "duckdb_load")
    if not os.access(binary, os.X_OK):
        return {"skipped": f"{binary} is not built (make build)"}
    out: dict = {"formats": {}}
    root = tempfile.mkdtemp(prefix="sluice-bench-files-")
    try:
        for fmt in ("csv", "json"):
            folder = os.path.join(root, fmt)
            rows, nbytes = write_files(folder, fmt, args.volume_mb, args.volume_files)
            runs = []
            for _ in range(args.runs):
                d = duckdb_run(binary, folder, fmt, rows)
                s = sluice_run(args, folder, fmt, rows)
                runs.append({"duckdb": d, "sluice": s, "ratio": d["seconds"] / s["seconds"]})
                print(f"bench: volume {fmt}: DuckDB {d['seconds']:.2f}s, Sluice {s['seconds']:.2f}s, "
                      f"ratio {runs[-1]['ratio']:.2f}", flush=True)
            out["formats"][fmt] = {
                "rows": rows, "mbytes": nbytes / 1e6, "files": args.volume_files, "runs": runs,
                "ratio": statistics.median(r["ratio"] for r in runs),
                "duckdb_rows_per_s": statistics.median(rows / r["duckdb"]["seconds"] for r in runs),
                "sluice_rows_per_s": statistics.median(rows / r["sluice"]["seconds"] for r in runs),
                "duckdb_cpu": statistics.median(r["duckdb"]["cpu_s_per_m"] for r in runs),
                "sluice_cpu": statistics.median(r["sluice"]["cpu_s_per_m"] for r in runs)}
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return out


def render_volume_files(r: dict) -> str:
    if "skipped" in r:
        return f"Not measured: {r['skipped']}."
    lines = ["| files | rows | MB | DuckDB rows/s | DuckDB CPU s/M | Sluice rows/s | Sluice CPU s/M | Sluice / DuckDB (runs) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for fmt, x in r["formats"].items():
        runs = ", ".join(f"{y['ratio']:.2f}" for y in x["runs"])
        label = f"{x['files']} CSV files with a header" if fmt == "csv" else f"{x['files']} JSON-lines files"
        lines.append(f"| {label} | {x['rows']:,} | {x['mbytes']:.0f} | {x['duckdb_rows_per_s']:,.0f} | "
                     f"{x['duckdb_cpu']:.2f} | {x['sluice_rows_per_s']:,.0f} | {x['sluice_cpu']:.2f} | "
                     f"**{x['ratio']:.2f}** ({runs}) |")
    return "\n".join(lines)
