#!/usr/bin/python3
"""One Kafka load of the benchmark's orders data, for profiling: the same job as bench/run_bench.py's workload,
with the server run under a wrapper (callgrind, perf) or attached to by `perf record`.

    /usr/bin/python3 bench/profile_load.py --format pipe --rows 200000 --wrap callgrind --out /tmp/cg.pipe
    /usr/bin/python3 bench/profile_load.py --format json --rows 1000000 --perf /tmp/perf.json.data

--wrap callgrind runs `valgrind --tool=callgrind` around `sluice serve` with instrumentation off until the CREATE
(`callgrind_control -i on`), so the counts are those of the load alone (start-up excluded), and it prints the
instructions per row: a measure that does not depend on the machine's load. --perf PATH attaches
`perf record --per-thread` for the load's duration. Without either it prints the load's seconds and CPU.
"""
from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))

from harness import SluiceServer  # noqa: E402
import avro_harness as ah  # noqa: E402  (tests/e2e/avro_harness.py: the schema-registry fixture)
from benchlib import (ORDERS_AVRO_SCHEMA, REGISTRY_URL, TABLE_DDL, Broker, partition_payloads, pipe_sql,  # noqa: E402
                      proc_cpu_seconds, produce_avro_topic, produce_topic, routine_load_sql)


class WrappedServer(SluiceServer):
    def __init__(self, binary, wrapper, **kw):
        super().__init__(binary, **kw)
        self.wrapper = wrapper

    def command(self):
        return self.wrapper + super().command()


