"""PostgreSQL 15 for tests (Debian's postgresql-15, installed by scripts/setup.sh): `initdb` in a temporary
directory, `postgres` on a free loopback port with its socket in that directory, trust authentication for the
superuser `sluice`, stopped (and the directory removed) when the test is done or the Python process exits.

    with Postgres() as pg:
        pg.psql("SELECT 1")
        ... JdbcCatalog::Connect(pg.uri, ...)   # "host=127.0.0.1 port=N dbname=postgres user=sluice"

PostgreSQL refuses to run as root: when the tests run as root, the server runs as `nobody` (through runuser) in a
directory `nobody` owns.
"""
from __future__ import annotations

import atexit
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time

from harness import LOOPBACK, free_port

PG_BIN = "/usr/lib/postgresql/15/bin"
_live: "set[Postgres]" = set()


def _stop_all():
    for p in list(_live):
        p.stop()


atexit.register(_stop_all)


class Postgres:
    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="sluice-pg-")
        os.chmod(self.root, 0o755)
        self.data_dir = os.path.join(self.root, "data")
        self.log_path = os.path.join(self.root, "postgres.log")
        self.port: int | None = None
        self.proc: subprocess.Popen | None = None
        self.as_user = "nobody" if os.geteuid() == 0 else None

    @property
    def uri(self) -> str:
        return f"host={LOOPBACK} port={self.port} dbname=postgres user=sluice"

    def _cmd(self, argv: list[str]) -> list[str]:
        return ["runuser", "-u", self.as_user, "--", *argv] if self.as_user else argv

    def start(self, timeout: float = 30.0) -> "Postgres":
        if not os.path.exists(os.path.join(PG_BIN, "initdb")):
            raise RuntimeError(f"PostgreSQL 15 is not installed at {PG_BIN}: run scripts/setup.sh")
        if self.as_user:
            pw = pwd.getpwnam(self.as_user)
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
        subprocess.run(self._cmd([f"{PG_BIN}/initdb", "-D", self.data_dir, "-U", "sluice", "--auth=trust",
                                  "-E", "UTF8", "--no-sync"]),
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
        last = ""
        for _ in range(3):
            self.port = free_port()
            _live.add(self)
            if self._spawn_and_wait(timeout):
                return self
            last = self._log_tail()
            self._kill()
        raise RuntimeError(f"postgres did not start: {last}")

    def _spawn_and_wait(self, timeout: float) -> bool:
        """Starts postgres on self.port; whether it accepts connections within `timeout`."""
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            self._cmd([f"{PG_BIN}/postgres", "-D", self.data_dir, "-k", self.root, "-p", str(self.port),
                       "-h", LOOPBACK, "-c", "fsync=off", "-c", "max_connections=50"]),
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            r = subprocess.run([f"{PG_BIN}/pg_isready", "-h", LOOPBACK, "-p", str(self.port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if r.returncode == 0:
                return True
            time.sleep(0.1)
        return False

    def _log_tail(self) -> str:
        return open(self.log_path, "rb").read().decode("utf-8", "replace")[-2000:]

    def down(self):
        """PostgreSQL goes away (fast shutdown); its directory and port stay for up()."""
        self._kill()

    def up(self, timeout: float = 30.0):
        """Starts a PostgreSQL that went down again, on the same port and data directory."""
        if not self._spawn_and_wait(timeout):
            raise RuntimeError(f"postgres did not start again: {self._log_tail()}")

    def _processes(self) -> list[int]:
        """The postmaster (from postmaster.pid) and its children: backends, checkpointer, ..."""
        with open(os.path.join(self.data_dir, "postmaster.pid")) as f:
            postmaster = int(f.readline())
        pids = [postmaster]
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2:].split()[1]) == postmaster:
                pids.append(int(entry))
        return pids

    def freeze(self):
        """PostgreSQL hangs instead of refusing: the postmaster and every backend SIGSTOPped. On loopback the
        kernel still accepts connections and acknowledges every packet; nothing answers until thaw()."""
        for pid in self._processes():
            os.kill(pid, signal.SIGSTOP)
        self.frozen = True

    def thaw(self):
        for pid in self._processes():
            os.kill(pid, signal.SIGCONT)
        self.frozen = False

    def psql(self, sql: str) -> list[list[str]]:
        """Runs SQL as the superuser; rows as lists of text (unaligned, tab-separated)."""
        r = subprocess.run([f"{PG_BIN}/psql", "-h", LOOPBACK, "-p", str(self.port), "-U", "sluice", "-d", "postgres",
                            "-X", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise RuntimeError(f"psql failed: {r.stderr}")
        return [line.split("\t") for line in r.stdout.splitlines() if line]

    def _kill(self):
        if getattr(self, "frozen", False):
            self.thaw()
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGINT)  # fast shutdown
                self.proc.wait(timeout=10)
            except Exception:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except Exception:
                    pass
        self.proc = None

    def stop(self):
        self._kill()
        _live.discard(self)
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False
