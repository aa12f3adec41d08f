#!/usr/bin/python3
"""Bad input on the MySQL port (issue 2, part 7): garbage, HTTP, oversized and truncated packets, unknown commands,
clients that vanish mid-query, connection storms. After each case: the connection got an error or was closed, a normal
pymysql connection still works, the rows committed before are intact, and the server process is alive.

    /usr/bin/python3 tests/e2e/test_bad_input.py --server build/sluice
"""
from __future__ import annotations

import hashlib
import os
import socket
import struct
import sys
import threading
import time

sys.dont_write_bytecode = True  # keep the source tree clean of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import LOOPBACK, TestSuite, check, eq  # noqa: E402

suite = TestSuite("test_bad_input")

COM_QUIT, COM_INIT_DB, COM_QUERY, COM_PING = 0x01, 0x02, 0x03, 0x0E
CLIENT_LONG_PASSWORD = 0x1
CLIENT_CONNECT_WITH_DB = 0x8
CLIENT_PROTOCOL_41 = 0x200
CLIENT_TRANSACTIONS = 0x2000
CLIENT_SECURE_CONNECTION = 0x8000
CLIENT_MULTI_RESULTS = 0x20000
CLIENT_PLUGIN_AUTH = 0x80000
CLIENT_DEPRECATE_EOF = 0x1000000


# ---- a minimal raw MySQL client ----------------------------------------------------------------------------------

class Closed(Exception):
    pass


