"""The ClickHouse reference of `make bench`: ClickHouse's Kafka engine + a materialized view into a MergeTree table
against a Sluice routine load, on the same data, measured the same way.

ClickHouse's Kafka engine joins a consumer group and starts at the end of the topic, so both systems subscribe first:
each gets its own fresh topic, a sentinel message proves it is consuming, then the orders are produced and the clock
runs from the start of producing until every row is visible to SELECT. Producing is part of both times.

ClickHouse (Debian's clickhouse-server 18.16) runs unprivileged (as `nobody`) with the config in bench/clickhouse/,
on free loopback ports, with its data in a temp directory."""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import (HERE, REPO, TABLE_DDL, Broker, partition_payloads, proc_cpu_seconds, produce_topic,
                      routine_load_sql)

sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))
from harness import SluiceServer, free_port  # noqa: E402  (tests/e2e/harness.py)

CH_COLUMNS = "commodity_id String, customer_name String, country String, pay_time Int64, price Float64"


def clickhouse_missing() -> str:
    """Why the ClickHouse reference cannot run here, or '' when it can."""
    for tool in ("clickhouse-server", "clickhouse-client", "setpriv"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian packages clickhouse-server, clickhouse-client; make bench-setup)"
    return ""


class ClickHouse:
    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="sluice-bench-clickhouse-")
        self.tcp_port = free_port()
        self.http_port = free_port()
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60) -> "ClickHouse":
        os.makedirs(os.path.join(self.root, "log"))
        with open(os.path.join(HERE, "clickhouse", "config.xml.in")) as f:
            config = (f.read().replace("@ROOT@", self.root).replace("@TCP_PORT@", str(self.tcp_port))
                      .replace("@HTTP_PORT@", str(self.http_port)))
        with open(os.path.join(self.root, "config.xml"), "w") as f:
            f.write(config)
        shutil.copy(os.path.join(HERE, "clickhouse", "users.xml"), self.root)
        subprocess.run(["chown", "-R", "nobody", self.root], check=True)
        os.chmod(self.root, 0o755)
        self.proc = subprocess.Popen(
            ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "clickhouse-server",
             f"--config-file={self.root}/config.xml"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.query("SELECT 1") == "1":
                    return self
            except RuntimeError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"clickhouse-server did not start; see {self.root}/log")
            time.sleep(0.2)

    def query(self, sql: str, timeout: float = 120) -> str:
        r = subprocess.run(["clickhouse-client", "--host", "127.0.0.1", "--port", str(self.tcp_port), "-n", "-q", sql],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError(f"clickhouse-client: {r.stderr.decode('utf-8', 'replace')[-400:]}")
        return r.stdout.decode().strip()

    def server_pid(self) -> int:
        # setpriv execs clickhouse-server in place, so the child is the server.
        return self.proc.pid

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        shutil.rmtree(self.root, ignore_errors=True)


def _sentinel(fmt: str) -> bytes:
    if fmt == "json":
        return (b'{"commodity_id":"sentinel","customer_name":"s","country":"S","pay_time":0,"price":0}\n')
    return b"sentinel,s,S,0,0\n"


def _wait(count_fn, want: int, timeout: float, what: str, poll: float = 0.05) -> float:
    deadline = time.monotonic() + timeout
    while True:
        have = count_fn()
        if have >= want:
            return time.monotonic()
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: {have} of {want} rows after {timeout:.0f}s")
        time.sleep(poll)


def _produce_timed(bootstrap: str, topic: str, payloads: list[bytes]) -> tuple[float, float]:
    """Produces the orders; (when producing started, how long it took). Both systems' times include it, so neither
    can finish faster than the producer: the last column of the table says how far behind it each one ends."""
    t0 = time.monotonic()
    produce_topic(bootstrap, topic, payloads, parallel=4)
    return t0, time.monotonic() - t0


def clickhouse_run(ch: ClickHouse, bootstrap: str, topic: str, fmt: str, name: str, payloads, rows: int,
                   timeout: float) -> dict:
    # A CSV message carries no line end: ClickHouse 18.16 needs the row delimiter argument to split rows.
    ch_format = "'JSONEachRow'" if fmt == "json" else "'CSV', '\\n'"
    ch.query(f"CREATE TABLE {name}_q ({CH_COLUMNS}) ENGINE = Kafka('{bootstrap}', '{topic}', '{name}_group', "
             f"{ch_format});\n"
             f"CREATE TABLE {name} ({CH_COLUMNS}) ENGINE = MergeTree ORDER BY commodity_id;\n"
             f"CREATE MATERIALIZED VIEW {name}_mv TO {name} AS SELECT * FROM {name}_q;")

    def count():
        return int(ch.query(f"SELECT count() FROM {name}") or 0)

    # Keep sending sentinels until one arrives: the group must have joined and been assigned its partitions.
    deadline = time.monotonic() + 90
    sent = 0
    while count() == 0:
        if time.monotonic() > deadline:
            raise RuntimeError(f"ClickHouse never consumed from {topic}; see its log")
        produce_topic(bootstrap, topic, [_sentinel(fmt)], parallel=1)
        sent += 1
        time.sleep(2)
    time.sleep(8)  # let later sentinels land so the count below is exact
    base = count()
    cpu0 = proc_cpu_seconds(ch.server_pid())
    t0, produced = _produce_timed(bootstrap, topic, payloads)
    t1 = _wait(count, base + rows, timeout, f"ClickHouse {name}", poll=0.1)
    cpu = proc_cpu_seconds(ch.server_pid()) - cpu0
    ch.query(f"DROP TABLE {name}_mv; DROP TABLE {name}_q; DROP TABLE {name}")
    return {"seconds": t1 - t0, "rows_per_s": rows / (t1 - t0), "cpu_s_per_m": cpu / rows * 1e6,
            "produce_s": produced}


def sluice_run(args, bootstrap: str, topic: str, fmt: str, name: str, payloads, rows: int, timeout: float) -> dict:
    srv = SluiceServer(args.sluice, extra_args=["--log-level", "warn"] + args.server_arg)
    srv.start()
    try:
        conn = srv.connect(read_timeout=120)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE IF NOT EXISTS bench")
            cur.execute("USE bench")
            cur.execute(TABLE_DDL.format(table=name))
            cur.execute(routine_load_sql(f"{name}_job", name, fmt, bootstrap, topic, args.concurrency))

        def count():
            with conn.cursor() as cur:
                cur.execute(f"SELECT count(*) FROM bench.{name}")
                return int(cur.fetchone()[0])

        produce_topic(bootstrap, topic, [_sentinel(fmt)], parallel=1)
        _wait(count, 1, 60, f"Sluice {name} sentinel")
        cpu0 = proc_cpu_seconds(srv.proc.pid)
        t0, produced = _produce_timed(bootstrap, topic, payloads)
        t1 = _wait(count, 1 + rows, timeout, f"Sluice {name}")
        cpu = proc_cpu_seconds(srv.proc.pid) - cpu0
        conn.close()
        return {"seconds": t1 - t0, "rows_per_s": rows / (t1 - t0), "cpu_s_per_m": cpu / rows * 1e6,
                "produce_s": produced}
    finally:
        srv.stop()
        srv.cleanup()


def clickhouse(args) -> dict:
    why = clickhouse_missing()
    if why:
        return {"skipped": why}
    rows, parts, nruns = args.ch_rows, args.partitions, args.ch_runs
    # JSON only: ClickHouse 18.16's Kafka engine fails on CSV messages (one row per message, no line end). Without
    # kafka_row_delimiter the rows run together; with '\n' its stream thread logs "Cannot parse input: expected ,
    # before: \n: (at row 2)" for every block and consumes nothing (docs/benchmarks.md).
    formats = ["json"]
    topics = {f"ch_{f}_{r}_{side}": parts for f in formats for r in range(nruns) for side in ("ch", "sl")}
    broker = Broker(args.testbroker, topics).start()
    ch = None
    out: dict = {"rows": rows, "partitions": parts, "formats": {}}
    try:
        ch = ClickHouse().start()
        out["version"] = ch.query("SELECT version()")
        timeout = 120 + rows / 2000
        for f in formats:
            payloads, nbytes = partition_payloads(rows, parts, f)
            runs = []
            for r in range(nruns):
                try:
                    c = clickhouse_run(ch, broker.bootstrap, f"ch_{f}_{r}_ch", f, f"ch_{f}_{r}", payloads, rows,
                                       timeout)
                except RuntimeError as e:  # reported, so the other workloads still get measured
                    out["formats"][f] = {"failed": str(e)}
                    break
                s = sluice_run(args, broker.bootstrap, f"ch_{f}_{r}_sl", f, f"sl_{f}_{r}", payloads, rows, timeout)
                runs.append({"clickhouse": c, "sluice": s, "ratio": c["seconds"] / s["seconds"]})
                print(f"bench: clickhouse {f} run {r + 1}: ClickHouse {c['seconds']:.2f}s, Sluice {s['seconds']:.2f}s, "
                      f"ratio {runs[-1]['ratio']:.2f}", flush=True)
            if not runs:
                continue
            out["formats"][f] = {
                "bytes": nbytes, "runs": runs,
                "ratio": statistics.median(x["ratio"] for x in runs),
                "clickhouse_rows_per_s": statistics.median(x["clickhouse"]["rows_per_s"] for x in runs),
                "sluice_rows_per_s": statistics.median(x["sluice"]["rows_per_s"] for x in runs),
                "clickhouse_cpu": statistics.median(x["clickhouse"]["cpu_s_per_m"] for x in runs),
                "sluice_cpu": statistics.median(x["sluice"]["cpu_s_per_m"] for x in runs),
                "clickhouse_behind_s": statistics.median(x["clickhouse"]["seconds"] - x["clickhouse"]["produce_s"]
                                                         for x in runs),
                "sluice_behind_s": statistics.median(x["sluice"]["seconds"] - x["sluice"]["produce_s"] for x in runs),
                "produce_s": statistics.median(y["produce_s"] for x in runs for y in (x["clickhouse"], x["sluice"]))}
    finally:
        if ch is not None:
            ch.stop()
        broker.stop()
    return out


def render_clickhouse(r: dict) -> str:
    if "skipped" in r:
        return f"Not measured: {r['skipped']}."
    lines = [f"ClickHouse {r.get('version', '?')}, {r['rows']:,} messages per run over {r['partitions']} partitions.",
             "",
             "| format | ClickHouse rows/s | ClickHouse CPU s/M | Sluice rows/s | Sluice CPU s/M | Sluice / ClickHouse (runs) "
             "| producing took | last row visible after the producer ended: ClickHouse / Sluice |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for f, x in r["formats"].items():
        if "failed" in x:
            lines.append(f"| {f.upper()} | not measured: {x['failed']} | | | | | | |")
            continue
        runs = ", ".join(f"{y['ratio']:.2f}" for y in x["runs"])
        lines.append(f"| {f.upper()} | {x['clickhouse_rows_per_s']:,.0f} | {x['clickhouse_cpu']:.2f} | "
                     f"{x['sluice_rows_per_s']:,.0f} | {x['sluice_cpu']:.2f} | **{x['ratio']:.2f}** ({runs}) | "
                     + (f"{x['produce_s']:.2f} s | {x['clickhouse_behind_s']:.2f} s / {x['sluice_behind_s']:.2f} s |"
                        if "produce_s" in x else " | |"))
    return "\n".join(lines)
