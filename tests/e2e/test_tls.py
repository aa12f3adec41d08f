#!/usr/bin/python3
"""TLS and logins on the MySQL port, with real clients: the mariadb CLI (`--ssl --ssl-verify-server-cert` against
the CA Sluice generates in the data directory), pymysql over SSL (and that the session really is encrypted),
`openssl s_client -starttls mysql`, an operator-given certificate, `--require-secure-transport`,
caching_sha2_password's full authentication over TLS and fast path afterwards, and 1,100 idle sockets that must
not keep root out.

    /usr/bin/python3 tests/e2e/test_tls.py --server build/sluice
"""
from __future__ import annotations

import os
import resource
import shutil
import socket
import ssl
import stat
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # keep the source tree clean of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import LOOPBACK, Collector, TestSuite, check, contains, eq  # noqa: E402

suite = TestSuite("test_tls")
MARIADB = shutil.which("mariadb") or "/usr/bin/mariadb"
OPENSSL = shutil.which("openssl") or "/usr/bin/openssl"
PASSWORD = "Tr0ub4dor-and-3-horses"  # distinctive, so the log can be searched for it

# The flood test opens 1,100 sockets; servers started from here inherit the raised limit too.
_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if _soft < 4096:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, _hard), _hard))


def mariadb(srv, *args, sql="SELECT 1", timeout=20):
    cmd = [MARIADB, "-h", LOOPBACK, "-P", str(srv.mysql_port), "-uroot", "--batch", "--skip-column-names",
           *args, "-e", sql]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def ca_of(srv) -> str:
    return os.path.join(srv.data_dir, "tls", "ca.pem")


def connect(srv, **kw):
    import pymysql
    args = dict(host=LOOPBACK, port=srv.mysql_port, user="root", password="", connect_timeout=10,
                read_timeout=20, write_timeout=20)
    args.update(kw)
    return pymysql.connect(**args)


def login_error(srv, **kw):
    """The (code, message) a pymysql login fails with, or None when it succeeds."""
    import pymysql
    try:
        connect(srv, **kw).close()
        return None
    except pymysql.err.OperationalError as e:
        return e.args[0], e.args[1]


def make_own_ca(folder: str):
    """A CA and a server certificate for 127.0.0.1 made with the openssl CLI (as an operator would)."""
    def run(*args):
        subprocess.run([OPENSSL, *args], check=True, capture_output=True, timeout=30)
    ca_key, ca, key, csr, cert = (os.path.join(folder, n) for n in ("ca.key", "ca.pem", "s.key", "s.csr", "s.pem"))
    ext = os.path.join(folder, "ext.cnf")
    with open(ext, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
    run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=Ops CA",
        "-keyout", ca_key, "-out", ca, "-days", "2")
    run("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=sluice.ops",
        "-keyout", key, "-out", csr)
    run("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert, "-days", "2",
        "-extfile", ext)
    return ca, cert, key


state: dict = {}


def shared(s):
    srv = state.get("server")
    if srv is None:
        srv = s.shared_server()
        state["server"] = srv
    check(srv.alive(), f"the shared server died:\n{srv.log_tail(30)}")
    return srv


@suite.test(timeout=60)
def test_generated_ca_files(s):
    srv = shared(s)
    c = Collector()
    folder = os.path.join(srv.data_dir, "tls")
    for name, mode in (("ca.pem", 0o644), ("ca-key.pem", 0o600), ("server-cert.pem", 0o644),
                       ("server-key.pem", 0o600)):
        path = os.path.join(folder, name)
        c.check(os.path.exists(path), f"{path} missing")
        if os.path.exists(path):
            c.eq(stat.S_IMODE(os.stat(path).st_mode), mode, f"mode of {name}")
    c.contains(srv.log_text(), f"--ssl-ca={ca_of(srv)}", "server log")
    c.done()


