#!/usr/bin/python3
"""Instruction counts of one volume load against DuckDB's own reader on the same files, under callgrind: a measure
of the work per row that does not depend on the machine's load (wall-clock ratios in `make bench` do).

    /usr/bin/python3 bench/profile_volume.py --format csv --mb 10 --files 20 --out /tmp/cg.vol

Writes the benchmark's files (bench/volume_files.py: CSV with a header, JSON lines, or Parquet written from the CSV
files), then
- Sluice: `sluice serve` under `valgrind --tool=callgrind --instr-atstart=no`, instrumentation on only around
  `COPY INTO bench.t FROM VOLUME files USING ...` (start-up, the CREATEs and the stop are not counted);
- DuckDB: `build/bench/duckdb_load` under callgrind, the whole process (its start and the CREATE TABLE are a few
  million instructions), running the INSERT ... SELECT FROM read_csv / read_json / read_parquet and the CHECKPOINT
  of bench/volume_files.py.
Prints instructions per million rows of each and their ratio (DuckDB / Sluice: above 1 means Sluice does less work).
The callgrind files stay at --out.sluice.<pid> and --out.duckdb.<pid> for callgrind_annotate.
"""
from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))

from benchlib import TABLE_DDL  # noqa: E402
from profile_load import WrappedServer, callgrind_total  # noqa: E402
from volume_files import DUCKDB_DDL, READERS, USING, write_files, write_parquet_files  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--format", default="csv", choices=["csv", "json", "parquet"])
    ap.add_argument("--mb", type=float, default=10.0, help="MB of CSV or JSON files (Parquet: of the CSV it is made of)")
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--sluice", default=os.path.join(REPO, "build", "sluice"))
    ap.add_argument("--out", default="/tmp/callgrind.volume", help="callgrind output file prefix")
    ap.add_argument("--server-arg", action="append", default=[])
    ap.add_argument("--skip-duckdb", action="store_true", help="only the Sluice load")
    args = ap.parse_args()
    duckdb_load = os.path.join(os.path.dirname(args.sluice), "bench", "duckdb_load")
    for f in glob.glob(args.out + ".sluice.*") + glob.glob(args.out + ".duckdb.*"):
        os.unlink(f)
    root = tempfile.mkdtemp(prefix="sluice-profile-volume-")
    try:
        if args.format == "parquet":
            rows, _ = write_files(os.path.join(root, "csv"), "csv", args.mb, args.files)
            write_parquet_files(duckdb_load, os.path.join(root, "csv"), os.path.join(root, "parquet"))
        else:
            rows, _ = write_files(os.path.join(root, args.format), args.format, args.mb, args.files)
        folder = os.path.join(root, args.format)

        srv = WrappedServer(args.sluice, ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                                          f"--callgrind-out-file={args.out}.sluice.%p"],
                            extra_args=["--log-level", "warn"] + args.server_arg)
        srv.start(timeout=300)
        try:
            conn = srv.connect(read_timeout=3600)
            with conn.cursor() as cur:
                cur.execute("CREATE DATABASE bench")
                cur.execute("USE bench")
                cur.execute(TABLE_DDL.format(table="t"))
                cur.execute(f"CREATE VOLUME files LOCATION 'file://{folder}/'")
                pid = srv.proc.pid
                subprocess.run(["callgrind_control", "-i", "on", str(pid)], check=True, stdout=subprocess.DEVNULL)
                cur.execute(f"COPY INTO bench.t FROM VOLUME files USING {USING[args.format]}")
                cur.fetchall()
                subprocess.run(["callgrind_control", "-i", "off", str(pid)], check=True, stdout=subprocess.DEVNULL)
                subprocess.run(["callgrind_control", "-d", str(pid)], check=True, stdout=subprocess.DEVNULL)
                cur.execute("SELECT count(*) FROM bench.t")
                count = int(cur.fetchone()[0])
            conn.close()
        finally:
            srv.stop()
            srv.cleanup()
        if count != rows:
            raise SystemExit(f"Sluice loaded {count} rows, expected {rows}")
        sluice = callgrind_total(args.out + ".sluice", ".1")
        print(f"callgrind: Sluice {sluice:,} instructions, {sluice / rows * 1e6:,.0f} per M rows ({rows:,} rows, "
              f"{args.files} {args.format} files)")
        if args.skip_duckdb:
            return 0
        work = tempfile.mkdtemp(prefix="sluice-profile-duckdb-", dir=root)
        reader = READERS[args.format].format(folder=folder)
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={args.out}.duckdb.%p", duckdb_load,
                        os.path.join(work, "ref.duckdb"), DUCKDB_DDL,
                        f"INSERT INTO t SELECT commodity_id, customer_name, country, pay_time, price FROM {reader}",
                        "CHECKPOINT"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=3600)
        duck = callgrind_total(args.out + ".duckdb")
        print(f"callgrind: DuckDB {duck:,} instructions, {duck / rows * 1e6:,.0f} per M rows")
        print(f"callgrind: DuckDB / Sluice = {duck / sluice:.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
