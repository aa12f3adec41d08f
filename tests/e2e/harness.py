"""Shared helpers for Sluice's Python tests (tests/e2e/test_*.py and tests/sqllogic/run.py).

Starts a `sluice serve` on free loopback ports with a temporary data directory, waits until its MySQL port answers,
stops it with a signal and reports the exit code, and keeps the server's stderr in a log file so a failing test can
show its tail. Every server started here is killed when the Python process exits, whatever happened.

Also holds a tiny test framework (`TestSuite`) so every e2e script prints the same closing `N passed, M failed` line.

Run with /usr/bin/python3: that interpreter has Debian's pymysql; the `python3` on PATH may not.
"""
from __future__ import annotations

import atexit
import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.request

LOOPBACK = "127.0.0.1"
_live_servers: "set[SluiceServer]" = set()
_live_lock = threading.Lock()


def _kill_all_servers():
    with _live_lock:
        servers = list(_live_servers)
    for s in servers:
        try:
            s.kill_process()
        except Exception:
            pass


atexit.register(_kill_all_servers)


def free_port() -> int:
    """A TCP port on the loopback that was free a moment ago (the server start retries if it got taken since)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def duckdb_sql(server_binary: str, *statements: str) -> None:
    """Runs SQL in a DuckDB of its own (tools/duckdbsql, built next to the server) -- for fixtures such as Parquet
    files, which the server cannot write: its SQL never reaches the file system (docs/security.md)."""
    tool = os.path.join(os.path.dirname(os.path.abspath(server_binary)), "tools", "duckdbsql", "duckdbsql")
    subprocess.run([tool, *statements], check=True, timeout=60)


def default_server_path() -> str:
    """build/sluice relative to the repository (used when --server is not given)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "build", "sluice"))


class ServerStartError(Exception):
    pass


