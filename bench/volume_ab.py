#!/usr/bin/python3
"""Two Sluice builds against DuckDB's own readers on the same volume files, interleaved in one run, so a change's
before and after figures share the machine's load (bench/volume_files.py's workload and measurements).

    /usr/bin/python3 bench/volume_ab.py --before /tmp/base/sluice --after build/sluice --runs 3 --formats csv,json,parquet

Each run takes, per format: DuckDB's reader (build/bench/duckdb_load next to --after), then before, then after.
Prints per run and format the seconds, CPU s per M rows and DuckDB / Sluice for both builds, then the medians.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from volume_files import duckdb_run, sluice_run, write_files, write_parquet_files  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--formats", default="csv,json,parquet")
    ap.add_argument("--mb", type=float, default=100.0)
    ap.add_argument("--files", type=int, default=20)
    args = ap.parse_args()
    duckdb_load = os.path.join(os.path.dirname(args.after), "bench", "duckdb_load")
    root = tempfile.mkdtemp(prefix="sluice-bench-ab-")
    try:
        rows = {}
        rows["csv"], _ = write_files(os.path.join(root, "csv"), "csv", args.mb, args.files)
        formats = args.formats.split(",")
        if "json" in formats:
            rows["json"], _ = write_files(os.path.join(root, "json"), "json", args.mb, args.files)
        if "parquet" in formats:
            write_parquet_files(duckdb_load, os.path.join(root, "csv"), os.path.join(root, "parquet"))
            rows["parquet"] = rows["csv"]
        results: dict = {f: [] for f in formats}
        for run in range(args.runs):
            for fmt in formats:
                folder = os.path.join(root, fmt)
                load = os.getloadavg()[0]
                d = duckdb_run(duckdb_load, folder, fmt, rows[fmt])
                out = {"load": load, "duckdb": d}
                for name in ("before", "after"):
                    ns = argparse.Namespace(sluice=getattr(args, name), server_arg=[])
                    out[name] = sluice_run(ns, folder, fmt, rows[fmt])
                    out[name]["ratio"] = d["seconds"] / out[name]["seconds"]
                results[fmt].append(out)
                print(f"run {run + 1} {fmt} (load {load:.1f}): DuckDB {d['seconds']:.2f}s {d['cpu_s_per_m']:.2f} CPU s/M; "
                      f"before {out['before']['seconds']:.2f}s {out['before']['cpu_s_per_m']:.2f} ratio "
                      f"{out['before']['ratio']:.2f}; after {out['after']['seconds']:.2f}s "
                      f"{out['after']['cpu_s_per_m']:.2f} ratio {out['after']['ratio']:.2f}", flush=True)
        def listed(runs, key):
            return ", ".join(f"{r[key]['ratio']:.2f}" for r in runs)
        for fmt, runs in results.items():
            def med(key, field):
                return statistics.median(r[key][field] for r in runs)
            print(f"median {fmt}: DuckDB {med('duckdb', 'cpu_s_per_m'):.2f} CPU s/M; before ratio "
                  f"{med('before', 'ratio'):.2f} ({listed(runs, 'before')}), "
                  f"{med('before', 'cpu_s_per_m'):.2f} CPU s/M; after ratio {med('after', 'ratio'):.2f} "
                  f"({listed(runs, 'after')}), {med('after', 'cpu_s_per_m'):.2f} "
                  f"CPU s/M; load {min(r['load'] for r in runs):.1f}-{max(r['load'] for r in runs):.1f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
