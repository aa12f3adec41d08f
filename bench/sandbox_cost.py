"""The `sandbox` scenario of `make bench`: what the SQL sandbox costs a routine load. The same JSON topic loaded by a
server as shipped (storage::SealDatabase: external access off, configuration locked) and by one started with
--unsafe-allow-engine-file-access (the seal lifted), runs interleaved so both see the same machine. Privileges are
checked when a statement arrives; a load's tasks check nothing per batch, so the seal is the only difference."""
from __future__ import annotations

import statistics
import time

from benchlib import TABLE_DDL, Broker, count_messages, partition_payloads, produce_topic, routine_load_sql
from benchlib import wait_for_count

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "e2e"))
from harness import SluiceServer  # noqa: E402

UNSEALED = "--unsafe-allow-engine-file-access"


def _load_once(args, bootstrap: str, rows: int, sealed: bool, run: int) -> float:
    extra = ["--log-level", "warn"] + [a for a in args.server_arg if a != UNSEALED] + ([] if sealed else [UNSEALED])
    srv = SluiceServer(args.sluice, extra_args=extra).start()
    try:
        conn = srv.connect(read_timeout=300)
        table = f"sandbox_{'sealed' if sealed else 'unsealed'}_{run}"
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE IF NOT EXISTS bench")
            cur.execute("USE bench")
            cur.execute(TABLE_DDL.format(table=table))
            t0 = time.monotonic()
            cur.execute(routine_load_sql(f"job_{table}", table, "json", bootstrap, "sandbox", args.concurrency))
        return rows / (wait_for_count(srv, conn, table, rows, 60 + rows / 2000) - t0)
    finally:
        srv.stop()
        srv.cleanup()


def sandbox_cost(args) -> dict:
    rows, partitions = args.sandbox_rows, 8
    broker = Broker(args.testbroker, {"sandbox": partitions}).start()
    try:
        payloads, _ = partition_payloads(rows, partitions, "json")
        produce_topic(broker.bootstrap, "sandbox", payloads, parallel=4)
        if count_messages(broker.bootstrap, "sandbox") != rows:
            raise RuntimeError(f"the broker did not keep all {rows} messages")
        sealed, unsealed = [], []
        for run in range(args.runs):
            sealed.append(_load_once(args, broker.bootstrap, rows, True, run))
            unsealed.append(_load_once(args, broker.bootstrap, rows, False, run))
    finally:
        broker.stop()
    out = {"rows": rows, "partitions": partitions, "sealed_rows_per_s": statistics.median(sealed),
           "unsealed_rows_per_s": statistics.median(unsealed), "sealed_runs": sealed, "unsealed_runs": unsealed}
    out["ratio"] = out["sealed_rows_per_s"] / out["unsealed_rows_per_s"]
    print(f"bench: sandbox sealed / unsealed {out['ratio']:.2f}", flush=True)
    return out


def render_sandbox_cost(r: dict) -> str:
    runs = lambda xs: ", ".join(f"{x:,.0f}" for x in xs)  # noqa: E731
    return "\n".join([
        "| workload | sealed (default) rows/s | unsealed rows/s | sealed / unsealed (target >= 0.95) |",
        "|---|---:|---:|---:|",
        f"| Kafka JSON, {r['rows']:,} messages, {r['partitions']} partitions | {r['sealed_rows_per_s']:,.0f} "
        f"({runs(r['sealed_runs'])}) | {r['unsealed_rows_per_s']:,.0f} ({runs(r['unsealed_runs'])}) | "
        f"**{r['ratio']:.2f}** |"])
