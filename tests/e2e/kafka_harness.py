"""Kafka-side helpers for the routine load e2e tests (tests/e2e/test_routine_load*.py).

- `TestBroker`: starts `testbroker` (tools/testbroker, a Kafka-protocol broker on librdkafka's mock cluster) on
  loopback with the given topics, reads its BOOTSTRAP/CONTROL lines, sends control commands (`broker down 1`,
  `errors Fetch 6 6`, ...) and stops it. Every broker started here is killed when the Python process exits.
- `produce()`: writes messages to one partition with kcat (one kcat call per batch; kcat waits for delivery).
- Routine load helpers over a pymysql connection: `show_job()` (SHOW ROUTINE LOAD FOR as a dict, with the JSON
  columns decoded), `wait_until()`, `wait_state()`, `wait_rows()`, `rejected_rows()`.
- `parse_args()`: splits `--testbroker PATH` off the command line (ctest passes it) and leaves the rest to
  `TestSuite.run()`.

Run with /usr/bin/python3 (Debian's pymysql).
"""
from __future__ import annotations

import atexit
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LOOPBACK = "127.0.0.1"

_live_brokers: "set[TestBroker]" = set()
_live_lock = threading.Lock()


def _kill_all_brokers():
    with _live_lock:
        brokers = list(_live_brokers)
    for b in brokers:
        try:
            b.kill()
        except Exception:
            pass


atexit.register(_kill_all_brokers)


def default_testbroker_path() -> str:
    return os.path.normpath(os.path.join(HERE, "..", "..", "build", "tools", "testbroker", "testbroker"))


TESTBROKER_PATH = default_testbroker_path()


_shared: dict = {}


def shared_broker() -> "TestBroker":
    """One test broker for a whole test file, started on first use (and again if it died); each test creates its
    own topics on it with new_topic(). run_suite() stops it."""
    b = _shared.get("broker")
    if b is None or not b.alive():
        b = TestBroker({"warmup": 1}).start()
        _shared["broker"] = b
    return b


def adopt_broker(b: "TestBroker") -> "TestBroker":
    """A broker a test started itself, to be stopped by run_suite() like the shared one."""
    _shared.setdefault("adopted", []).append(b)
    return b


def new_topic(name: str, partitions: int) -> str:
    shared_broker().command(f"create {name} {partitions}")
    return name


def run_suite(suite) -> int:
    """main() of a Kafka e2e file: runs `suite` with the command line, then stops the broker (printing its log
    tail when something failed)."""
    argv = parse_args()
    rc = 1
    try:
        rc = suite.run(argv)
    finally:
        brokers = _shared.pop("adopted", [])
        shared = _shared.pop("broker", None)
        if shared is not None:
            brokers.append(shared)
        for b in brokers:
            if rc != 0:
                print(f"--- testbroker {b.bootstrap} stderr (last 20 lines) ---\n{b.log_tail(20)}")
            b.cleanup()
    return rc


def parse_args(argv: list[str] | None = None) -> list[str]:
    """Takes `--testbroker PATH` (or `--testbroker=PATH`) out of argv (default sys.argv[1:]), remembers it in
    TESTBROKER_PATH and returns the remaining arguments for TestSuite.run()."""
    global TESTBROKER_PATH
    args = list(sys.argv[1:] if argv is None else argv)
    rest = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--testbroker" and i + 1 < len(args):
            TESTBROKER_PATH = os.path.abspath(args[i + 1])
            i += 2
            continue
        if a.startswith("--testbroker="):
            TESTBROKER_PATH = os.path.abspath(a.split("=", 1)[1])
            i += 1
            continue
        rest.append(a)
        i += 1
    return rest


class BrokerError(Exception):
    pass


