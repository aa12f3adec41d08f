"""A small Iceberg REST catalog for tests (the routes of apache/iceberg open-api/rest-catalog-open-api.yaml that
Sluice uses), served on a free loopback port from a thread of the test process. It keeps the tables in memory and
writes every metadata.json it makes into s3rver (anonymous PUT) under the table's location, as a real REST server
writes into its warehouse, so npm icebird can read a table from the metadata location the catalog holds.

It ENFORCES a commit's requirements (assert-table-uuid, assert-ref-snapshot-id, assert-create) and answers 409
CommitFailedException when one fails, and it checks what Java's TableMetadata builder checks of an added
snapshot (a sequence number above the table's last one). Faults for tests:
- `refuse_commits = n`: the next n commits are answered 409 whatever their requirements;
- `client = (id, secret)`: POST /v1/oauth/tokens (OAuth2 client credentials) answers the current `token`; setting
  `token` to another value afterwards is an expired token (401 until the client fetches a new one);
- `lose_answers = n`: the next n commits are applied and answered 503 (the outcome is unknown to the client);
- `interpose_commits = n`: before each of the next n commits to a table with a snapshot, "another writer" commits first (a snapshot that
  keeps the current manifest list, summary writer=other), so the commit's assert-ref-snapshot-id fails for real.

    with S3rver() as s3, RestCatalogFixture(s3, warehouse="s3://lake/rest", token="t0k") as rest:
        ... "iceberg.catalog.uri" = "{rest.uri}" ...
"""
from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlparse

from harness import LOOPBACK


class CommitFailed(Exception):
    pass


class BadRequest(Exception):
    pass


