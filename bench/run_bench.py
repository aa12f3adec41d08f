#!/usr/bin/python3
"""Sluice Kafka load benchmark: CSV and JSON routine loads against kcat reading the same topic, in one run.

What it does (see bench/README.md for the why):

1. Starts the test broker (tools/testbroker) with one CSV and one JSON topic of --partitions partitions each and
   fills them with --rows messages of the orders shape, generated deterministically and spread round-robin over the
   partitions (one kcat producer per partition). The broker keeps only ~4.5 MB per partition, so the harness checks
   afterwards that every message is still there (and stops with an error if not: use more partitions).
2. For each of --runs rounds, and for each format, in this order:
     a. reference: `kcat -C -b BS -t TOPIC -o beginning -e -q > /dev/null`, timed (wall, CPU and peak RSS from wait4),
        --kcat-repeats times back to back; the run's reference is the median read; then the ceiling:
        bench/kafka_ceiling with as many bare consumers as the job has tasks, as often, the median read;
     b. Sluice: a fresh `sluice serve` (own temp data dir and free ports), a fresh table, then
        CREATE ROUTINE LOAD ... "property.kafka_default_offsets" = "OFFSET_BEGINNING", timed from the CREATE until
        SELECT count(*) equals the produced rows (polled every 50 ms). CPU = utime+stime of the server from
        /proc/<pid>/stat across that window; peak RSS = VmHWM from /proc/<pid>/status.
   The reference and the load of one round run back to back, so the ratio Sluice/kcat of a round sees the same
   machine load; the report gives medians over the rounds (the ratio's median is the median of per-round ratios).
3. Prints a summary and (with --write-doc PATH) rewrites the generated block of PATH (docs/benchmarks.md for
   `make bench`) with the machine, versions, command and tables; hand-written text outside the block is kept.

--job-property, --kafka-property and --pre-sql change the load for experiments (e.g. the librdkafka property
fetch.wait.max.ms, or `PRAGMA threads=1`); the report names them in its command line.

Run with /usr/bin/python3 (Debian's pymysql). Needs kcat on PATH and a built tree (make build).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import shutil
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))

from harness import SluiceServer  # noqa: E402  (tests/e2e/harness.py)
import avro_harness as ah  # noqa: E402  (tests/e2e/avro_harness.py: the schema-registry fixture)
from kafka_scenarios import SCENARIOS  # noqa: E402
from benchlib import (ORDERS_AVRO_SCHEMA, REGISTRY_URL, pipe_sql, produce_avro_topic, topic_payload_bytes,  # noqa: E402
                      POLL_INTERVAL, TABLE_DDL, Broker, count_messages, machine_info,  # noqa: E402
                      measure_ceiling, measure_kcat, order_line, partition_payloads, proc_cpu_seconds, proc_status_kib,
                      produce_topic, routine_load_sql, versions)


def measure_sluice(args, bootstrap: str, topic: str, fmt: str, run: int, rows: int, payload_bytes: int,
                   timeout: float) -> dict:
    srv = SluiceServer(args.sluice, extra_args=["--log-level", "warn"] + args.server_arg)
    try:
        srv.start()
        pid = srv.proc.pid
        conn = srv.connect(read_timeout=120)
        table = f"orders_{fmt}_{run}"
        job = f"bench_{fmt}_{run}"
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE IF NOT EXISTS bench")
            cur.execute(TABLE_DDL.format(table=table))
            cur.execute("USE bench")
        with conn.cursor() as cur:
            for stmt in args.pre_sql:
                cur.execute(stmt)
        if fmt == "pipe":
            sql = pipe_sql(job, table, bootstrap, topic)
        else:
            sql = routine_load_sql(job, table, fmt, bootstrap, topic, args.concurrency, args.job_property,
                                   args.kafka_property)
        load0 = os.getloadavg()[0]
        rss0 = proc_status_kib(pid, "VmRSS")
        cpu0 = proc_cpu_seconds(pid)
        t0 = time.monotonic()
        with conn.cursor() as cur:
            cur.execute(sql)
            deadline = t0 + timeout
            count = 0
            while True:
                cur.execute(f"SELECT count(*) FROM bench.{table}")
                count = int(cur.fetchone()[0])
                if count >= rows:
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{fmt} run {run}: only {count} of {rows} rows after {timeout:.0f}s; "
                                       f"server log {srv.log_path}:\n{srv.log_tail(20)}")
                if not srv.alive():
                    raise RuntimeError(f"sluice exited during the load:\n{srv.log_tail(30)}")
                time.sleep(POLL_INTERVAL)
        secs = time.monotonic() - t0
        cpu = proc_cpu_seconds(pid) - cpu0
        hwm = proc_status_kib(pid, "VmHWM")
        if count != rows:
            raise RuntimeError(f"{fmt} run {run}: table has {count} rows, expected {rows}")
        stats = {}
        with conn.cursor() as cur:
            if fmt == "pipe":
                cur.execute(f"SELECT coalesce(sum(error_rows), 0) FROM load_history('bench.{table}')")
                stats = {"errorRows": int(cur.fetchone()[0])}
                cur.execute(f"DROP PIPE {job}")
        with conn.cursor() as cur:
            if fmt != "pipe":
                cur.execute(f"SHOW ROUTINE LOAD FOR bench.{job}")
                names = [d[0] for d in cur.description]
                row = dict(zip(names, cur.fetchone()))
                try:
                    stats = json.loads(row.get("Statistic") or "{}")
                except ValueError:
                    stats = {}
                cur.execute(f"STOP ROUTINE LOAD FOR bench.{job}")
        if stats.get("errorRows"):
            raise RuntimeError(f"{fmt} run {run}: {stats['errorRows']} error rows: {stats}")
        conn.close()
        return {"seconds": secs, "rows_per_s": rows / secs, "mb_per_s": payload_bytes / secs / 1e6,
                "cpu_s_per_m": cpu / rows * 1e6, "peak_rss_mib": hwm / 1024, "idle_rss_mib": rss0 / 1024,
                "load": load0, "statistic": stats}
    except Exception:
        print(f"--- sluice log tail ({srv.log_path}) ---\n{srv.log_tail(20)}", file=sys.stderr)
        raise
    finally:
        srv.stop()
        srv.cleanup()


# ---- report -----------------------------------------------------------------------------------------------------

def med(values):
    return statistics.median(values) if values else float("nan")


SIDES = ("kcat", "ceiling", "sluice")
# The pipe's tasks: pipes have no concurrency setting; a Kafka pipe in the default virtual cluster reads with as
# many tasks as the worker pool runs at once (`sluice serve --load-workers`, 4), capped by the partitions.
PIPE_TASKS = 4


def summarize(results: dict) -> dict:
    """results[fmt] = {"kcat": [run dicts], "ceiling": [...], "sluice": [...]} -> medians, spreads (min, max) and
    per-run ratios: Sluice / kcat, Sluice / ceiling, and for the pipe, pipe / JSON routine load of the same run."""
    out = {}
    for fmt, r in results.items():
        ratios = [s["rows_per_s"] / k["rows_per_s"] for s, k in zip(r["sluice"], r["kcat"])]
        ceiling = [s["rows_per_s"] / c["rows_per_s"] for s, c in zip(r["sluice"], r["ceiling"])]
        out[fmt] = {
            side: {key: med([x[key] for x in r[side]])
                   for key in ("seconds", "rows_per_s", "mb_per_s", "cpu_s_per_m", "peak_rss_mib", "load")}
            for side in SIDES}
        for side in SIDES:
            for key in ("seconds", "cpu_s_per_m"):
                vals = [x[key] for x in r[side]]
                out[fmt][side][key + "_spread"] = (min(vals), max(vals)) if vals else (float("nan"),) * 2
        out[fmt]["ratio"] = med(ratios)
        out[fmt]["ratios"] = ratios
        out[fmt]["consumers"] = r["ceiling"][0]["consumers"] if r["ceiling"] else 0
        out[fmt]["ceiling_ratio"] = med(ceiling)
        out[fmt]["ceiling_ratios"] = ceiling
        if fmt == "pipe" and "json" in results:
            vs_json = [p["rows_per_s"] / j["rows_per_s"] for p, j in zip(r["sluice"], results["json"]["sluice"])]
            out[fmt]["json_ratio"] = med(vs_json)
            out[fmt]["json_ratios"] = vs_json
    return out


def spread(values: list[float], digits: int = 2) -> str:
    return f"{min(values):.{digits}f}–{max(values):.{digits}f}" if values else "-"


def fmt_num(x: float, digits: int = 0) -> str:
    return f"{x:,.{digits}f}"


def results_table(summary: dict, rows: int, bytes_by_fmt: dict) -> str:
    lines = ["| workload | reader | rows/s | MB/s | CPU s per M rows (min–max) | peak RSS (MiB) | seconds (min–max) | "
             "Sluice / ceiling (min–max) | Sluice / kcat (min–max) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for fmt, s in summary.items():
        name = "JSON via a pipe (PARSE_JSON)" if fmt == "pipe" else fmt.upper()
        label = f"Kafka {name} ({fmt_num(rows)} msgs, {bytes_by_fmt[fmt] / rows:.0f} B avg)"
        readers = [("kcat", "kcat -C to /dev/null"), ("ceiling", f"ceiling: {s['consumers']} bare consumers"),
                   ("sluice", "Sluice pipe" if fmt == "pipe" else "Sluice routine load")]
        for side, reader in readers:
            x = s[side]
            cs, ss = x["cpu_s_per_m_spread"], x["seconds_spread"]
            tail = ("(reference) | (reference) |" if side != "sluice" else
                    f"**{s['ceiling_ratio']:.2f}** ({spread(s['ceiling_ratios'])}) | "
                    f"**{s['ratio']:.2f}** ({spread(s['ratios'])}) |")
            lines.append(f"| {label} | {reader} | {fmt_num(x['rows_per_s'])} | {x['mb_per_s']:.1f} | "
                         f"{x['cpu_s_per_m']:.2f} ({cs[0]:.2f}–{cs[1]:.2f}) | {x['peak_rss_mib']:.0f} | "
                         f"{x['seconds']:.2f} ({ss[0]:.2f}–{ss[1]:.2f}) | {tail}")
    return "\n".join(lines)


# The targets (performance round 2) that the throughput workloads measure: (label, format, key, goal, at least).
TARGETS = [
    ("JSON routine load / ceiling (same consumer count)", "json", "ceiling_ratio", 0.8, True),
    ("CSV routine load / ceiling", "csv", "ceiling_ratio", 0.8, True),
    ("Avro routine load / ceiling", "avro", "ceiling_ratio", 0.7, True),
    ("CPU s per M rows, JSON routine load", "json", "cpu", 1.2, False),
    ("CPU s per M rows, CSV routine load", "csv", "cpu", 1.0, False),
    ("CPU s per M rows, Avro routine load", "avro", "cpu", 1.8, False),
    ("Kafka pipe (PARSE_JSON) / JSON routine load, same run", "pipe", "json_ratio", 0.9, True),
]


def targets_table(summary: dict, results: dict) -> str:
    lines = ["| figure | median (min–max) | target | met? |", "|---|---:|---:|---|"]
    for label, fmt, key, goal, at_least in TARGETS:
        if fmt not in summary or (key == "json_ratio" and "json_ratio" not in summary[fmt]):
            lines.append(f"| {label} | not measured | {'>=' if at_least else '<='} {goal} | - |")
            continue
        if key == "cpu":
            vals = [x["cpu_s_per_m"] for x in results[fmt]["sluice"]]
        else:
            vals = summary[fmt][key[:-len("ratio")] + "ratios"] if key != "ratio" else summary[fmt]["ratios"]
        m = med(vals)
        met = m >= goal if at_least else m <= goal
        lines.append(f"| {label} | {m:.2f} ({spread(vals)}) | {'>=' if at_least else '<='} {goal} | "
                     f"{'**met**' if met else 'not met'} |")
    return "\n".join(lines)


def runs_table(results: dict) -> str:
    lines = ["| workload | run | kcat s | ceiling s | Sluice s | Sluice rows/s | Sluice CPU s/M | / ceiling | / kcat | "
             "load avg (1 min) at start, kcat / ceiling / Sluice |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for fmt, r in results.items():
        for i, (k, c, s) in enumerate(zip(r["kcat"], r["ceiling"], r["sluice"])):
            lines.append(f"| {fmt.upper()} | {i + 1} | {k['seconds']:.2f} | {c['seconds']:.2f} | {s['seconds']:.2f} | "
                         f"{fmt_num(s['rows_per_s'])} | {s['cpu_s_per_m']:.2f} | "
                         f"{s['rows_per_s'] / c['rows_per_s']:.2f} | {s['rows_per_s'] / k['rows_per_s']:.2f} | "
                         f"{k['load']:.1f} / {c['load']:.1f} / {s['load']:.1f} |")
    return "\n".join(lines)


BEGIN_MARK = "<!-- bench:begin (generated by bench/run_bench.py; text outside these marks is kept) -->"
END_MARK = "<!-- bench:end -->"


def render_generated(args, machine, vers, summary, results, setup, command, extra: dict) -> str:
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    t = [
        "## Kafka routine loads: throughput against kcat, scale, freshness, idle jobs, backlog memory",
        "",
        f"Measured: **{date}**" + (" (smoke size: too small for conclusions)" if args.smoke else "")
        + f"; the whole run took {setup['total_s']:.0f} s.",
        "",
        "### Machine and versions",
        "",
        f"- Machine: {machine['nproc']} CPUs ({machine['cpu']}), {machine['mem_gib']:.1f} GiB memory, "
        f"Linux {machine['kernel']}. Shared with other engineers' builds and tests while measuring: 1-minute load "
        f"average {setup['load_start']:.1f} at the start and {setup['load_end']:.1f} at the end "
        "(per-run values in the last table).",
        f"- Sluice: `{vers['sluice']}`" + (f", commit {vers['commit']}" if vers["commit"] else "")
        + f", binary `{os.path.relpath(args.sluice, REPO)}` (build/ is RelWithDebInfo by default).",
        f"- kcat {vers['kcat']}, librdkafka {vers['librdkafka']}; DuckDB {vers['duckdb']}.",
        "- Broker: `tools/testbroker` (librdkafka's mock cluster), 1 broker on loopback.",
        "",
        "### Command",
        "",
        "```sh",
        command,
        "```",
        "",
    ]
    if results:
        t += throughput_section(args, summary, results, setup)
    t += scenario_sections(args, extra)
    return "\n".join(t)


def throughput_section(args, summary, results, setup) -> list[str]:
    per_part = args.rows / args.partitions
    return [
        "### Throughput: data and method",
        "",
        f"- The orders shape, {fmt_num(args.rows)} messages per format, generated deterministically "
        "(commodity_id, customer_name, country, pay_time, price). JSON messages look like "
        f"`{order_line(0, 'json')}` ({setup['bytes']['json'] / args.rows:.0f} bytes on average), CSV messages "
        f"like `{order_line(0, 'csv')}` ({setup['bytes']['csv'] / args.rows:.0f} bytes), Avro messages the same record "
        "in the Confluent wire format (schema id 1: commodity_id, customer_name, country string, pay_time long, price "
        f"double; {setup['bytes']['avro'] / args.rows:.0f} bytes), written by tools/avroproducer and decoded against "
        "the schema-registry fixture of tests/e2e/avro_harness.py.",
        f"- **Spread over {args.partitions} partitions per topic** (row i to partition i mod {args.partitions}: "
        f"{fmt_num(per_part)} messages, {setup['bytes']['json'] / args.partitions / 1e6:.2f} MB of JSON payload per "
        "partition), because the test broker keeps only about 4.5 MB per partition; after producing, the harness "
        "reads each topic back and stops unless every message is still there. All data is produced before "
        "measuring (one `kcat -P` per partition, 4 at a time: "
        f"{setup['produce_s']['csv']:.1f} s for CSV, {setup['produce_s']['json']:.1f} s for JSON); every run reuses "
        "the topics.",
        "- Reference: `kcat -C -b BS -t TOPIC -o beginning -e -q > /dev/null`, wall time from start to exit; CPU "
        "and peak RSS from wait4(). kcat's time includes its start-up and the wait for end-of-partition on every "
        "partition (the last empty fetch long-polls up to librdkafka's fetch.wait.max.ms, 500 ms), so a single read "
        f"is noisy: each run takes the median of {args.kcat_repeats} back-to-back reads.",
        "- Ceiling: `bench/kafka_ceiling BS TOPIC N` (bench/kafka_ceiling.cpp), N bare librdkafka consumers, one "
        "thread and client each, the topic's partitions split round-robin between them, assigned at the beginning, "
        "taken from the queue in batches and only counted until each partition reports its end; default client "
        f"settings. N is the job's task count ({args.concurrency} for routine loads, {PIPE_TASKS} for the pipe). Its "
        "clock runs from creating the first client to the last partition's end, its CPU over the same time. This "
        "is what any loader on librdkafka reaches on this broker with as many consumers; each run takes the median "
        f"of {args.kcat_repeats} reads, measured right before the Sluice load.",
        "- Sluice: a fresh `sluice serve` (temp data dir, free ports, `--log-level warn`"
        + (f", `{' '.join(args.server_arg)}`" if args.server_arg else "")
        + ") and a fresh table per run; the clock starts just before `CREATE ROUTINE LOAD` and stops when "
        "`SELECT count(*)` (polled every 50 ms) equals the produced rows. Job: "
        f"`\"desired_concurrent_number\"=\"{args.concurrency}\", \"max_batch_rows\"=\"200000\", "
        "\"max_batch_interval\"=\"0.5\"`, `\"property.kafka_default_offsets\"=\"OFFSET_BEGINNING\"`; CSV with "
        "`COLUMNS TERMINATED BY \",\"`, JSON with `\"format\"=\"json\"` (keys by column name). Table: "
        "`commodity_id VARCHAR(26), customer_name VARCHAR(26), country VARCHAR(26), pay_time BIGINT, price DOUBLE`. "
        "CPU seconds = utime+stime of the server process (/proc/PID/stat) across the timed window, per million "
        "rows; peak RSS = VmHWM of the server (started for this run only).",
        f"- {args.runs} runs; in each run the kcat reference, the ceiling and the Sluice load of a format run back to back, so "
        "both see the same machine load. Every figure is the median over the runs (min–max in brackets); a ratio is "
        "the median of the per-run ratios Sluice rows/s / ceiling rows/s and Sluice rows/s / kcat rows/s.",
        "",
        "### Results",
        "",
        results_table(summary, args.rows, setup["bytes"]),
        "",
        "Medians of the runs; min–max beside them. The pipe's row against the JSON routine load of the same run: "
        + (f"**{summary['pipe']['json_ratio']:.2f}** ({spread(summary['pipe']['json_ratios'])})."
           if "pipe" in summary and "json_ratio" in summary["pipe"] else "not measured."),
        "",
        "#### Targets (performance round 2)",
        "",
        targets_table(summary, results),
        "",
        "Earlier targets (benchmark issue): Kafka JSON load / kcat >= 0.5, Kafka CSV load / kcat >= 0.6. "
        "The pipe row (workload 6) is a Kafka pipe over the JSON topic with the Lakehouse expressions "
        "`PARSE_JSON(value::STRING)['commodity_id']::STRING, ...` (4 tasks, the worker pool's size: pipes have no concurrency setting; "
        "BATCH_SIZE_PER_KAFKA_PARTITION 25000, BATCH_INTERVAL_IN_SECONDS 1), to show what that form costs against "
        "the routine load's keys by name.",
        "",
        "#### Per run",
        "",
        runs_table(results),
        "",
    ]


SCENARIO_TEXT = {
    "metrics": lambda a: [
        "### What GET /metrics costs",
        "",
        f"{a.metrics_jobs} idle jobs (100 routine loads, the rest Kafka pipes with max_pipe_num raised), each having "
        f"loaded 10 messages; {a.metrics_scrapes} scrapes back to back as root over loopback (bench/metrics_scrape.py). "
        "CPU per scrape is the server's utime+stime over the scrapes minus its idle rate; the targets are a scrape "
        "under 100 ms and under 1% of a core at the scrape interval.",
    ],
    "sandbox": lambda a: [
        "### What the SQL sandbox costs a routine load",
        "",
        "The same JSON topic loaded by a server as shipped (sealed: DuckDB's external access off, its configuration "
        "locked) and by one started with `--unsafe-allow-engine-file-access`, runs interleaved; medians, the runs "
        "in brackets. Privileges are checked when a statement arrives and cost a load nothing per batch.",
    ],
    "iceberg": lambda a: [
        "### A load into an Iceberg table against the same load into a DuckDB table",
        "",
        "The same JSON topic loaded by a routine load into a DuckDB table and into an Iceberg table (bench/iceberg_load.py): "
        "a JDBC catalog in a PostgreSQL 15 the bench starts (initdb in a temp folder, loopback), the table's files in "
        "s3rver (loopback), a fresh server and table per run, runs interleaved. The clock runs from CREATE ROUTINE LOAD "
        "until `SELECT count(*)` (which reads the Iceberg table's committed snapshot) equals the produced rows. Sluice "
        "CPU is the server's utime+stime over that window; objects are the files that appeared under the table's "
        "location in s3rver (data files, manifests, manifest lists, metadata.json), per minute of the load and per "
        "snapshot. s3rver is a Node.js process on the same cores, so the Iceberg figure includes its competition for "
        "CPU.",
    ],
    "cluster": lambda a: [
        "### One, two and three cluster nodes on the same topic, and a killed node's partitions",
        "",
        "A routine load into an Iceberg table run by 1, 2 and 3 `sluice serve --cluster` nodes (bench/cluster_load.py): "
        "a PostgreSQL 15 the bench starts (a fresh cluster database per configuration; the JDBC catalog in the same "
        "server), s3rver, the test broker, all on loopback; a fresh cluster and table per run. The clock runs from "
        "CREATE ROUTINE LOAD on n1 until `SELECT count(*)` on n1 equals the produced rows; CPU is utime+stime of all "
        "node processes together (PostgreSQL and s3rver not counted). **On a 2-core machine every node shares the same "
        "two cores, so more nodes cannot load faster: the 2- and 3-node figures show what coordination costs (leases, "
        "regrouping, more and smaller commits), not a speed-up.** The takeover: three nodes on a topic a producer keeps "
        "writing to, n3 killed with SIGKILL; seconds until every partition it held is leased to n1 or n2 "
        "(`sluice_leases`, PostgreSQL's clock) and until rows of those partitions are committed again.",
    ],
    "clickhouse": lambda a: [
        "### Against ClickHouse's Kafka engine",
        "",
        "ClickHouse's Kafka engine + a materialized view into a MergeTree table (`ENGINE = Kafka(brokers, topic, "
        "group, 'JSONEachRow')`, defaults otherwise; JSON only, see the notes below the block) against a Sluice routine load (as above), on the same "
        "data. ClickHouse joins a consumer group and starts at the end of the topic, so each system gets a fresh "
        "topic, subscribes first, proves it consumes with a sentinel message, and then the orders are produced "
        "(one `kcat -P` per partition, 4 at a time); the time runs from the start of producing until every row is "
        "visible to `SELECT count()`, so producing is inside both times. ClickHouse runs as `nobody` with "
        "bench/clickhouse/config.xml.in on loopback ports. Ratio = ClickHouse seconds / Sluice seconds per run.",
    ],
    "scale": lambda a: [
        "### Scale: 1, 2 and 4 partitions (JSON)",
        "",
        f"Each partition holds {a.scale_rows:,} messages (the test broker keeps ~4.5 MB per partition, so a topic of "
        "one partition cannot hold a million: all data is produced first, and these runs are short, including the "
        "job's start-up). Same method as above: kcat reference and Sluice load back to back in each of "
        f"{a.runs} runs, medians.",
    ],
    "freshness": lambda a: [
        "### Freshness at a steady produce rate",
        "",
        f"A producer (one `kcat -P`, linger.ms=5) writes {a.fresh_rate:,} JSON messages/s for {a.fresh_seconds:g} s "
        "into a 4-partition topic, 1% of a second's messages at a time; each message carries its sequence number and "
        f"the wall-clock time it was handed to kcat. The routine load has `max_batch_interval` {a.fresh_interval} s and 4 tasks. A "
        f"poller asks every {a.fresh_poll * 1000:.0f} ms over the MySQL protocol how many rows of each stamp are visible "
        "(`SELECT sent_us, count(*) ... GROUP BY sent_us` over the stamps not yet complete; `--fresh-poller rows` reads "
        "every unseen row instead, which costs the harness more than the server at 100,000 messages/s); a message's "
        "latency is the time the poller first saw its row minus its stamp (so it includes producer batching and up to "
        "one poll interval). For comparison: StarRocks documents `max_batch_interval` >= 5 s (default 10 s), so its "
        "floor is seconds; ClickHouse's Kafka engine flushes every 7.5 s (stream_flush_interval_ms) by default.",
    ],
    "idle": lambda a: [
        "### Idle jobs",
        "",
        f"{a.idle_jobs} routine loads and {a.idle_pipes} Kafka pipes (created interleaved; max_routine_load_job_num "
        "and max_pipe_num raised with SET GLOBAL where the counts need it) on a one-partition topic with 10 messages "
        f"and nothing new after them, `max_batch_interval` / BATCH_INTERVAL_IN_SECONDS {a.idle_interval} s. Start: "
        "from the first CREATE until every job has loaded the 10 messages (one shared table, count(*) = 10 x jobs). "
        f"Then, past the first rounds of empty tasks, the server's CPU (utime+stime) over {a.idle_seconds:g} s, its "
        "threads and RSS. The peak thread count is sampled every 0.2 s while the jobs start. CPU figures on a shared "
        "machine are inflated by contention; the load average stands beside them (threads and RSS are not affected).",
    ],
    "volume": lambda a: [
        "### Volume files against DuckDB's own readers",
        "",
        f"About {a.volume_mb:g} MB of the orders data in {a.volume_files} files per format in a local folder: CSV "
        "with a header, JSON lines, and Parquet (the CSV files' rows, written by DuckDB); and the CSV files again "
        "from an S3 volume on s3rver (DuckDB has no S3 reader offline, so its reference reads them locally: that "
        "row shows what the object store costs). Sluice: `CREATE VOLUME files LOCATION 'file:///...'` and `COPY INTO t FROM "
        "VOLUME files USING CSV OPTIONS ('header' = 'true')` / `USING JSON` / `USING PARQUET`, timed around the statement (files "
        "commit in groups of up to 256 files / 1 GiB, each with its load record). DuckDB: `bench/duckdb_load` (a small program on the same "
        "libduckdb) running `INSERT INTO t SELECT ... FROM read_csv('dir/*.csv', header = true)` / "
        "`read_json('dir/*.jsonl', format = 'newline_delimited')` / `read_parquet('dir/*.parquet')` and a CHECKPOINT into a fresh database file, "
        "timed around the process. Ratio = DuckDB seconds / Sluice seconds, per run, back to back.",
    ],
    "backlog": lambda a: [
        "### Memory with a backlog",
        "",
        f"{a.backlog_rows:,} CSV messages wait in {a.backlog_partitions} partitions before the job starts "
        f"(desired_concurrent_number {a.concurrency}, max_batch_rows 200000); peak RSS is the server's VmHWM over "
        "the whole load. Memory follows the batch limits and Sluice's prefetch budget (64 MB of librdkafka queue per "
        "task, spread over its partitions), not the backlog.",
    ],
}


def scenario_sections(args, extra: dict) -> list[str]:
    out: list[str] = []
    for name, r in extra.items():
        out += SCENARIO_TEXT[name](args) + ["", SCENARIOS[name][1](r), ""]
    return out


def write_doc(path: str, generated: str):
    """Replaces the generated block of `path` (between the marks), keeping the hand-written text around it; a new
    file gets a title and the block."""
    block = f"{BEGIN_MARK}\n{generated}\n{END_MARK}"
    text = ""
    if os.path.exists(path):
        with open(path) as f:
            text = f.read()
    if BEGIN_MARK in text and END_MARK in text:
        head, rest = text.split(BEGIN_MARK, 1)
        tail = rest.split(END_MARK, 1)[1]
        text = head + block + tail
    else:
        text = ("# Benchmarks\n\n`make bench` regenerates the marked part of this page (see bench/README.md); "
                "text outside the marks is written by hand.\n\n" + block + "\n" + (("\n" + text) if text else ""))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


# ---- main -------------------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Kafka CSV/JSON routine load throughput against kcat, as ratios.")
    ap.add_argument("--rows", type=int, default=None, help="messages per format (default 1000000; 20000 with --smoke)")
    ap.add_argument("--partitions", type=int, default=None,
                    help="partitions per topic (default 32, 4 with --smoke): the test broker keeps only ~4.5 MB "
                         "per partition")
    ap.add_argument("--runs", type=int, default=3, help="runs per workload; figures are medians (default 3)")
    ap.add_argument("--smoke", action="store_true", help="tiny size: 20000 rows, 4 partitions, 3 runs")
    ap.add_argument("--kcat-repeats", type=int, default=3,
                    help="kcat reads per run; the run's reference is their median (default 3)")
    ap.add_argument("--formats", default="csv,json,avro,pipe",
                    help="comma-separated: csv,json,avro, and pipe (a Kafka pipe with PARSE_JSON over the JSON topic)")
    ap.add_argument("--scenarios", default="throughput," + ",".join(SCENARIOS),
                    help="comma-separated: throughput (CSV/JSON against kcat), " + ", ".join(SCENARIOS))
    ap.add_argument("--ch-rows", type=int, default=None, help="messages per ClickHouse comparison run (1000000)")
    ap.add_argument("--ch-runs", type=int, default=None, help="runs of the ClickHouse comparison (--runs; 1 smoke)")
    ap.add_argument("--scale-rows", type=int, default=None, help="messages per partition for scale (30000)")
    ap.add_argument("--fresh-rate", type=int, default=None, help="messages/s for freshness (10000)")
    ap.add_argument("--fresh-seconds", type=float, default=None, help="seconds of producing for freshness (60)")
    ap.add_argument("--fresh-poll", type=float, default=0.02, help="seconds between freshness polls (0.02)")
    ap.add_argument("--fresh-interval", default="0.5", help="max_batch_interval of the freshness job (0.5)")
    ap.add_argument("--fresh-poller", choices=["counts", "rows"], default="counts",
                    help="freshness poller: counts (rows per stamp, GROUP BY sent_us; default) or rows (reads every "
                         "unseen row, as reports before 2026-12-03 did)")
    ap.add_argument("--idle-jobs", type=int, default=None, help="routine loads for idle (500)")
    ap.add_argument("--idle-pipes", type=int, default=None, help="Kafka pipes for idle, beside the routine loads (500)")
    ap.add_argument("--idle-seconds", type=float, default=None, help="seconds idle CPU is measured (60)")
    ap.add_argument("--idle-interval", default="10", help="max_batch_interval of the idle jobs (10, the default)")
    ap.add_argument("--volume-mb", type=float, default=None, help="MB of files per format for volume (100)")
    ap.add_argument("--volume-files", type=int, default=None, help="files per format for volume (20)")
    ap.add_argument("--backlog-rows", type=int, default=None, help="messages waiting for backlog (5000000)")
    ap.add_argument("--backlog-partitions", type=int, default=None, help="partitions for backlog (128)")
    ap.add_argument("--sandbox-rows", type=int, default=None,
                    help="messages for sandbox, sealed and unsealed (300000)")
    ap.add_argument("--iceberg-rows", type=int, default=None,
                    help="messages for iceberg, per target and run (300000; 5000 smoke)")
    ap.add_argument("--iceberg-runs", type=int, default=None, help="runs of iceberg (--runs; 1 smoke)")
    ap.add_argument("--iceberg-commit-interval", default="1",
                    help="iceberg.commit_interval_seconds of the Iceberg job (1; Sluice's default is 10)")
    ap.add_argument("--iceberg-steady-rate", type=int, default=None,
                    help="messages/s of iceberg's steady phase (2000; 200 smoke)")
    ap.add_argument("--iceberg-steady-seconds", type=float, default=None,
                    help="seconds of iceberg's steady phase (60; 3 smoke)")
    ap.add_argument("--cluster-rows", type=int, default=None,
                    help="messages for cluster's 1/2/3-node loads (360000 over 12 partitions; 2400 smoke)")
    ap.add_argument("--cluster-runs", type=int, default=None, help="runs of cluster (--runs; 1 smoke)")
    ap.add_argument("--cluster-nodes", default=None, help="node counts of cluster's loads (1,2,3; 2 smoke)")
    ap.add_argument("--cluster-timeouts", default=None,
                    help="--node-timeout-seconds values of cluster's takeover (10,3; 2 smoke; 10 is the default)")
    ap.add_argument("--cluster-steady-rate", type=int, default=None,
                    help="messages/s written during cluster's takeover (1200; 240 smoke)")
    ap.add_argument("--cluster-warmup", type=float, default=None,
                    help="seconds of loading on three nodes before the kill (3; 0.5 smoke)")
    ap.add_argument("--cluster-concurrency", type=int, default=6,
                    help="desired_concurrent_number of cluster's jobs, cluster-wide (6: 6 task groups on 1, 2 or 3 nodes)")
    ap.add_argument("--metrics-jobs", type=int, default=None, help="jobs for metrics (1000)")
    ap.add_argument("--metrics-scrapes", type=int, default=None, help="scrapes for metrics (50)")
    ap.add_argument("--concurrency", type=int, default=4, help="desired_concurrent_number (default 4)")
    ap.add_argument("--sluice", default=os.path.join(REPO, "build", "sluice"))
    ap.add_argument("--testbroker", default=os.path.join(REPO, "build", "tools", "testbroker", "testbroker"))
    ap.add_argument("--ceiling", default=None,
                    help="the bare-consumer program (default: bench/kafka_ceiling next to the test broker's build)")
    ap.add_argument("--server-arg", action="append", default=[],
                    help="extra argument for `sluice serve` (repeatable), e.g. --server-arg=--load-workers=4")
    ap.add_argument("--job-property", action="append", default=[], metavar="K=V",
                    help="extra PROPERTIES entry of the routine load (repeatable; for experiments)")
    ap.add_argument("--kafka-property", action="append", default=[], metavar="K=V",
                    help="extra FROM KAFKA entry, e.g. property.fetch.wait.max.ms=10 (repeatable; for experiments)")
    ap.add_argument("--pre-sql", action="append", default=[], metavar="SQL",
                    help="statement run on the server before CREATE ROUTINE LOAD (repeatable; for experiments)")
    ap.add_argument("--timeout", type=float, default=0, help="seconds one load may take (default: 60 + rows/2000)")
    ap.add_argument("--write-doc", default=None, metavar="PATH",
                    help="write the report (markdown) into PATH, replacing only its generated block")
    ap.add_argument("--json", default=None, metavar="PATH", help="also write the raw results as JSON")
    args = ap.parse_args(argv)
    if args.rows is None:
        args.rows = 20_000 if args.smoke else 1_000_000
    if args.partitions is None:
        args.partitions = 4 if args.smoke else 32
    smoke_or = {"ch_rows": (20000, 1000000), "ch_runs": (1, args.runs), "scale_rows": (2000, 30000), "fresh_rate": (2000, 10000), "fresh_seconds": (5, 60),
                "idle_jobs": (5, 500), "idle_pipes": (5, 500), "idle_seconds": (5, 60), "backlog_rows": (50000, 5000000),
                "backlog_partitions": (4, 128),
                "volume_mb": (2, 100), "volume_files": (4, 20), "sandbox_rows": (20000, 300000),
                "iceberg_rows": (5000, 300000), "iceberg_runs": (1, args.runs),
                "iceberg_steady_rate": (200, 2000), "iceberg_steady_seconds": (3, 60),
                "metrics_jobs": (20, 1000), "metrics_scrapes": (10, 50),
                "cluster_rows": (2400, 360000), "cluster_runs": (1, args.runs), "cluster_nodes": ("2", "1,2,3"),
                "cluster_timeouts": ("2", "10,3"), "cluster_steady_rate": (240, 1200), "cluster_warmup": (0.5, 3)}
    for key, (small, full) in smoke_or.items():
        if getattr(args, key) is None:
            setattr(args, key, small if args.smoke else full)
    scenarios = [x.strip() for x in args.scenarios.split(",") if x.strip()]
    for x in scenarios:
        if x != "throughput" and x not in SCENARIOS:
            ap.error(f"unknown scenario {x!r}")
    args.sluice = os.path.abspath(args.sluice)
    if args.ceiling is None:
        args.ceiling = os.path.join(os.path.dirname(os.path.abspath(args.testbroker)), "..", "..", "bench",
                                    "kafka_ceiling")
    args.ceiling = os.path.normpath(args.ceiling)
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    for f in formats:
        if f not in ("csv", "json", "avro", "pipe"):
            ap.error(f"unknown format {f!r}")
    for path in (args.sluice, args.testbroker, args.ceiling):
        if not os.access(path, os.X_OK):
            print(f"not found or not executable: {path} (run `make build`)", file=sys.stderr)
            return 2
    if shutil.which("kcat") is None:
        print("kcat not found on PATH (Debian package kcat)", file=sys.stderr)
        return 2
    timeout = args.timeout or (60 + args.rows / 2000)
    command = "/usr/bin/python3 bench/run_bench.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    if os.environ.get("MAKELEVEL"):
        command = f"make {'bench-smoke' if args.smoke else 'bench'}    # runs:\n" + command

    machine = machine_info()
    vers = versions(args.sluice)
    t_start = time.monotonic()
    load_start = os.getloadavg()[0]
    print(f"bench: {args.rows} rows/format over {args.partitions} partitions, {args.runs} runs, formats {formats}; "
          f"{machine['nproc']} CPUs, load average {load_start:.1f}", flush=True)

    if "throughput" not in scenarios:
        formats = []
    if "pipe" in formats and "json" not in formats:
        formats.insert(formats.index("pipe"), "json")  # the pipe reads the JSON topic
    topics = {f"orders_{f}": args.partitions for f in formats if f != "pipe"}
    broker = Broker(args.testbroker, topics).start() if formats else None
    registry = None
    if "avro" in formats:
        registry = ah.SchemaRegistry({1: ORDERS_AVRO_SCHEMA}).__enter__()
        REGISTRY_URL["url"] = registry.url()
    avroproducer = os.path.join(os.path.dirname(args.testbroker), "..", "avroproducer", "avroproducer")
    setup = {"bytes": {}, "produce_s": {}, "load_start": load_start}
    results: dict = {}
    try:
        for f in formats:
            if f == "pipe":
                continue
            payloads, nbytes = partition_payloads(args.rows, args.partitions, f)
            if f == "avro":
                secs = produce_avro_topic(avroproducer, broker.bootstrap, f"orders_{f}", payloads, parallel=4)
                nbytes = topic_payload_bytes(broker.bootstrap, f"orders_{f}")
            else:
                secs = produce_topic(broker.bootstrap, f"orders_{f}", payloads, parallel=4)
            setup["bytes"][f] = nbytes
            setup["produce_s"][f] = secs
            have = count_messages(broker.bootstrap, f"orders_{f}")
            print(f"bench: produced {args.rows} {f.upper()} messages ({nbytes / 1e6:.1f} MB) in {secs:.1f}s; "
                  f"readable: {have}", flush=True)
            if have != args.rows:
                raise RuntimeError(f"the broker kept {have} of {args.rows} {f} messages: the test broker keeps only "
                                   f"~4.5 MB per partition; use more --partitions or fewer --rows")
        for f in ("csv", "json", "avro"):
            setup["bytes"].setdefault(f, 0)
            setup["produce_s"].setdefault(f, 0.0)
        setup["bytes"]["pipe"] = setup["bytes"]["json"]
        for run in range(1, args.runs + 1):
            for f in formats:
                r = results.setdefault(f, {"kcat": [], "ceiling": [], "sluice": []})
                topic = "orders_json" if f == "pipe" else f"orders_{f}"
                k = measure_kcat(broker.bootstrap, topic, args.rows, setup["bytes"][f], timeout,
                                 args.kcat_repeats)
                r["kcat"].append(k)
                consumers = min(PIPE_TASKS if f == "pipe" else args.concurrency, args.partitions)
                c = measure_ceiling(args.ceiling, broker.bootstrap, topic, consumers, args.rows, setup["bytes"][f],
                                    timeout, args.kcat_repeats)
                r["ceiling"].append(c)
                s = measure_sluice(args, broker.bootstrap, topic, f, run, args.rows, setup["bytes"][f],
                                   timeout)
                r["sluice"].append(s)
                print(f"bench: run {run} {f.upper():4} kcat {k['seconds']:6.2f}s {k['rows_per_s']:>11,.0f} rows/s | "
                      f"ceiling({c['consumers']}) {c['seconds']:5.2f}s | "
                      f"sluice {s['seconds']:6.2f}s {s['rows_per_s']:>9,.0f} rows/s {s['mb_per_s']:5.1f} MB/s "
                      f"cpu {s['cpu_s_per_m']:5.2f} s/M rss {s['peak_rss_mib']:4.0f} MiB | "
                      f"/ceiling {s['rows_per_s'] / c['rows_per_s']:.2f} /kcat {s['rows_per_s'] / k['rows_per_s']:.2f} "
                      f"| load {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        if broker is not None:
            broker.stop()
        if registry is not None:
            registry.__exit__(None, None, None)
    extra: dict = {}
    for name in scenarios:
        if name in SCENARIOS:
            print(f"bench: scenario {name}", flush=True)
            t0 = time.monotonic()
            extra[name] = SCENARIOS[name][0](args)
            print(f"bench: {name} took {time.monotonic() - t0:.0f}s: {json.dumps(extra[name], default=str)[:400]}",
                  flush=True)
    setup["load_end"] = os.getloadavg()[0]
    setup["total_s"] = time.monotonic() - t_start
    summary = summarize(results)
    print(f"\nbench: finished in {time.monotonic() - t_start:.0f}s; medians of {args.runs} runs:")
    if results:
        print(results_table(summary, args.rows, setup["bytes"]))
    for name, r in extra.items():
        print(f"\n{name}:\n{SCENARIOS[name][1](r)}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"args": vars(args), "machine": machine, "versions": vers, "setup": setup,
                       "results": results, "summary": summary, "scenarios": extra}, fh, indent=2, default=str)
    if args.write_doc:
        write_doc(args.write_doc, render_generated(args, machine, vers, summary, results, setup, command, extra))
        print(f"bench: wrote {args.write_doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
