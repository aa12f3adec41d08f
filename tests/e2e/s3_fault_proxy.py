"""A fault-injecting HTTP proxy for tests, in front of s3rver on loopback (stdlib only): the faults s3rver cannot
produce by itself, told from the test in-process.

    with S3rver() as s3, S3FaultProxy(s3.port) as proxy:
        ... CREATE STORAGE CONNECTION c TYPE S3 ENDPOINT = '{proxy.endpoint}' ...
        proxy.down(); ...; proxy.up()                       # the endpoint refuses connections, then is back
        proxy.fault("status", kinds={"get"}, status=503, code="SlowDown", times=3)   # the next 3 GETs answer 503
        proxy.fault("reset", kinds={"list"})                # every listing: the connection is reset, no answer
        proxy.fault("cut", kinds={"get"}, key=r"big\\.csv$", cut_at=0.5)   # half the body, then the connection ends
        proxy.fault("cut_unannounced", kinds={"get"})       # no Content-Length, a short body, then the end
        proxy.fault("delay", seconds=3)                     # a slow endpoint
        proxy.fault("down", kinds={"get"}, times=1)         # goes down the moment the first GET arrives
        proxy.list_page_size = 2                            # ListObjectsV2 pages of 2 keys (max-keys rewritten)
        proxy.hook("list", fn, times=1)                     # fn(request) between upstream's answer and the client's
        proxy.hook("get", fn, key=r"a\\.csv$", before=True)  # fn(request) before it goes upstream
        proxy.clear()                                       # no more faults

Each request is classified as list / get / put / delete / bucket (anything else: other). A fault matches by kind
(None: any) and by a regular expression on the object key; `times` bounds how often it fires (None: until cleared);
the first matching fault fires. Every request is logged (`proxy.log`: method, kind, key, what happened). s3rver does
not check V4 signatures, so rewriting the query (max-keys) is invisible to it. One request per connection: answers
carry `Connection: close` (libcurl handles that as any S3 client does).
"""
from __future__ import annotations

import http.client
import re
import socket
import struct
import threading
import time
import urllib.parse
from dataclasses import dataclass, field

LOOPBACK = "127.0.0.1"
_HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
               "content-length"}


def s3_error_body(code: str, message: str, resource: str = "") -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code><Message>{message}</Message>'
            f'<Resource>{resource}</Resource><RequestId>fault-proxy</RequestId></Error>').encode()


@dataclass
class Request:
    method: str
    path: str           # as sent, without the query
    query: str
    headers: dict       # lower-case names
    body: bytes
    kind: str           # list, get, put, delete, bucket, other
    bucket: str
    key: str            # the object key (decoded), "" for bucket requests


@dataclass
class Fault:
    action: str                      # status, reset, cut, cut_unannounced, delay, down
    kinds: "set[str] | None" = None  # None: any kind
    key: "str | None" = None         # regular expression searched in the object key
    times: "int | None" = None       # None: until cleared
    status: int = 503
    code: str = "SlowDown"
    message: str = "Please reduce your request rate."
    cut_at: float = 0.5              # cut: the fraction of the body sent (or bytes, when >= 1)
    seconds: float = 0.0             # delay
    hits: int = 0

    def matches(self, r: Request) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if self.kinds is not None and r.kind not in self.kinds:
            return False
        if self.key is not None and not re.search(self.key, r.key):
            return False
        return True


@dataclass
class _Hook:
    kinds: "set[str] | None"
    fn: object
    times: "int | None"
    key: "str | None" = None
    before: bool = False
    calls: int = 0


@dataclass
class LogEntry:
    method: str
    kind: str
    key: str
    query: str
    outcome: str        # "forwarded 200", "status 503", "reset", "cut 12/40", "refused by down", ...
    at: float = field(default_factory=time.monotonic)