class RestCatalogFixture:
    def __init__(self, s3, warehouse: str, token: str = "", prefix: str = "sluice-test",
                 client: tuple[str, str] | None = None):
        self.s3 = s3
        self.warehouse = warehouse.rstrip("/")
        self.token = token
        self.prefix = prefix
        self.client = client  # OAuth2 client credentials POST /v1/oauth/tokens exchanges for `token`
        self.tokens_issued = 0
        self.namespaces: dict[tuple, dict] = {}
        self.tables: dict[tuple, dict] = {}  # (ns tuple, name) -> {"location": ..., "metadata": {...}}
        self.lock = threading.Lock()
        self.refuse_commits = 0
        self.interpose_commits = 0
        self.lose_answers = 0  # the next n commits are applied, then answered 503 (the spec's CommitStateUnknown)
        self.answers_lost = 0
        self.conflicts_answered = 0  # 409s sent for commits
        self.commits = 0             # commits applied (Sluice's, not the interposed ones)
        self.requests: list[tuple[str, str]] = []
        self.commit_bodies: list[dict] = []
        self.server: ThreadingHTTPServer | None = None

    @property
    def uri(self) -> str:
        return f"http://{LOOPBACK}:{self.server.server_address[1]}"

    def __enter__(self):
        fixture = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self, status: int, body=None):
                data = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                if body is not None:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _handle(self, method: str):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                if method == "POST" and self.path == "/v1/oauth/tokens":
                    return self._answer(*fixture.issue_token(raw.decode()))
                body = json.loads(raw) if raw else None
                if fixture.token and self.headers.get("Authorization") != f"Bearer {fixture.token}":
                    return self._answer(401, error(401, "NotAuthorizedException", "bearer token required"))
                status, answer = fixture.route(method, self.path, body)
                self._answer(status, answer)

            def do_GET(self):
                self._handle("GET")

            def do_POST(self):
                self._handle("POST")

            def do_DELETE(self):
                self._handle("DELETE")

            def do_HEAD(self):
                self._handle("HEAD")

        self.server = ThreadingHTTPServer((LOOPBACK, 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        return False

    # ---- what tests look at --------------------------------------------------------------------------------------
    def metadata_location(self, ns: str, name: str) -> str:
        with self.lock:
            return self.tables[((ns,), name)]["location"]

    def metadata(self, ns: str, name: str) -> dict:
        with self.lock:
            return json.loads(json.dumps(self.tables[((ns,), name)]["metadata"]))

    def issue_token(self, form: str):
        fields = {k: v[0] for k, v in parse_qs(form).items()}
        if (not self.client or fields.get("grant_type") != "client_credentials" or
                (fields.get("client_id"), fields.get("client_secret")) != self.client):
            return 401, {"error": "invalid_client", "error_description": "unknown client credentials"}
        with self.lock:
            self.tokens_issued += 1
        return 200, {"access_token": self.token, "token_type": "bearer", "expires_in": 3600,
                     "issued_token_type": "urn:ietf:params:oauth:token-type:access_token"}

    # ---- routing ---------------------------------------------------------------------------------------------------
    def route(self, method: str, raw_path: str, body):
        url = urlparse(raw_path)
        query = parse_qs(url.query)
        parts = [unquote(p) for p in url.path.split("/") if p]
        with self.lock:
            self.requests.append((method, url.path))
            try:
                if parts == ["v1", "config"]:
                    return 200, {"defaults": {}, "overrides": {"prefix": self.prefix}}
                if parts[:2] != ["v1", self.prefix]:
                    return 404, error(404, "NotFoundException", f"no route {url.path}")
                rest = parts[2:]
                if rest == ["namespaces"]:
                    if method == "GET":
                        return 200, {"namespaces": [list(n) for n in sorted(self.namespaces)]}
                    if method == "POST":
                        ns = tuple(body["namespace"])
                        if ns in self.namespaces:
                            return 409, error(409, "AlreadyExistsException", f"Namespace already exists: {ns}")
                        self.namespaces[ns] = body.get("properties") or {}
                        return 200, {"namespace": list(ns), "properties": self.namespaces[ns]}
                if len(rest) >= 2 and rest[0] == "namespaces":
                    ns = tuple(rest[1].split("\x1f"))
                    if ns not in self.namespaces:
                        return 404, error(404, "NoSuchNamespaceException", f"Namespace does not exist: {ns}")
                    if len(rest) == 2:
                        if method == "GET":
                            return 200, {"namespace": list(ns), "properties": self.namespaces[ns]}
                        if method == "DELETE":
                            if any(k[0] == ns for k in self.tables):
                                return 409, error(409, "NamespaceNotEmptyException", f"Namespace not empty: {ns}")
                            del self.namespaces[ns]
                            return 204, None
                    if len(rest) == 3 and rest[2] == "tables":
                        if method == "GET":
                            return 200, {"identifiers": [{"namespace": list(k[0]), "name": k[1]}
                                                         for k in sorted(self.tables) if k[0] == ns]}
                        if method == "POST":
                            return self.create_table(ns, body)
                    if len(rest) == 4 and rest[2] == "tables":
                        key = (ns, rest[3])
                        if key not in self.tables:
                            return 404, error(404, "NoSuchTableException", f"Table does not exist: {rest[3]}")
                        if method == "GET":
                            return 200, self.load_result(key)
                        if method == "DELETE":
                            del self.tables[key]
                            return 204, None
                        if method == "POST":
                            return self.commit(key, body, query)
                return 404, error(404, "NotFoundException", f"no route {method} {url.path}")
            except CommitFailed as e:
                self.conflicts_answered += 1
                return 409, error(409, "CommitFailedException", str(e))
            except (BadRequest, KeyError, TypeError, ValueError) as e:
                return 400, error(400, "BadRequestException", f"{type(e).__name__}: {e}")

    # ---- tables ----------------------------------------------------------------------------------------------------
    def load_result(self, key):
        t = self.tables[key]
        return {"metadata-location": t["location"], "metadata": t["metadata"], "config": {}}

    def write(self, key, metadata: dict, version: int) -> str:
        location = f"{metadata['location']}/metadata/{version:05d}-{uuid.uuid4()}.metadata.json"
        bucket, _, object_key = location[len("s3://"):].partition("/")
        self.s3.put(bucket, object_key, json.dumps(metadata, indent=2).encode())
        return location

    def create_table(self, ns, body):
        name = body["name"]
        if (ns, name) in self.tables:
            return 409, error(409, "AlreadyExistsException", f"Table already exists: {name}")
        schema = body["schema"]
        spec = body.get("partition-spec") or {"spec-id": 0, "fields": []}
        location = (body.get("location") or f"{self.warehouse}/{'/'.join(ns)}/{name}").rstrip("/")
        now = int(time.time() * 1000)
        metadata = {
            "format-version": 2, "table-uuid": str(uuid.uuid4()), "location": location,
            "last-sequence-number": 0, "last-updated-ms": now,
            "last-column-id": max([f["id"] for f in schema["fields"]] or [0]),
            "current-schema-id": schema.get("schema-id", 0), "schemas": [schema],
            "default-spec-id": spec.get("spec-id", 0), "partition-specs": [spec],
            "last-partition-id": max([f["field-id"] for f in spec["fields"]] or [999]),
            "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}],
            "properties": body.get("properties") or {}, "current-snapshot-id": -1, "refs": {},
            "snapshots": [], "snapshot-log": [], "metadata-log": [],
        }
        self.tables[(ns, name)] = {"location": self.write((ns, name), metadata, 0), "metadata": metadata}
        return 200, self.load_result((ns, name))

    def check_requirements(self, m: dict, requirements: list):
        for r in requirements:
            kind = r["type"]
            if kind == "assert-table-uuid":
                if r["uuid"] != m["table-uuid"]:
                    raise CommitFailed(f"Requirement failed: UUID does not match: expected {m['table-uuid']} != {r['uuid']}")
            elif kind == "assert-ref-snapshot-id":
                ref = m["refs"].get(r["ref"])
                want = r.get("snapshot-id")
                if want is None and ref is not None:
                    raise CommitFailed(f"Requirement failed: branch or tag {r['ref']} was created concurrently")
                if want is not None and (ref is None or ref["snapshot-id"] != want):
                    have = None if ref is None else ref["snapshot-id"]
                    raise CommitFailed(f"Requirement failed: branch {r['ref']} has changed: expected id {want} != {have}")
            elif kind == "assert-create":
                raise CommitFailed("Requirement failed: table already exists")
            else:
                raise BadRequest(f"unknown requirement {kind}")

    def apply(self, m: dict, updates: list) -> dict:
        m = json.loads(json.dumps(m))
        for u in updates:
            action = u["action"]
            if action == "add-snapshot":
                s = u["snapshot"]
                if any(x["snapshot-id"] == s["snapshot-id"] for x in m["snapshots"]):
                    raise BadRequest(f"Snapshot already exists: {s['snapshot-id']}")
                if s.get("parent-snapshot-id") is not None and s["sequence-number"] <= m["last-sequence-number"]:
                    raise BadRequest(f"Cannot add snapshot with sequence number {s['sequence-number']} older than "
                                     f"last sequence number {m['last-sequence-number']}")
                m["snapshots"].append(s)
                m["last-sequence-number"] = max(m["last-sequence-number"], s["sequence-number"])
            elif action == "set-snapshot-ref":
                sid = u["snapshot-id"]
                if not any(x["snapshot-id"] == sid for x in m["snapshots"]):
                    raise BadRequest(f"Cannot set {u['ref-name']} to unknown snapshot: {sid}")
                ref = {k: v for k, v in u.items() if k not in ("action", "ref-name")}
                m["refs"][u["ref-name"]] = ref
                if u["ref-name"] == "main":
                    m["current-snapshot-id"] = sid
                    ts = next(x["timestamp-ms"] for x in m["snapshots"] if x["snapshot-id"] == sid)
                    m["snapshot-log"].append({"timestamp-ms": ts, "snapshot-id": sid})
            elif action == "remove-snapshots":
                gone = set(u["snapshot-ids"])
                m["snapshots"] = [x for x in m["snapshots"] if x["snapshot-id"] not in gone]
                m["snapshot-log"] = [e for e in m["snapshot-log"] if e["snapshot-id"] not in gone]
            elif action == "remove-snapshot-ref":
                m["refs"].pop(u["ref-name"], None)
                if u["ref-name"] == "main":
                    m["current-snapshot-id"] = -1
            elif action == "set-properties":
                m["properties"].update(u["updates"])
            elif action == "remove-properties":
                for k in u["removals"]:
                    m["properties"].pop(k, None)
            else:
                raise BadRequest(f"unsupported update {action}")
        return m

    def replace(self, key, m: dict):
        t = self.tables[key]
        old = t["metadata"]
        m["metadata-log"] = old.get("metadata-log", []) + [{"timestamp-ms": old["last-updated-ms"],
                                                             "metadata-file": t["location"]}]
        m["last-updated-ms"] = max(int(time.time() * 1000), old["last-updated-ms"] + 1)
        version = len(m["metadata-log"])
        t["location"] = self.write(key, m, version)
        t["metadata"] = m

    def other_writer_commits(self, key):
        """Another engine appends nothing: a snapshot on main that keeps the current manifest list. False (nothing
        done) while the table has no snapshot yet."""
        m = self.tables[key]["metadata"]
        current = next((s for s in m["snapshots"] if s["snapshot-id"] == m["current-snapshot-id"]), None)
        if current is None:
            return False
        sid = int(uuid.uuid4().int % (1 << 62))
        summary = {k: v for k, v in current["summary"].items() if k.startswith("total-")}
        summary.update({"operation": "append", "writer": "other", "added-records": "0", "added-data-files": "0"})
        snapshot = {"snapshot-id": sid, "parent-snapshot-id": current["snapshot-id"],
                    "sequence-number": m["last-sequence-number"] + 1, "timestamp-ms": int(time.time() * 1000),
                    "manifest-list": current["manifest-list"], "summary": summary,
                    "schema-id": current.get("schema-id", 0)}
        self.replace(key, self.apply(m, [{"action": "add-snapshot", "snapshot": snapshot},
                                         {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch",
                                          "snapshot-id": sid}]))
        return True

    def commit(self, key, body, query):
        self.commit_bodies.append(body)
        if self.interpose_commits > 0 and self.other_writer_commits(key):
            self.interpose_commits -= 1
        if self.refuse_commits > 0:
            self.refuse_commits -= 1
            raise CommitFailed("Commit refused by the test (forced conflict)")
        m = self.tables[key]["metadata"]
        self.check_requirements(m, body.get("requirements", []))
        self.replace(key, self.apply(m, body.get("updates", [])))
        self.commits += 1
        if self.lose_answers > 0:
            self.lose_answers -= 1
            self.answers_lost += 1
            return 503, error(503, "CommitStateUnknownException", "the commit's answer was lost (test)")
        return 200, {"metadata-location": self.tables[key]["location"], "metadata": self.tables[key]["metadata"]}


def error(code: int, kind: str, message: str) -> dict:
    return {"error": {"message": message, "type": kind, "code": code}}
