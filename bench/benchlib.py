"""Pieces the Sluice benchmarks share: the orders data set, the test broker, kcat producers and readers, and
process measurements from /proc. Run the benchmarks through bench/run_bench.py."""
from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, ".."))

CLK_TCK = os.sysconf("SC_CLK_TCK")
POLL_INTERVAL = 0.05

# ---- data -------------------------------------------------------------------------------------------------------

FIRST = ["Mark", "Jane", "Leo", "Ada", "Emily", "Franz", "Lu", "Virginia", "Jorge", "Chinua"]
LAST = ["Twain", "Austen", "Tolstoy", "Lovelace", "Bronte", "Kafka", "Xun", "Woolf", "Borges", "Achebe"]
COUNTRIES = ["US", "UK", "RU", "FR", "DE", "CN", "AR", "NG", "JP", "BR", "IN"]
BASE_PAY_TIME = 1589191487


def order_fields(i: int) -> tuple[str, str, str, int, int]:
    """Row i of the orders data set: deterministic, no RNG state, same on every machine."""
    commodity_id = f"{(i * 2654435761) % 10_000_000_000:010d}"  # a spread-out 10-digit id, unique for i < 2^32
    name = f"{FIRST[i % len(FIRST)]} {LAST[(i // len(FIRST)) % len(LAST)]}"
    country = COUNTRIES[(i * 7) % len(COUNTRIES)]
    pay_time = BASE_PAY_TIME + (i * 37) % 31_536_000
    price = 100 + (i * 7919) % 9900
    return commodity_id, name, country, pay_time, price


def order_line(i: int, fmt: str) -> str:
    c, n, co, t, p = order_fields(i)
    if fmt == "avro":  # the JSON record tools/avroproducer encodes (price is an Avro double)
        return (f'{{"commodity_id":"{c}","customer_name":"{n}","country":"{co}",'
                f'"pay_time":{t},"price":{float(p)}}}')
    if fmt == "json":
        return (f'{{"commodity_id":"{c}","customer_name":"{n}","country":"{co}",'
                f'"pay_time":{t},"price":{p}}}')
    return f"{c},{n},{co},{t},{p}"


def partition_payloads(rows: int, partitions: int, fmt: str) -> tuple[list[bytes], int]:
    """Newline-separated message payloads per partition (row i goes to partition i % partitions), and the total
    number of payload bytes (without the newlines)."""
    parts: list[list[str]] = [[] for _ in range(partitions)]
    total = 0
    for i in range(rows):
        line = order_line(i, fmt)
        total += len(line)
        parts[i % partitions].append(line)
    return [("\n".join(p) + "\n").encode() if p else b"" for p in parts], total


# ---- processes --------------------------------------------------------------------------------------------------

class Broker:
    """The test broker with the given topics; killed on exit."""

    def __init__(self, binary: str, topics: dict[str, int]):
        self.root = tempfile.mkdtemp(prefix="sluice-bench-broker-")
        self.log_path = os.path.join(self.root, "broker.log")
        self.cmd = [binary, "--control-port", "0", "--no-stdin",
                    "--bootstrap-file", os.path.join(self.root, "bootstrap")]
        for name, parts in topics.items():
            self.cmd += ["--topic", f"{name}:{parts}"]
        self.proc: subprocess.Popen | None = None
        self.bootstrap = ""

    def start(self, timeout: float = 30.0) -> "Broker":
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
                                     start_new_session=True)
        log.close()
        lines: list[str] = []
        done = threading.Event()

        def reader():
            for raw in self.proc.stdout:
                line = raw.decode("utf-8", "replace").strip()
                lines.append(line)
                if line.startswith("CONTROL "):
                    break
            done.set()

        threading.Thread(target=reader, daemon=True).start()
        done.wait(timeout)
        for line in lines:
            if line.startswith("BOOTSTRAP "):
                self.bootstrap = line.split(None, 1)[1]
        if not self.bootstrap:
            self.stop()
            raise RuntimeError(f"testbroker did not start: {lines!r}; see {self.log_path}")
        return self

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        shutil.rmtree(self.root, ignore_errors=True)