class SluiceServer:
    """One `sluice serve` process; restartable on the same data directory and ports.

    root:      temp directory owning `data/` (the --data-dir) and `server.log` (stderr of every start, appended).
    """

    def __init__(self, binary: str, *, data_dir: str | None = None, bind: str = LOOPBACK,
                 root_password: str | None = None, env_password: str | None = None,
                 extra_args: list[str] | None = None, mysql_port: int | None = None,
                 http_port: int | None = None, keep_dir: bool = False, extra_env: dict | None = None):
        self.binary = os.path.abspath(binary)
        self.root = tempfile.mkdtemp(prefix="sluice-test-")
        self.data_dir = data_dir or os.path.join(self.root, "data")
        self.log_path = os.path.join(self.root, "server.log")
        self.bind = bind
        self.root_password = root_password
        self.env_password = env_password
        self.extra_args = list(extra_args or [])
        self.mysql_port = mysql_port
        self.http_port = http_port
        self._ports_fixed = mysql_port is not None
        self.keep_dir = keep_dir
        # more environment for the process (e.g. SLUICE_TEST_POINTS); may be changed between restarts
        self.extra_env = dict(extra_env or {})
        self.proc: subprocess.Popen | None = None
        self._log_file = None
        self.starts = 0

    # ---- process control -------------------------------------------------------------------------------------
    def command(self) -> list[str]:
        cmd = [self.binary, "serve", "--data-dir", self.data_dir, "--bind", self.bind,
               "--mysql-port", str(self.mysql_port), "--http-port", str(self.http_port)]
        if self.root_password is not None:
            cmd += ["--root-password", self.root_password]
        return cmd + self.extra_args

    def environment(self) -> dict:
        env = dict(os.environ)
        env.pop("SLUICE_ROOT_PASSWORD", None)
        if self.env_password is not None:
            env["SLUICE_ROOT_PASSWORD"] = self.env_password
        env.pop("SLUICE_TEST_POINTS", None)  # armed only by a test that means to
        env.update(self.extra_env)
        return env

    def spawn(self) -> subprocess.Popen:
        """Starts the process without waiting for readiness (for tests that expect it to refuse to start)."""
        if self.mysql_port is None:
            self.mysql_port = free_port()
        if self.http_port is None:
            self.http_port = free_port()
            while self.http_port == self.mysql_port:
                self.http_port = free_port()
        self._log_file = open(self.log_path, "ab")
        self._log_file.write(f"==== start {self.starts + 1}: {' '.join(self.command())}\n".encode())
        self._log_file.flush()
        self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=self._log_file,
                                     stderr=self._log_file, env=self.environment(), start_new_session=True)
        self.starts += 1
        with _live_lock:
            _live_servers.add(self)
        return self.proc

    def start(self, timeout: float = 30.0, attempts: int = 3) -> "SluiceServer":
        """Starts and waits until the MySQL port answers with a handshake. Retries on other ports when the chosen
        ports were taken in between (only when the ports were picked here)."""
        last = ""
        for _ in range(attempts):
            log_offset = self._log_size()
            self.spawn()
            ok, why = self.wait_ready(timeout)
            if ok:
                return self
            new_log = self._read_log(log_offset)
            self.kill_process()
            last = why + "\n" + new_log
            port_clash = ("in use" in new_log.lower() or "bind" in new_log.lower()) and (
                str(self.mysql_port) in new_log or str(self.http_port) in new_log)
            if self._ports_fixed or not port_clash:
                break
            self.mysql_port = self.http_port = None
        raise ServerStartError(f"server did not become ready: {last.strip()}")

    def wait_ready(self, timeout: float) -> tuple[bool, str]:
        """Ready means the MySQL port answers with a handshake and the HTTP port accepts connections: the server
        opens MySQL first and HTTP after it, so a test that goes straight to HTTP must not race the second."""
        deadline = time.monotonic() + timeout
        mysql_answers = False
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False, f"server exited with code {self.proc.returncode} during startup"
            try:
                if not mysql_answers:
                    with socket.create_connection((LOOPBACK, self.mysql_port), timeout=1.0) as s:
                        s.settimeout(2.0)
                        mysql_answers = len(s.recv(4)) == 4
                if mysql_answers:
                    with socket.create_connection((LOOPBACK, self.http_port), timeout=1.0):
                        return True, ""
            except OSError:
                pass
            time.sleep(0.05)
        if mysql_answers:
            return False, f"the MySQL port answered but HTTP port {self.http_port} did not within {timeout:.0f}s"
        return False, f"MySQL port {self.mysql_port} did not answer within {timeout:.0f}s"

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int | None:
        """Sends `sig` and waits for the exit. Returns the exit code (negative: killed by that signal) or None if
        it did not exit within `timeout` (then it is SIGKILLed)."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(sig)
            except ProcessLookupError:
                pass
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill_process()
            code = None
        self._closed()
        return code

    def kill_process(self):
        """SIGKILL (crash simulation and cleanup)."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.kill()
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                pass
        self._closed()

    def restart(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int | None:
        """Stops with `sig` (SIGKILL: crash) and starts again on the same data dir and ports. Returns the exit
        code of the stop."""
        code = self.stop(sig) if sig != signal.SIGKILL else self._kill_returning_code()
        self.start(timeout)
        return code

    def _kill_returning_code(self):
        self.kill_process()
        return self.proc.returncode if self.proc else None

    def _closed(self):
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        with _live_lock:
            _live_servers.discard(self)

    def cleanup(self):
        """Kills the process if still running and removes the temp directory."""
        self.kill_process()
        if not self.keep_dir:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()
        return False

    # ---- logs ---------------------------------------------------------------------------------------------------
    def _log_size(self) -> int:
        try:
            return os.path.getsize(self.log_path)
        except OSError:
            return 0

    def _read_log(self, offset: int = 0) -> str:
        try:
            with open(self.log_path, "rb") as f:
                f.seek(offset)
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def log_text(self) -> str:
        return self._read_log(0)

    def log_tail(self, n: int = 30) -> str:
        return "\n".join(self.log_text().splitlines()[-n:])

    # ---- clients ------------------------------------------------------------------------------------------------
    def connect(self, *, password: str | None = None, database: str | None = None, autocommit: bool = True,
                multi_statements: bool = True, raw_values: bool = False, read_timeout: float = 60.0, **kw):
        """A pymysql connection over 127.0.0.1. raw_values=True: every value comes back as the text the server sent
        (str, or bytes for binary columns) instead of Python objects."""
        import pymysql
        from pymysql.constants import CLIENT
        if password is None:
            password = self.root_password if self.root_password is not None else (self.env_password or "")
        args = dict(host=LOOPBACK, port=self.mysql_port, user="root", password=password, autocommit=autocommit,
                    connect_timeout=10, read_timeout=read_timeout, write_timeout=read_timeout, charset="utf8mb4")
        if database:
            args["database"] = database
        if multi_statements:
            args["client_flag"] = CLIENT.MULTI_STATEMENTS
        if raw_values:
            import pymysql.converters as conv
            args["conv"] = {k: v for k, v in conv.conversions.items() if not isinstance(k, int)}
        args.update(kw)
        return pymysql.connect(**args)

    def http_get(self, path: str, timeout: float = 10.0, auth: "tuple[str, str] | None | bool" = True) -> tuple[int, str]:
        """GET on the HTTP port. auth: True sends root's credentials (the server's root password), a (user,
        password) pair sends those, None or False sends none."""
        url = f"http://{LOOPBACK}:{self.http_port}{path}"
        req = urllib.request.Request(url)
        if auth is True:
            auth = ("root", self.root_password if self.root_password is not None else (self.env_password or ""))
        if auth:
            token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
            req.add_header("Authorization", f"Basic {token}")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, r.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8", "replace")

    def http_json(self, path: str) -> tuple[int, object]:
        status, body = self.http_get(path)
        return status, json.loads(body)


# ---- a tiny test framework for the e2e scripts ------------------------------------------------------------------

class TestSuite:
    """Collects test functions; runs each with a time limit; prints `N passed, M failed`; exit code 1 on failure.

    A test is a function taking the suite; it fails by raising (use `check`/`eq` for readable messages).
    """

    def __init__(self, name: str):
        self.name = name
        self.tests: list[tuple[str, object, float]] = []
        self.passed = 0
        self.failed: list[str] = []
        self.servers_for_logs: list[SluiceServer] = []
        self.shared_servers: list[SluiceServer] = []

    def test(self, timeout: float = 120.0):
        def deco(fn):
            self.tests.append((fn.__name__, fn, timeout))
            return fn
        return deco

    def run(self, argv=None) -> int:
        import argparse
        ap = argparse.ArgumentParser(description=self.name)
        ap.add_argument("--server", default=default_server_path(), help="path to the sluice binary")
        ap.add_argument("-k", dest="only", default=None, help="run only tests whose name contains this")
        ap.add_argument("--testbroker", default=None, help="path to tools/testbroker (for tests that need Kafka)")
        args, unknown = ap.parse_known_args(argv)
        if unknown:
            print(f"{self.name}: ignoring unknown arguments {unknown}")
        self.testbroker_path = args.testbroker
        self.server_path = os.path.abspath(args.server)
        if not os.access(self.server_path, os.X_OK):
            print(f"{self.name}: server binary not found or not executable: {self.server_path}")
            print("0 passed, 1 failed")
            return 1
        for name, fn, timeout in self.tests:
            if args.only and args.only not in name:
                continue
            self.servers_for_logs = []
            t0 = time.monotonic()
            err = _run_with_timeout(fn, self, timeout)
            dt = time.monotonic() - t0
            if err is None:
                self.passed += 1
                print(f"PASS {name} ({dt:.1f}s)", flush=True)
            else:
                self.failed.append(name)
                print(f"FAIL {name} ({dt:.1f}s)\n{_indent(err)}", flush=True)
                for s in self.servers_for_logs:
                    print(f"  --- last 30 lines of server stderr ({s.log_path}) ---")
                    print(_indent(s.log_tail(30)))
            for s in self.servers_for_logs:
                s.cleanup()
        for srv in self.shared_servers:
            if self.failed:
                print(f"--- shared server stderr, last 30 lines ({srv.log_path}) ---")
                print(_indent(srv.log_tail(30)))
            srv.cleanup()
        print(f"{self.name}: {self.passed} passed, {len(self.failed)} failed"
              + (f" ({', '.join(self.failed)})" if self.failed else ""))
        print(f"{self.passed} passed, {len(self.failed)} failed", flush=True)
        return 1 if self.failed or self.passed == 0 else 0

    def shared_server(self, **kw) -> SluiceServer:
        """A started server shared by several tests of the script: its log tail is printed at the end if anything
        failed, and it is cleaned up after the last test."""
        s = SluiceServer(self.server_path, **kw)
        self.shared_servers.append(s)
        return s.start()

    def server(self, **kw) -> SluiceServer:
        """A server owned by the current test: its log is shown when the test fails; cleaned up afterwards."""
        s = SluiceServer(self.server_path, **kw)
        self.servers_for_logs.append(s)
        return s


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in str(text).splitlines())


