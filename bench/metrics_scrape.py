"""The cost of GET /metrics (docs/monitoring.md): a server with args.metrics_jobs jobs (100 routine loads, the rest
Kafka pipes, max_pipe_num raised for them) on a topic with a little data, all loaded and idle. Measured: the wall
time of a scrape (median and worst of args.metrics_scrapes back-to-back scrapes over loopback, each reading the whole
answer), the answer's size, and the server's CPU per scrape (utime+stime over the back-to-back scrapes minus the same
window without scrapes), expressed as % of one core at Prometheus' default 15 s scrape interval and at 1 s."""
from __future__ import annotations

import base64
import time
import urllib.request

from benchlib import TABLE_DDL, Broker, partition_payloads, proc_cpu_seconds, produce_topic, wait_for_count
from kafka_scenarios import start_server


def _scrape(port: int) -> bytes:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/metrics")
    req.add_header("Authorization", "Basic " + base64.b64encode(b"root:").decode())
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.read()


def metrics_scrape(args) -> dict:
    jobs = args.metrics_jobs
    routine = min(100, jobs)  # max_routine_load_job_num
    pipes = jobs - routine
    broker = Broker(args.testbroker, {"metrics": 1}).start()
    srv = None
    try:
        payloads, _ = partition_payloads(10, 1, "json")
        produce_topic(broker.bootstrap, "metrics", payloads, parallel=1)
        srv, conn = start_server(args)
        with conn.cursor() as cur:
            cur.execute(f"SET GLOBAL max_pipe_num = {pipes + 10}")
            cur.execute(TABLE_DDL.format(table="m"))
            for j in range(routine):
                cur.execute(f"CREATE ROUTINE LOAD bench.m_{j} ON m PROPERTIES (\"format\" = \"json\") FROM KAFKA "
                            f"(\"kafka_broker_list\" = \"{broker.bootstrap}\", \"kafka_topic\" = \"metrics\", "
                            "\"property.kafka_default_offsets\" = \"OFFSET_BEGINNING\")")
            for j in range(pipes):
                cur.execute(f"CREATE PIPE bench.p_{j} BATCH_INTERVAL_IN_SECONDS = '10' "
                            "RESET_KAFKA_GROUP_OFFSETS = 'earliest' AS COPY INTO m FROM (SELECT "
                            "left(value::STRING, 10), NULL, NULL, NULL, NULL FROM READ_KAFKA("
                            f"'{broker.bootstrap}', 'metrics', '', 'g{j}', '', '', '', '', 'raw', 'raw', 0, map()))")
        wait_for_count(srv, conn, "m", 10 * jobs, 600, poll=1.0)
        time.sleep(10)  # past the first idle rounds
        pid = srv.proc.pid
        n = args.metrics_scrapes
        # The same window without scrapes, for the idle jobs' own CPU.
        cpu0, t0 = proc_cpu_seconds(pid), time.monotonic()
        time.sleep(5)
        idle_cpu_per_s = (proc_cpu_seconds(pid) - cpu0) / (time.monotonic() - t0)
        times, size = [], 0
        cpu0, t0 = proc_cpu_seconds(pid), time.monotonic()
        for _ in range(n):
            s = time.monotonic()
            size = len(_scrape(srv.http_port))
            times.append(time.monotonic() - s)
        window = time.monotonic() - t0
        cpu = proc_cpu_seconds(pid) - cpu0 - idle_cpu_per_s * window
        per_scrape = max(0.0, cpu / n)
        times.sort()
        return {"jobs": jobs, "routine_loads": routine, "pipes": pipes, "scrapes": n, "bytes": size,
                "median_ms": times[len(times) // 2] * 1000, "max_ms": times[-1] * 1000,
                "cpu_ms_per_scrape": per_scrape * 1000, "core_pct_15s": per_scrape / 15 * 100,
                "core_pct_1s": per_scrape / 1 * 100}
    finally:
        if srv is not None:
            srv.stop()
            srv.cleanup()
        broker.stop()


def render_metrics_scrape(r: dict) -> str:
    return "\n".join([
        "| jobs | answer | scrape (median / worst) | server CPU per scrape | % of a core at 15 s | at 1 s |",
        "|---:|---:|---:|---:|---:|---:|",
        f"| {r['jobs']} ({r['routine_loads']} routine loads, {r['pipes']} pipes) | {r['bytes'] / 1e6:.1f} MB | "
        f"**{r['median_ms']:.0f} ms** / {r['max_ms']:.0f} ms | {r['cpu_ms_per_scrape']:.1f} ms | "
        f"**{r['core_pct_15s']:.2f}%** | {r['core_pct_1s']:.1f}% |"])
