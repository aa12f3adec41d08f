"""The `cluster` scenario of `make bench`: one routine load into an Iceberg table run by one, two and three
`sluice serve --cluster` nodes on the same topic, and how long a killed node's partitions take to resume.

Parts, all on loopback: a PostgreSQL 15 the bench starts (initdb in a temp folder; every configuration gets a
cluster database of its own, so no job or node of an earlier one is seen; the Iceberg JDBC catalog is the
`postgres` database), s3rver for the table's files, the test broker with a 12-partition JSON topic.

Throughput: `--cluster-rows` messages are produced before any job starts; for each node count (fresh cluster, fresh
table) the clock runs from CREATE ROUTINE LOAD on n1 until `SELECT count(*)` on n1 equals the messages. Reported:
rows/s, and CPU seconds (utime+stime) of all node processes together per million rows. PostgreSQL and s3rver are
not counted. On a 2-core machine several nodes share the same two cores, so more nodes cannot load faster: the
figure is what coordination costs (leases, regrouping, more and smaller commits), not a speed-up.

Takeover: three nodes load a topic a steady producer writes to (one kcat per partition, message i to partition
i % 12, naming its partition in customer_name); once the partitions are leased 4/4/4 and rows flow, n3 gets
SIGKILL. Measured from the kill: until every partition n3 held is leased (unexpired, in sluice_leases) by n1 or n2,
and until rows of those partitions are committed again (the first of them, and all of them). Then the producer
stops and the table must hold every message exactly once (count = count(DISTINCT) = produced). At the default node
timeout (10 s) and at a lower one (`--node-timeout-seconds`, 3 s by default here)."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time

from benchlib import (REPO, TABLE_DDL, Broker, count_messages, order_fields, partition_payloads, proc_cpu_seconds,
                      produce_topic, routine_load_sql, wait_for_count)
from iceberg_load import BUCKET, define_lake

sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))
from harness import LOOPBACK, SluiceServer  # noqa: E402
from pg_harness import PG_BIN, Postgres  # noqa: E402
from s3_harness import S3rver  # noqa: E402

PARTITIONS = 12
TOPIC = "cluster_orders"
DEFAULT_NODE_TIMEOUT = 10  # sluice serve's default --node-timeout-seconds


def psql(pg: Postgres, database: str, sql: str) -> list[list[str]]:
    """pg.psql against another database of the same server (each cluster has a database of its own)."""
    r = subprocess.run([f"{PG_BIN}/psql", "-h", LOOPBACK, "-p", str(pg.port), "-U", "sluice", "-d", database, "-X",
                        "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"psql failed: {r.stderr}")
    return [line.split("\t") for line in r.stdout.splitlines() if line]


class Cluster:
    """`nodes` Sluice nodes n1..nN on a fresh cluster database `database`, each with the `lake` catalog and the
    jobs' database `bench` defined; started together (the start-up is not measured)."""

    def __init__(self, args, pg: Postgres, s3: S3rver, database: str, nodes: int, node_timeout: int):
        self.pg, self.database = pg, database
        pg.psql(f"CREATE DATABASE {database}")
        self.uri = pg.uri.replace("dbname=postgres", f"dbname={database}")
        self.servers: dict[str, SluiceServer] = {}
        self.conns: dict = {}
        flags = [] if node_timeout == DEFAULT_NODE_TIMEOUT else ["--node-timeout-seconds", str(node_timeout)]
        for k in range(1, nodes + 1):
            name = f"n{k}"
            srv = SluiceServer(args.sluice, extra_args=["--log-level", "warn", "--cluster", self.uri, "--node-name",
                                                        name] + flags + args.server_arg)
            self.servers[name] = srv
        key = os.path.join(self.servers["n1"].root, "cluster-secrets.key")  # one key for every node's job secrets
        with open(os.open(key, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as f:
            f.write(os.urandom(32))
        for srv in self.servers.values():
            srv.extra_args += ["--cluster-key-file", key]
            srv.spawn()
        try:
            for name, srv in self.servers.items():
                ok, why = srv.wait_ready(60)
                if not ok:
                    raise RuntimeError(f"node {name} did not start: {why}\n{srv.log_tail(20)}")
                self.conns[name] = srv.connect(read_timeout=300)
                with self.conns[name].cursor() as cur:
                    define_lake(cur, pg, s3)
            self.wait(lambda: self.alive() == nodes, 60, f"{nodes} nodes alive")
        except Exception:
            self.close()
            raise

    def alive(self) -> int:
        return int(psql(self.pg, self.database, "SELECT count(*) FROM sluice_nodes WHERE state = 'alive'")[0][0])

    def leases(self, job_id: str) -> dict[int, str]:
        """partition -> holder of the job's unexpired partition leases (PostgreSQL's clock)."""
        rows = psql(self.pg, self.database, f"SELECT resource, holder FROM sluice_leases WHERE resource LIKE "
                                            f"'job:{job_id}:partition:%' AND holder IS NOT NULL AND expires_at > now()")
        return {int(r[0].rsplit(":", 1)[1]): r[1] for r in rows}

    def cpu_seconds(self) -> float:
        return sum(proc_cpu_seconds(s.proc.pid) for s in self.servers.values() if s.alive())

    @staticmethod
    def wait(fn, timeout: float, what: str, interval: float = 0.1):
        deadline = time.monotonic() + timeout
        while True:
            got = fn()
            if got:
                return got
            if time.monotonic() > deadline:
                raise RuntimeError(f"cluster bench: not {what} after {timeout:.0f}s")
            time.sleep(interval)

    def close(self):
        """Kills every node: the cluster database is thrown away with them, so nothing needs a clean shutdown."""
        for conn in self.conns.values():
            try:
                conn.close()
            except Exception:  # noqa: BLE001
                pass
        for srv in self.servers.values():
            srv.cleanup()


def _create_table(conn, name: str) -> str:
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE IF NOT EXISTS lake.bench")
        cur.execute(TABLE_DDL.format(table=name).replace("bench.", "lake.bench.", 1))
    return f"lake.bench.{name}"


def _job_sql(args, job: str, table: str, bootstrap: str, topic: str) -> str:
    props = list(args.job_property) + [f"iceberg.commit_interval_seconds={args.iceberg_commit_interval}"]
    return routine_load_sql(job, table, "json", bootstrap, topic, args.cluster_concurrency, props)


def _job_row(conn, job: str) -> dict:
    with conn.cursor() as cur:
        cur.execute(f"SHOW ROUTINE LOAD FOR bench.{job}")
        return dict(zip([d[0] for d in cur.description], cur.fetchone()))


def _loaded_rows(conn, job: str) -> int:
    try:
        return int(json.loads(_job_row(conn, job).get("Statistic") or "{}").get("loadedRows", 0))
    except ValueError:
        return 0


def _throughput_once(args, pg, s3, bootstrap: str, nodes: int, run: int) -> dict:
    rows = args.cluster_rows
    cluster = Cluster(args, pg, s3, f"cl_{nodes}n_{run}", nodes, DEFAULT_NODE_TIMEOUT)
    try:
        n1 = cluster.conns["n1"]
        name, job = f"cl_{nodes}n_{run}", f"job_cl_{nodes}n_{run}"
        table = _create_table(n1, name)
        load0 = os.getloadavg()[0]
        cpu0 = cluster.cpu_seconds()
        t0 = time.monotonic()
        with n1.cursor() as cur:
            cur.execute(_job_sql(args, job, table, bootstrap, TOPIC))
        secs = wait_for_count(cluster.servers["n1"], n1, table, rows, 60 + rows / 500, poll=0.1) - t0
        cpu = cluster.cpu_seconds() - cpu0
        per_node = {n: _loaded_rows(c, job) for n, c in cluster.conns.items()}
        with n1.cursor() as cur:
            cur.execute(f"SELECT count(*) FROM {table}$snapshots")
            commits = int(cur.fetchone()[0])
            cur.execute(f"STOP ROUTINE LOAD FOR bench.{job}")
        return {"nodes": nodes, "seconds": secs, "rows_per_s": rows / secs, "cpu_s_per_m": cpu / rows * 1e6,
                "commits": commits, "loaded_by_node": per_node, "load": load0}
    finally:
        cluster.close()


def steady_line(i: int) -> str:
    """Message i of the takeover topic: the orders shape, with the partition it goes to (i % 12) in customer_name
    and i itself as commodity_id, so the table says which partition each row came from."""
    _, _, country, pay_time, price = order_fields(i)
    return (f'{{"commodity_id":"{i:010d}","customer_name":"partition {i % PARTITIONS}","country":"{country}",'
            f'"pay_time":{pay_time},"price":{price}}}')


class SteadyProducer:
    """`rate` messages a second, in ten steps a second, through one long-lived kcat producer per partition."""

    def __init__(self, bootstrap: str, topic: str, rate: int):
        self.procs = [subprocess.Popen(["kcat", "-P", "-b", bootstrap, "-t", topic, "-p", str(p), "-X", "linger.ms=5"],
                                       stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                      for p in range(PARTITIONS)]
        self.rate, self.produced = rate, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        t0, step = time.monotonic(), 0
        while not self._stop.is_set():
            step += 1
            target = self.rate * step // 10
            lines: list[list[str]] = [[] for _ in range(PARTITIONS)]
            for i in range(self.produced, target):
                lines[i % PARTITIONS].append(steady_line(i))
            for p, proc in enumerate(self.procs):
                if lines[p]:
                    proc.stdin.write(("\n".join(lines[p]) + "\n").encode())
                    proc.stdin.flush()
            self.produced = target
            self._stop.wait(max(0.0, t0 + step / 10 - time.monotonic()))

    def stop(self) -> int:
        """Stops producing, waits until kcat delivered everything; returns the messages produced."""
        self._stop.set()
        self._thread.join()
        for proc in self.procs:
            proc.stdin.close()
        for proc in self.procs:
            if proc.wait(60) != 0:
                raise RuntimeError(f"kcat producer exited with {proc.returncode}")
        return self.produced


def _counts_by_partition(conn, table: str, partitions: list[int]) -> dict[int, int]:
    names = ", ".join(f"'partition {p}'" for p in partitions)
    with conn.cursor() as cur:
        cur.execute(f"SELECT customer_name, count(*) FROM {table} WHERE customer_name IN ({names}) "
                    "GROUP BY customer_name")
        got = {int(n.split()[1]): int(c) for n, c in cur.fetchall()}
    return {p: got.get(p, 0) for p in partitions}


def _takeover_once(args, pg, s3, bootstrap: str, topic: str, node_timeout: int, run: int) -> dict:
    cluster = Cluster(args, pg, s3, f"tk_{node_timeout}s_{run}", 3, node_timeout)
    producer = None
    try:
        n1 = cluster.conns["n1"]
        name, job = f"tk_{node_timeout}s_{run}", f"job_tk_{node_timeout}s_{run}"
        table = _create_table(n1, name)
        producer = SteadyProducer(bootstrap, topic, args.cluster_steady_rate)
        with n1.cursor() as cur:
            cur.execute(_job_sql(args, job, table, bootstrap, topic))
        job_id = str(_job_row(n1, job)["Id"])

        def spread_evenly():
            held = cluster.leases(job_id)
            per_node = {n: list(held.values()).count(n) for n in set(held.values())}
            return held if per_node == {"n1": 4, "n2": 4, "n3": 4} else None
        held = cluster.wait(spread_evenly, 60, "12 partitions leased 4/4/4")
        time.sleep(args.cluster_warmup)  # rows flowing on every node
        with n1.cursor() as cur:
            cur.execute(f"SELECT count(*) FROM {table}")
            if int(cur.fetchone()[0]) == 0:
                raise RuntimeError("cluster bench: nothing committed before the kill")
        victim = sorted(p for p, holder in held.items() if holder == "n3")
        load0 = os.getloadavg()[0]
        killed = time.monotonic()
        cluster.servers["n3"].kill_process()  # SIGKILL
        # A commit n3 had sent just before its death may still land in PostgreSQL; a second later none can, and
        # with a node timeout of 2 s or more no survivor holds n3's partitions yet (their leases were renewed at
        # most a second before the kill and last the node timeout).
        time.sleep(max(0.0, killed + 1.0 - time.monotonic()))
        baseline = _counts_by_partition(n1, table, victim)
        held_s = first_s = all_s = None
        deadline = killed + node_timeout + 90
        while all_s is None:
            now = time.monotonic()
            if now > deadline:
                raise RuntimeError(f"cluster bench: n3's partitions {victim} did not resume within "
                                   f"{deadline - killed:.0f}s (leases {cluster.leases(job_id)})")
            if held_s is None:
                leases = cluster.leases(job_id)
                if all(leases.get(p) in ("n1", "n2") for p in victim):
                    held_s = time.monotonic() - killed
            counts = _counts_by_partition(n1, table, victim)
            resumed = [p for p in victim if counts[p] > baseline[p]]
            if resumed and first_s is None:
                first_s = time.monotonic() - killed
            if len(resumed) == len(victim) and held_s is not None:
                all_s = time.monotonic() - killed
            time.sleep(0.1)
        produced = producer.stop()
        producer = None
        wait_for_count(cluster.servers["n1"], n1, table, produced, 120, poll=0.2)
        with n1.cursor() as cur:
            cur.execute(f"SELECT count(*), count(DISTINCT commodity_id) FROM {table}")
            count, distinct = (int(x) for x in cur.fetchone())
            if count != produced or distinct != produced:
                raise RuntimeError(f"cluster bench: {count} rows, {distinct} distinct, {produced} produced")
            cur.execute(f"STOP ROUTINE LOAD FOR bench.{job}")
        return {"node_timeout": node_timeout, "partitions": victim, "held_s": held_s, "first_rows_s": first_s,
                "all_rows_s": all_s, "produced": produced, "exactly_once": True, "load": load0}
    finally:
        if producer is not None:
            producer.stop()
        cluster.close()


def cluster_load(args) -> dict:
    rows, runs = args.cluster_rows, args.cluster_runs
    node_counts = [int(x) for x in str(args.cluster_nodes).split(",") if x.strip()]
    timeouts = [int(x) for x in str(args.cluster_timeouts).split(",") if x.strip()]
    steady_topics = {f"cluster_steady_{t}_{r}": PARTITIONS for t in timeouts for r in range(runs)}
    broker = Broker(args.testbroker, {TOPIC: PARTITIONS, **steady_topics}).start()
    out: dict = {"rows": rows, "partitions": PARTITIONS, "concurrency": args.cluster_concurrency,
                 "commit_interval": args.iceberg_commit_interval, "steady_rate": args.cluster_steady_rate,
                 "runs": runs, "throughput": [], "takeover": [], "load_start": os.getloadavg()[0]}
    try:
        payloads, _ = partition_payloads(rows, PARTITIONS, "json")
        produce_topic(broker.bootstrap, TOPIC, payloads, parallel=4)
        if count_messages(broker.bootstrap, TOPIC) != rows:
            raise RuntimeError(f"the broker did not keep all {rows} messages (it keeps ~4.5 MB per partition)")
        with Postgres() as pg, S3rver() as s3:
            s3.create_bucket(BUCKET)
            for run in range(runs):
                for nodes in node_counts:
                    r = _throughput_once(args, pg, s3, broker.bootstrap, nodes, run)
                    out["throughput"].append(r)
                    print(f"bench: cluster run {run} {nodes} node(s): {r['seconds']:.2f}s {r['rows_per_s']:,.0f} rows/s "
                          f"cpu {r['cpu_s_per_m']:.2f} s/M by node {r['loaded_by_node']} load {r['load']:.1f}",
                          flush=True)
            for run in range(runs):
                for t in timeouts:
                    r = _takeover_once(args, pg, s3, broker.bootstrap, f"cluster_steady_{t}_{run}", t, run)
                    out["takeover"].append(r)
                    print(f"bench: cluster takeover run {run} node timeout {t}s: partitions {r['partitions']} held "
                          f"{r['held_s']:.1f}s, first rows {r['first_rows_s']:.1f}s, all {r['all_rows_s']:.1f}s after "
                          f"kill -9; {r['produced']} rows exactly once; load {r['load']:.1f}", flush=True)
    finally:
        broker.stop()
    out["load_end"] = os.getloadavg()[0]
    return out


def _median_spread(values: list[float], digits: int = 1, sep: str = ",") -> str:
    if not values:
        return "-"
    m = statistics.median(values)
    return f"{m:{sep}.{digits}f} ({min(values):{sep}.{digits}f}–{max(values):{sep}.{digits}f})"


def render_cluster_load(r: dict) -> str:
    by_nodes: dict[int, list[dict]] = {}
    for x in r["throughput"]:
        by_nodes.setdefault(x["nodes"], []).append(x)
    one = statistics.median(x["rows_per_s"] for x in by_nodes.get(1, [])) if 1 in by_nodes else None
    lines = [
        f"JSON routine load into an Iceberg table, {r['rows']:,} messages over {r['partitions']} partitions produced "
        f"before the job, desired_concurrent_number {r['concurrency']} (cluster-wide), "
        f"`iceberg.commit_interval_seconds` = {r['commit_interval']}; {r['runs']} run(s), medians (min–max); "
        f"load average {r['load_start']:.1f} at the start, {r['load_end']:.1f} at the end.",
        "",
        "| nodes | rows/s | seconds | CPU s / M rows, all nodes | rows/s against 1 node | commits | "
        "thousands of rows loaded by n1/n2/n3, per run | load avg |",
        "|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    for nodes, xs in sorted(by_nodes.items()):
        rate = statistics.median(x["rows_per_s"] for x in xs)
        rel = f"{rate / one:.2f}" if one else "-"
        share = "; ".join("/".join(f"{v / 1000:.0f}" for v in x["loaded_by_node"].values()) for x in xs)
        lines.append(f"| {nodes} | {_median_spread([x['rows_per_s'] for x in xs], 0)} | "
                     f"{_median_spread([x['seconds'] for x in xs], 2)} | "
                     f"{_median_spread([x['cpu_s_per_m'] for x in xs], 2)} | {rel} | "
                     f"{_median_spread([x['commits'] for x in xs], 0)} | {share} | "
                     f"{_median_spread([x['load'] for x in xs], 1)} |")
    by_timeout: dict[int, list[dict]] = {}
    for x in r["takeover"]:
        by_timeout.setdefault(x["node_timeout"], []).append(x)
    lines += [
        "",
        f"Takeover: three nodes, a producer writing {r['steady_rate']:,} messages/s, n3 killed with SIGKILL; "
        "seconds after the kill, medians (min–max):",
        "",
        "| node timeout | n3's partitions held by n1/n2 | first rows of them committed again | all of them "
        "committed again | runs | count = distinct = produced |",
        "|---:|---:|---:|---:|---:|---|",
    ]
    for t, xs in sorted(by_timeout.items(), reverse=True):
        lines.append(f"| {t} s{' (default)' if t == DEFAULT_NODE_TIMEOUT else ''} | "
                     f"{_median_spread([x['held_s'] for x in xs])} | {_median_spread([x['first_rows_s'] for x in xs])} | "
                     f"{_median_spread([x['all_rows_s'] for x in xs])} | {len(xs)} | "
                     f"{'yes' if all(x['exactly_once'] for x in xs) else 'NO'} |")
    return "\n".join(lines)
