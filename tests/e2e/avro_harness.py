"""Avro helpers for the e2e tests (tests/e2e/test_routine_load_avro.py).

- `SchemaRegistry`: a Confluent schema registry fixture, a small http.server in a thread of the test process:
  `GET /schemas/ids/<id>` answers `{"schema": "<schema JSON text>"}` (404 with error_code 40403 for an unknown id),
  with optional basic auth (401 without the right credentials). It counts requests per id and remembers the
  Authorization headers it saw. `stop()` closes the port; `start()` again reopens the same port (an outage).
  `stop(keep_port=True)` keeps the port bound without listening while down (connections are refused), so no other
  process can take it before `start()` reopens it.
  Run as a script it serves schema files until killed:
      /usr/bin/python3 tests/e2e/avro_harness.py --port 8081 [--user u --password p] 1=sensor.avsc 2=other.avsc
- `produce_avro()`: writes JSON records as Confluent-framed Avro (tools/avroproducer, avro-c + librdkafka) to one
  partition; `produce_hex()` writes raw messages given in hex (for malformed ones).
"""
from __future__ import annotations

import argparse
import base64
import http.server
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading

import kafka_harness as kh

LOOPBACK = "127.0.0.1"


# The sensor_log record of the Routine Load reference's Avro example, and record i of the tests' data.
SENSOR_SCHEMA = {
    "type": "record", "name": "sensor_log", "fields": [
        {"name": "id", "type": "long"},
        {"name": "name", "type": "string"},
        {"name": "checked", "type": "boolean"},
        {"name": "data", "type": "double"},
        {"name": "sensor_type", "type": {"type": "enum", "name": "sensor_type_enum",
                                         "symbols": ["TEMPERATURE", "HUMIDITY", "AIR-PRESSURE"]}}]}
SENSOR_TYPES = ["TEMPERATURE", "HUMIDITY", "AIR-PRESSURE"]


def sensor_record(i: int) -> dict:
    return {"id": 10_000_000_000 + i, "name": f"sensor-{i} ü\"x", "checked": i % 3 == 0,
            "data": (i * 0.37 - 50) if i % 5 else 1e-7 * i, "sensor_type": SENSOR_TYPES[i % 3]}


class SchemaRegistry:
    def __init__(self, schemas: dict[int, dict | str], user: str | None = None, password: str | None = None):
        self.schemas = {int(k): (v if isinstance(v, str) else json.dumps(v)) for k, v in schemas.items()}
        self.user, self.password = user, password
        self.port = 0
        self.requests: dict[int, int] = {}
        self.auth_headers: list[str] = []
        self._server: http.server.ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._held: socket.socket | None = None  # the port, bound but not listening, while stopped (keep_port)

    def url(self, with_credentials: bool = True) -> str:
        creds = f"{self.user}:{self.password}@" if with_credentials and self.user else ""
        return f"http://{creds}{LOOPBACK}:{self.port}"

    def start(self) -> "SchemaRegistry":
        registry = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _send(self, code: int, body: dict):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                auth = self.headers.get("Authorization", "")
                with registry._lock:
                    registry.auth_headers.append(auth)
                if registry.user is not None:
                    want = "Basic " + base64.b64encode(f"{registry.user}:{registry.password}".encode()).decode()
                    if auth != want:
                        return self._send(401, {"error_code": 40101, "message": "Unauthorized"})
                parts = self.path.rstrip("/").split("/")
                if len(parts) != 4 or parts[1] != "schemas" or parts[2] != "ids" or not parts[3].isdigit():
                    return self._send(404, {"error_code": 404, "message": "HTTP 404 Not Found"})
                sid = int(parts[3])
                with registry._lock:
                    registry.requests[sid] = registry.requests.get(sid, 0) + 1
                if sid not in registry.schemas:
                    return self._send(404, {"error_code": 40403, "message": "Schema not found"})
                return self._send(200, {"schema": registry.schemas[sid]})

        self._release_port()
        self._server = http.server.ThreadingHTTPServer((LOOPBACK, self.port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self, keep_port: bool = False):
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
            if keep_port:
                held = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                held.bind((LOOPBACK, self.port))
                self._held = held
        if not keep_port:
            self._release_port()

    def _release_port(self):
        if self._held is not None:
            self._held.close()
            self._held = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def avroproducer_path() -> str:
    """tools/avroproducer/avroproducer next to the testbroker ctest passed (build/tools/...)."""
    tools = os.path.dirname(os.path.dirname(os.path.abspath(kh.TESTBROKER_PATH)))
    return os.path.join(tools, "avroproducer", "avroproducer")


def _run_producer(args: list[str], stdin: str, what: str, timeout: float):
    r = subprocess.run([avroproducer_path()] + args, input=stdin.encode(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    if r.returncode != 0:
        raise kh.BrokerError(f"avroproducer failed ({r.returncode}) producing {what}: "
                             f"{r.stderr.decode('utf-8', 'replace')[-2000:]}")


def produce_avro(bootstrap: str, topic: str, partition: int, schema_id: int, schema: dict | str, records: list,
                 timeout: float = 120.0):
    """Writes `records` (JSON-able values of `schema`) as Confluent-framed Avro with `schema_id`."""
    if not records:
        return
    with tempfile.NamedTemporaryFile("w", suffix=".avsc", delete=False) as f:
        f.write(schema if isinstance(schema, str) else json.dumps(schema))
        path = f.name
    try:
        lines = "".join(json.dumps(r) + "\n" for r in records)
        _run_producer(["--brokers", bootstrap, "--topic", topic, "--partition", str(partition),
                       "--schema-id", str(schema_id), "--schema", path], lines,
                      f"{len(records)} records to {topic}/{partition}", timeout)
    finally:
        os.unlink(path)


def produce_hex(bootstrap: str, topic: str, partition: int, messages: list[bytes], timeout: float = 60.0):
    """Writes each message's bytes as they are."""
    lines = "".join(m.hex() + "\n" for m in messages)
    _run_producer(["--brokers", bootstrap, "--topic", topic, "--partition", str(partition), "--hex"], lines,
                  f"{len(messages)} raw messages to {topic}/{partition}", timeout)


def main() -> int:
    ap = argparse.ArgumentParser(description="Confluent schema registry fixture: serves schema files by id")
    ap.add_argument("--port", type=int, default=8081)
    ap.add_argument("--user")
    ap.add_argument("--password")
    ap.add_argument("schemas", nargs="+", help="ID=FILE")
    a = ap.parse_args()
    schemas = {}
    for spec in a.schemas:
        sid, path = spec.split("=", 1)
        with open(path) as f:
            schemas[int(sid)] = f.read()
    reg = SchemaRegistry(schemas, a.user, a.password)
    reg.port = a.port
    reg.start()
    print(f"schema registry on {reg.url(with_credentials=False)}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
