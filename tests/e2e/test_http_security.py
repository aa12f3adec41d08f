#!/usr/bin/python3
"""The HTTP port under attack (issue 10, part 8 and the HTTP half of part 7), over real sockets.

- every endpoint but /api/health and /api/version needs HTTP Basic credentials of a Sluice user: without them or
  with wrong ones the answer is 401 with `WWW-Authenticate: Basic realm="Sluice"` and a JSON error, and a job's
  rejected rows (loaded data) are not in it; root gets them;
- failed logins from one address wait a growing delay; a right password is answered at once;
- a 200 MB POST is refused with 413 before its body is read (the server's RSS stays small), chunked bodies get
  411, an endless request line or header is cut off;
- 60 slow clients (one header byte per second) and 60 idle sockets do not starve /api/health, and the server drops
  them once the request deadline passes;
- HTTPS with --http-tls and a certificate made with the openssl CLI: curl --cacert gets health and needs
  credentials for the rest; the same port refuses plain HTTP; --http-tls without certificate files refuses to
  start.

    /usr/bin/python3 tests/e2e/test_http_security.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import LOOPBACK, Collector, TestSuite, check, contains, eq  # noqa: E402

suite = TestSuite("test_http_security")
PASSWORD = "Http-Sec-" + base64.b16encode(os.urandom(4)).decode()
ROW_MARK = "secret-row-payload"


# ---- a raw HTTP client: real sockets, nothing hidden -------------------------------------------------------------

def http(port: int, path: str, *, auth: "tuple[str, str] | None" = None, method: str = "GET",
         headers: "dict[str, str] | None" = None, timeout: float = 10.0) -> tuple[int, dict, str]:
    """One request on a fresh connection; returns (status, headers with lower-case names, body)."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {LOOPBACK}:{port}", "Connection: close"]
    if auth is not None:
        lines.append("Authorization: Basic " + base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode())
    for k, v in (headers or {}).items():
        lines.append(f"{k}: {v}")
    with socket.create_connection((LOOPBACK, port), timeout=timeout) as s:
        s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        return read_response(s)