class TestBroker:
    """One testbroker process. `topics`: {"name": partitions}. `bootstrap`: the host:port list."""

    def __init__(self, topics: dict[str, int], brokers: int = 1, binary: str | None = None):
        self.binary = os.path.abspath(binary or TESTBROKER_PATH)
        self.topics = dict(topics)
        self.brokers = brokers
        self.root = tempfile.mkdtemp(prefix="sluice-testbroker-")
        self.log_path = os.path.join(self.root, "broker.log")
        self.proc: subprocess.Popen | None = None
        self.bootstrap = ""
        self.control_addr: tuple[str, int] | None = None
        self._ctl: socket.socket | None = None
        self._ctl_buf = b""
        self._ctl_lock = threading.Lock()

    def start(self, timeout: float = 30.0) -> "TestBroker":
        if not os.access(self.binary, os.X_OK):
            raise BrokerError(f"testbroker not found or not executable: {self.binary}")
        cmd = [self.binary, "--brokers", str(self.brokers), "--control-port", "0", "--no-stdin",
               "--bootstrap-file", os.path.join(self.root, "bootstrap")]
        for name, parts in self.topics.items():
            cmd += ["--topic", f"{name}:{parts}"]
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
                                     start_new_session=True)
        log.close()
        with _live_lock:
            _live_brokers.add(self)
        deadline = time.monotonic() + timeout
        # Read the BOOTSTRAP and CONTROL lines in a thread so a hung broker cannot block us past the timeout.
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
        done.wait(max(0.1, deadline - time.monotonic()))
        for line in lines:
            if line.startswith("BOOTSTRAP "):
                self.bootstrap = line.split(None, 1)[1]
            elif line.startswith("CONTROL "):
                host, port = line.split(None, 1)[1].rsplit(":", 1)
                self.control_addr = (host, int(port))
        if not self.bootstrap or not self.control_addr:
            self.kill()
            raise BrokerError(f"testbroker did not start: stdout {lines!r}; stderr:\n{self.log_tail()}")
        return self

    def command(self, line: str, timeout: float = 10.0) -> str:
        """Sends one control command; returns the `OK ...` answer, raises BrokerError on `ERR ...`."""
        with self._ctl_lock:
            if self._ctl is None:
                self._ctl = socket.create_connection(self.control_addr, timeout=timeout)
                self._ctl_buf = b""
            self._ctl.settimeout(timeout)
            self._ctl.sendall(line.strip().encode() + b"\n")
            while b"\n" not in self._ctl_buf:
                chunk = self._ctl.recv(4096)
                if not chunk:
                    self._ctl.close()
                    self._ctl = None
                    raise BrokerError(f"control connection closed while waiting for the answer to {line!r}")
                self._ctl_buf += chunk
            answer, self._ctl_buf = self._ctl_buf.split(b"\n", 1)
        text = answer.decode("utf-8", "replace").strip()
        if not text.startswith("OK"):
            raise BrokerError(f"testbroker answered {text!r} to {line!r}")
        return text

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        if self._ctl is not None:
            try:
                self._ctl.close()
            except OSError:
                pass
            self._ctl = None
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    self.proc.kill()
                except ProcessLookupError:
                    pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                pass
            if self.proc.stdout is not None:
                self.proc.stdout.close()
        with _live_lock:
            _live_brokers.discard(self)

    def cleanup(self):
        self.kill()
        shutil.rmtree(self.root, ignore_errors=True)

    def log_tail(self, n: int = 30) -> str:
        try:
            with open(self.log_path, "rb") as f:
                return "\n".join(f.read().decode("utf-8", "replace").splitlines()[-n:])
        except OSError:
            return ""

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()
        return False

    # ---- producing --------------------------------------------------------------------------------------------
    def produce(self, topic: str, partition: int, messages, *, delimiter: str = "\n", keys=None,
                timeout: float = 120.0):
        """Writes `messages` (str or bytes each) to one partition with one kcat call, in order. Messages must not
        contain the delimiter (`delimiter` is a kcat -D string such as "\\n" or "\\x1e"; pass the real character
        for -D and it is escaped here). `keys`: optional list of keys (joined with a \\x1f key delimiter)."""
        produce(self.bootstrap, topic, partition, messages, delimiter=delimiter, keys=keys, timeout=timeout)


def _kcat_escape(delim: bytes) -> str:
    out = []
    for b in delim:
        if b == 0x0A:
            out.append("\\n")
        elif b == 0x0D:
            out.append("\\r")
        elif b == 0x09:
            out.append("\\t")
        elif 0x61 <= b <= 0x7A:
            out.append(chr(b))
        else:
            out.append(f"\\x{b:02x}")
    return "".join(out)


