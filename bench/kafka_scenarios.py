"""The Kafka scenarios of `make bench` beyond raw throughput: scale with 1, 2 and 4 partitions, freshness at a steady
produce rate, the CPU cost of idle jobs, and memory with a large backlog. Each returns a dict of figures and has a
markdown renderer; bench/run_bench.py runs them and writes the report (see bench/README.md for the method)."""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time

from benchlib import (REPO, TABLE_DDL, Broker, count_messages, measure_kcat, partition_payloads, proc_cpu_seconds,
                      proc_status_kib, produce_topic, routine_load_sql, wait_for_count)

from kafka_clickhouse import clickhouse, render_clickhouse  # noqa: E402
from volume_files import render_volume_files, volume_files  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))
from harness import SluiceServer  # noqa: E402  (tests/e2e/harness.py)


def start_server(args) -> tuple[SluiceServer, object]:
    srv = SluiceServer(args.sluice, extra_args=["--log-level", "warn"] + args.server_arg)
    srv.start()
    conn = srv.connect(read_timeout=300)
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE IF NOT EXISTS bench")
        cur.execute("USE bench")
    return srv, conn


def query_one(conn, sql: str):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchone()


def weighted_percentile(sorted_pairs: list[tuple[float, int]], q: float) -> float:
    """The q-quantile of values given as sorted (value, count) pairs."""
    total = sum(n for _, n in sorted_pairs)
    if total == 0:
        return float("nan")
    rank = min(total - 1, max(0, int(round(q * (total - 1)))))
    for value, n in sorted_pairs:
        if rank < n:
            return value
        rank -= n
    return sorted_pairs[-1][0]


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, int(round(q * (len(sorted_values) - 1)))))
    return sorted_values[k]


# ---- scale: 1, 2 and 4 partitions -------------------------------------------------------------------------------

def scale(args) -> dict:
    """JSON throughput with 1, 2 and 4 partitions against kcat on the same topic. Each partition holds
    args.scale_rows messages, all produced before measuring (the broker keeps ~4.5 MB per partition, so a
    1-partition topic cannot hold a million messages: these runs are short and include the job's start)."""
    counts = [1, 2, 4]
    topics = {f"scale_{p}": p for p in counts}
    broker = Broker(args.testbroker, topics).start()
    out = {"rows_per_partition": args.scale_rows, "points": []}
    try:
        for p in counts:
            rows = args.scale_rows * p
            payloads, nbytes = partition_payloads(rows, p, "json")
            produce_topic(broker.bootstrap, f"scale_{p}", payloads, parallel=4)
            if count_messages(broker.bootstrap, f"scale_{p}") != rows:
                raise RuntimeError(f"the broker did not keep all {rows} messages of scale_{p}")
            runs = []
            for run in range(args.runs):
                k = measure_kcat(broker.bootstrap, f"scale_{p}", rows, nbytes, 120, args.kcat_repeats)
                srv, conn = start_server(args)
                try:
                    table = f"scale_{p}_{run}"
                    with conn.cursor() as cur:
                        cur.execute(TABLE_DDL.format(table=table))
                    t0 = time.monotonic()
                    with conn.cursor() as cur:
                        cur.execute(routine_load_sql(f"job_{table}", table, "json", broker.bootstrap, f"scale_{p}",
                                                     args.concurrency))
                    secs = wait_for_count(srv, conn, table, rows, 60 + rows / 2000) - t0
                finally:
                    srv.stop()
                    srv.cleanup()
                runs.append({"kcat_s": k["seconds"], "sluice_s": secs, "rows_per_s": rows / secs,
                             "ratio": k["seconds"] / secs})
            out["points"].append({
                "partitions": p, "rows": rows,
                "rows_per_s": statistics.median(r["rows_per_s"] for r in runs),
                "kcat_rows_per_s": statistics.median(rows / r["kcat_s"] for r in runs),
                "ratio": statistics.median(r["ratio"] for r in runs), "runs": runs})
            print(f"bench: scale {p} partition(s): {out['points'][-1]['rows_per_s']:,.0f} rows/s, "
                  f"ratio to kcat {out['points'][-1]['ratio']:.2f}", flush=True)
    finally:
        broker.stop()
    return out