@suite.test(timeout=60)
def test_mariadb_verify_server_cert_with_the_generated_ca(s):
    srv = shared(s)
    c = Collector()
    r = mariadb(srv, "--ssl", "--ssl-verify-server-cert", f"--ssl-ca={ca_of(srv)}")
    c.eq((r.returncode, r.stdout.strip()), (0, "1"), f"mariadb --ssl-verify-server-cert (stderr: {r.stderr})")
    # The cipher shows in the client's status: the session is encrypted.
    r = mariadb(srv, "--ssl", "--ssl-verify-server-cert", f"--ssl-ca={ca_of(srv)}", sql="status")
    c.check(r.returncode == 0 and "Cipher in use" in r.stdout, f"no cipher in mariadb's status:\n{r.stdout}{r.stderr}")
    # The README quickstart, no TLS flags: it logs in (mariadb 10.11 takes TLS on its own when the server offers
    # it, without checking the certificate).
    r = mariadb(srv)
    c.eq((r.returncode, r.stdout.strip()), (0, "1"), f"quickstart mariadb (stderr: {r.stderr})")
    r = mariadb(srv, "--ssl")
    c.eq((r.returncode, r.stdout.strip()), (0, "1"), f"mariadb --ssl (stderr: {r.stderr})")
    # And plain TCP still works for clients that do not want TLS.
    r = mariadb(srv, "--skip-ssl", sql="status")
    c.check(r.returncode == 0 and "Not in use" in r.stdout, f"mariadb --skip-ssl:\n{r.stdout}{r.stderr}")
    c.done()


@suite.test(timeout=60)
def test_clients_refuse_a_server_their_ca_did_not_sign(s):
    srv = shared(s)
    with tempfile.TemporaryDirectory() as d:
        other_ca, _, _ = make_own_ca(d)
        r = mariadb(srv, "--ssl", "--ssl-verify-server-cert", f"--ssl-ca={other_ca}")
        check(r.returncode != 0, f"mariadb trusted a server its CA did not sign: {r.stdout}")
        check("SSL" in r.stderr or "TLS" in r.stderr, f"mariadb's error does not name TLS: {r.stderr}")
        err = login_error(srv, ssl={"ca": other_ca})
        check(err is not None, "pymysql trusted a server its CA did not sign")
    eq(mariadb(srv).stdout.strip(), "1", "the server still serves")


@suite.test(timeout=60)
def test_pymysql_over_ssl_is_encrypted(s):
    srv = shared(s)
    conn = connect(srv, ssl={"ca": ca_of(srv)})  # verifies the chain and that the certificate names 127.0.0.1
    try:
        sock = conn._sock
        check(isinstance(sock, ssl.SSLSocket), f"pymysql's socket is {type(sock)}, not TLS")
        check(sock.version() in ("TLSv1.2", "TLSv1.3"), f"TLS version {sock.version()}")
        peer = sock.getpeercert()
        sans = [v for k, v in peer.get("subjectAltName", ()) if k == "IP Address"]
        check("127.0.0.1" in sans, f"certificate names {sans}")
        with conn.cursor() as cur:
            cur.execute("SELECT 40 + 2")
            eq(cur.fetchone(), (42,), "query over TLS")
    finally:
        conn.close()


@suite.test(timeout=60)
def test_openssl_s_client_starttls_mysql(s):
    srv = shared(s)
    r = subprocess.run([OPENSSL, "s_client", "-starttls", "mysql", "-connect", f"{LOOPBACK}:{srv.mysql_port}",
                        "-CAfile", ca_of(srv), "-verify_ip", LOOPBACK, "-verify_return_error", "-brief"],
                       input="", capture_output=True, text=True, timeout=20)
    out = r.stdout + r.stderr
    contains(out, "Verification: OK", "openssl s_client")
    contains(out, "Protocol version: TLSv1.3", "openssl s_client")


@suite.test(timeout=90)
def test_restart_reuses_the_ca(s):
    srv = s.server().start()
    with open(ca_of(srv), "rb") as f:
        before = f.read()
    eq(srv.restart(), 0, "exit code at restart")
    with open(ca_of(srv), "rb") as f:
        eq(f.read(), before, "ca.pem after a restart")
    r = mariadb(srv, "--ssl", "--ssl-verify-server-cert", f"--ssl-ca={ca_of(srv)}")
    eq((r.returncode, r.stdout.strip()), (0, "1"), f"verified login after restart ({r.stderr})")


@suite.test(timeout=90)
def test_operator_certificate(s):
    with tempfile.TemporaryDirectory() as d:
        ca, cert, key = make_own_ca(d)
        srv = s.server(extra_args=["--tls-cert", cert, "--tls-key", key]).start()
        r = mariadb(srv, "--ssl", "--ssl-verify-server-cert", f"--ssl-ca={ca}")
        eq((r.returncode, r.stdout.strip()), (0, "1"), f"mariadb against the operator's CA ({r.stderr})")
        check(not os.path.exists(os.path.join(srv.data_dir, "tls")), "a CA was generated although one was given")
        contains(srv.log_text(), f"TLS with the certificate {cert}", "server log")
        srv.stop()
        # Only one of the pair: a clear error, no start.
        bad = s.server(extra_args=["--tls-cert", cert])
        proc = bad.spawn()
        code = proc.wait(timeout=30)
        check(code != 0, "the server started with --tls-cert but no --tls-key")
        contains(bad.log_text(), "--tls-key", "server log")