def produce_topic(bootstrap: str, topic: str, payloads: list[bytes], parallel: int) -> float:
    """One kcat producer per partition, at most `parallel` at a time. Returns the seconds it took."""
    t0 = time.monotonic()
    pending = list(enumerate(payloads))
    running: list[tuple[int, subprocess.Popen, threading.Thread]] = []
    errors: list[str] = []

    def feed(proc: subprocess.Popen, data: bytes):
        try:
            proc.stdin.write(data)
        finally:
            proc.stdin.close()

    while pending or running:
        while pending and len(running) < parallel:
            p, data = pending.pop(0)
            if not data:
                continue
            cmd = ["kcat", "-P", "-b", bootstrap, "-t", topic, "-p", str(p),
                   "-X", "linger.ms=5", "-X", "batch.num.messages=10000",
                   "-X", "queue.buffering.max.messages=1000000"]
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            th = threading.Thread(target=feed, args=(proc, data), daemon=True)
            th.start()
            running.append((p, proc, th))
        p, proc, th = running.pop(0)
        th.join()
        err = proc.stderr.read().decode("utf-8", "replace")
        proc.wait()
        if proc.returncode != 0 or "error" in err.lower():
            errors.append(f"partition {p}: kcat exit {proc.returncode}: {err[-500:]}")
    if errors:
        raise RuntimeError("producing failed:\n" + "\n".join(errors))
    return time.monotonic() - t0


