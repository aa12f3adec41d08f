#!/usr/bin/python3
"""Attacks on a running server (issue 10): every way the issue's "Why" found to reach the server's files, secrets,
catalog, settings or process, tried as root AND as a plain user, on a server running as the current user with a
root password (SLUICE_ROOT_PASSWORD).

Each attempt must fail with a clear error (a MySQL error from the server, with the code the sandbox uses where one
is planned: 1227 for files, settings, ATTACH, INSTALL, COPY to a path) AND leave its target untouched. After every
attempt the script checks, as root:

- the server is alive (SELECT 1); if it died, that is the failure and it is started again for the next attempts;
- the canary table holds exactly the rows written at the start;
- the routine load's Progress (SHOW ROUTINE LOAD) and its table's rows are what they were;
- nothing appeared in the folder the write attempts aim at (and the exact target path does not exist);
- no secret (SASL / SSL / OAuth properties of the routine load and the pipe, the S3 secret key, the bytes of
  secrets.key, a marker inside a file only the server user can read) is in any result row or error message.

The fixture: a test broker topic with a routine load carrying secret properties (the mock broker ignores SASL/SSL
settings while security.protocol is plaintext), a Kafka pipe with a secret client setting, an S3 storage
connection (its endpoint is never contacted), a local volume with one loaded file, the canary table, and the user
mallory (CREATE USER 'mallory'@'%' IDENTIFIED BY 'pw'; while CREATE USER does not exist, every attempt as mallory
fails with that reason). Then server-level attempts: a NUL byte, 1,100 idle sockets, HTTP without credentials,
a 200 MB POST, 8 slow HTTP clients, password guessing, runaway queries, a pipe flood, SIGTERM mid-query.

The whole script is bounded (BUDGET_S); attempts that would start after it report FAIL without running.

    /usr/bin/python3 tests/e2e/test_attacks.py --server build/sluice --testbroker build/tools/testbroker/testbroker
    /usr/bin/python3 tests/e2e/test_attacks.py --server build/sluice -k mallory:   # only the attempts as mallory
"""
from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import socket
import ssl
import struct
import sys
import tempfile
import threading
import time
import urllib.request

sys.dont_write_bytecode = True  # keep the source tree clean of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import LOOPBACK, Collector, TestSuite, check  # noqa: E402

suite = TestSuite("test_attacks")

BUDGET_S = 300.0
T0 = time.monotonic()
ROOT_PW = "R00t-pw-for-attacks"
MALLORY_PW = "pw"

# Secret values: none may ever come back to a client (rows or error text), nor be in the log or the database file.
SASL_SECRET = "SaslSecret-5be1c0de"
SSL_SECRET = "SslKeySecret-77aa91"
OAUTH_SECRET = "OauthSecret-0f3e2d"
PIPE_SECRET = "PipeSecret-9c8b7a"
S3_SECRET = "S3SecretKey-4d5e6f"
FILE_MARKER = "FileMarker-only-the-server-user-reads-3a2b"
REJECT_MARKER = "RejectedRowMarker-6e5d"
SECRETS = [SASL_SECRET, SSL_SECRET, OAUTH_SECRET, PIPE_SECRET, S3_SECRET, FILE_MARKER]

CANARY = [(1, "alpha"), (2, "beta"), (3, "gamma"), (4, "delta"), (5, "epsilon")]
N_MESSAGES = 20

DENIED = {1227, 1142, 1044}            # access denied: FILE / system privilege, table, database
HIDDEN = DENIED | {1146, 1049}         # ... or the internal object is not there under that name

F: dict = {}                           # the fixture, filled by setup


def budget_left() -> float:
    return BUDGET_S - (time.monotonic() - T0)


# ---- helpers -------------------------------------------------------------------------------------------------------

def q(conn, sql, args=None):
    return kh.query(conn, sql, args)


def root(db: str | None = "d"):
    return F["srv"].connect(password=ROOT_PW, database=db, read_timeout=30)


def login(user: str, db: str | None = None, read_timeout: float = 30):
    if user == "root":
        return root(db)
    if F.get("mallory_error"):
        raise AssertionError(f"no account to attack as: {F['mallory_error']}")
    return F["srv"].connect(user="mallory", password=MALLORY_PW, database=db, read_timeout=read_timeout)


def run_all(conn, sql: str) -> list:
    """Every row of every result set (as text), raising the pymysql error if the statement fails."""
    out = []
    with conn.cursor() as cur:
        cur.execute(sql)
        while True:
            if cur.description is not None:
                out.extend(cur.fetchall())
            if not cur.nextset():
                break
    return out


def leaked(text: str) -> list[str]:
    found = [s for s in SECRETS if s in text]
    key = F.get("key_forms") or []
    found += ["secrets.key content" for k in key if k and k in text][:1]
    return found


def server_pid() -> int:
    return F["srv"].proc.pid


def proc_status(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def job_progress(conn):
    job = kh.show_job(conn, "rl")
    return job.get("Progress_raw", job.get("Progress"))


def events_count(conn) -> int:
    return int(q(conn, "SELECT count(*) FROM d.events")[0][0])


def wait_stable_progress(conn, timeout: float = 20.0):
    """Progress and the row count of the job's table once they stop changing."""
    last = None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = (job_progress(conn), events_count(conn))
        if now == last:
            return now
        last = now
        time.sleep(0.7)
    return last


def ensure_server(c: Collector):
    """After an attempt: the server must be alive; if it is not, say so and start it again (same data dir)."""
    srv = F["srv"]
    if not srv.alive():
        c.check(False, f"the server died (exit code {srv.proc.returncode}); last log lines:\n{srv.log_tail(8)}")
        srv.start()
        F["root"] = root()
        return
    try:
        r = q(F["root"], "SELECT 1")
    except Exception:  # noqa: BLE001 - the cached connection may be gone; one fresh try
        try:
            F["root"] = root()
            r = q(F["root"], "SELECT 1")
        except Exception as e:  # noqa: BLE001
            c.check(False, f"SELECT 1 as root failed after the attempt: {e!r}")
            time.sleep(0.5)
            revive()
            return
    c.check(r == [(1,)], f"SELECT 1 gave {r!r}")


def revive():
    """Before an attempt: a server killed by an earlier attempt (already reported there) is started again, so every
    attempt is tried on a live server."""
    srv = F.get("srv")
    if srv is None:
        if not F.get("setup_tried"):   # run with -k: the fixture is still needed
            setup(suite)
        srv = F.get("srv")
        if srv is None:
            raise AssertionError("the fixture could not be set up (see the setup test)")
    if not srv.alive():
        print(f"  (the server was dead before this attempt, exit code {srv.proc.returncode}: starting it again)",
              flush=True)
        srv.start()
        F["root"] = root()


def standard_checks(c: Collector, wait_progress: bool = False):
    ensure_server(c)
    conn = F["root"]
    try:
        rows = q(conn, "SELECT id, v FROM d.canary ORDER BY id")
        c.check([tuple(r) for r in rows] == CANARY, f"the canary table changed: {rows!r}")
    except Exception as e:  # noqa: BLE001
        c.check(False, f"the canary table cannot be read as root: {e!r}")
    try:
        if wait_progress:
            time.sleep(1.5)   # give a tampered job time to load again
        now = (job_progress(conn), events_count(conn))
        if now != F["progress"]:
            c.check(False, f"the routine load moved: Progress/rows {F['progress']!r} -> {now!r}")
            F["progress"] = wait_stable_progress(conn)    # compare the next attempts against the new state
    except Exception as e:  # noqa: BLE001
        c.check(False, f"SHOW ROUTINE LOAD / the job's table cannot be read as root: {e!r}")
    written = sorted(os.listdir(F["outdir"]))
    if written:
        c.check(False, f"files appeared in the write target folder: {written}")
        for name in written:
            p = os.path.join(F["outdir"], name)
            shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) else os.unlink(p)


