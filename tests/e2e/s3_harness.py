"""An S3 API server for tests: s3rver (npm, pinned in tools/s3rver/package.json, installed by scripts/setup.sh)
started on a free loopback port with a temporary data directory, and stopped (with its directory removed) when the
test is done or the Python process exits.

    with S3rver() as s3:
        s3.create_bucket("in")
        s3.put("in", "data/a.csv", b"1,x\\n")
        ...  CREATE STORAGE CONNECTION c TYPE S3 ENDPOINT = '{s3.endpoint}' ACCESS_ID = 'S3RVER' ACCESS_KEY = 'S3RVER'

s3rver knows one account (S3RVER / S3RVER): a SigV4 request with another access id is refused with 403
InvalidAccessKeyId, but s3rver 3.7.1 does not recompute V4 signatures, so a wrong secret key goes unnoticed. Requests
without an Authorization header are anonymous, which is how the tests put their fixtures. `put_many_direct` writes objects straight
into s3rver's file store (its documented layout: <bucket>/<key>._S3rver_object), for tests that need thousands.
"""
from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

from harness import LOOPBACK, free_port

ACCESS_ID = "S3RVER"
ACCESS_KEY = "S3RVER"
_live: "set[S3rver]" = set()


def s3rver_binary() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "tools", "s3rver", "node_modules", "s3rver", "bin",
                                         "s3rver.js"))


def _stop_all():
    for s in list(_live):
        s.stop()


atexit.register(_stop_all)


class S3rver:
    def __init__(self, port: int | None = None):
        """`port`: a fixed port (the demo's 4568); by default a free one is picked at each start."""
        self.fixed_port = port
        self.root = tempfile.mkdtemp(prefix="sluice-s3rver-")
        self.data_dir = os.path.join(self.root, "data")
        os.makedirs(self.data_dir)
        self.log_path = os.path.join(self.root, "s3rver.log")
        self.port: int | None = None
        self.proc: subprocess.Popen | None = None

    @property
    def endpoint(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def start(self, timeout: float = 20.0) -> "S3rver":
        binary = s3rver_binary()
        if not os.path.exists(binary):
            raise RuntimeError(f"s3rver is not installed at {binary}: run scripts/setup.sh")
        last = ""
        for _ in range(1 if self.fixed_port else 3):
            self.port = self.fixed_port or free_port()
            log = open(self.log_path, "ab")
            # s3rver 3.7.1 encrypts continuation tokens with DES, which Node 20's OpenSSL 3 only offers through
            # its legacy provider: without it every truncated listing (more than 1000 keys) fails with HTTP 500.
            self.proc = subprocess.Popen(["node", "--openssl-legacy-provider", binary, "-d", self.data_dir, "-a", LOOPBACK, "-p", str(self.port),
                                          "--no-vhost-buckets"],
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
            log.close()
            _live.add(self)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    with socket.create_connection((LOOPBACK, self.port), timeout=0.5):
                        return self
                except OSError:
                    time.sleep(0.1)
            last = open(self.log_path, "rb").read().decode("utf-8", "replace")[-2000:]
            self._kill()
        raise RuntimeError(f"s3rver did not start: {last}")

    def _kill(self):
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=5)
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

    # ---- anonymous requests for fixtures -----------------------------------------------------------------------
    def _request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        req = urllib.request.Request(self.endpoint + path, data=body, method=method)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def create_bucket(self, bucket: str):
        status, body = self._request("PUT", f"/{bucket}")
        if status not in (200, 409):
            raise RuntimeError(f"creating bucket {bucket}: HTTP {status} {body[:300]!r}")

    def put(self, bucket: str, key: str, body: bytes):
        status, resp = self._request("PUT", f"/{bucket}/{urllib.request.quote(key)}", body)
        if status != 200:
            raise RuntimeError(f"putting {bucket}/{key}: HTTP {status} {resp[:300]!r}")

    def delete(self, bucket: str, key: str):
        self._request("DELETE", f"/{bucket}/{urllib.request.quote(key)}")

    def put_many_direct(self, bucket: str, objects: dict[str, bytes]):
        """Writes objects into s3rver's file store without HTTP (the bucket must exist)."""
        for key, body in objects.items():
            parts = key.split("/")
            folder = os.path.join(self.data_dir, bucket, *parts[:-1])
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, f"{parts[-1]}._S3rver_object"), "wb") as f:
                f.write(body)