class S3FaultProxy:
    def __init__(self, upstream_port: int, upstream_host: str = LOOPBACK):
        self.upstream = (upstream_host, upstream_port)
        self.port: int | None = None
        self.list_page_size: int | None = None
        self.log: list[LogEntry] = []
        self._faults: list[Fault] = []
        self._hooks: list[_Hook] = []
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._accept_thread: threading.Thread | None = None
        self._open: set[socket.socket] = set()
        self._stopped = False

    # ---- lifecycle -------------------------------------------------------------------------------------------------
    @property
    def endpoint(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def start(self) -> "S3FaultProxy":
        self._listen(0)
        return self

    def stop(self):
        self._stopped = True
        self._close_listener()
        with self._lock:
            conns = list(self._open)
        for c in conns:
            _close_quietly(c)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def down(self):
        """The endpoint is gone: new connections are refused (nothing listens on the port), open ones are reset."""
        self._close_listener()
        with self._lock:
            conns = list(self._open)
        for c in conns:
            _reset(c)

    def up(self):
        """Listens again on the same port."""
        if self._listener is None:
            self._listen(self.port)

    @property
    def is_down(self) -> bool:
        return self._listener is None

    def _listen(self, port: int):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        deadline = time.monotonic() + 10
        while True:
            try:
                s.bind((LOOPBACK, port))
                break
            except OSError:
                if port == 0 or time.monotonic() > deadline:
                    s.close()
                    raise
                time.sleep(0.05)  # the old socket of this port is still closing
        s.listen(64)
        self.port = s.getsockname()[1]
        self._listener = s
        self._accept_thread = threading.Thread(target=self._accept_loop, args=(s,), daemon=True)
        self._accept_thread.start()

    def _close_listener(self):
        s, self._listener = self._listener, None
        if s is not None:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        if self._accept_thread is not None:
            self._accept_thread.join(5)
            self._accept_thread = None

    # ---- what the test tells it ------------------------------------------------------------------------------------
    def fault(self, action: str, **kw) -> Fault:
        f = Fault(action, **kw)
        with self._lock:
            self._faults.append(f)
        return f

    def remove(self, f: Fault):
        with self._lock:
            if f in self._faults:
                self._faults.remove(f)

    def clear(self):
        with self._lock:
            self._faults.clear()

    def hook(self, kinds, fn, times: "int | None" = None, key: "str | None" = None, before: bool = False) -> _Hook:
        """fn(request) runs for matching requests: for requests forwarded upstream, after upstream answered and
        before the client gets the answer (so a listing page is fixed before the mutation and the next page after it),
        or with `before` before the request goes upstream; for faults, before the fault. `kinds`: a kind, a set of
        kinds, or None for any."""
        if isinstance(kinds, str):
            kinds = {kinds}
        h = _Hook(kinds, fn, times, key, before)
        with self._lock:
            self._hooks.append(h)
        return h

    def requests(self, kind: "str | None" = None, key: "str | None" = None) -> list[LogEntry]:
        with self._lock:
            return [e for e in self.log if (kind is None or e.kind == kind) and (key is None or e.key == key)]

    # ---- serving ---------------------------------------------------------------------------------------------------
    def _accept_loop(self, listener: socket.socket):
        while True:
            try:
                c, _ = listener.accept()
            except OSError:
                return
            if self._listener is not listener:
                _reset(c)
                return
            with self._lock:
                self._open.add(c)
            threading.Thread(target=self._serve, args=(c,), daemon=True).start()

    def _serve(self, c: socket.socket):
        r = None
        try:
            r = self._read_request(c)
            if r is None:
                return
            fault = None
            hooks = []
            with self._lock:
                for f in self._faults:
                    if f.matches(r):
                        f.hits += 1
                        fault = f
                        break
                for h in self._hooks:
                    if (h.times is None or h.calls < h.times) and (h.kinds is None or r.kind in h.kinds) and \
                            (h.key is None or re.search(h.key, r.key)):
                        h.calls += 1
                        hooks.append(h)
            if fault is not None and fault.action != "delay":
                for h in hooks:
                    h.fn(r)
                self._apply(c, r, fault)
                return
            if fault is not None:
                time.sleep(fault.seconds)
            for h in hooks:
                if h.before:
                    h.fn(r)
            status, reason, headers, body = self._forward(r)
            for h in hooks:
                if not h.before:
                    h.fn(r)
            self._send(c, status, reason, headers, body)
            self._log(r, f"forwarded {status}" + (f" after {fault.seconds}s" if fault else ""))
        except Exception as e:  # noqa: BLE001 - a broken test connection must not kill the proxy
            if r is not None:
                self._log(r, f"proxy error {e!r}")
        finally:
            with self._lock:
                self._open.discard(c)
            _close_quietly(c)

    def _apply(self, c: socket.socket, r: Request, f: Fault):
        if f.action == "status":
            body = s3_error_body(f.code, f.message, r.path)
            self._send(c, f.status, http.client.responses.get(f.status, "Error"),
                       [("Content-Type", "application/xml")], body)
            self._log(r, f"status {f.status} {f.code}")
        elif f.action == "reset":
            _reset(c)
            self._log(r, "reset")
        elif f.action == "down":
            self._log(r, "went down")
            _reset(c)
            self.down()
        elif f.action in ("cut", "cut_unannounced"):
            status, reason, headers, body = self._forward(r)
            n = int(f.cut_at) if f.cut_at >= 1 else int(len(body) * f.cut_at)
            n = max(0, min(n, len(body) - 1))
            head = f"HTTP/1.1 {status} {reason}\r\n"
            for k, v in headers:
                head += f"{k}: {v}\r\n"
            if f.action == "cut":
                head += f"Content-Length: {len(body)}\r\n"
            head += "Connection: close\r\n\r\n"
            c.sendall(head.encode("latin-1") + body[:n])
            self._log(r, f"{f.action} {n}/{len(body)}")
        else:
            raise ValueError(f"unknown fault action {f.action}")

    def _read_request(self, c: socket.socket) -> "Request | None":
        c.settimeout(30)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = c.recv(65536)
            if not chunk:
                return None
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        length = int(headers.get("content-length", "0") or 0)
        if length and headers.get("expect", "").lower() == "100-continue" and len(rest) < length:
            c.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        while len(rest) < length:
            chunk = c.recv(65536)
            if not chunk:
                break
            rest += chunk
        path, _, query = target.partition("?")
        parts = path.lstrip("/").split("/", 1)
        bucket = urllib.parse.unquote(parts[0])
        key = urllib.parse.unquote(parts[1]) if len(parts) > 1 else ""
        params = urllib.parse.parse_qs(query, keep_blank_values=True)
        if method == "GET" and not key and "list-type" in params:
            kind = "list"
        elif key and method in ("GET", "HEAD"):
            kind = "get"
        elif key and method == "PUT":
            kind = "put"
        elif key and method == "DELETE":
            kind = "delete"
        elif not key:
            kind = "bucket"
        else:
            kind = "other"
        return Request(method, path, query, headers, rest[:length], kind, bucket, key)

    def _forward(self, r: Request):
        query = r.query
        if r.kind == "list" and self.list_page_size is not None:
            query = re.sub(r"(^|&)max-keys=\d+", rf"\g<1>max-keys={self.list_page_size}", query)
        conn = http.client.HTTPConnection(*self.upstream, timeout=30)
        try:
            headers = {k: v for k, v in r.headers.items() if k not in _HOP_BY_HOP and k != "expect"}
            conn.request(r.method, r.path + ("?" + query if query else ""), body=r.body or None, headers=headers)
            resp = conn.getresponse()
            body = resp.read()
            out = [(k, v) for k, v in resp.getheaders() if k.lower() not in _HOP_BY_HOP]
            return resp.status, resp.reason, out, body
        finally:
            conn.close()

    def _send(self, c: socket.socket, status: int, reason: str, headers, body: bytes):
        head = f"HTTP/1.1 {status} {reason}\r\n"
        for k, v in headers:
            head += f"{k}: {v}\r\n"
        head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        c.sendall(head.encode("latin-1") + body)

    def _log(self, r: Request, outcome: str):
        with self._lock:
            self.log.append(LogEntry(r.method, r.kind, r.key, r.query, outcome))


def _reset(c: socket.socket):
    """Closes with RST (SO_LINGER 0): the peer sees 'connection reset', not an orderly end."""
    try:
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    _close_quietly(c)


def _close_quietly(c: socket.socket):
    try:
        c.close()
    except OSError:
        pass