def expect_refused(c: Collector, conn, sql: str, codes: set | None, what: str = "") -> tuple | None:
    """The statement must fail with a server error (code in `codes` when given) and a message; nothing it returns
    or says may hold a secret. Returns (code, message) or None when it succeeded."""
    import pymysql
    label = what or sql[:80]
    try:
        rows = run_all(conn, sql)
    except pymysql.MySQLError as e:
        code = e.args[0] if e.args else None
        msg = str(e.args[1]) if len(e.args) > 1 else str(e)
        c.check(not leaked(msg), f"{label}: the error message leaks {leaked(msg)}: {msg[:300]}")
        if code is None or 2000 <= code < 3000:   # CR_* client errors: the connection broke
            c.check(False, f"{label}: no error from the server, the connection broke ({code}: {msg[:200]})")
        elif codes is not None and code not in codes:
            c.check(False, f"{label}: refused with error {code} ({msg[:200]!r}); expected one of {sorted(codes)}")
        c.check(bool(msg.strip()), f"{label}: the error has no message")
        return code, msg
    text = repr(rows)
    c.check(not leaked(text), f"{label}: the result leaks {leaked(text)}")
    c.check(False, f"{label}: succeeded (expected a refusal); it returned {len(rows)} row(s): {text[:200]}")
    return None


# ---- the fixture ------------------------------------------------------------------------------------------------------

@suite.test(timeout=120)
def setup(s: TestSuite):
    F["setup_tried"] = True
    work = tempfile.mkdtemp(prefix="sluice-attacks-")
    F["work"] = work
    F["outdir"] = os.path.join(work, "out")            # every write attempt aims in here
    os.makedirs(F["outdir"])
    victim = os.path.join(work, "victim")             # files only the server user should be able to read
    os.makedirs(victim)
    with open(os.path.join(victim, "victim.csv"), "w") as f:
        f.write(f"a,b\n1,{FILE_MARKER}\n")
    with open(os.path.join(victim, "victim.json"), "w") as f:
        f.write(json.dumps({"a": 1, "b": FILE_MARKER}) + "\n")
    os.makedirs(os.path.join(victim, "import"))
    with open(os.path.join(victim, "import", "schema.sql"), "w") as f:
        f.write("CREATE TABLE pwned_by_import(i INTEGER);\n")
    with open(os.path.join(victim, "import", "load.sql"), "w") as f:
        f.write("")
    F["victim"] = victim
    voldir = os.path.join(work, "vol")
    os.makedirs(voldir)
    with open(os.path.join(voldir, "a.csv"), "w") as f:
        f.write("id,v\n1001,vol-a\n1002,vol-b\n")

    broker = kh.adopt_broker(kh.TestBroker({"attack": 1, "pipe": 1}).start())
    F["broker"] = broker
    # Egress is limited to what the fixture needs: the test broker and the S3 storage connection's endpoint.
    srv = s.shared_server(env_password=ROOT_PW, extra_args=["--log-level", "debug",
                                                            "--allow-egress", f"{broker.bootstrap},127.0.0.1:9"])
    F["srv"] = srv
    conn = srv.connect(password=ROOT_PW)
    F["root"] = conn
    q(conn, "CREATE DATABASE d")
    q(conn, "USE d")
    q(conn, "CREATE TABLE canary (id INT, v STRING)")
    q(conn, "INSERT INTO canary VALUES " + ", ".join(f"({i}, '{v}')" for i, v in CANARY))
    q(conn, "CREATE TABLE nul_victim (id INT)")
    q(conn, "INSERT INTO nul_victim SELECT * FROM (VALUES " + ", ".join(f"({i})" for i in range(100)) + ") t(id)")
    q(conn, "CREATE TABLE scratch (a STRING, b STRING)")
    q(conn, "CREATE TABLE events (id BIGINT, v STRING)")
    q(conn, "CREATE TABLE vol_rows (id INT, v STRING)")
    q(conn, "CREATE TABLE piped (v STRING)")

    # a row planted through Kafka that crashed every later reader (json_structure on 100,000 nested arrays)
    deep = "[" * 100_000 + "1" + "]" * 100_000
    msgs = [f"{i},row-{i}" for i in range(1, N_MESSAGES)] + [f"{N_MESSAGES},{deep}", f"notanumber,{REJECT_MARKER}"]
    broker.produce("attack", 0, msgs)
    q(conn, f"""CREATE ROUTINE LOAD d.rl ON events COLUMNS TERMINATED BY ",", COLUMNS (id, v)
PROPERTIES ("max_batch_interval" = "0.2", "max_error_number" = "100", "strict_mode" = "true")
FROM KAFKA ("kafka_broker_list" = "{broker.bootstrap}", "kafka_topic" = "attack",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING",
            "property.sasl.password" = "{SASL_SECRET}",
            "property.ssl.key.password" = "{SSL_SECRET}",
            "property.sasl.oauthbearer.config" = "principal={OAUTH_SECRET}")""")
    kh.wait_rows(conn, "d.events", N_MESSAGES, 60, job="rl")
    kh.wait_until(lambda: kh.show_job(conn, "rl")["State"] == "RUNNING", 30, "the routine load to be RUNNING")
    F["progress"] = wait_stable_progress(conn)

    q(conn, f"""CREATE PIPE p1 BATCH_INTERVAL_IN_SECONDS = '1' AS COPY INTO piped FROM (
    SELECT value::STRING FROM READ_KAFKA('{broker.bootstrap}', 'pipe', '', 'attack_group', '', '', '', '', 'raw',
                                         'raw', 0, map('kafka.sasl.oauthbearer.config', 'principal={PIPE_SECRET}')))""")
    q(conn, f"CREATE STORAGE CONNECTION s3c TYPE S3 ENDPOINT = 'http://127.0.0.1:9' ACCESS_ID = 'AKIDATTACKS' "
            f"ACCESS_KEY = '{S3_SECRET}'")
    q(conn, f"CREATE VOLUME vol LOCATION 'file://{voldir}/'")
    q(conn, "COPY INTO vol_rows FROM VOLUME vol USING CSV OPTIONS ('header' = 'true')")
    check(q(conn, "SELECT count(*) FROM vol_rows") == [(2,)], "COPY INTO from the volume loaded the 2 rows")

    F["data_dir"] = srv.data_dir
    key_path = os.path.join(srv.data_dir, "secrets.key")
    with open(key_path, "rb") as f:
        key = f.read()
    F["key_forms"] = [key.hex(), key.hex().upper(), base64.b64encode(key).decode()] + (
        [key.decode("latin-1")] if len(key) >= 16 else [])
    try:
        F["memory_limit"] = q(conn, "SELECT current_setting('memory_limit')")[0][0]
    except Exception:  # noqa: BLE001 - refused once the sandbox is in
        F["memory_limit"] = None
    try:
        q(conn, f"CREATE USER 'mallory'@'%' IDENTIFIED BY '{MALLORY_PW}'")
        login("mallory").close()
    except Exception as e:  # noqa: BLE001
        F["mallory_error"] = f"CREATE USER 'mallory'@'%' IDENTIFIED BY 'pw' / logging in as mallory failed: {e!r}"
    F["root"] = root()