def produce(bootstrap: str, topic: str, partition: int, messages, *, delimiter: str = "\n", keys=None,
            timeout: float = 120.0):
    delim = delimiter.encode() if isinstance(delimiter, str) else delimiter
    payloads = [m.encode() if isinstance(m, str) else bytes(m) for m in messages]
    if not payloads:
        return
    for m in payloads:
        if delim in m:
            raise ValueError(f"message {m[:60]!r} contains the delimiter {delim!r}")
    cmd = ["kcat", "-P", "-b", bootstrap, "-t", topic, "-p", str(partition), "-D", _kcat_escape(delim),
           "-X", "linger.ms=5", "-X", "batch.num.messages=10000", "-X", "queue.buffering.max.messages=1000000"]
    if keys is not None:
        kd = b"\x1f"
        if len(keys) != len(payloads):
            raise ValueError("one key per message")
        payloads = [(k.encode() if isinstance(k, str) else bytes(k)) + kd + m for k, m in zip(keys, payloads)]
        cmd += ["-K", _kcat_escape(kd)]
    data = delim.join(payloads) + delim
    r = subprocess.run(cmd, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    if r.returncode != 0:
        raise BrokerError(f"kcat failed ({r.returncode}) producing {len(payloads)} messages to {topic}/{partition}: "
                          f"{r.stderr.decode('utf-8', 'replace')[-2000:]}")
    err = r.stderr.decode("utf-8", "replace")
    # (connection errors to a broker that is down are only logged; a message that was not delivered is fatal)
    if "delivery failed" in err.lower():
        raise BrokerError(f"kcat could not deliver messages to {topic}/{partition}: {err[-2000:]}")


# ---- routine load helpers (pymysql) ------------------------------------------------------------------------------

SHOW_COLUMNS = ["Id", "Name", "CreateTime", "PauseTime", "EndTime", "DbName", "TableName", "State", "DataSourceType",
                "CurrentTaskNum", "JobProperties", "DataSourceProperties", "CustomProperties", "Statistic",
                "Progress", "TimestampProgress", "ReasonOfStateChanged", "ErrorLogUrls", "TrackingSQL", "OtherMsg",
                "LatestSourcePosition", "OffsetLag"]
JSON_COLUMNS = {"JobProperties", "DataSourceProperties", "CustomProperties", "Statistic", "Progress",
                "TimestampProgress", "LatestSourcePosition", "OffsetLag"}


def query(conn, sql: str, args=None) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return list(cur.fetchall()) if cur.description else []


def scalar(conn, sql: str, args=None):
    rows = query(conn, sql, args)
    return rows[0][0] if rows else None


def show_rows(conn, sql: str) -> list[dict]:
    """Runs a SHOW ROUTINE LOAD statement; each row as {column: value}, JSON columns decoded (the raw text is
    kept under `<column>_raw`)."""
    with conn.cursor() as cur:
        cur.execute(sql)
        names = [d[0] for d in cur.description]
        out = []
        for r in cur.fetchall():
            row = {}
            for n, v in zip(names, r):
                if isinstance(v, (bytes, bytearray)):
                    v = v.decode("utf-8", "replace")
                row[n] = v
                if n in JSON_COLUMNS and isinstance(v, str):
                    row[n + "_raw"] = v
                    try:
                        row[n] = json.loads(v) if v else {}
                    except ValueError:
                        row[n] = v
            out.append(row)
        return out


def show_job(conn, name: str) -> dict:
    rows = show_rows(conn, f"SHOW ROUTINE LOAD FOR {name}")
    if len(rows) != 1:
        raise AssertionError(f"SHOW ROUTINE LOAD FOR {name}: expected one row, got {len(rows)}")
    return rows[0]


def describe_job(job: dict) -> str:
    keys = ["State", "ReasonOfStateChanged", "OtherMsg", "Statistic", "Progress", "LatestSourcePosition", "OffsetLag",
            "CurrentTaskNum"]
    return ", ".join(f"{k}={job.get(k)!r}" for k in keys)


def wait_until(fn, timeout: float, what: str, interval: float = 0.2):
    """Calls fn() until it returns a truthy value (returned) or `timeout` seconds pass (AssertionError with the
    last value). Exceptions from fn are retried until the end too, then re-raised."""
    deadline = time.monotonic() + timeout
    last = None
    last_exc = None
    while True:
        try:
            last = fn()
            last_exc = None
            if last:
                return last
        except Exception as e:  # noqa: BLE001
            last_exc = e
        if time.monotonic() >= deadline:
            if last_exc is not None:
                raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}; last error: {last_exc!r}")
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}; last value: {last!r}")
        time.sleep(interval)


def wait_state(conn, name: str, state: str, timeout: float = 60.0) -> dict:
    holder = {}

    def probe():
        job = show_job(conn, name)
        holder["job"] = job
        return job if job["State"] == state else None

    try:
        return wait_until(probe, timeout, f"routine load {name} to be {state}")
    except AssertionError as e:
        raise AssertionError(f"{e}\n  job: {describe_job(holder.get('job', {}))}") from None


def wait_rows(conn, table: str, expected: int, timeout: float = 120.0, job: str | None = None) -> int:
    """Waits until count(*) of `table` equals `expected`; fails at once if it gets bigger."""
    holder = {}

    def probe():
        n = scalar(conn, f"SELECT count(*) FROM {table}")
        holder["n"] = n
        if n > expected:
            raise_now.append(n)
            return True
        return n == expected

    raise_now: list[int] = []
    try:
        wait_until(probe, timeout, f"{expected} rows in {table}")
    except AssertionError as e:
        extra = f"\n  job: {describe_job(show_job(conn, job))}" if job else ""
        raise AssertionError(f"{e} (had {holder.get('n')}){extra}") from None
    if raise_now:
        raise AssertionError(f"{table} has {raise_now[0]} rows, more than the {expected} produced")
    return expected


def rejected_rows(conn, db: str, job: str) -> list[dict]:
    """__sluice.routine_load_rejected_rows of one job, ordered by partition and offset."""
    with conn.cursor() as cur:
        cur.execute("SELECT DbName, JobName, TaskId, \"Partition\", \"Offset\", Reason, RawData, CreateTime "
                    "FROM __sluice.routine_load_rejected_rows WHERE DbName = %s AND JobName = %s "
                    "ORDER BY \"Partition\", \"Offset\"", (db, job))
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]