def _run_with_timeout(fn, suite, timeout):
    """Runs fn(suite) in a thread; returns None on success or the error text. A test that does not finish within
    `timeout` fails (its servers are killed so that blocked sockets return)."""
    result = {}

    def body():
        try:
            fn(suite)
            result["ok"] = True
        except BaseException:  # noqa: BLE001 - report everything
            result["err"] = traceback.format_exc()

    th = threading.Thread(target=body, daemon=True)
    th.start()
    th.join(timeout)
    if th.is_alive():
        for s in suite.servers_for_logs:
            s.kill_process()
        th.join(15)
        return f"timed out after {timeout:.0f}s" + (f"\n{result['err']}" if "err" in result else "")
    return None if result.get("ok") else result.get("err", "unknown failure")


def check(cond, message: str):
    if not cond:
        raise AssertionError(message)


def eq(actual, expected, what: str = "value"):
    if actual != expected:
        raise AssertionError(f"{what}: expected {expected!r}, got {actual!r}")


def contains(haystack: str, needle: str, what: str = "output"):
    if needle not in haystack:
        raise AssertionError(f"{what} does not contain {needle!r}; it was:\n{_indent(haystack)}")


class Collector:
    """Soft checks: collects every failed expectation of a test, then `done()` raises them together."""

    def __init__(self):
        self.problems: list[str] = []

    def _run(self, fn, *args, **kw):
        try:
            fn(*args, **kw)
        except AssertionError as e:
            self.problems.append(str(e))

    def check(self, cond, message: str):
        self._run(check, cond, message)

    def eq(self, actual, expected, what: str = "value"):
        self._run(eq, actual, expected, what)

    def contains(self, haystack: str, needle: str, what: str = "output"):
        self._run(contains, haystack, needle, what)

    def done(self):
        if self.problems:
            raise AssertionError(f"{len(self.problems)} failed expectation(s):\n" + "\n".join(
                f"[{i + 1}] {p}" for i, p in enumerate(self.problems)))


def expect_mysql_error(fn, errno: int | None = None, substring: str | None = None, what: str = "statement"):
    """Runs fn(); it must raise a pymysql error (with that errno / containing that text). Returns (errno, msg)."""
    import pymysql
    try:
        fn()
    except pymysql.MySQLError as e:
        code = e.args[0] if e.args else None
        msg = e.args[1] if len(e.args) > 1 else str(e)
        if errno is not None and code != errno:
            raise AssertionError(f"{what}: expected error {errno}, got {code}: {msg}")
        if substring is not None and substring not in str(msg):
            raise AssertionError(f"{what}: error message {msg!r} does not contain {substring!r}")
        return code, msg
    raise AssertionError(f"{what}: expected error {errno or ''} but it succeeded")


if __name__ == "__main__":
    print("harness.py is a module; run tests/e2e/test_*.py", file=sys.stderr)
    sys.exit(2)