# ---- the attempts ---------------------------------------------------------------------------------------------------
# (name, SQL, allowed error codes, options). The SQL is a function of the fixture so paths can be filled in.
# options: wait_progress (the attempt targets the running job), after (an extra check: fn(c)), restore (root SQL
# run when the attempt succeeded, so one successful attack does not break the next attempts), users.

def outp(name: str) -> str:
    return os.path.join(F["outdir"], name)


def data(name: str) -> str:
    return os.path.join(F["data_dir"], name)


def vic(name: str) -> str:
    return os.path.join(F["victim"], name)


def path_absent(path_fn):
    def after(c: Collector):
        p = path_fn()
        c.check(not os.path.exists(p), f"{p} was written")
    return after


def volume_still_works(c: Collector):
    """enable_external_access=false broke every volume load until restart."""
    try:
        rows = q(F["root"], "SELECT relative_path FROM DIRECTORY(vol) ORDER BY relative_path")
        c.check([r[0] for r in rows] == ["a.csv"], f"DIRECTORY(vol) lists {rows!r}, expected a.csv only")
        rows = q(F["root"], "COPY INTO d.vol_rows FROM VOLUME vol USING CSV OPTIONS ('header' = 'true')")
        c.check(rows == [], f"COPY INTO loaded files again: {rows!r}")
        c.check(q(F["root"], "SELECT count(*) FROM d.vol_rows") == [(2,)], "vol_rows has its 2 rows")
    except Exception as e:  # noqa: BLE001
        c.check(False, f"the volume no longer works as root: {e!r}")


def load_history_still_works(c: Collector):
    try:
        rows = q(F["root"], "SELECT count(*) FROM load_history('d.vol_rows')")
        c.check(rows and rows[0][0] >= 1, f"load_history('d.vol_rows') gives {rows!r}")
    except Exception as e:  # noqa: BLE001
        c.check(False, f"load_history no longer works as root: {e!r}")


def job_loads_each_message_once(c: Collector):
    """CREATE MACRO main.sluice_batch ... UNION ALL ... injected rows into a running routine load: one new message
    must give exactly one new row."""
    conn = F["root"]
    before = events_count(conn)
    marker = 7000 + int(time.monotonic() * 1000) % 1000
    F["broker"].produce("attack", 0, [f"{marker},probe"])
    try:
        kh.wait_until(lambda: events_count(conn) >= before + 1, 20, "the probe message to be loaded")
        time.sleep(1.0)
        c.check(events_count(conn) == before + 1,
                f"one message gave {events_count(conn) - before} rows (rows injected into the load)")
    except AssertionError as e:
        c.check(False, f"the routine load stopped loading after the attempt: {e}")
    F["progress"] = wait_stable_progress(conn)


def volume_loads_once(c: Collector):
    """DELETE FROM __sluice.volume_loads made COPY INTO load files twice."""
    try:
        rows = q(F["root"], "COPY INTO d.vol_rows FROM VOLUME vol USING CSV OPTIONS ('header' = 'true')")
        c.check(rows == [], f"COPY INTO loaded an already loaded file again: {rows!r}")
        n = q(F["root"], "SELECT count(*) FROM d.vol_rows")[0][0]
        c.check(n == 2, f"vol_rows has {n} rows, expected 2")
        if n != 2:
            q(F["root"], "DELETE FROM d.vol_rows WHERE id > 0")
            q(F["root"], "INSERT INTO d.vol_rows VALUES (1001, 'vol-a'), (1002, 'vol-b')")
    except Exception as e:  # noqa: BLE001
        c.check(False, f"COPY INTO from the volume fails as root: {e!r}")


def no_connection(name: str):
    def after(c: Collector):
        names = [r[0] for r in q(F["root"], "SHOW STORAGE CONNECTIONS")]
        c.check(name not in names, f"storage connection {name} was created")
    return after


def no_job(name: str):
    def after(c: Collector):
        names = [r[1] for r in q(F["root"], "SHOW ALL ROUTINE LOAD FROM d")]
        c.check(name not in names, f"routine load {name} was created")
    return after


def no_table(name: str):
    def after(c: Collector):
        tables = [r[0] for r in q(F["root"], "SHOW TABLES FROM d")]
        c.check(name not in tables, f"table {name} was created")
    return after


def catalog_intact(c: Collector):
    tables = sorted(r[0] for r in q(F["root"], "SHOW TABLES FROM d"))
    for t in ("canary", "events", "vol_rows"):
        c.check(t in tables, f"table {t} is gone from SHOW TABLES FROM d: {tables}")
    rows = kh.show_rows(F["root"], "SHOW ROUTINE LOAD FOR rl")
    c.check(len(rows) == 1 and rows[0]["State"] == "RUNNING", f"the routine load is not RUNNING: {rows!r}")


NESTED_JSON = "SELECT json_structure((repeat('[', 100000) || '1' || repeat(']', 100000))::JSON)"
LONG_EXPR = "SELECT " + "+".join(["1"] * 20_000)
DEEP_PARENS = "SELECT " + "(" * 100_000 + "1" + ")" * 100_000
MEM = lambda: f"SET memory_limit = '{F['memory_limit']}'" if F.get("memory_limit") else "SET memory_limit = '4GB'"  # noqa: E731