class RawConn:
    def __init__(self, port: int, timeout: float = 10.0):
        self.sock = socket.create_connection((LOOPBACK, port), timeout=timeout)
        self.sock.settimeout(timeout)
        self.seq = 0

    def recv_exact(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise Closed(f"connection closed after {len(buf)} of {n} bytes")
            buf += chunk
        return buf

    def read_packet(self) -> bytes:
        payload = b""
        while True:
            head = self.recv_exact(4)
            length = head[0] | head[1] << 8 | head[2] << 16
            self.seq = (head[3] + 1) & 0xFF
            payload += self.recv_exact(length)
            if length < 0xFFFFFF:
                return payload

    def send_packet(self, payload: bytes, seq: int | None = None):
        if seq is None:
            seq = self.seq
        self.sock.sendall(struct.pack("<I", len(payload))[:3] + bytes([seq & 0xFF]) + payload)
        self.seq = (seq + 1) & 0xFF

    def command(self, cmd: int, arg: bytes = b"") -> bytes:
        self.seq = 0
        self.send_packet(bytes([cmd]) + arg, 0)
        return self.read_packet()

    def read_until_eof_or_close(self, timeout: float) -> tuple[str, bytes]:
        """Reads everything the server sends until it closes. Returns ("closed"|"timeout"|"reset", data)."""
        self.sock.settimeout(timeout)
        data = b""
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return "closed", data
                data += chunk
            return "timeout", data
        except socket.timeout:
            return "timeout", data
        except ConnectionResetError:
            return "reset", data

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def parse_handshake(pkt: bytes) -> dict:
    check(pkt[0] == 10, f"handshake protocol version must be 10, got {pkt[0]}")
    end = pkt.index(b"\0", 1)
    version = pkt[1:end].decode()
    p = end + 1
    conn_id = struct.unpack_from("<I", pkt, p)[0]
    p += 4
    salt1 = pkt[p:p + 8]
    p += 9
    caps = struct.unpack_from("<H", pkt, p)[0]
    p += 2
    p += 1 + 2  # charset, status
    caps |= struct.unpack_from("<H", pkt, p)[0] << 16
    p += 2
    salt_len = pkt[p]
    p += 1 + 10
    n2 = max(13, salt_len - 8)
    salt2 = pkt[p:p + n2]
    p += n2
    plugin = b""
    if caps & CLIENT_PLUGIN_AUTH and p < len(pkt):
        plugin = pkt[p:].split(b"\0")[0]
    return {"version": version, "conn_id": conn_id, "salt": (salt1 + salt2)[:20], "caps": caps, "plugin": plugin}


def native_scramble(password: str, salt: bytes) -> bytes:
    if not password:
        return b""
    h1 = hashlib.sha1(password.encode()).digest()
    h2 = hashlib.sha1(h1).digest()
    h3 = hashlib.sha1(salt + h2).digest()
    return bytes(a ^ b for a, b in zip(h1, h3))


def err_info(pkt: bytes) -> tuple[int, str, str]:
    code = struct.unpack_from("<H", pkt, 1)[0]
    state, msg = "", pkt[3:]
    if msg[:1] == b"#":
        state, msg = msg[1:6].decode(), msg[6:]
    return code, state, msg.decode("utf-8", "replace")


def raw_login(port: int, password: str = "", db: str | None = None) -> RawConn:
    """A real handshake + mysql_native_password auth in Python. Returns the authenticated connection."""
    c = RawConn(port)
    hs = parse_handshake(c.read_packet())
    caps = (CLIENT_LONG_PASSWORD | CLIENT_PROTOCOL_41 | CLIENT_TRANSACTIONS | CLIENT_SECURE_CONNECTION
            | CLIENT_MULTI_RESULTS | CLIENT_PLUGIN_AUTH)
    if db:
        caps |= CLIENT_CONNECT_WITH_DB
    auth = native_scramble(password, hs["salt"])
    body = struct.pack("<IIB23x", caps, 16 * 1024 * 1024, 45) + b"root\0" + bytes([len(auth)]) + auth
    if db:
        body += db.encode() + b"\0"
    body += b"mysql_native_password\0"
    c.send_packet(body)
    resp = c.read_packet()
    if resp[:1] == b"\xfe":  # AuthSwitchRequest
        plugin, _, data = resp[1:].partition(b"\0")
        check(plugin == b"mysql_native_password", f"server asked to switch to {plugin!r}")
        c.send_packet(native_scramble(password, data.rstrip(b"\0")[:20]))
        resp = c.read_packet()
    if resp[:1] == b"\xff":
        raise AssertionError(f"login failed: {err_info(resp)}")
    eq(resp[:1], b"\x00", "first byte of the answer to the handshake response (OK)")
    return c


def raw_query_rows(c: RawConn, sql: str) -> list[list[bytes | None]]:
    """COM_QUERY with a text result set (handles EOF packets; CLIENT_DEPRECATE_EOF is not requested)."""
    first = c.command(COM_QUERY, sql.encode())
    if first[:1] == b"\xff":
        raise AssertionError(f"query failed: {err_info(first)}")
    if first[:1] == b"\x00":
        return []
    ncols = first[0]
    for _ in range(ncols):
        c.read_packet()
    eof = c.read_packet()
    check(eof[:1] == b"\xfe", "EOF after column definitions")
    rows = []
    while True:
        pkt = c.read_packet()
        if pkt[:1] == b"\xfe" and len(pkt) < 9:
            return rows
        if pkt[:1] == b"\xff":
            raise AssertionError(f"error inside result set: {err_info(pkt)}")
        row, p = [], 0
        while p < len(pkt):
            if pkt[p] == 0xFB:
                row.append(None)
                p += 1
                continue
            n, p = _lenenc(pkt, p)
            row.append(pkt[p:p + n])
            p += n
        rows.append(row)


def _lenenc(b: bytes, p: int) -> tuple[int, int]:
    x = b[p]
    if x < 0xFB:
        return x, p + 1
    if x == 0xFC:
        return struct.unpack_from("<H", b, p + 1)[0], p + 3
    if x == 0xFD:
        return b[p + 1] | b[p + 2] << 8 | b[p + 3] << 16, p + 4
    return struct.unpack_from("<Q", b, p + 1)[0], p + 9


# ---- the shared server for this file ----------------------------------------------------------------------------

EXPECTED_ROWS = 1000
state: dict = {}


def server():
    s = state.get("server")
    if s is None:
        setup(suite)
        s = state["server"]
    if not s.alive():
        raise AssertionError("the shared server is not running")
    return s


def setup(_suite):
    s = _suite.shared_server()
    state["server"] = s
    conn = s.connect()
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE bad")
        cur.execute("USE bad")
        cur.execute("CREATE TABLE kept (id BIGINT, v VARCHAR(20)) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id)")
        cur.execute("INSERT INTO kept SELECT i, 'row' || i FROM range(%d) t(i)" % EXPECTED_ROWS)
    conn.close()
    healthy("setup")


def healthy(after: str):
    """The server is alive, a fresh pymysql connection works and the committed rows are all there."""
    s = state["server"]
    if not s.alive():
        raise AssertionError(f"after {after}: the server process died (exit code {s.proc.returncode})\n"
                             f"--- server stderr ---\n{s.log_tail(30)}")
    try:
        conn = s.connect(database="bad", read_timeout=30)
        with conn.cursor() as cur:
            cur.execute("SELECT count(*), sum(id), min(v), max(id) FROM kept")
            row = cur.fetchone()
        conn.close()
    except Exception as e:
        raise AssertionError(f"after {after}: a normal connection failed: {e}\n--- server stderr ---\n"
                             f"{s.log_tail(30)}")
    n = EXPECTED_ROWS
    got = (int(row[0]), int(row[1]), row[2], int(row[3])) if row else None
    eq(got, (n, n * (n - 1) // 2, "row0", n - 1), f"after {after}: committed rows (count, sum(id), min(v), max(id))")


def expect_error_or_close(c: RawConn, timeout: float, what: str) -> str:
    """The server must answer with an ERR packet or close the connection within `timeout`."""
    how, data = c.read_until_eof_or_close(timeout)
    if how == "timeout" and not data:
        raise AssertionError(f"{what}: no error and no close within {timeout:.0f}s (the server just waits)")
    if data:
        # The first packet after our bytes must be an ERR packet (0xFF), whatever follows.
        if len(data) >= 5 and data[4] == 0xFF:
            code, st, msg = err_info(data[4:4 + (data[0] | data[1] << 8 | data[2] << 16)])
            return f"ERR {code} ({st}) {msg}; then {how}"
        if how == "timeout":
            raise AssertionError(f"{what}: server sent {data[:60]!r} (not an ERR packet) and kept the connection")
        return f"sent {data[:60]!r} then {how}"
    return how


# ---- tests ------------------------------------------------------------------------------------------------------

@suite.test(timeout=60)
def test_setup_and_raw_native_password_login(s):
    server()
    c = raw_login(server().mysql_port)
    rows = raw_query_rows(c, "SELECT count(*) FROM bad.kept")
    eq(rows, [[str(EXPECTED_ROWS).encode()]], "count through the raw client")
    ping = c.command(COM_PING)
    eq(ping[:1], b"\x00", "COM_PING answer")
    # COM_INIT_DB then COM_FIELD_LIST (what the mariadb CLI's auto-rehash sends): column definitions, then EOF
    eq(c.command(COM_INIT_DB, b"bad")[:1], b"\x00", "COM_INIT_DB answer")
    first = c.command(0x04, b"kept\0")
    names = []
    pkt = first
    while pkt[:1] != b"\xfe":
        if pkt[:1] == b"\xff":
            raise AssertionError(f"COM_FIELD_LIST failed: {err_info(pkt)}")
        p = 0
        fields = []
        for _ in range(6):  # catalog, schema, table, org_table, name, org_name
            n, p = _lenenc(pkt, p)
            fields.append(pkt[p:p + n])
            p += n
        names.append(fields[4].decode())
        pkt = c.read_packet()
    eq(names, ["id", "v"], "COM_FIELD_LIST column names")
    c.send_packet(bytes([COM_QUIT]), 0)
    how, _ = c.read_until_eof_or_close(5)
    eq(how, "closed", "connection after COM_QUIT")
    c.close()


@suite.test(timeout=60)
def test_garbage_instead_of_handshake_response(s):
    results = []
    # (a) a well-framed packet whose payload is junk: the server must say so or hang up at once
    c = RawConn(server().mysql_port)
    c.read_packet()
    c.send_packet(bytes(range(7, 47)) * 3, 1)
    results.append(expect_error_or_close(c, 10, "framed junk handshake response"))
    c.close()
    healthy("framed junk handshake response")
    # (b) raw junk: the header itself is junk (it announces ~5 MB that never come); the server must not keep the
    # connection forever (a handshake timeout is fine), and it must keep serving everyone else meanwhile
    c = RawConn(server().mysql_port)
    c.read_packet()
    c.sock.sendall(b"GARBAGE!" * 64 + bytes(range(256)))
    healthy("raw junk (connection still open)")
    results.append(expect_error_or_close(c, 20, "raw junk instead of a handshake response"))
    c.close()
    # (c) junk right away, before reading the handshake, then close
    for i in range(10):
        c = RawConn(server().mysql_port)
        c.sock.sendall(os.urandom(0) + bytes((i * 37 + k) & 0xFF for k in range(300)))
        c.close()
    healthy("junk then close")
    print("    " + "; ".join(results))


@suite.test(timeout=60)
def test_http_request_to_mysql_port(s):
    c = RawConn(server().mysql_port)
    c.read_packet()
    c.sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: test\r\nAccept: */*\r\n\r\n")
    outcome = expect_error_or_close(c, 20, "HTTP request on the MySQL port")
    c.close()
    print(f"    {outcome}")
    healthy("HTTP request on the MySQL port")


@suite.test(timeout=180)
def test_oversized_packet(s):
    """After login, a COM_QUERY split into 0xFFFFFF-long packets whose total exceeds max_allowed_packet. The chain
    never ends (every packet is full), so a server without a limit would wait forever: it must answer with an error
    (1153 in MySQL) or close the connection once the limit is passed."""
    conn = server().connect()
    with conn.cursor() as cur:
        cur.execute("SHOW VARIABLES LIKE 'max_allowed_packet'")
        row = cur.fetchone()
    conn.close()
    limit = int(row[1]) if row and str(row[1]).isdigit() else 64 * 1024 * 1024
    cap = 1024 * 1024 * 1024
    total = min(limit + 32 * 1024 * 1024, cap)
    c = raw_login(server().mysql_port)
    chunk = b"SELECT '" + b"x" * (0xFFFFFF - 8)
    filler = b"x" * 0xFFFFFF
    outcome = {"sent": 0, "error": None}

    def sender():
        seq = 0
        try:
            sent = 0
            first = True
            while sent < total:
                payload = (bytes([COM_QUERY]) + chunk[:-1]) if first else filler
                first = False
                c.sock.sendall(b"\xff\xff\xff" + bytes([seq & 0xFF]) + payload)
                seq += 1
                sent += len(payload)
                outcome["sent"] = sent
        except OSError as e:
            outcome["error"] = f"{type(e).__name__}: {e}"

    th = threading.Thread(target=sender, daemon=True)
    th.start()
    how, data = c.read_until_eof_or_close(120)
    th.join(30)
    c.close()
    check(how != "timeout" or data, f"oversized packet: neither error nor close within 120s "
                                    f"(sent {outcome['sent']} bytes; limit {limit})")
    if data and len(data) > 4:
        check(data[4] == 0xFF, f"oversized packet: the answer must be an ERR packet, got {data[:40]!r}")
        print(f"    ERR {err_info(data[4:])[:2]} after {outcome['sent']} of {total} bytes (limit {limit})")
    else:
        print(f"    closed after {outcome['sent']} of {total} bytes (limit {limit}); sender: {outcome['error']}")
    rss = _rss_kib(server().proc.pid)
    print(f"    server RSS after the oversized packet: {rss} KiB")
    healthy("oversized packet")


def _rss_kib(pid: int):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None


@suite.test(timeout=60)
def test_oversized_header_then_close(s):
    """A header announcing 0xFFFFFF bytes, a few bytes, then the client goes away (before and after login)."""
    for logged_in in (False, True):
        for _ in range(5):
            if logged_in:
                c = raw_login(server().mysql_port)
                c.sock.sendall(b"\xff\xff\xff\x00" + bytes([COM_QUERY]) + b"SELECT 1")
            else:
                c = RawConn(server().mysql_port)
                c.read_packet()
                c.sock.sendall(b"\xff\xff\xff\x01" + b"\x00" * 100)
            c.close()
    healthy("0xFFFFFF header then close")


@suite.test(timeout=60)
def test_truncated_packet_then_close(s):
    for logged_in in (False, True):
        for cut in (1, 2, 3, 4, 10):
            if logged_in:
                c = raw_login(server().mysql_port)
                pkt = struct.pack("<I", 40)[:3] + b"\x00" + bytes([COM_QUERY]) + b"SELECT count(*) FROM bad.kept WHE"
            else:
                c = RawConn(server().mysql_port)
                c.read_packet()
                pkt = struct.pack("<I", 100)[:3] + b"\x01" + b"\x8d\xa6\x0f\x00" + b"\x00" * 30
            c.sock.sendall(pkt[:cut])
            time.sleep(0.02)
            c.close()
    healthy("truncated packets")


@suite.test(timeout=60)
def test_unknown_command_after_auth(s):
    c = raw_login(server().mysql_port)
    for cmd in (0x7F, 0xEE, 0x00, 0x40):  # 0x00 is COM_SLEEP, internal to servers
        resp = c.command(cmd, b"junk")
        check(resp[:1] == b"\xff", f"command byte 0x{cmd:02x}: expected an ERR packet, got {resp[:40]!r}")
        code, st, msg = err_info(resp)
        print(f"    command 0x{cmd:02x}: ERR {code} ({st}) {msg}")
    rows = raw_query_rows(c, "SELECT 40 + 2")
    eq(rows, [[b"42"]], "the connection still works after unknown commands")
    # an empty packet (no command byte at all)
    c.seq = 0
    c.send_packet(b"", 0)
    try:
        resp = c.read_packet()
        check(resp[:1] == b"\xff", f"empty command packet: expected an ERR packet or a close, got {resp[:40]!r}")
    except Closed:
        pass
    c.close()
    healthy("unknown commands")


def _calibrated_range(target_seconds: float) -> int:
    """A range size whose count(*) takes about target_seconds on this machine."""
    conn = server().connect()
    n = 20_000_000
    with conn.cursor() as cur:
        for _ in range(6):
            t0 = time.monotonic()
            cur.execute(f"SELECT sum(i % 7) FROM range({n}) t(i)")
            cur.fetchall()
            dt = time.monotonic() - t0
            if dt > 0.3:
                break
            n *= 4
    conn.close()
    return min(int(n * target_seconds / max(dt, 0.01)), 50_000_000_000)


@suite.test(timeout=120)
def test_disconnect_during_long_query(s):
    n = _calibrated_range(3.0)
    print(f"    long query: SELECT sum(i % 7) FROM range({n})")
    for delay in (0.05, 0.5, 1.0):
        c = raw_login(server().mysql_port)
        c.seq = 0
        c.send_packet(bytes([COM_QUERY]) + f"SELECT sum(i % 7) FROM range({n}) t(i)".encode(), 0)
        time.sleep(delay)
        c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST on close
        c.close()
        t0 = time.monotonic()
        healthy(f"disconnect {delay}s into a long query")
        print(f"    after disconnect at {delay}s another query took {time.monotonic() - t0:.2f}s")


@suite.test(timeout=120)
def test_disconnect_while_receiving_a_large_result(s):
    """The server writes into a socket the client has closed: it must not die of SIGPIPE or hang."""
    for _ in range(3):
        c = raw_login(server().mysql_port)
        c.seq = 0
        # ~35 MB of rows: far more than the socket buffers hold, so the server is still writing when we vanish
        c.send_packet(bytes([COM_QUERY]) + b"SELECT i, repeat('y', 100) FROM range(300000) t(i)", 0)
        c.sock.settimeout(30)
        c.sock.recv(1000)
        c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        c.close()
    time.sleep(0.5)
    healthy("disconnect while receiving a large result")


@suite.test(timeout=180)
def test_rapid_connect_close_cycles(s):
    port = server().mysql_port
    import pymysql
    for i in range(200):
        kind = i % 4
        if kind == 0:      # connect and close without reading
            sock = socket.create_connection((LOOPBACK, port), timeout=10)
            sock.close()
        elif kind == 1:    # read the handshake, then close
            c = RawConn(port)
            c.read_packet()
            c.close()
        elif kind == 2:    # reset right away
            sock = socket.create_connection((LOOPBACK, port), timeout=10)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
        else:              # a full login and quit
            conn = server().connect()
            conn.close()
    healthy("200 connect/close cycles")
    # and 50 at once still work afterwards (no leaked slots)
    conns = [server().connect() for _ in range(50)]
    for conn in conns:
        with conn.cursor() as cur:
            cur.execute("SELECT 1")
            eq(cur.fetchone()[0], 1, "SELECT 1")
    for conn in conns:
        conn.close()
    _ = pymysql
    healthy("50 connections after the cycles")


@suite.test(timeout=60)
def test_server_still_alive_and_shuts_down_cleanly(s):
    healthy("all bad input")
    srv = state["server"]
    code = srv.stop()
    eq(code, 0, "exit code on SIGTERM after all bad input")


if __name__ == "__main__":
    sys.exit(suite.run())
