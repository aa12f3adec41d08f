#!/usr/bin/python3
"""Instructions per job start, under callgrind: N routine loads and M Kafka pipes (interleaved, as the idle
scenario of bench/run_bench.py creates them) on a one-partition topic of 10 messages, counted from the first
CREATE until every job has loaded the 10 messages. Instruction counts do not depend on the machine's load, so a
small N (20 + 20) measures what 500 + 500 pay per job.

    /usr/bin/python3 bench/profile_start.py --jobs 20 --pipes 20 --out /tmp/cg.start

Two dumps: `<out>.<pid>.1` holds the CREATEs (and whatever the first jobs did meanwhile), `<out>.<pid>.2` the
rest of the start until all rows are in. `callgrind_annotate --inclusive=yes <file>` shows where they went.
"""
from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))

from benchlib import TABLE_DDL, Broker, partition_payloads, produce_topic  # noqa: E402
from profile_load import WrappedServer  # noqa: E402


def callgrind_totals(prefix: str, suffix: str = "") -> int:
    """The `totals:` lines of the callgrind files `prefix`.<pid>`suffix` (all dumps when suffix is empty), summed.
    (A later dump's `summary:` line can be wrong: it is the count since the previous dump, underflowed.)"""
    total = 0
    for f in glob.glob(prefix + ".[0-9]*"):
        if suffix and not f.endswith(suffix):
            continue
        with open(f) as fh:
            for line in fh:
                if line.startswith("totals:"):
                    total += int(line.split()[1])
    return total


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=20, help="routine loads")
    ap.add_argument("--pipes", type=int, default=20, help="Kafka pipes")
    ap.add_argument("--interval", default="10", help="max_batch_interval / BATCH_INTERVAL_IN_SECONDS")
    ap.add_argument("--out", default="/tmp/callgrind.start", help="callgrind output file prefix")
    ap.add_argument("--sluice", default=os.path.join(REPO, "build", "sluice"))
    ap.add_argument("--testbroker", default=os.path.join(REPO, "build", "tools", "testbroker", "testbroker"))
    args = ap.parse_args()

    for f in glob.glob(args.out + ".[0-9]*"):
        os.unlink(f)
    wrapper = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={args.out}.%p"]
    broker = Broker(args.testbroker, {"idle": 1}).start()
    srv = WrappedServer(args.sluice, wrapper, extra_args=["--log-level", "warn", "--checkpoint-interval-seconds", "0",
                                                          "--checkpoint-wal-mb", str(1 << 20)])
    jobs = args.jobs + args.pipes
    try:
        payloads, _ = partition_payloads(10, 1, "json")
        produce_topic(broker.bootstrap, "idle", payloads, parallel=1)
        srv.start(timeout=300)
        conn = srv.connect(read_timeout=3600)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE IF NOT EXISTS bench")
            cur.execute("USE bench")
            cur.execute(TABLE_DDL.format(table="idle"))
        pid = srv.proc.pid
        subprocess.run(["callgrind_control", "-i", "on", str(pid)], check=True, stdout=subprocess.DEVNULL)
        t0 = time.monotonic()
        with conn.cursor() as cur:
            for j in range(max(args.jobs, args.pipes)):
                if j < args.jobs:
                    cur.execute(
                        f"CREATE ROUTINE LOAD bench.idle_{j} ON idle PROPERTIES (\"format\" = \"json\", "
                        f"\"max_batch_interval\" = \"{args.interval}\") FROM KAFKA (\"kafka_broker_list\" = "
                        f"\"{broker.bootstrap}\", \"kafka_topic\" = \"idle\", "
                        "\"property.kafka_default_offsets\" = \"OFFSET_BEGINNING\")")
                if j < args.pipes:
                    cur.execute(
                        f"CREATE PIPE bench.idle_pipe_{j} BATCH_INTERVAL_IN_SECONDS = '{args.interval}' "
                        "RESET_KAFKA_GROUP_OFFSETS = 'earliest' AS COPY INTO idle FROM (SELECT "
                        "left(value::STRING, 10), NULL, NULL, NULL, NULL FROM READ_KAFKA("
                        f"'{broker.bootstrap}', 'idle', '', 'idle_g{j}', '', '', '', '', 'raw', 'raw', 0, map()))")
        create_s = time.monotonic() - t0
        subprocess.run(["callgrind_control", "-d", str(pid)], check=True, stdout=subprocess.DEVNULL)
        while True:
            with conn.cursor() as cur:
                cur.execute("SELECT count(*) FROM bench.idle")
                if int(cur.fetchone()[0]) >= 10 * jobs:
                    break
            if time.monotonic() - t0 > 600:
                raise RuntimeError("the jobs did not load their rows in 600 s:\n" + srv.log_tail(20))
            time.sleep(0.5)
        secs = time.monotonic() - t0
        subprocess.run(["callgrind_control", "-i", "off", str(pid)], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["callgrind_control", "-d", str(pid)], check=True, stdout=subprocess.DEVNULL)
        creates = callgrind_totals(args.out, ".1")
        total = callgrind_totals(args.out)
        print(f"{args.jobs} routine loads + {args.pipes} pipes: CREATEs {create_s:.1f} s, all loaded {secs:.1f} s "
              f"under callgrind (load average {os.getloadavg()[0]:.1f})")
        print(f"callgrind: {total:,} instructions, {total / jobs:,.0f} per job; during the CREATEs {creates:,} "
              f"({creates / jobs:,.0f} per job); files {args.out}.*")
    finally:
        srv.stop(timeout=300)
        srv.cleanup()
        broker.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