ATTEMPTS = [
    # -- file table functions and replacement scans (part 3) --
    ("read_csv", lambda: "SELECT * FROM read_csv('/etc/passwd', sep = ':')", DENIED, {}),
    ("read_csv_victim", lambda: f"SELECT * FROM read_csv('{vic('victim.csv')}')", DENIED, {}),
    ("read_csv_glob", lambda: f"SELECT * FROM read_csv('{F['victim']}/*.csv')", DENIED, {}),
    ("read_csv_auto", lambda: f"SELECT * FROM read_csv_auto('{vic('victim.csv')}')", DENIED, {}),
    ("read_json", lambda: f"SELECT * FROM read_json('{vic('victim.json')}')", DENIED, {}),
    ("read_json_auto", lambda: f"SELECT * FROM read_json_auto('{vic('victim.json')}')", DENIED, {}),
    ("read_json_objects", lambda: f"SELECT * FROM read_json_objects('{vic('victim.json')}')", DENIED, {}),
    ("read_ndjson", lambda: f"SELECT * FROM read_ndjson('{vic('victim.json')}')", DENIED, {}),
    ("read_ndjson_objects", lambda: f"SELECT * FROM read_ndjson_objects('{vic('victim.json')}')", DENIED, {}),
    ("read_parquet", lambda: f"SELECT * FROM read_parquet('{data('sluice.duckdb')}')", DENIED, {}),
    ("parquet_metadata", lambda: f"SELECT * FROM parquet_metadata('{vic('victim.csv')}')", DENIED, {}),
    ("parquet_schema", lambda: f"SELECT * FROM parquet_schema('{vic('victim.csv')}')", DENIED, {}),
    ("parquet_file_metadata", lambda: f"SELECT * FROM parquet_file_metadata('{vic('victim.csv')}')", DENIED, {}),
    ("read_text", lambda: "SELECT content FROM read_text('/etc/passwd')", DENIED, {}),
    ("read_text_victim", lambda: f"SELECT content FROM read_text('{vic('victim.csv')}')", DENIED, {}),
    ("read_blob_home_listing", lambda: f"SELECT filename FROM read_blob('{os.path.expanduser('~')}/*')", DENIED, {}),
    ("read_blob_secrets_key", lambda: f"SELECT hex(content), content FROM read_blob('{data('secrets.key')}')",
     DENIED, {}),
    ("read_text_database_file", lambda: f"SELECT content FROM read_text('{data('sluice.duckdb')}')", DENIED, {}),
    ("glob", lambda: f"SELECT * FROM glob('{F['victim']}/*')", DENIED, {}),
    ("glob_etc", lambda: "SELECT * FROM glob('/etc/*')", DENIED, {}),
    ("sniff_csv", lambda: f"SELECT * FROM sniff_csv('{vic('victim.csv')}')", DENIED, {}),
    ("query_function", lambda: f"SELECT * FROM query('SELECT * FROM read_csv(''{vic('victim.csv')}'')')", DENIED, {}),
    ("query_table_function", lambda: f"SELECT * FROM query_table('{vic('victim.csv')}')", DENIED, {}),
    ("json_execute_serialized_sql", lambda: "SELECT * FROM json_execute_serialized_sql(json_serialize_sql("
     f"'SELECT content FROM read_text(''{vic('victim.csv')}'')'))", DENIED, {}),
    ("replacement_scan_passwd", lambda: "SELECT * FROM '/etc/passwd'", DENIED, {}),
    ("replacement_scan_victim", lambda: f"SELECT * FROM '{vic('victim.csv')}'", DENIED, {}),
    ("replacement_scan_secrets_key", lambda: f"SELECT * FROM '{data('secrets.key')}'", DENIED, {}),
    ("read_csv_in_subquery", lambda: f"SELECT (SELECT max(b) FROM read_csv('{vic('victim.csv')}'))", DENIED, {}),
    ("read_csv_in_cte", lambda: f"WITH x AS (SELECT * FROM read_csv('{vic('victim.csv')}')) SELECT * FROM x",
     DENIED, {}),
    ("insert_select_read_csv", lambda: f"INSERT INTO d.scratch SELECT * FROM read_csv('{vic('victim.csv')}')",
     DENIED, {"after": lambda c: c.check(q(F["root"], "SELECT count(*) FROM d.scratch") == [(0,)],
                                         "scratch got the victim file's rows")}),
    ("create_table_as_read_text", lambda: f"CREATE TABLE d.stolen AS SELECT * FROM read_text('{vic('victim.csv')}')",
     DENIED, {"after": no_table("stolen")}),
    ("create_view_read_text", lambda: f"CREATE VIEW d.stolen_v AS SELECT * FROM read_text('{vic('victim.csv')}')",
     DENIED, {"after": no_table("stolen_v")}),
    # -- COPY / EXPORT / IMPORT --
    ("copy_to_cron_line", lambda: "COPY (SELECT '* * * * * root touch /tmp/pwned') TO "
     f"'{outp('cron')}' (FORMAT csv, HEADER false, QUOTE '')", DENIED, {"after": path_absent(lambda: outp("cron"))}),
    ("copy_table_to_parquet", lambda: f"COPY d.canary TO '{outp('c.parquet')}' (FORMAT parquet)", DENIED,
     {"after": path_absent(lambda: outp("c.parquet"))}),
    ("copy_from_path", lambda: f"COPY d.scratch FROM '{vic('victim.csv')}' (HEADER true)", DENIED,
     {"after": lambda c: c.check(q(F["root"], "SELECT count(*) FROM d.scratch") == [(0,)],
                                 "COPY FROM loaded the victim file into scratch")}),
    ("export_database", lambda: f"EXPORT DATABASE '{outp('export')}'", DENIED,
     {"after": path_absent(lambda: outp("export"))}),
    ("import_database", lambda: f"IMPORT DATABASE '{vic('import')}'", DENIED, {"after": no_table("pwned_by_import")}),
    # -- ATTACH / DETACH / INSTALL / LOAD / CREATE SECRET --
    ("attach_new_file", lambda: f"ATTACH '{outp('evil.duckdb')}' AS evil", DENIED,
     {"after": path_absent(lambda: outp("evil.duckdb"))}),
    ("attach_database_file", lambda: f"ATTACH '{data('sluice.duckdb')}' AS stolen (READ_ONLY)", DENIED, {}),
    ("attach_memory", lambda: "ATTACH ':memory:' AS mem", DENIED, {}),
    ("detach_main", lambda: "DETACH sluice", DENIED, {"after": catalog_intact}),
    ("install_extension", lambda: "INSTALL httpfs", DENIED, {}),
    ("load_extension", lambda: "LOAD httpfs", DENIED, {}),
    ("load_extension_path", lambda: f"LOAD '{vic('evil.duckdb_extension')}'", DENIED, {}),
    ("create_secret", lambda: "CREATE SECRET s3x (TYPE S3, KEY_ID 'k', SECRET 'v')", DENIED, {}),
    ("create_persistent_secret", lambda: "CREATE PERSISTENT SECRET s3y (TYPE S3, KEY_ID 'k', SECRET 'v')", DENIED,
     {}),
    # -- engine settings (PRAGMA / SET / RESET) --
    ("pragma_memory_limit", lambda: "PRAGMA memory_limit = '2MB'", DENIED, {"restore": MEM}),
    ("set_memory_limit", lambda: "SET memory_limit = '2MB'", DENIED, {"restore": MEM}),
    ("set_global_memory_limit", lambda: "SET GLOBAL memory_limit = '2MB'", DENIED, {"restore": MEM}),
    ("reset_memory_limit", lambda: "RESET memory_limit", DENIED, {"restore": MEM}),
    ("pragma_threads", lambda: "PRAGMA threads = 1", DENIED, {"restore": lambda: "RESET threads"}),
    ("set_threads", lambda: "SET threads = 1", DENIED, {"restore": lambda: "RESET threads"}),
    ("pragma_max_expression_depth", lambda: "PRAGMA max_expression_depth = 10000000", DENIED,
     {"restore": lambda: "RESET max_expression_depth"}),
    ("set_max_expression_depth", lambda: "SET max_expression_depth = 10000000", DENIED,
     {"restore": lambda: "RESET max_expression_depth"}),
    ("set_allowed_directories", lambda: "SET allowed_directories = '/'", DENIED, {}),
    ("pragma_allowed_directories", lambda: "PRAGMA allowed_directories = ['/']", DENIED, {}),
    ("set_temp_directory", lambda: f"SET temp_directory = '{outp('spill')}'", DENIED,
     {"restore": lambda: "RESET temp_directory"}),
    ("set_profiling_output", lambda: f"SET profiling_output = '{outp('profile.json')}'; PRAGMA enable_profiling; "
     "SELECT 1", DENIED, {"restore": lambda: "PRAGMA disable_profiling",
                          "after": path_absent(lambda: outp("profile.json"))}),
    ("set_autoinstall", lambda: "SET autoinstall_known_extensions = true", DENIED, {}),
    ("set_disabled_filesystems", lambda: "SET disabled_filesystems = ''", DENIED, {}),
    ("pragma_enable_external_access", lambda: "PRAGMA enable_external_access = false", DENIED,
     {"after": volume_still_works}),
    ("set_enable_external_access", lambda: "SET enable_external_access = false", DENIED,
     {"after": volume_still_works}),
    ("set_enable_external_access_true", lambda: "SET enable_external_access = true", DENIED, {}),
    ("reset_enable_external_access", lambda: "RESET enable_external_access", DENIED, {}),
    # -- system calls --
    ("checkpoint", lambda: "CHECKPOINT", DENIED, {}),
    ("force_checkpoint", lambda: "FORCE CHECKPOINT", DENIED, {}),
    ("call_checkpoint", lambda: "CALL checkpoint()", DENIED, {}),
    ("call_pragma_function", lambda: "CALL pragma_database_size()", DENIED, {}),
    ("vacuum", lambda: "VACUUM", DENIED, {}),
    ("duckdb_settings", lambda: "SELECT name, value FROM duckdb_settings()", DENIED, {}),
    # -- Sluice's catalog: reads --
    ("read_routine_loads_definition", lambda: "SELECT definition FROM __sluice.routine_loads", HIDDEN, {}),
    ("read_storage_connections", lambda: "SELECT * FROM __sluice.storage_connections", HIDDEN, {}),
    ("read_catalog_upper_quoted", lambda: 'SELECT * FROM "__SLUICE".routine_loads', HIDDEN, {}),
    ("read_catalog_mixed_case", lambda: "SELECT * FROM __SlUiCe.ROUTINE_LOADS", HIDDEN, {}),
    ("read_catalog_qualified", lambda: "SELECT * FROM sluice.__sluice.routine_loads", HIDDEN, {}),
    ("read_catalog_in_subquery", lambda: "SELECT (SELECT max(definition) FROM __sluice.routine_loads)", HIDDEN, {}),
    ("read_catalog_via_query", lambda: "SELECT * FROM query('SELECT * FROM __sluice.storage_connections')",
     HIDDEN, {}),
    # root may SELECT the observability relations the docs name (docs/security.md), never next to the rest
    ("read_rejected_rows_with_definitions",
     lambda: "SELECT * FROM __sluice.routine_load_rejected_rows, __sluice.routine_loads", HIDDEN, {}),
    # -- egress: the server connects only to the hosts of --allow-egress (request forgery, port scans) --
    ("egress_s3_endpoint_metadata", lambda: "CREATE STORAGE CONNECTION ssrf TYPE S3 ENDPOINT = "
     "'http://169.254.169.254' ACCESS_ID = 'a' ACCESS_KEY = 'b'", DENIED, {"after": no_connection("ssrf")}),
    ("egress_read_kafka_port_scan", lambda: "SELECT * FROM READ_KAFKA('127.0.0.1:22', 'attack', '', 'scan_group', "
     "'', '', '', '', 'raw', 'raw', 0, map())", DENIED, {}),
    ("egress_routine_load_port_scan", lambda: 'CREATE ROUTINE LOAD d.scan ON events COLUMNS TERMINATED BY ",", '
     'COLUMNS (id, v) FROM KAFKA ("kafka_broker_list" = "localhost:22", "kafka_topic" = "attack")', DENIED,
     {"after": no_job("scan")}),
    ("egress_pipe_schema_registry", lambda: "CREATE PIPE d.scan_pipe AS COPY INTO piped FROM (SELECT value::STRING "
     f"FROM READ_KAFKA('{F['broker'].bootstrap}', 'pipe', '', 'scan_pipe_group', '', '', '', '', 'raw', 'avro', 0, "
     "map('schema.registry.url', 'http://169.254.169.254:80')))", DENIED, {}),
    # -- crashing inputs: an error (or, on a big enough stack, the answer) -- never a dead server --
    ("crash_json_structure", lambda: NESTED_JSON, "any", {}),
    ("crash_json_structure_runtime_2m", lambda: NESTED_JSON.replace("100000", "2000000"), "any", {}),
    ("crash_json_contains_runtime", lambda: "SELECT json_contains('[1]', repeat('[', 2000000) || '1' || "
     "repeat(']', 2000000))", "any", {}),
    ("crash_json_merge_patch_runtime", lambda: "SELECT json_merge_patch(repeat('{\"a\":', 2000000) || '1' || "
     "repeat('}', 2000000), '{}')", "any", {}),
    ("crash_long_expression", lambda: LONG_EXPR, "any", {}),
    ("crash_deep_parentheses", lambda: DEEP_PARENS, "any", {}),
    ("crash_planted_kafka_row", lambda: f"SELECT json_structure(v::JSON) FROM d.events WHERE id = {N_MESSAGES}",
     "any", {}),
]

