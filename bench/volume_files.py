"""The file workloads of `make bench`: CSV, JSON-lines and Parquet files in a local folder volume, loaded by Sluice's
`COPY INTO ... FROM VOLUME` against DuckDB itself loading the same files (`INSERT INTO t SELECT * FROM
read_csv(...)` / `read_json(...)` / `read_parquet(...)`) with bench/duckdb_load.cpp on the same libduckdb, in the
same run; and the CSV files from an S3 volume on s3rver, against the same local DuckDB reference (DuckDB has no S3
reader here: its httpfs extension cannot be installed offline), which shows what the object store costs."""
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
from s3_harness import ACCESS_ID, ACCESS_KEY, S3rver  # noqa: E402

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


def write_parquet_files(binary: str, csv_folder: str, folder: str) -> int:
    """The CSV files as Parquet files, one each, written by DuckDB; returns their bytes."""
    os.makedirs(folder, exist_ok=True)
    work = tempfile.mkdtemp(prefix="sluice-bench-duckdb-")
    try:
        statements = []
        for name in sorted(os.listdir(csv_folder)):
            target = os.path.join(folder, name.replace(".csv", ".parquet"))
            statements.append(f"COPY (SELECT * FROM read_csv('{os.path.join(csv_folder, name)}', header = true)) "
                              f"TO '{target}' (FORMAT parquet)")
        r = subprocess.run([binary, os.path.join(work, "convert.duckdb"), *statements], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=900)
        if r.returncode != 0:
            raise RuntimeError(f"writing Parquet files failed: {r.stderr.decode('utf-8', 'replace')[-400:]}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder))


READERS = {
    "csv": "read_csv('{folder}/*.csv', header = true)",
    "json": "read_json('{folder}/*.jsonl', format = 'newline_delimited')",
    "parquet": "read_parquet('{folder}/*.parquet')",
}
USING = {"csv": "CSV OPTIONS ('header' = 'true')", "json": "JSON", "parquet": "PARQUET"}


def duckdb_run(binary: str, folder: str, fmt: str, rows: int) -> dict:
    work = tempfile.mkdtemp(prefix="sluice-bench-duckdb-")
    try:
        reader = READERS[fmt].format(folder=folder)
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


def sluice_run(args, folder: str, fmt: str, rows: int, s3: S3rver | None = None) -> dict:
    """COPY INTO from a local folder volume, or (s3) from the bucket `bench` on s3rver holding the same files."""
    srv = SluiceServer(args.sluice, extra_args=["--log-level", "warn"] + args.server_arg)
    srv.start()
    try:
        conn = srv.connect(read_timeout=900)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE bench")
            cur.execute("USE bench")
            cur.execute(TABLE_DDL.format(table="t"))
            if s3 is None:
                cur.execute(f"CREATE VOLUME files LOCATION 'file://{folder}/'")
            else:
                cur.execute(f"CREATE STORAGE CONNECTION s3c TYPE S3 ENDPOINT = '{s3.endpoint}' "
                            f"ACCESS_ID = '{ACCESS_ID}' ACCESS_KEY = '{ACCESS_KEY}'")
                cur.execute("CREATE EXTERNAL VOLUME files LOCATION 's3://bench/in/' USING CONNECTION s3c")
            using = USING[fmt]
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
    s3 = None
    try:
        csv_rows = 0
        for fmt in ("csv", "json", "parquet", "csv-s3"):
            base = fmt.split("-")[0]
            folder = os.path.join(root, base)
            if fmt == "parquet":
                rows, nbytes = csv_rows, write_parquet_files(binary, os.path.join(root, "csv"), folder)
            elif fmt == "csv-s3":
                rows = csv_rows
                nbytes = sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder))
                s3 = S3rver().start()
                s3.create_bucket("bench")
                s3.put_many_direct("bench", {f"in/{n}": open(os.path.join(folder, n), "rb").read()
                                             for n in sorted(os.listdir(folder))})
            else:
                rows, nbytes = write_files(folder, fmt, args.volume_mb, args.volume_files)
                if fmt == "csv":
                    csv_rows = rows
            runs = []
            for _ in range(args.runs):
                d = duckdb_run(binary, folder, base, rows)
                s = sluice_run(args, folder, base, rows, s3 if fmt == "csv-s3" else None)
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
        if s3 is not None:
            s3.stop()
        shutil.rmtree(root, ignore_errors=True)
    return out


def render_volume_files(r: dict) -> str:
    if "skipped" in r:
        return f"Not measured: {r['skipped']}."
    lines = ["| files | rows | MB | DuckDB rows/s | DuckDB CPU s/M | Sluice rows/s | Sluice CPU s/M | Sluice / DuckDB (runs) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for fmt, x in r["formats"].items():
        runs = ", ".join(f"{y['ratio']:.2f}" for y in x["runs"])
        label = {"csv": f"{x['files']} CSV files with a header", "json": f"{x['files']} JSON-lines files",
                 "parquet": f"{x['files']} Parquet files (the CSV files' rows)",
                 "csv-s3": f"{x['files']} CSV files from S3 (s3rver); DuckDB reads them locally"}[fmt]
        lines.append(f"| {label} | {x['rows']:,} | {x['mbytes']:.0f} | {x['duckdb_rows_per_s']:,.0f} | "
                     f"{x['duckdb_cpu']:.2f} | {x['sluice_rows_per_s']:,.0f} | {x['sluice_cpu']:.2f} | "
                     f"**{x['ratio']:.2f}** ({runs}) |")
    return "\n".join(lines)