def callgrind_total(prefix: str, suffix: str = "") -> int:
    """Instructions in the callgrind files `prefix`.<pid>`suffix` (all dumps when suffix is empty), summed."""
    total = 0
    for f in glob.glob(prefix + ".[0-9]*"):
        if suffix and not f.endswith(suffix):
            continue
        count = 0
        with open(f) as fh:
            for line in fh:
                if line.startswith("summary:") or line.startswith("totals:"):
                    count = max(count, int(line.split()[1]))
        total += count
    return total


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--format", default="json", choices=["csv", "json", "avro", "pipe"])
    ap.add_argument("--rows", type=int, default=200000)
    ap.add_argument("--partitions", type=int, default=32)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--wrap", choices=["none", "callgrind"], default="none")
    ap.add_argument("--out", default="/tmp/callgrind.sluice", help="callgrind output file prefix")
    ap.add_argument("--perf", default=None, metavar="PATH", help="perf record (flat: self time per symbol) into PATH during the load")
    ap.add_argument("--perf-callgraph", action="store_true", help="with --perf: record call graphs too (perf -g)")
    ap.add_argument("--pre-sql", action="append", default=[])
    ap.add_argument("--kafka-property", action="append", default=[], metavar="K=V",
                    help="one more FROM KAFKA property of the routine load, e.g. property.fetch.wait.max.ms=50")
    ap.add_argument("--interval", default=None,
                    help="max_batch_interval / BATCH_INTERVAL_IN_SECONDS (default as bench: 0.5 / 1); under callgrind "
                         "a long one keeps the batches as large as at full speed")
    ap.add_argument("--batch-rows", type=int, default=200000,
                    help="the routine load's max_batch_rows: small values give many small tasks, to count the cost "
                         "per task (the report then gives instructions per task)")
    ap.add_argument("--server-arg", action="append", default=[], help="extra argument for `sluice serve`")
    ap.add_argument("--with-close", action="store_true",
                    help="under callgrind: no background checkpoints during the load, and the count goes on through "
                         "the server's clean stop, whose checkpoint stores (compresses) the loaded rows once; so a "
                         "count includes DuckDB's storage work whatever the load's wall time")
    ap.add_argument("--threads", action="store_true",
                    help="print each thread's CPU seconds every second during the load (/proc/PID/task/*/stat)")
    ap.add_argument("--keep-log", default=None, metavar="PATH", help="copy the server's log to PATH")
    ap.add_argument("--sluice", default=os.path.join(REPO, "build", "sluice"))
    ap.add_argument("--testbroker", default=os.path.join(REPO, "build", "tools", "testbroker", "testbroker"))
    args = ap.parse_args()

    topic_fmt = "json" if args.format == "pipe" else args.format
    topic = f"orders_{topic_fmt}"
    broker = Broker(args.testbroker, {topic: args.partitions}).start()
    wrapper = []
    if args.wrap == "callgrind":
        for f in glob.glob(args.out + ".[0-9]*"):
            os.unlink(f)
        wrapper = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={args.out}.%p"]
    server_args = list(args.server_arg)
    if args.with_close:
        server_args += ["--checkpoint-interval-seconds", "0", "--checkpoint-wal-mb", str(1 << 20)]
    srv = WrappedServer(args.sluice, wrapper, extra_args=(server_args if any(a.startswith("--log-level") for a in server_args) else ["--log-level", "warn"] + server_args))
    registry = None
    tasks = 0
    try:
        payloads, _ = partition_payloads(args.rows, args.partitions, topic_fmt)
        if topic_fmt == "avro":
            registry = ah.SchemaRegistry({1: ORDERS_AVRO_SCHEMA}).__enter__()
            REGISTRY_URL["url"] = registry.url()
            avroproducer = os.path.join(os.path.dirname(args.testbroker), "..", "avroproducer", "avroproducer")
            produce_avro_topic(avroproducer, broker.bootstrap, topic, payloads, parallel=4)
        else:
            produce_topic(broker.bootstrap, topic, payloads, parallel=4)
        srv.start(timeout=300) if args.wrap == "callgrind" else srv.start()
        conn = srv.connect(read_timeout=3600)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE IF NOT EXISTS bench")
            cur.execute(TABLE_DDL.format(table="t"))
            cur.execute("USE bench")
            for stmt in args.pre_sql:
                cur.execute(stmt)
        if args.format == "pipe":
            sql = pipe_sql("j", "t", broker.bootstrap, topic, interval=args.interval or "1")
        else:
            sql = routine_load_sql("j", "t", args.format, broker.bootstrap, topic, args.concurrency,
                                   kafka_properties=args.kafka_property, interval=args.interval or "0.5",
                                   batch_rows=args.batch_rows)
        pid = srv.proc.pid
        if args.wrap == "callgrind":
            subprocess.run(["callgrind_control", "-i", "on", str(pid)], check=True, stdout=subprocess.DEVNULL)
        perf = None
        if args.perf:
            perf = subprocess.Popen(["perf", "record", "-F", "999", "--per-thread"] + (["-g"] if args.perf_callgraph else []) + ["-o", args.perf, "-p",
                                     str(pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)
        sampler = None
        if args.threads:
            sampler = subprocess.Popen([sys.executable, os.path.join(HERE, "thread_cpu.py"), str(pid)])
        cpu0 = proc_cpu_seconds(pid)
        t0 = time.monotonic()
        with conn.cursor() as cur:
            cur.execute(sql)
            while True:
                cur.execute("SELECT count(*) FROM bench.t")
                if int(cur.fetchone()[0]) >= args.rows:
                    break
                time.sleep(0.05 if args.wrap == "none" else 0.5)
        secs = time.monotonic() - t0
        cpu = proc_cpu_seconds(pid) - cpu0
        with conn.cursor() as cur:  # the tasks that committed rows (one load_history row each)
            cur.execute("SELECT count(*) FROM load_history('bench.t')")
            tasks = int(cur.fetchone()[0])
        if sampler is not None:
            sampler.terminate()
            sampler.wait(10)
        if args.wrap == "callgrind":
            if not args.with_close:
                subprocess.run(["callgrind_control", "-i", "off", str(pid)], check=True, stdout=subprocess.DEVNULL)
            subprocess.run(["callgrind_control", "-d", str(pid)], check=True, stdout=subprocess.DEVNULL)
        if perf is not None:
            perf.send_signal(2)
            perf.wait(60)
        print(f"{args.format}: {args.rows} rows in {tasks} tasks in {secs:.2f} s, server CPU {cpu:.2f} s "
              f"({cpu / args.rows * 1e6:.2f} s per M rows), load average {os.getloadavg()[0]:.1f}")
        if args.wrap == "callgrind" and not args.with_close:
            total = callgrind_total(args.out)
            print(f"callgrind: {total:,} instructions in the load, {total / args.rows:,.0f} per row, "
                  f"{total / max(tasks, 1):,.0f} per task (files {args.out}.*)")
    finally:
        srv.stop(timeout=300)
        if args.wrap == "callgrind" and args.with_close:
            load = callgrind_total(args.out, ".1")
            total = callgrind_total(args.out)
            print(f"callgrind: {load:,} instructions in the load ({load / args.rows:,.0f} per row, "
                  f"{load / max(tasks, 1):,.0f} per task), {total:,} with "
                  f"the stop's checkpoint ({total / args.rows:,.0f} per row; files {args.out}.*)")
        if args.keep_log:
            shutil.copy(srv.log_path, args.keep_log)
        srv.cleanup()
        broker.stop()
        if registry is not None:
            registry.__exit__(None, None, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