# Writes to the catalog and shadowing objects run after the server-level attempts (a catalog damaged by a successful
# write keeps the server from starting again after a crash); the destructive ones go last.
WRITE_ATTEMPTS = [
    # -- Sluice's catalog: writes --
    ("update_progress", lambda: "UPDATE __sluice.routine_load_progress SET next_offset = 0", HIDDEN,
     {"wait_progress": True}),
    ("update_progress_quoted", lambda: 'UPDATE "__SLUICE"."ROUTINE_LOAD_PROGRESS" SET next_offset = 0', HIDDEN,
     {"wait_progress": True}),
    ("update_progress_qualified", lambda: "UPDATE sluice.__sluice.routine_load_progress SET next_offset = 0",
     HIDDEN, {"wait_progress": True}),
    ("delete_volume_loads", lambda: "DELETE FROM __sluice.volume_loads", HIDDEN, {"after": volume_loads_once}),
    ("update_definition", lambda: "UPDATE __sluice.routine_loads SET definition = 'x'", HIDDEN,
     {"after": catalog_intact}),
    ("insert_catalog", lambda: "INSERT INTO __sluice.server_settings SELECT * FROM __sluice.server_settings", HIDDEN,
     {}),
    ("create_table_in_catalog", lambda: "CREATE TABLE __sluice.evil (i INT)", HIDDEN, {}),
    ("create_schema_catalog_case", lambda: 'CREATE SCHEMA IF NOT EXISTS "__SLUICE"', HIDDEN, {}),
    ("alter_catalog_table", lambda: "ALTER TABLE __sluice.routine_load_progress ADD COLUMN x INT", HIDDEN,
     {"after": catalog_intact}),
    # -- user objects named like internals --
    ("shadow_sluice_batch", lambda: "CREATE MACRO main.sluice_batch(b) AS TABLE SELECT * FROM "
     "system.main.sluice_batch(b) UNION ALL SELECT * FROM system.main.sluice_batch(b)", None,
     {"after": job_loads_each_message_once}),
    ("shadow_sluice_batch_view", lambda: "CREATE VIEW main.sluice_batch AS SELECT 1 AS x", None,
     {"after": job_loads_each_message_once}),
    ("shadow_sluice_directory", lambda: "CREATE OR REPLACE MACRO main.sluice_directory(v) AS TABLE "
     "SELECT 'x' AS relative_path", None, {"after": volume_still_works}),
    ("shadow_load_history", lambda: "CREATE MACRO main.load_history(t) AS TABLE SELECT 1 AS x", None,
     {"after": load_history_still_works}),
    ("shadow_in_user_db", lambda: "CREATE MACRO d.sluice_directory(v) AS TABLE SELECT 'x' AS relative_path", None,
     {"after": volume_still_works}),
    ("table_named_like_catalog", lambda: "CREATE TABLE d.__sluice (i INT)", None, {}),
]

LAST_ATTEMPTS = [
    # (Sluice's own parser takes DROP SCHEMA as DROP DATABASE, without CASCADE: a syntax error is a refusal too)
    ("drop_catalog_schema", lambda: "DROP SCHEMA __sluice CASCADE", HIDDEN | {1064}, {"after": catalog_intact}),
    ("drop_catalog_database", lambda: "DROP DATABASE __sluice FORCE", HIDDEN, {"after": catalog_intact}),
    ("set_lock_configuration", lambda: "SET lock_configuration = true", DENIED, {}),
]


def make_attempt(user: str, name: str, sql_fn, codes, opts: dict):
    def attempt(s: TestSuite):
        check(budget_left() > 0, f"not run: the {BUDGET_S:.0f}s budget of the script is spent")
        revive()
        c = Collector()
        sql = sql_fn()
        conn = login(user)
        try:
            if codes == "any":
                crash_input(c, conn, sql)
            else:
                res = expect_refused(c, conn, sql, codes)
                if res is None and opts.get("restore"):
                    try:
                        run_all(F["root"], opts["restore"]())
                    except Exception:  # noqa: BLE001
                        pass
        finally:
            try:
                conn.close()
            except Exception:  # noqa: BLE001
                pass
        standard_checks(c, wait_progress=opts.get("wait_progress", False))
        if opts.get("after"):
            try:
                opts["after"](c)
            except Exception as e:  # noqa: BLE001
                c.check(False, f"the check after the attempt failed: {e!r}")
        c.done()
    attempt.__name__ = f"{user}:{name}"
    return attempt