def render_scale(r: dict) -> str:
    lines = ["| partitions | messages | Sluice rows/s | kcat rows/s | Sluice / kcat (runs) |", "|---:|---:|---:|---:|---:|"]
    for p in r["points"]:
        runs = ", ".join(f"{x['ratio']:.2f}" for x in p["runs"])
        lines.append(f"| {p['partitions']} | {p['rows']:,} | {p['rows_per_s']:,.0f} | {p['kcat_rows_per_s']:,.0f} | "
                     f"**{p['ratio']:.2f}** ({runs}) |")
    return "\n".join(lines)


# ---- freshness --------------------------------------------------------------------------------------------------

FRESH_DDL = "CREATE TABLE bench.fresh (seq BIGINT, sent_us BIGINT, note VARCHAR)"


def freshness(args) -> dict:
    """A steady args.fresh_rate messages/s for args.fresh_seconds into a 4-partition topic; each message carries its
    sequence number and the wall-clock time it was handed to the producer. A poller reads new rows every
    args.fresh_poll seconds; a row's latency is the time the poller first saw it minus its stamp."""
    broker = Broker(args.testbroker, {"fresh": 4}).start()
    srv = None
    try:
        srv, conn = start_server(args)
        with conn.cursor() as cur:
            cur.execute(FRESH_DDL)
            cur.execute(
                "CREATE ROUTINE LOAD bench.fresh_job ON fresh PROPERTIES (\"format\" = \"json\", "
                f"\"desired_concurrent_number\" = \"4\", \"max_batch_interval\" = \"{args.fresh_interval}\") FROM KAFKA "
                f"(\"kafka_broker_list\" = \"{broker.bootstrap}\", \"kafka_topic\" = \"fresh\", "
                "\"property.kafka_default_offsets\" = \"OFFSET_BEGINNING\")")
        deadline = time.monotonic() + 30
        while _show_all(conn) != ["RUNNING"]:
            if time.monotonic() > deadline:
                raise RuntimeError("the freshness job did not start:\n" + srv.log_tail(20))
            time.sleep(0.1)
        time.sleep(1.0)  # let the first tasks find the (empty) partitions

        total = int(args.fresh_rate * args.fresh_seconds)
        step = 0.01
        per_step = max(1, int(args.fresh_rate * step))
        # Every chunk of per_step messages shares one stamp, unique per chunk; the counts poller needs to know how
        # many messages each stamp has, so the stamps are chosen before producing (a chunk's stamp is taken when it
        # is written, and made larger than the previous one if the clock has not moved).
        chunk_of_stamp: dict[int, int] = {}
        latencies: list[tuple[float, int]] = []  # (latency ms, messages)
        poll_stats = {"polls": 0, "query_ms": [], "rows_returned": 0, "max_rows": 0}
        producer = subprocess.Popen(["kcat", "-P", "-b", broker.bootstrap, "-t", "fresh", "-X", "linger.ms=5"],
                                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        stop_poll = threading.Event()
        poll_error: list[Exception] = []
        stamps_lock = threading.Lock()
        seen_total = [0]

        def poll_rows():
            """Reads every row not yet seen (seq >= the lowest unseen one): what the earlier reports measured. At
            high rates this reads and parses hundreds of thousands of rows a second in Python."""
            seen = bytearray(total)
            floor = 0  # every seq below floor was seen
            pconn = srv.connect(read_timeout=60)
            try:
                with pconn.cursor() as cur:
                    while True:
                        done = stop_poll.is_set()
                        q0 = time.monotonic()
                        cur.execute(f"SELECT seq, sent_us FROM bench.fresh WHERE seq >= {floor}")
                        rows = cur.fetchall()
                        now_us = time.time() * 1e6
                        poll_stats["query_ms"].append((time.monotonic() - q0) * 1000)
                        poll_stats["polls"] += 1
                        poll_stats["rows_returned"] += len(rows)
                        poll_stats["max_rows"] = max(poll_stats["max_rows"], len(rows))
                        for seq, sent_us in rows:
                            if not seen[seq]:
                                seen[seq] = 1
                                seen_total[0] += 1
                                latencies.append(((now_us - sent_us) / 1000.0, 1))
                        while floor < total and seen[floor]:
                            floor += 1
                        if floor >= total or done:
                            return
                        time.sleep(args.fresh_poll)
            except Exception as e:  # noqa: BLE001
                poll_error.append(e)
            finally:
                pconn.close()

        def poll_counts():
            """Counts the visible rows per stamp (GROUP BY sent_us over the stamps not yet complete): the rows a
            stamp gained since the last poll became visible between the two polls. A few rows per poll at any rate,
            so the poller's own cost does not grow with the rate."""
            counted: dict[int, int] = {}
            floor = 0  # every stamp below floor is complete
            pconn = srv.connect(read_timeout=60)
            try:
                with pconn.cursor() as cur:
                    while True:
                        done = stop_poll.is_set()
                        q0 = time.monotonic()
                        # Grouped by the stamp as a DOUBLE (exact below 2^53; no perfect hash for it, and cheaper
                        # than text when a lagging partition keeps old stamps open): an integer GROUP BY lets DuckDB pick its perfect hash
                        # aggregate from statistics taken when the statement was prepared, which rows committed
                        # between prepare and execute can exceed ("Perfect hash aggregate: aggregate group ...
                        # exceeded total groups"): the front door prepares and executes a SELECT in two
                        # autocommit transactions.
                        cur.execute(f"SELECT sent_us::DOUBLE, count(*) FROM bench.fresh WHERE sent_us >= {floor} "
                                    "GROUP BY 1")
                        rows = cur.fetchall()
                        now_us = time.time() * 1e6
                        poll_stats["query_ms"].append((time.monotonic() - q0) * 1000)
                        poll_stats["polls"] += 1
                        poll_stats["rows_returned"] += len(rows)
                        poll_stats["max_rows"] = max(poll_stats["max_rows"], len(rows))
                        for stamp, n in rows:
                            sent_us = int(round(float(stamp)))
                            new = int(n) - counted.get(sent_us, 0)
                            if new > 0:
                                counted[sent_us] = int(n)
                                seen_total[0] += new
                                latencies.append(((now_us - sent_us) / 1000.0, new))
                        with stamps_lock:
                            pending = sorted(s for s, k in chunk_of_stamp.items() if counted.get(s, 0) < k)
                            produced = sum(chunk_of_stamp.values())
                            floor = pending[0] if pending else (max(chunk_of_stamp) + 1 if chunk_of_stamp else 0)
                        if (produced == total and not pending) or done:
                            return
                        time.sleep(args.fresh_poll)
            except Exception as e:  # noqa: BLE001
                poll_error.append(e)
            finally:
                pconn.close()

        poller = threading.Thread(target=poll_counts if args.fresh_poller == "counts" else poll_rows, daemon=True)
        poller.start()
        cpu0 = proc_cpu_seconds(srv.proc.pid)
        t0 = time.monotonic()
        seq = 0
        last_stamp = 0
        while seq < total:
            target = t0 + (seq / args.fresh_rate)
            delay = target - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            n = min(per_step, total - seq)
            stamp = max(int(time.time() * 1e6), last_stamp + 1)
            last_stamp = stamp
            with stamps_lock:
                chunk_of_stamp[stamp] = n
            chunk = "".join(f'{{"seq":{s},"sent_us":{stamp},"note":"freshness probe"}}\n'
                            for s in range(seq, seq + n))
            producer.stdin.write(chunk.encode())
            producer.stdin.flush()
            seq += n
        produce_s = time.monotonic() - t0
        producer.stdin.close()
        producer.wait(60)
        poller.join(args.fresh_seconds + 60)
        stop_poll.set()
        poller.join(10)
        cpu = proc_cpu_seconds(srv.proc.pid) - cpu0
        if poll_error:
            raise poll_error[0]
        missing = total - seen_total[0]
        if missing:
            raise RuntimeError(f"freshness: {missing} of {total} messages never became visible:\n{srv.log_tail(20)}")
        lat = sorted(latencies)
        qms = sorted(poll_stats["query_ms"])
        return {"rate": args.fresh_rate, "seconds": args.fresh_seconds, "messages": total,
                "achieved_rate": total / produce_s, "poll_ms": args.fresh_poll * 1000,
                "p50_ms": weighted_percentile(lat, 0.50), "p99_ms": weighted_percentile(lat, 0.99),
                "max_ms": lat[-1][0], "cpu_percent": cpu / produce_s * 100, "cpu_s_per_m": cpu / total * 1e6,
                "interval": args.fresh_interval, "load_avg": os.getloadavg()[0], "poller": args.fresh_poller,
                "polls": poll_stats["polls"], "poll_query_p50_ms": percentile(qms, 0.5),
                "poll_query_p99_ms": percentile(qms, 0.99), "poll_query_max_ms": qms[-1] if qms else float("nan"),
                "poll_rows_per_poll": poll_stats["rows_returned"] / max(1, poll_stats["polls"]),
                "poll_max_rows": poll_stats["max_rows"]}
    finally:
        if srv is not None:
            srv.stop()
            srv.cleanup()
        broker.stop()


def render_freshness(r: dict) -> str:
    return "\n".join([
        "| messages/s (achieved) | max_batch_interval | seconds | messages | poll every | p50 | p99 | max | Sluice CPU "
        "| CPU s per M rows | load average | poller: query p50 / p99 / max, rows per poll |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {r['rate']:,} ({r['achieved_rate']:,.0f}) | {r.get('interval', '0.5')} s | {r['seconds']} | "
        f"{r['messages']:,} | {r['poll_ms']:.0f} ms | {r['p50_ms']:.0f} ms | **{r['p99_ms']:.0f} ms** | "
        f"{r['max_ms']:.0f} ms | {r['cpu_percent']:.0f}% of a core | {r.get('cpu_s_per_m', float('nan')):.2f} | "
        f"{r.get('load_avg', float('nan')):.1f} | {r.get('poller', 'rows')}: {r.get('poll_query_p50_ms', float('nan')):.1f} / "
        f"{r.get('poll_query_p99_ms', float('nan')):.1f} / {r.get('poll_query_max_ms', float('nan')):.1f} ms, "
        f"{r.get('poll_rows_per_poll', float('nan')):,.0f} |"])


# ---- idle jobs --------------------------------------------------------------------------------------------------

def _kafka_extra(args) -> str:
    return "".join(f', "{kv.split("=", 1)[0]}" = "{kv.split("=", 1)[1]}"' for kv in args.kafka_property)


class _PeakSampler(threading.Thread):
    """Samples a process's thread count every 0.2 s, keeping the highest (the peak while many jobs start)."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak, self.stop_event = pid, 0, threading.Event()

    def run(self):
        while not self.stop_event.is_set():
            try:
                self.peak = max(self.peak, len(os.listdir(f"/proc/{self.pid}/task")))
            except OSError:
                return
            self.stop_event.wait(0.2)


def idle_jobs(args) -> dict:
    """args.idle_jobs routine loads and args.idle_pipes Kafka pipes on one server, on a topic with 10 messages and
    nothing new after them. Start: from the first CREATE until every job has loaded the 10 messages (one shared
    table, so count(*) = 10 x jobs). Then, once the first rounds of empty tasks are past, the server's CPU over
    args.idle_seconds as % of one core, its threads and RSS. The caps (max_routine_load_job_num, max_pipe_num) are
    raised with SET GLOBAL when the counts need it."""
    routine, pipes = args.idle_jobs, args.idle_pipes
    jobs = routine + pipes
    broker = Broker(args.testbroker, {"idle": 1}).start()
    srv = None
    try:
        payloads, _ = partition_payloads(10, 1, "json")
        produce_topic(broker.bootstrap, "idle", payloads, parallel=1)
        srv, conn = start_server(args)
        pid = srv.proc.pid
        load0 = os.getloadavg()[0]
        with conn.cursor() as cur:
            if routine > 100:
                cur.execute(f"SET GLOBAL max_routine_load_job_num = {routine}")
            if pipes > 100:
                cur.execute(f"SET GLOBAL max_pipe_num = {pipes}")
            cur.execute(TABLE_DDL.format(table="idle"))
        sampler = _PeakSampler(pid)
        sampler.start()
        cpu0 = proc_cpu_seconds(pid)
        t0 = time.monotonic()
        with conn.cursor() as cur:
            # Interleaved, so neither kind starts with the server to itself.
            for j in range(max(routine, pipes)):
                if j < routine:
                    cur.execute(
                        f"CREATE ROUTINE LOAD bench.idle_{j} ON idle PROPERTIES (\"format\" = \"json\", "
                        f"\"max_batch_interval\" = \"{args.idle_interval}\") FROM KAFKA (\"kafka_broker_list\" = "
                        f"\"{broker.bootstrap}\", \"kafka_topic\" = \"idle\", "
                        "\"property.kafka_default_offsets\" = \"OFFSET_BEGINNING\"" + _kafka_extra(args) + ")")
                if j < pipes:
                    cur.execute(
                        f"CREATE PIPE bench.idle_pipe_{j} BATCH_INTERVAL_IN_SECONDS = '{args.idle_interval}' "
                        "RESET_KAFKA_GROUP_OFFSETS = 'earliest' AS COPY INTO idle FROM (SELECT "
                        "left(value::STRING, 10), NULL, NULL, NULL, NULL FROM READ_KAFKA("
                        f"'{broker.bootstrap}', 'idle', '', 'idle_g{j}', '', '', '', '', 'raw', 'raw', 0, map()))")
        create_s = time.monotonic() - t0
        started = wait_for_count(srv, conn, "idle", 10 * jobs, 60 + jobs * 0.5, poll=0.2)
        start_s = started - t0
        start_cpu = proc_cpu_seconds(pid) - cpu0
        # Past the first round of empty tasks, and past the point where idle groups close their consumers (5 s
        # without data) and the threads librdkafka needs for them have ended.
        time.sleep(max(6.0, min(15.0, float(args.idle_interval) + 5)))
        sampler.stop_event.set()
        sampler.join(2)
        load1 = os.getloadavg()[0]
        cpu0 = proc_cpu_seconds(pid)
        t1 = time.monotonic()
        time.sleep(args.idle_seconds)
        cpu = proc_cpu_seconds(pid) - cpu0
        secs = time.monotonic() - t1
        load2 = os.getloadavg()[0]
        threads = len(os.listdir(f"/proc/{pid}/task"))
        rss = proc_status_kib(pid, "VmRSS") / 1024
        hwm = proc_status_kib(pid, "VmHWM") / 1024
        running = sum(1 for row in _show_all(conn) if row == "RUNNING")
        running_pipes = sum(1 for row in _show_pipes(conn) if row == "RUNNING")
        if running != routine or running_pipes != pipes:
            raise RuntimeError(f"idle: {running} of {routine} routine loads and {running_pipes} of {pipes} pipes are "
                               f"RUNNING:\n{srv.log_tail(20)}")
        return {"jobs": jobs, "routine_loads": routine, "pipes": pipes, "interval": args.idle_interval,
                "create_s": create_s, "start_s": start_s, "start_cpu_s": start_cpu, "seconds": secs,
                "cpu_percent": cpu / secs * 100, "threads": threads, "peak_threads": sampler.peak,
                "rss_mib": rss, "peak_rss_mib": hwm, "load_avg": [load0, load1, load2]}
    finally:
        if srv is not None:
            srv.stop()
            srv.cleanup()
        broker.stop()


def _show_all(conn) -> list[str]:
    with conn.cursor() as cur:
        cur.execute("SHOW ROUTINE LOAD FROM bench")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row))["State"] for row in cur.fetchall()]


def _show_pipes(conn) -> list[str]:
    with conn.cursor() as cur:
        cur.execute("SHOW PIPES FROM bench")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row))["status"] for row in cur.fetchall()]


def render_idle(r: dict) -> str:
    la = r.get("load_avg", [float("nan")] * 3)
    return "\n".join([
        "| idle jobs | max_batch_interval | start (CREATEs / all loaded) | CPU to start | measured for | server CPU "
        "| load average (start / idle / end) | threads (peak while starting) | RSS (peak) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {r['jobs']} ({r['routine_loads']} routine loads, {r['pipes']} pipes) | {r['interval']} s | "
        f"{r['create_s']:.1f} s / **{r['start_s']:.1f} s** | {r['start_cpu_s']:.1f} s | {r['seconds']:.0f} s | "
        f"**{r['cpu_percent']:.1f}% of one core** | {la[0]:.1f} / {la[1]:.1f} / {la[2]:.1f} | "
        f"**{r['threads']}** ({r['peak_threads']}) | **{r['rss_mib']:.0f} MiB** ({r['peak_rss_mib']:.0f} MiB) |"])


# ---- backlog memory ---------------------------------------------------------------------------------------------

def backlog(args) -> dict:
    """args.backlog_rows CSV messages waiting in args.backlog_partitions partitions before the job starts; the
    server's peak RSS (VmHWM) while it loads all of them, and how long that took."""
    rows, parts = args.backlog_rows, args.backlog_partitions
    broker = Broker(args.testbroker, {"backlog": parts}).start()
    srv = None
    try:
        payloads, nbytes = partition_payloads(rows, parts, "csv")
        produce_s = produce_topic(broker.bootstrap, "backlog", payloads, parallel=4)
        del payloads
        have = count_messages(broker.bootstrap, "backlog")
        if have != rows:
            raise RuntimeError(f"backlog: the broker kept {have} of {rows} messages; use more partitions")
        srv, conn = start_server(args)
        with conn.cursor() as cur:
            cur.execute(TABLE_DDL.format(table="backlog"))
        pid = srv.proc.pid
        rss0 = proc_status_kib(pid, "VmRSS") / 1024
        cpu0 = proc_cpu_seconds(pid)
        t0 = time.monotonic()
        with conn.cursor() as cur:
            cur.execute(routine_load_sql("backlog_job", "backlog", "csv", broker.bootstrap, "backlog",
                                         args.concurrency))
        secs = wait_for_count(srv, conn, "backlog", rows, 120 + rows / 5000, poll=0.2) - t0
        cpu = proc_cpu_seconds(pid) - cpu0
        return {"rows": rows, "partitions": parts, "mbytes": nbytes / 1e6, "produce_s": produce_s,
                "seconds": secs, "rows_per_s": rows / secs, "cpu_s_per_m": cpu / rows * 1e6,
                "idle_rss_mib": rss0, "peak_rss_mib": proc_status_kib(pid, "VmHWM") / 1024}
    finally:
        if srv is not None:
            srv.stop()
            srv.cleanup()
        broker.stop()


def render_backlog(r: dict) -> str:
    return "\n".join([
        "| backlog | partitions | payload | load time | rows/s | CPU s per M rows | RSS before | peak RSS |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {r['rows']:,} CSV messages | {r['partitions']} | {r['mbytes']:.0f} MB | {r['seconds']:.1f} s | "
        f"{r['rows_per_s']:,.0f} | {r['cpu_s_per_m']:.2f} | {r['idle_rss_mib']:.0f} MiB | "
        f"**{r['peak_rss_mib']:.0f} MiB** |"])


from sandbox_cost import render_sandbox_cost, sandbox_cost  # noqa: E402  (imports this module's helpers)

SCENARIOS = {"clickhouse": (clickhouse, render_clickhouse), "scale": (scale, render_scale),
             "freshness": (freshness, render_freshness), "idle": (idle_jobs, render_idle),
             "backlog": (backlog, render_backlog), "volume": (volume_files, render_volume_files),
             "sandbox": (sandbox_cost, render_sandbox_cost)}

from metrics_scrape import metrics_scrape, render_metrics_scrape  # noqa: E402  (imports this module's helpers)

SCENARIOS["metrics"] = (metrics_scrape, render_metrics_scrape)

from iceberg_load import iceberg_load, render_iceberg_load  # noqa: E402

SCENARIOS["iceberg"] = (iceberg_load, render_iceberg_load)

from cluster_load import cluster_load, render_cluster_load  # noqa: E402

SCENARIOS["cluster"] = (cluster_load, render_cluster_load)