@suite.test(timeout=90)
def test_require_secure_transport(s):
    srv = s.server(extra_args=["--require-secure-transport"]).start(timeout=30)
    c = Collector()
    r = mariadb(srv, "--skip-ssl")
    c.check(r.returncode != 0, "a plain mariadb login was accepted")
    c.contains(r.stderr, "ERROR 3159", "mariadb's error")
    c.contains(r.stderr, "Connections using insecure transport are prohibited while --require_secure_transport=ON.",
               "mariadb's error")
    c.eq(login_error(srv), (3159, "Connections using insecure transport are prohibited while "
                                  "--require_secure_transport=ON."), "pymysql without SSL")
    r = mariadb(srv, "--ssl", "--ssl-verify-server-cert", f"--ssl-ca={ca_of(srv)}")
    c.eq((r.returncode, r.stdout.strip()), (0, "1"), f"mariadb over TLS ({r.stderr})")
    c.eq(login_error(srv, ssl={"ca": ca_of(srv)}), None, "pymysql over TLS")
    c.done()


@suite.test(timeout=90)
def test_caching_sha2_full_then_fast_authentication(s):
    srv = s.server(root_password=PASSWORD, extra_args=["--root-auth-plugin", "caching_sha2_password"]).start()
    c = Collector()
    # Nothing cached after the start, no TLS: refused with the way out in the message (no RSA exchange).
    err = login_error(srv, password=PASSWORD)
    c.check(err is not None and err[0] == 1045 and "TLS" in err[1], f"plain login before any TLS one: {err}")
    # Full authentication: the password goes over TLS.
    c.eq(login_error(srv, password=PASSWORD, ssl={"ca": ca_of(srv)}), None, "pymysql full authentication over TLS")
    # Now the fast path, which needs no TLS (pymysql starts with mysql_native_password and is switched).
    c.eq(login_error(srv, password=PASSWORD), None, "pymysql fast authentication without TLS")
    conn = connect(srv, password=PASSWORD)
    with conn.cursor() as cur:
        cur.execute("SELECT 1")
        c.eq(cur.fetchone(), (1,), "query after fast authentication")
    conn.close()
    err = login_error(srv, password=PASSWORD + "x")
    c.check(err is not None and err[0] == 1045, f"wrong password, plain: {err}")
    err = login_error(srv, password=PASSWORD + "x", ssl={"ca": ca_of(srv)})
    c.check(err is not None and err[0] == 1045, f"wrong password over TLS: {err}")
    # The mariadb CLI's caching_sha2_password plugin, over TLS.
    r = mariadb(srv, f"-p{PASSWORD}", "--ssl", "--ssl-verify-server-cert", f"--ssl-ca={ca_of(srv)}")
    c.eq((r.returncode, r.stdout.strip()), (0, "1"), f"mariadb with caching_sha2_password ({r.stderr})")
    # The harness echoes the command line (with --root-password) into the log; the server's own lines must not
    # carry the password.
    server_lines = [line for line in srv.log_text().splitlines() if not line.startswith("==== start")]
    c.check(not any(PASSWORD in line for line in server_lines), "the password appears in the server log")
    c.contains(srv.log_text(), "access denied for user 'root'", "server log")
    c.done()


@suite.test(timeout=120)
def test_idle_socket_flood_does_not_lock_root_out(s):
    srv = s.server().start()
    socks = []
    try:
        for _ in range(1100):
            sk = socket.create_connection((LOOPBACK, srv.mysql_port), timeout=10)
            socks.append(sk)
        t0 = time.monotonic()
        conn = connect(srv)
        with conn.cursor() as cur:
            cur.execute("SELECT 1")
            eq(cur.fetchone(), (1,), "root's query during the flood")
        conn.close()
        took = time.monotonic() - t0
        check(took < 5, f"root's login took {took:.1f}s during the flood")
        r = mariadb(srv)
        eq((r.returncode, r.stdout.strip()), (0, "1"), f"mariadb during the flood ({r.stderr})")
    finally:
        for sk in socks:
            sk.close()
    check(srv.alive(), "the server died under the flood")


@suite.test(timeout=30)
def test_shared_server_shuts_down_cleanly(s):
    srv = shared(s)
    eq(srv.stop(), 0, "exit code of the shared server on SIGTERM")


if __name__ == "__main__":
    sys.exit(suite.run())