def crash_input(c: Collector, conn, sql: str):
    import pymysql
    try:
        rows = run_all(conn, sql)
        c.check(not leaked(repr(rows)), "the result leaks a secret")
    except pymysql.MySQLError as e:
        code = e.args[0] if e.args else None
        c.check(code is not None and not 2000 <= code < 3000, f"the connection broke instead of an error: {e!r}")


def register(attempts):
    for user in ("root", "mallory"):
        for name, sql_fn, codes, opts in attempts:
            fn = make_attempt(user, name, sql_fn, codes, opts)
            suite.tests.append((fn.__name__, fn, 60.0))


register(ATTEMPTS)


# ---- attempts with a shape of their own ------------------------------------------------------------------------------

def attempt_test(timeout: float = 60.0):
    def deco(fn):
        def wrapped(s):
            check(budget_left() > 0, f"not run: the {BUDGET_S:.0f}s budget of the script is spent")
            revive()
            fn(s)
        wrapped.__name__ = fn.__name__
        suite.tests.append((fn.__name__, wrapped, timeout))
        return fn
    return deco


@attempt_test()
def nul_byte_in_statement(s):
    """DELETE ... WHERE id < 50 \\0 AND id < 0 deleted 50 rows: a NUL byte must be a syntax error."""
    c = Collector()
    conn = root()
    expect_refused(c, conn, "DELETE FROM d.nul_victim WHERE id < 50 \0 AND id < 0", {1064})
    c.check(q(F["root"], "SELECT count(*) FROM d.nul_victim") == [(100,)], "rows of nul_victim were deleted")
    conn.close()
    standard_checks(c)
    c.done()


@attempt_test()
def secrets_masked_in_show(s):
    """SHOW ROUTINE LOAD / SHOW CREATE ROUTINE LOAD / SHOW PIPES / DESC PIPE / DESC CONNECTION as root: every secret
    property masked (sasl.oauthbearer.config showed in clear)."""
    c = Collector()
    conn = F["root"]
    for sql in ("SHOW ROUTINE LOAD FOR rl", "SHOW ALL ROUTINE LOAD", "SHOW CREATE ROUTINE LOAD rl", "SHOW PIPES",
                "DESC PIPE p1", "DESC PIPE EXTENDED p1", "DESC CONNECTION s3c", "SHOW CONNECTIONS",
                "SHOW ROUTINE LOAD TASK WHERE JobName = 'rl'"):
        try:
            text = repr(run_all(conn, sql))
            c.check(not leaked(text), f"{sql} shows {leaked(text)}")
        except Exception as e:  # noqa: BLE001
            c.check(not leaked(str(e)), f"{sql}: the error shows {leaked(str(e))}")
    c.done()


@attempt_test(timeout=90)
def show_and_privileges_as_mallory(s):
    """A plain user sees no one else's jobs and cannot read, write, load into or steer what it was not granted
    (CREATE ROUTINE LOAD / CREATE PIPE need INSERT on the target table)."""
    c = Collector()
    conn = login("mallory")
    try:
        for sql in ("SELECT * FROM d.canary", "INSERT INTO d.canary VALUES (666, 'mallory')",
                    "UPDATE d.canary SET v = 'x'", "DELETE FROM d.canary", "DROP TABLE d.canary",
                    "TRUNCATE TABLE d.canary", "ALTER TABLE d.canary ADD COLUMN x INT",
                    "PAUSE ROUTINE LOAD FOR d.rl", "STOP ROUTINE LOAD FOR d.rl", "DROP PIPE d.p1",
                    "DESC CONNECTION s3c", "DROP VOLUME vol",
                    f"""CREATE ROUTINE LOAD d.mrl ON canary COLUMNS TERMINATED BY ",", COLUMNS (id, v)
FROM KAFKA ("kafka_broker_list" = "{F['broker'].bootstrap}", "kafka_topic" = "attack",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""",
                    f"""CREATE PIPE d.mp AS COPY INTO d.canary FROM (SELECT 1, value::STRING FROM READ_KAFKA(
'{F['broker'].bootstrap}', 'attack', '', 'mallory_group', '', '', '', '', 'raw', 'raw', 0, map()))""",
                    "COPY INTO d.canary FROM VOLUME vol USING CSV OPTIONS ('header' = 'true') FORCE = TRUE"):
            expect_refused(c, conn, sql, DENIED, sql.split("\n")[0][:60])
        for sql in ("SHOW ROUTINE LOAD FOR d.rl", "SHOW ALL ROUTINE LOAD FROM d", "SHOW PIPES FROM d"):
            try:
                rows = run_all(conn, sql)
                c.check(rows == [], f"{sql} as mallory shows {len(rows)} row(s) of root's jobs")
            except Exception as e:  # noqa: BLE001 - a refusal is as good as an empty answer
                c.check(not leaked(str(e)), f"{sql}: the error leaks {leaked(str(e))}")
    finally:
        conn.close()
    rows = kh.show_rows(F["root"], "SHOW ROUTINE LOAD FOR rl")
    c.check(rows and rows[0]["State"] == "RUNNING", f"the routine load is no longer RUNNING: {rows!r}")
    names = [r["Name"] for r in kh.show_rows(F["root"], "SHOW ALL ROUTINE LOAD")]
    c.check("mrl" not in names, "mallory's routine load into the canary table was created")
    pipes = repr(run_all(F["root"], "SHOW PIPES"))
    c.check("'mp'" not in pipes, "mallory's pipe into the canary table was created")
    standard_checks(c)
    c.done()


@attempt_test()
def file_modes_0600(s):
    """secrets.key and the database file are 0600; the secrets are not in clear in the database file or WAL."""
    c = Collector()
    for name in ("secrets.key", "sluice.duckdb"):
        mode = os.stat(data(name)).st_mode & 0o777
        c.check(mode == 0o600, f"{name} has mode {mode:o}, expected 600")
    for name in ("sluice.duckdb", "sluice.duckdb.wal"):
        if os.path.exists(data(name)):
            with open(data(name), "rb") as f:
                blob = f.read().decode("latin-1")
            found = [x for x in SECRETS if x in blob and x != FILE_MARKER]
            c.check(not found, f"{name} holds {found} in clear")
    c.done()


@attempt_test()
def tls_offered(s):
    """No TLS: the greeting must offer SSL and pymysql must be able to use it."""
    c = Collector()
    with socket.create_connection((LOOPBACK, F["srv"].mysql_port), timeout=5) as sock:
        head = sock.recv(4)
        n = head[0] | head[1] << 8 | head[2] << 16
        pkt = b""
        while len(pkt) < n:
            pkt += sock.recv(n - len(pkt))
        p = pkt.index(b"\0", 1) + 1 + 4 + 9
        caps = struct.unpack_from("<H", pkt, p)[0]
        c.check(caps & 0x800, "the greeting does not offer CLIENT_SSL")
    if caps & 0x800:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        try:
            conn = F["srv"].connect(password=ROOT_PW, ssl=ctx)
            c.check(isinstance(conn._sock, ssl.SSLSocket), "pymysql's connection is not over TLS")
            conn.close()
        except Exception as e:  # noqa: BLE001
            c.check(False, f"a TLS login failed: {e!r}")
    c.done()