def count_messages(bootstrap: str, topic: str, timeout: float = 600.0) -> int:
    """Messages readable from the beginning of every partition (kcat prints one offset per message)."""
    r = subprocess.run(["kcat", "-C", "-b", bootstrap, "-t", topic, "-o", "beginning", "-e", "-q", "-f", "%o\n"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"kcat count of {topic} failed: {r.stderr.decode('utf-8', 'replace')[-500:]}")
    return r.stdout.count(b"\n")


def wait4_child(proc: subprocess.Popen, timeout: float):
    """Waits for proc like Popen.wait but returns its rusage (Popen does not keep it)."""
    deadline = time.monotonic() + timeout
    while True:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return ru
        if time.monotonic() > deadline:
            proc.kill()
            pid, status, ru = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            raise RuntimeError(f"{proc.args[0]} did not finish within {timeout:.0f}s")
        time.sleep(0.002)


def wait_for_count(srv, conn, table: str, rows: int, timeout: float, poll: float = 0.05) -> float:
    """Polls count(*) of `table` (in the database bench unless qualified, as lake.bench.t) on a pymysql connection
    until it reaches rows; returns the monotonic time it did. More rows than expected, a timeout or a server that
    exited raise, with the server's log tail."""
    name = table if "." in table else f"bench.{table}"
    deadline = time.monotonic() + timeout
    while True:
        with conn.cursor() as cur:
            cur.execute(f"SELECT count(*) FROM {name}")
            count = int(cur.fetchone()[0])
        if count >= rows:
            if count != rows:
                raise RuntimeError(f"{table}: {count} rows, expected {rows}")
            return time.monotonic()
        if time.monotonic() > deadline:
            raise RuntimeError(f"{table}: only {count} of {rows} rows after {timeout:.0f}s:\n{srv.log_tail(20)}")
        if not srv.alive():
            raise RuntimeError(f"sluice exited:\n{srv.log_tail(30)}")
        time.sleep(poll)


def proc_cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is field 3 (state); utime is field 14, stime field 15.
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_status_kib(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


# ---- measurements -----------------------------------------------------------------------------------------------

def measure_kcat_once(bootstrap: str, topic: str, timeout: float) -> tuple[float, float, float]:
    """One `kcat -C ... -e -q > /dev/null`: (wall seconds, CPU seconds, peak RSS KiB)."""
    cmd = ["kcat", "-C", "-b", bootstrap, "-t", topic, "-o", "beginning", "-e", "-q"]
    t0 = time.monotonic()
    with open(os.devnull, "wb") as devnull:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=devnull, stderr=subprocess.PIPE)
        ru = wait4_child(proc, timeout)
    secs = time.monotonic() - t0
    err = proc.stderr.read().decode("utf-8", "replace")
    proc.stderr.close()
    if proc.returncode != 0:
        raise RuntimeError(f"kcat reference failed ({proc.returncode}): {err[-500:]}")
    return secs, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def measure_kcat(bootstrap: str, topic: str, rows: int, payload_bytes: int, timeout: float, repeats: int) -> dict:
    """The reference of one run: the median of `repeats` back-to-back kcat reads (kcat's own time is short and
    includes a fixed wait for the end of the partitions, so a single read is noisy)."""
    load0 = os.getloadavg()[0]
    tries = sorted((measure_kcat_once(bootstrap, topic, timeout) for _ in range(max(1, repeats))),
                   key=lambda t: t[0])
    secs, cpu, rss_kib = tries[len(tries) // 2]
    return {"seconds": secs, "rows_per_s": rows / secs, "mb_per_s": payload_bytes / secs / 1e6,
            "cpu_s_per_m": cpu / rows * 1e6, "peak_rss_mib": rss_kib / 1024, "load": load0,
            "tries": [round(t[0], 3) for t in tries]}


def measure_ceiling_once(binary: str, bootstrap: str, topic: str, consumers: int, timeout: float) -> dict:
    """One run of bench/kafka_ceiling: its own clock (first client created .. last partition's end) and CPU, and
    the process's peak RSS from wait4()."""
    cmd = [binary, bootstrap, topic, str(consumers)]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ru = wait4_child(proc, timeout)
    out = proc.stdout.read().decode("utf-8", "replace")
    err = proc.stderr.read().decode("utf-8", "replace")
    proc.stdout.close()
    proc.stderr.close()
    if proc.returncode != 0:
        raise RuntimeError(f"kafka_ceiling failed ({proc.returncode}): {err[-500:]}")
    import json
    r = json.loads(out.strip().splitlines()[-1])
    r["peak_rss_kib"] = ru.ru_maxrss
    return r


def measure_ceiling(binary: str, bootstrap: str, topic: str, consumers: int, rows: int, payload_bytes: int,
                    timeout: float, repeats: int) -> dict:
    """The consumption ceiling of one run: the median of `repeats` back-to-back reads by `consumers` bare
    librdkafka consumers (bench/kafka_ceiling.cpp), which must each count every message of the topic."""
    load0 = os.getloadavg()[0]
    tries = []
    for _ in range(max(1, repeats)):
        r = measure_ceiling_once(binary, bootstrap, topic, consumers, timeout)
        if r["messages"] != rows:
            raise RuntimeError(f"kafka_ceiling read {r['messages']} of {rows} messages of {topic}")
        tries.append(r)
    tries.sort(key=lambda r: r["seconds"])
    m = tries[len(tries) // 2]
    return {"seconds": m["seconds"], "rows_per_s": rows / m["seconds"], "mb_per_s": payload_bytes / m["seconds"] / 1e6,
            "cpu_s_per_m": m["cpu_seconds"] / rows * 1e6, "peak_rss_mib": m["peak_rss_kib"] / 1024, "load": load0,
            "consumers": m["consumers"], "tries": [round(t["seconds"], 3) for t in tries]}


TABLE_DDL = ("CREATE TABLE bench.{table} (commodity_id VARCHAR(26), customer_name VARCHAR(26), "
             "country VARCHAR(26), pay_time BIGINT, price DOUBLE)")


ORDERS_AVRO_SCHEMA = {
    "type": "record", "name": "orders", "fields": [
        {"name": "commodity_id", "type": "string"}, {"name": "customer_name", "type": "string"},
        {"name": "country", "type": "string"}, {"name": "pay_time", "type": "long"}, {"name": "price", "type": "double"}]}
REGISTRY_URL = {"url": ""}  # set by the harness while a schema registry fixture serves ORDERS_AVRO_SCHEMA as id 1


def produce_avro_topic(avroproducer: str, bootstrap: str, topic: str, payloads: list[bytes], parallel: int) -> float:
    """Like produce_topic, for Avro: `payloads` hold JSON records (one per line), which tools/avroproducer writes
    in the Confluent wire format with schema id 1. Returns the seconds it took."""
    import json
    t0 = time.monotonic()
    with tempfile.NamedTemporaryFile("w", suffix=".avsc", delete=False) as f:
        json.dump(ORDERS_AVRO_SCHEMA, f)
        schema = f.name
    try:
        pending = [(p, data) for p, data in enumerate(payloads) if data]
        while pending:
            batch, pending = pending[:parallel], pending[parallel:]
            procs = [(p, subprocess.Popen([avroproducer, "--brokers", bootstrap, "--topic", topic, "--partition",
                                           str(p), "--schema-id", "1", "--schema", schema],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
                     for p, data in batch]
            for (p, proc), (_, data) in zip(procs, batch):
                out, err = proc.communicate(data, timeout=600)
                if proc.returncode != 0:
                    raise RuntimeError(f"avroproducer partition {p}: {err.decode('utf-8', 'replace')[-400:]}")
    finally:
        os.unlink(schema)
    return time.monotonic() - t0


def topic_payload_bytes(bootstrap: str, topic: str, timeout: float = 600.0) -> int:
    """Sum of the message sizes of a topic, as kcat reads them."""
    r = subprocess.run(["kcat", "-C", "-b", bootstrap, "-t", topic, "-o", "beginning", "-e", "-q", "-f", "%S\n"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return sum(int(x) for x in r.stdout.split() if x.isdigit())


def pipe_sql(job: str, table: str, bootstrap: str, topic: str, interval: str = "1") -> str:
    """Workload 6: the Lakehouse form over the JSON topic. Pipes have no concurrency setting (a Kafka pipe in the
    default virtual cluster reads with as many tasks as the worker pool, 4); 25,000 messages per partition per
    batch make a task's batch 200,000 rows over 8 partitions, as the routine loads' max_batch_rows."""
    j = "PARSE_JSON(value::STRING)"
    return (f"CREATE PIPE {job} VIRTUAL_CLUSTER = 'default' BATCH_INTERVAL_IN_SECONDS = '{interval}' "
            "BATCH_SIZE_PER_KAFKA_PARTITION = '25000' RESET_KAFKA_GROUP_OFFSETS = 'earliest'\n"
            f"AS COPY INTO {table} FROM (SELECT {j}['commodity_id']::STRING, {j}['customer_name']::STRING, "
            f"{j}['country']::STRING, {j}['pay_time']::BIGINT, {j}['price']::DOUBLE\n"
            f"FROM READ_KAFKA('{bootstrap}', '{topic}', '', '{job}_group', '', '', '', '', 'raw', 'raw', 0, map()))")


def routine_load_sql(job: str, table: str, fmt: str, bootstrap: str, topic: str, concurrency: int,
                     job_properties: list[str] = (), kafka_properties: list[str] = (), interval: str = "0.5",
                     batch_rows: int = 200000) -> str:
    load_props = 'COLUMNS TERMINATED BY ",",\nCOLUMNS (commodity_id, customer_name, country, pay_time, price)\n' \
        if fmt == "csv" else ""
    fmt_prop = f'"format" = "{fmt}", '
    if fmt == "avro":
        kafka_properties = list(kafka_properties) + [f"confluent.schema.registry.url={REGISTRY_URL['url']}"]
    def pairs(items):
        out = ""
        for kv in items:
            k, v = kv.split("=", 1)
            out += f', "{k}" = "{v}"'
        return out
    return (f"CREATE ROUTINE LOAD bench.{job} ON {table}\n{load_props}"
            f'PROPERTIES ({fmt_prop}"desired_concurrent_number" = "{concurrency}", '
            f'"max_batch_rows" = "{batch_rows}", "max_batch_interval" = "{interval}"{pairs(job_properties)})\n'
            f'FROM KAFKA ("kafka_broker_list" = "{bootstrap}", "kafka_topic" = "{topic}", '
            f'"property.kafka_default_offsets" = "OFFSET_BEGINNING"{pairs(kafka_properties)})')


# ---- machine and versions ---------------------------------------------------------------------------------------

def machine_info() -> dict:
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem_kib = proc_meminfo("MemTotal")
    return {"nproc": os.cpu_count(), "cpu": model, "mem_gib": mem_kib / 1024 / 1024, "kernel": platform.release()}


def proc_meminfo(key: str) -> int:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def versions(sluice: str) -> dict:
    def first_line(cmd):
        try:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=20)
            return r.stdout.decode("utf-8", "replace").strip()
        except Exception as e:  # noqa: BLE001
            return f"unavailable ({e})"
    kcat = first_line(["kcat", "-V"])
    kcat_version = re.search(r"Version (\S+)", kcat)
    librdkafka = re.search(r"librdkafka (\S+)", kcat)
    sluice_v = first_line([sluice, "--version"])
    try:
        dpkg = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "librdkafka1"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, timeout=10).stdout.decode().strip()
    except Exception:  # noqa: BLE001
        dpkg = ""
    try:
        commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, timeout=10).stdout.decode().strip()
        dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=10).stdout.strip()
        if commit and dirty:
            commit += " (with uncommitted changes)"
    except Exception:  # noqa: BLE001
        commit = ""
    return {"sluice": sluice_v.splitlines()[0] if sluice_v else "?", "commit": commit,
            "kcat": kcat_version.group(1) if kcat_version else kcat.splitlines()[0],
            "librdkafka": (librdkafka.group(1) if librdkafka else "?") + (f" (Debian {dpkg})" if dpkg else ""),
            "duckdb": "1.4.4 (libduckdb.so from @duckdb/node-bindings-linux-x64@1.4.4-r.4)"}