def read_response(s: socket.socket) -> tuple[int, dict, str]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            raise AssertionError(f"connection closed before a full response head: {data!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for h in header_lines:
        k, _, v = h.partition(":")
        headers[k.strip().lower()] = v.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(status_line.split()[1]), headers, body.decode("utf-8", "replace")


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def closed_by_server(s: socket.socket, timeout: float) -> bool:
    """Whether the server closes the socket within `timeout` (reads and drops anything it sends first)."""
    s.settimeout(timeout)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if not s.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False
    return False


# ---- servers ------------------------------------------------------------------------------------------------------

_shared = {}


def shared(s: TestSuite):
    """One server with a root password and a routine load whose rejected row is in the error log."""
    if "srv" not in _shared:
        srv = s.shared_server(root_password=PASSWORD)
        conn = srv.connect()
        topic = kh.new_topic("http_sec", 1)
        kh.query(conn, "CREATE DATABASE d")
        kh.query(conn, "USE d")
        kh.query(conn, "CREATE TABLE t (id int NOT NULL, a varchar(100)) DUPLICATE KEY(id)")
        kh.produce(kh.shared_broker().bootstrap, topic, 0, ["1,fine", f"not-a-number,{ROW_MARK}"])
        kh.query(conn, f"""CREATE ROUTINE LOAD j ON t COLUMNS TERMINATED BY ","
PROPERTIES ("max_batch_interval" = "0.5", "max_error_number" = "10", "strict_mode" = "true")
FROM KAFKA ("kafka_broker_list" = "{kh.shared_broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
        kh.wait_until(lambda: kh.rejected_rows(conn, "d", "j") or None, 60, "the rejected row of job j")
        conn.close()
        _shared["srv"] = srv
    return _shared["srv"]


ERRORS = "/api/routine_load/errors?db=d&job=j"


@suite.test(timeout=150)
def test_health_and_version_are_open(s):
    srv = shared(s)
    c = Collector()
    for path in ("/api/health", "/api/version"):
        status, _, body = http(srv.http_port, path)
        c.eq(status, 200, f"{path} without credentials")
        c.check(body.startswith("{"), f"{path} answers JSON: {body!r}")
    c.done()


@suite.test(timeout=150)
def test_errors_endpoint_needs_credentials(s):
    """The issue's attack: the ErrorLogUrls page served rejected row data to anyone."""
    srv = shared(s)
    c = Collector()
    attempts = {
        "no credentials": None,
        "wrong password": ("root", PASSWORD + "x"),
        "empty password": ("root", ""),
        "another user with root's password": ("admin", PASSWORD),
        "root's password as the user name": (PASSWORD, PASSWORD),
    }
    for what, auth in attempts.items():
        status, headers, body = http(srv.http_port, ERRORS, auth=auth)
        c.eq(status, 401, f"{what}: status")
        c.eq(headers.get("www-authenticate", "").split(",")[0], 'Basic realm="Sluice"', f"{what}: WWW-Authenticate")
        c.check(ROW_MARK not in body, f"{what}: the rejected row leaked: {body!r}")
        try:
            doc = json.loads(body)
            c.eq(doc.get("status"), 401, f"{what}: JSON status")
            c.check(doc.get("error"), f"{what}: JSON error message: {body!r}")
        except ValueError:
            c.check(False, f"{what}: body is not JSON: {body!r}")
    # A header that is not Basic, or not base64, is no credential either.
    for header in ("Bearer abc", "Basic !!!notbase64", "Basic " + base64.b64encode(b"rootnocolon").decode()):
        status, _, body = http(srv.http_port, ERRORS, headers={"Authorization": header})
        c.eq(status, 401, f"Authorization: {header}")
        c.check(ROW_MARK not in body, f"Authorization: {header}: the rejected row leaked")
    status, _, body = http(srv.http_port, ERRORS, auth=("root", PASSWORD))
    c.eq(status, 200, "root with the right password")
    c.check(ROW_MARK in body, f"root gets the rejected row: {body!r}")
    # The harness's own helper (urllib, as the other e2e tests use it) sends root's credentials.
    status, body = srv.http_get(ERRORS)
    c.eq(status, 200, "harness http_get as root")
    status, body = srv.http_get(ERRORS, auth=None)
    c.eq(status, 401, "harness http_get without credentials")
    # The failed login is logged with the user name, never the password.
    log = srv.log_text()
    c.check("failed login of user 'admin'" in log, "the failed HTTP login is logged")
    c.check(PASSWORD + "x" not in log, "a tried password is in the server log")
    c.done()


@suite.test(timeout=120)
def test_failed_logins_wait_longer_and_longer(s):
    srv = s.server(root_password=PASSWORD).start()
    times = []
    for _ in range(4):
        t0 = time.monotonic()
        status, _, _ = http(srv.http_port, ERRORS, auth=("root", "guess"), timeout=20)
        times.append(time.monotonic() - t0)
        eq(status, 401, "a wrong password")
    print("    failed logins took " + ", ".join(f"{t:.2f}s" for t in times))
    # The server waits 0.25 s after the first failure and doubles the wait each time; a request's own cost
    # (connection, password hashing) adds to each figure, so each must reach its wait and the last must be
    # longer than the first by at least the growth of the waits (2 s - 0.25 s), whatever that cost is.
    for i, t in enumerate(times):
        check(t >= 0.25 * 2**i * 0.95, f"failure {i + 1} waits at least {0.25 * 2**i:.2f} s: {times}")
    check(times[3] - times[0] >= 1.6 and times[3] > times[2] > times[1], f"the delay grows: {times}")
    t0 = time.monotonic()
    status, _, _ = http(srv.http_port, ERRORS, auth=("root", PASSWORD))
    took = time.monotonic() - t0
    eq(status, 404, "root's right password after the failures (no job d.j on this server)")
    check(took < 1.5, f"a right password is not delayed (the next failure would wait 4 s): {took:.2f}s")
    # Parallel guesses: at most 4 from one address are tried at once; the rest get 429 at once, untried.
    results = []

    def guess(i):
        t0 = time.monotonic()
        st, hd, _ = http(srv.http_port, ERRORS, auth=("root", f"parallel{i}"), timeout=20)
        results.append((st, time.monotonic() - t0, hd.get("retry-after")))

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(10)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    statuses = sorted(r[0] for r in results)
    print(f"    10 parallel guesses: {statuses}")
    eq(statuses.count(401), 4, "parallel wrong guesses tried (401)")
    eq(statuses.count(429), 6, "parallel wrong guesses refused untried (429)")
    check(all(t < 1.0 and ra == "5" for st, t, ra in results if st == 429), f"429s are immediate: {results}")
    # A guesser that hangs up early learns nothing: the answer comes only after the delay.
    with socket.create_connection((LOOPBACK, srv.http_port), timeout=10) as sock:
        token = base64.b64encode(b"root:guess5").decode()
        sock.sendall(f"GET {ERRORS} HTTP/1.1\r\nHost: x\r\nAuthorization: Basic {token}\r\n\r\n".encode())
        sock.settimeout(1.5)
        try:
            early = sock.recv(100)
        except socket.timeout:
            early = b""
        eq(early, b"", "the answer to the 5th wrong guess within 1.5 s")


@suite.test(timeout=150)
def test_big_bodies_are_refused_without_buffering(s):
    srv = shared(s)
    pid = srv.proc.pid
    before = rss_kib(pid)
    c = Collector()
    # 200 MB announced: 413 before the body is read, and the connection is closed so the body is never parsed.
    with socket.create_connection((LOOPBACK, srv.http_port), timeout=10) as sock:
        sock.sendall(b"POST /api/health HTTP/1.1\r\nHost: x\r\nContent-Length: 200000000\r\n\r\n")
        status, headers, body = read_response(sock)
        c.eq(status, 413, "200 MB POST")
        c.contains(body, "larger than the limit", "413 body")
        c.eq(headers.get("connection"), "close", "Connection header of the 413")
        sent = 0
        chunk = b"x" * (1 << 20)
        t0 = time.monotonic()
        try:
            while sent < 200_000_000 and time.monotonic() - t0 < 20:
                sock.sendall(chunk)
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        c.check(sent < 50_000_000, f"the server kept reading the refused body: {sent} bytes sent")
    # Same with the body sent at once (a client that does not wait for the answer), to an authenticated endpoint.
    with socket.create_connection((LOOPBACK, srv.http_port), timeout=10) as sock:
        sock.sendall(b"POST /api/routine_load/errors HTTP/1.1\r\nHost: x\r\nContent-Length: 200000000\r\n\r\n")
        sent = 0
        try:
            while sent < 200_000_000:
                sock.sendall(b"y" * (1 << 20))
                sent += 1 << 20
        except (BrokenPipeError, ConnectionResetError):
            pass
        c.check(sent < 50_000_000, f"200 MB body sent blindly: the server read {sent} bytes of it")
    # Chunked bodies have no length to check beforehand: refused.
    status, _, body = http(srv.http_port, "/api/health", method="POST", headers={"Transfer-Encoding": "chunked"})
    c.eq(status, 411, "chunked POST")
    # A body under the limit is fine (and ignored by GET endpoints).
    with socket.create_connection((LOOPBACK, srv.http_port), timeout=10) as sock:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 1000\r\n\r\n"
                     + b"z" * 1000)
        status, _, _ = read_response(sock)
        c.eq(status, 200, "GET with a small body")
    # An endless request line, and endless header lines, are cut off at the header budget (not buffered).
    for what, head in (("endless request line", b"GET /" + b"a" * 100),
                       ("endless header", b"GET /api/health HTTP/1.1\r\nX-Long: "),
                       ("endless header lines", b"GET /api/health HTTP/1.1\r\n")):
        with socket.create_connection((LOOPBACK, srv.http_port), timeout=10) as sock:
            sock.sendall(head)
            sent = 0
            filler = (b"X-Pad: " + b"p" * 90 + b"\r\n") * 100 if what == "endless header lines" else b"b" * 10000
            try:
                while sent < 80_000_000:
                    sock.sendall(filler)
                    sent += len(filler)
            except (BrokenPipeError, ConnectionResetError):
                pass
            c.check(sent < 30_000_000, f"{what}: the server read {sent} bytes of it")
    after = rss_kib(pid)
    print(f"    server RSS {before} KiB before, {after} KiB after")
    c.check(after - before < 40_000, f"the server's RSS grew by {after - before} KiB")
    status, _, _ = http(srv.http_port, "/api/health")
    c.eq(status, 200, "health afterwards")
    c.done()


@suite.test(timeout=150)
def test_slow_clients_do_not_starve_health(s):
    srv = shared(s)
    stop = threading.Event()
    slow, idle = [], []
    dropped = {"n": 0}
    lock = threading.Lock()

    def dribble(sock):
        try:
            sock.sendall(b"GET /api/health HTTP/1.1\r\n")
            while not stop.is_set():
                sock.sendall(b"X")
                time.sleep(1.0)
        except OSError:
            with lock:
                dropped["n"] += 1

    c = Collector()
    t0 = time.monotonic()
    for _ in range(60):
        sk = socket.create_connection((LOOPBACK, srv.http_port), timeout=5)
        slow.append(sk)
        threading.Thread(target=dribble, args=(sk,), daemon=True).start()
    for _ in range(60):
        idle.append(socket.create_connection((LOOPBACK, srv.http_port), timeout=5))
    opened = time.monotonic() - t0
    t0 = time.monotonic()
    status, _, _ = http(srv.http_port, "/api/health", timeout=5)
    first = time.monotonic() - t0
    print(f"    120 connections opened in {opened:.2f}s; health right after: {first:.3f}s")
    # The library listens with a backlog of 5: a burst of connections then waits for SYN retransmits (1 s, 3 s).
    c.check(opened < 2.0, f"opening 120 connections took {opened:.2f}s (listen backlog too small?)")
    c.eq(status, 200, "health right after the burst")
    c.check(first < 1.0, f"health right after the burst took {first:.2f}s")
    time.sleep(1.0)
    worst = 0.0
    t_end = time.monotonic() + 6
    n = 0
    while time.monotonic() < t_end:
        t0 = time.monotonic()
        try:
            status, _, _ = http(srv.http_port, "/api/health", timeout=3)
        except OSError as e:
            status = f"error {e}"
        worst = max(worst, time.monotonic() - t0)
        n += 1
        c.eq(status, 200, "health while 60 slow and 60 idle clients hold connections")
        time.sleep(0.3)
    print(f"    {n} health requests during the attack, slowest {worst:.3f}s")
    c.check(worst < 2.0, f"health took {worst:.2f}s under the slow clients")
    # The request deadline (10 s) drops the dribblers; the keep-alive wait (5 s) drops the idle sockets.
    for i, sk in enumerate(idle):
        if not closed_by_server(sk, 8 if i == 0 else 0.5):
            c.check(False, f"idle socket {i} still open after the idle timeout")
            break
    deadline = time.monotonic() + 12
    while time.monotonic() < deadline and dropped["n"] < len(slow):
        time.sleep(0.5)
    c.eq(dropped["n"], len(slow), "slow clients dropped by the server after the request deadline")
    stop.set()
    for sk in slow + idle:
        sk.close()
    c.done()


# ---- HTTPS --------------------------------------------------------------------------------------------------------

def make_certificates(folder: str) -> dict:
    """A CA and a server certificate for 127.0.0.1 signed by it, made with the openssl CLI."""
    p = {k: os.path.join(folder, k) for k in ("ca.pem", "ca-key.pem", "server-cert.pem", "server-key.pem",
                                              "server.csr", "ext.cnf")}

    def run(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", p["ca-key.pem"], "-out", p["ca.pem"],
        "-days", "2", "-subj", "/CN=Sluice test CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", p["server-key.pem"], "-out", p["server.csr"],
        "-subj", "/CN=127.0.0.1")
    with open(p["ext.cnf"], "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    run("x509", "-req", "-in", p["server.csr"], "-CA", p["ca.pem"], "-CAkey", p["ca-key.pem"], "-CAcreateserial",
        "-out", p["server-cert.pem"], "-days", "2", "-extfile", p["ext.cnf"])
    return p


def curl(*args, timeout: float = 20) -> subprocess.CompletedProcess:
    return subprocess.run(["curl", "-sS", "--max-time", "10", *args], capture_output=True, text=True, timeout=timeout)


@suite.test(timeout=150)
def test_https_with_curl_cacert(s):
    folder = tempfile.mkdtemp(prefix="sluice-tls-")
    certs = make_certificates(folder)
    srv = s.server(root_password=PASSWORD, extra_args=["--http-tls", "--tls-cert", certs["server-cert.pem"],
                                                       "--tls-key", certs["server-key.pem"]]).start()
    base = f"https://127.0.0.1:{srv.http_port}"
    c = Collector()
    r = curl("--cacert", certs["ca.pem"], base + "/api/health")
    c.eq(r.returncode, 0, f"curl --cacert health (stderr {r.stderr.strip()})")
    c.contains(r.stdout, '"status":"ok"', "health over HTTPS")
    r = curl("--cacert", certs["ca.pem"], "-o", "/dev/null", "-w", "%{http_code}", base + ERRORS)
    c.eq(r.stdout, "401", "errors over HTTPS without credentials")
    r = curl("--cacert", certs["ca.pem"], "-u", f"root:{PASSWORD}", "-o", "/dev/null", "-w", "%{http_code}",
             base + ERRORS)
    c.eq(r.stdout, "404", "errors over HTTPS as root (no such job on this server)")
    r = curl(base + "/api/health")
    c.check(r.returncode == 60, f"curl without the CA must refuse the certificate: rc {r.returncode} {r.stderr}")
    r = curl(f"http://127.0.0.1:{srv.http_port}/api/health")
    c.check(r.returncode != 0 or "ok" not in r.stdout, f"plain HTTP on the HTTPS port: {r.returncode} {r.stdout!r}")
    # A client that opens TLS sockets and never completes the handshake does not block the port.
    stuck = [socket.create_connection((LOOPBACK, srv.http_port), timeout=5) for _ in range(30)]
    for sk in stuck[:15]:
        sk.sendall(b"\x16\x03\x01")  # the first bytes of a ClientHello, then nothing
    t0 = time.monotonic()
    r = curl("--cacert", certs["ca.pem"], base + "/api/health")
    c.eq(r.returncode, 0, "health over HTTPS while 30 handshakes hang")
    c.check(time.monotonic() - t0 < 2, "health over HTTPS was slow while handshakes hang")
    for sk in stuck:
        sk.close()
    c.done()


@suite.test(timeout=60)
def test_http_tls_needs_certificate_files(s):
    # Without --tls-cert the generated certificate in <data dir>/tls/ serves HTTPS (src/tls); missing files given
    # by flag refuse the start and name the file.
    srv2 = s.server(root_password=PASSWORD, extra_args=["--http-tls", "--tls-cert", "/nonexistent.pem",
                                                        "--tls-key", "/nonexistent-key.pem"])
    proc = srv2.spawn()
    try:
        code = proc.wait(30)
    except subprocess.TimeoutExpired:
        srv2.kill_process()
        raise AssertionError("--http-tls with missing files did not refuse to start")
    check(code != 0, "--http-tls with missing certificate files exits with an error")
    contains(srv2.log_text(), "/nonexistent.pem", "the refusal names the file")


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