# ---- HTTP --------------------------------------------------------------------------------------------------------

def http(path: str, auth: tuple | None = None, timeout: float = 10.0) -> tuple[int, str]:
    req = urllib.request.Request(f"http://{LOOPBACK}:{F['srv'].http_port}{path}")
    if auth:
        req.add_header("Authorization", "Basic " + base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode())
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


@attempt_test()
def http_errors_without_credentials(s):
    """/api/routine_load/errors served rejected row data with a root password set."""
    c = Collector()
    path = "/api/routine_load/errors?db=d&job=rl"
    for auth, what in ((None, "no credentials"), (("root", "wrong"), "a wrong root password"),
                       (("mallory", MALLORY_PW), "mallory (no privilege on the job)"),
                       (("nobody", "x"), "an unknown user")):
        status, body = http(path, auth)
        c.check(status in (401, 403), f"{what}: status {status}, expected 401/403")
        c.check(REJECT_MARKER not in body, f"{what}: the rejected row data is in the answer")
    status, body = http("/api/health")
    c.check(status == 200, f"/api/health needs no credentials, got {status}")
    standard_checks(c)
    c.done()


@attempt_test(timeout=90)
def http_200mb_post(s):
    """A 200 MB POST was buffered whole: it must be refused early, without the server's memory growing by it."""
    c = Collector()
    pid = server_pid()
    rss0 = proc_status(pid, "VmRSS")
    total = 200 * 1024 * 1024
    chunk = b"x" * (1024 * 1024)
    sent = 0
    answer = b""
    with socket.create_connection((LOOPBACK, F["srv"].http_port), timeout=10) as sock:
        auth = base64.b64encode(f"root:{ROOT_PW}".encode()).decode()
        sock.sendall((f"POST /api/routine_load/errors?db=d&job=rl HTTP/1.1\r\nHost: x\r\nAuthorization: Basic {auth}"
                      f"\r\nContent-Type: application/octet-stream\r\nContent-Length: {total}\r\n\r\n").encode())
        peak = rss0
        try:
            while sent < total:
                sock.sendall(chunk)
                sent += len(chunk)
                if sent % (16 * chunk.__len__()) == 0:
                    peak = max(peak, proc_status(pid, "VmRSS"))
        except OSError:
            pass   # the server closed the connection: what we want
        sock.settimeout(5)
        try:
            answer = sock.recv(4096)
        except OSError:
            pass
    peak = max(peak, proc_status(pid, "VmRSS"))
    grew_mb = (peak - rss0) / 1024
    c.check(grew_mb < 64, f"the server's memory grew by {grew_mb:.0f} MB while the 200 MB POST came in "
                          f"({sent // (1024 * 1024)} MB sent)")
    status = answer.split(b" ")[1].decode() if answer.startswith(b"HTTP/") else "(closed)"
    c.check(sent < total or status == "413",
            f"all 200 MB were accepted; the answer was {status} (expected 413 or a closed connection before the end)")
    standard_checks(c)
    c.done()


@attempt_test(timeout=60)
def http_slow_clients(s):
    """8 slow connections starved /api/health."""
    c = Collector()
    socks = []
    stop = threading.Event()
    try:
        for _ in range(8):
            sk = socket.create_connection((LOOPBACK, F["srv"].http_port), timeout=5)
            sk.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n")
            socks.append(sk)

        def trickle():
            while not stop.is_set():
                for sk in socks:
                    try:
                        sk.sendall(b"X")
                    except OSError:
                        pass
                stop.wait(1.0)

        th = threading.Thread(target=trickle, daemon=True)
        th.start()
        time.sleep(1.5)
        t = time.monotonic()
        try:
            status, _ = http("/api/health", timeout=5)
            c.check(status == 200, f"/api/health answered {status}")
        except Exception as e:  # noqa: BLE001
            c.check(False, f"/api/health did not answer within 5 s with 8 slow clients connected: {e!r}")
        c.check(time.monotonic() - t < 5, "/api/health took more than 5 s")
    finally:
        stop.set()
        for sk in socks:
            sk.close()
    standard_checks(c)
    c.done()


# ---- connections and passwords ------------------------------------------------------------------------------------

@attempt_test(timeout=90)
def idle_connection_flood(s):
    """1,100 idle TCP connections made the real root get 1040 Too many connections."""
    c = Collector()
    socks = []
    try:
        for _ in range(1100):
            try:
                socks.append(socket.create_connection((LOOPBACK, F["srv"].mysql_port), timeout=5))
            except OSError:
                break
        time.sleep(0.5)
        # within 3 s, while every idle socket is still open (the handshake timeout, 10 s today, must not be what
        # lets root in: one connection is kept for an admin)
        deadline = time.monotonic() + 3
        last = None
        while time.monotonic() < deadline:
            try:
                conn = root()
                c.check(q(conn, "SELECT count(*) FROM d.canary") == [(5,)], "root cannot read the canary")
                conn.close()
                last = None
                break
            except Exception as e:  # noqa: BLE001
                last = e
                time.sleep(0.5)
        c.check(last is None, f"root could not log in within 3 s with {len(socks)} idle sockets open: {last!r}")
    finally:
        for sk in socks:
            sk.close()
    standard_checks(c)
    c.done()


@attempt_test(timeout=90)
def password_brute_force(s):
    """2,900 guesses per second, no delay: after a few failures logins must be delayed or the account locked; the
    guessed passwords are never logged. (On a server of its own, so the delay does not slow the other attempts.)"""
    import pymysql
    c = Collector()
    srv = s.server(env_password=ROOT_PW).start()
    guesses = 0
    locked = None
    t0 = time.monotonic()
    while time.monotonic() - t0 < 15 and guesses < 200:
        try:
            srv.connect(password=f"guess-{guesses}", connect_timeout=15, read_timeout=15).close()
            c.check(False, f"guess-{guesses} logged in")
            break
        except pymysql.MySQLError as e:
            code = e.args[0] if e.args else None
            msg = str(e.args[1]) if len(e.args) > 1 else str(e)
            if code != 1045 or "lock" in msg.lower() or "block" in msg.lower():
                locked = (code, msg)
                break
        guesses += 1
    elapsed = time.monotonic() - t0
    rate = guesses / max(elapsed, 1e-3)
    c.check(locked is not None or rate < 10,
            f"{guesses} wrong passwords in {elapsed:.1f}s ({rate:.0f}/s): no delay and no lock")
    c.check("guess-1" not in srv.log_text(), "a guessed password is in the server log")
    c.check(srv.alive(), "the server died")
    c.done()


# ---- runaway work --------------------------------------------------------------------------------------------------

LONG_QUERY = "SELECT count(*) FROM range(100000000) a, range(1000000) b WHERE a.range + b.range = -1"


@attempt_test(timeout=60)
def kill_query_and_processlist(s):
    """KILL 1 was a syntax error and SHOW PROCESSLIST showed Sleep with no text: SHOW FULL PROCESSLIST must show the
    running statement, KILL QUERY must stop it (1317), and mallory must not kill root's query."""
    import pymysql
    c = Collector()
    srv = s.server(env_password=ROOT_PW).start()    # its own server: a query that is not stopped dies with it
    admin = srv.connect(password=ROOT_PW)
    mallory_ok = _create_mallory(admin)
    victim = srv.connect(password=ROOT_PW)
    vid = victim.thread_id()
    err = {}

    def run():
        try:
            q(victim, LONG_QUERY)
            err["e"] = None
        except pymysql.MySQLError as e:
            err["e"] = e

    th = threading.Thread(target=run, daemon=True)
    th.start()
    time.sleep(1.0)
    try:
        rows = run_all(admin, "SHOW FULL PROCESSLIST")
    except Exception as e:  # noqa: BLE001
        rows = []
        c.check(False, f"SHOW FULL PROCESSLIST failed: {e!r}")
    mine = [r for r in rows if str(r[0]) == str(vid)]
    c.check(mine and any("range(100000000)" in str(v) for v in mine[0]),
            f"SHOW FULL PROCESSLIST does not show the running statement of connection {vid}: {mine!r}")
    if mallory_ok:
        try:
            m = srv.connect(user="mallory", password=MALLORY_PW)
            expect_refused(c, m, f"KILL QUERY {vid}", {1095, 1227}, "mallory: KILL QUERY of root's connection")
            m.close()
        except Exception as e:  # noqa: BLE001
            c.check(False, f"KILL as mallory was not tried: mallory cannot log in: {e!r}")
        time.sleep(0.3)
        c.check(th.is_alive(), "mallory's KILL stopped root's query")
    else:
        c.check(False, "no mallory account on this server (CREATE USER failed), so KILL as mallory was not tried")
    try:
        run_all(admin, f"KILL QUERY {vid}")
    except Exception as e:  # noqa: BLE001
        c.check(False, f"KILL QUERY {vid} as root failed: {e!r}")
    th.join(10)
    c.check(not th.is_alive(), "the query still runs 10 s after KILL QUERY")
    e = err.get("e")
    c.check(e is not None and e.args[0] == 1317, f"the killed query ended with {e!r}, expected error 1317")
    c.check(srv.alive(), "the server died")
    c.done()


def _create_mallory(conn) -> bool:
    try:
        q(conn, f"CREATE USER 'mallory'@'%' IDENTIFIED BY '{MALLORY_PW}'")
        return True
    except Exception:  # noqa: BLE001
        return False


@attempt_test(timeout=60)
def disconnected_client_cancelled(s):
    """A disconnected client's cross join kept a core busy for minutes."""
    c = Collector()
    srv = s.server(env_password=ROOT_PW).start()    # its own server: a query that is not stopped dies with it
    conn = srv.connect(password=ROOT_PW)
    sock = conn._sock
    th = threading.Thread(target=lambda: _swallow(lambda: q(conn, LONG_QUERY)), daemon=True)
    th.start()
    time.sleep(1.0)
    sock.shutdown(socket.SHUT_RDWR)
    sock.close()
    time.sleep(3.0)
    pid = srv.proc.pid
    cpu0 = cpu_seconds(pid)
    time.sleep(3.0)
    used = cpu_seconds(pid) - cpu0
    c.check(used < 1.0, f"the server used {used:.1f}s of CPU in the 3 s after the client vanished mid-query")
    c.check(srv.alive(), "the server died")
    c.done()


def _swallow(fn):
    try:
        fn()
    except Exception:  # noqa: BLE001
        pass


@attempt_test(timeout=60)
def query_timeout_stops_query(s):
    """No way to stop a runaway query: query_timeout (session, as StarRocks) must end it with an error."""
    import pymysql
    c = Collector()
    srv = s.server(env_password=ROOT_PW).start()    # its own server: a query that is not stopped dies with it
    conn = srv.connect(password=ROOT_PW, read_timeout=15)
    t = time.monotonic()
    try:
        q(conn, "SET query_timeout = 2")
        q(conn, LONG_QUERY)
        c.check(False, "the long query finished")
    except pymysql.MySQLError as e:
        c.check(not 2000 <= e.args[0] < 3000, f"the connection broke instead of a timeout error: {e!r}")
    c.check(time.monotonic() - t < 10, f"the query ran {time.monotonic() - t:.0f}s with query_timeout = 2")
    c.check(srv.alive(), "the server died")
    c.done()


@attempt_test(timeout=90)
def big_result_streamed(s):
    """SELECT over range(50000000) was materialized in full (~175 bytes a row): a result read slowly must not grow
    the server's memory by its size (1,000,000 rows here: ~450 MB if materialized)."""
    import pymysql.cursors
    c = Collector()
    srv = s.server(env_password=ROOT_PW).start()
    pid = srv.proc.pid
    rss0 = proc_status(pid, "VmRSS")
    conn = srv.connect(password=ROOT_PW, read_timeout=60)
    cur = conn.cursor(pymysql.cursors.SSCursor)
    cur.execute("SELECT range, repeat('x', 100) FROM range(1000000)")
    got = 0
    peak = rss0
    for _ in range(20):
        got += len(cur.fetchmany(1000))
        time.sleep(0.1)
        peak = max(peak, proc_status(pid, "VmRSS"))
    grew = (peak - rss0) / 1024
    c.check(grew < 150, f"the server's memory grew by {grew:.0f} MB for a result read 20,000 rows in")
    c.check(srv.alive(), "the server died")
    c.done()


@attempt_test(timeout=150)
def pipe_flood_capped(s):
    """2,000 Kafka pipes made 5,700 threads: pipes have a server-wide cap like max_routine_load_job_num (100)."""
    import pymysql
    c = Collector()
    srv = s.server(env_password=ROOT_PW).start()
    conn = srv.connect(password=ROOT_PW)
    q(conn, "CREATE DATABASE f")
    q(conn, "USE f")
    q(conn, "CREATE TABLE t (v STRING)")
    refused = None
    made = 0
    for i in range(130):
        try:
            q(conn, f"CREATE PIPE fp{i} AS COPY INTO t FROM (SELECT value::STRING FROM READ_KAFKA("
                    f"'{F['broker'].bootstrap}', 'pipe', '', 'g{i}', '', '', '', '', 'raw', 'raw', 0, map()))")
            made += 1
        except pymysql.MySQLError as e:
            refused = e
            break
    threads = proc_status(srv.proc.pid, "Threads")
    c.check(made >= 1, f"not even one pipe could be created: {refused!r}")
    c.check(refused is not None, f"all {made} pipes were created: no cap")
    c.check(refused is None or refused.args[0] != 1064, f"pipe {made} was refused with a syntax error: {refused!r}")
    c.check(threads < 1000, f"the server runs {threads} threads with {made} pipes")
    c.check(srv.alive(), "the server died")
    conn.close()
    c.done()


@attempt_test(timeout=60)
def sigterm_mid_query(s):
    """SIGTERM did not stop the server for 30 s+ while a query ran: it must exit within 10 s."""
    c = Collector()
    srv = s.server(env_password=ROOT_PW).start()
    conn = srv.connect(password=ROOT_PW)
    th = threading.Thread(target=lambda: _swallow(lambda: q(conn, LONG_QUERY)), daemon=True)
    th.start()
    time.sleep(1.0)
    t = time.monotonic()
    code = srv.stop(signal.SIGTERM, timeout=10)
    c.check(code is not None, f"the server did not exit within 10 s of SIGTERM (killed after {time.monotonic() - t:.0f}s)")
    c.check(code in (0, None), f"exit code {code} on SIGTERM")
    c.done()


register(WRITE_ATTEMPTS)
register(LAST_ATTEMPTS)


@attempt_test(timeout=60)
def canary_and_log_at_the_end(s):
    """At the end: the canary table intact, the job where it was, and no secret in the server's log."""
    c = Collector()
    standard_checks(c)
    log = F["srv"].log_text()
    found = [x for x in SECRETS if x in log]
    c.check(not found, f"the server log holds {found} in clear")
    c.done()


if __name__ == "__main__":
    rc = kh.run_suite(suite)
    shutil.rmtree(F.get("work", "/nonexistent"), ignore_errors=True)
    sys.exit(rc)
