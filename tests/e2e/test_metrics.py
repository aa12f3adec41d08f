#!/usr/bin/python3
"""GET /metrics, the JSON job API and the alert rules (docs/monitoring.md), against real Prometheus tools.

1. A server with every kind of job (a routine load, a Kafka pipe, a volume pipe) that loaded data: its scrape passes
   `promtool check metrics`, has each job's series with the right labels and values, the OpenMetrics form ends in
   `# EOF`, and a user without privileges sees no job series.
2. A real Prometheus on loopback (temp config and storage, a free port, scrape_interval 1s, basic_auth) scrapes the
   server while it loads: `rate(sluice_job_rows_loaded_total[...])` is positive through Prometheus' query API, and
   after PAUSE ROUTINE LOAD the job's PAUSED state gauge is 1 there.
3. The JSON API: 401 without credentials, /api/jobs and /api/jobs/{db}/{name} (its definition without secrets),
   POST .../pause (also from curl -X POST, which sends no Content-Length) shows PAUSED in SQL,
   .../resume RUNNING again, a user without INSERT is refused, the errors endpoint serves a pipe's rejected rows.
4. The alert rules in packaging/prometheus/sluice-alerts.yml pass `promtool check rules`.

    /usr/bin/python3 tests/e2e/test_metrics.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import LOOPBACK, TestSuite, check, eq  # noqa: E402

suite = TestSuite("test_metrics")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RULES = os.path.join(REPO, "packaging", "prometheus", "sluice-alerts.yml")


def tool(name: str) -> str:
    path = shutil.which(name)
    check(path is not None, f"{name} is not installed: scripts/setup.sh installs the Debian package prometheus")
    return path


def http(srv, method: str, path: str, auth=("root", ""), headers=None) -> tuple[int, dict, str]:
    req = urllib.request.Request(f"http://{LOOPBACK}:{srv.http_port}{path}", method=method,
                                 data=b"" if method == "POST" else None)
    if auth:
        req.add_header("Authorization", "Basic " + base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode())
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def series(text: str, name: str, **labels) -> list[float]:
    """Values of the samples of `name` whose labels include `labels`."""
    out = []
    for line in text.splitlines():
        if line.startswith("#") or not line.startswith(name):
            continue
        head, _, value = line.rpartition(" ")
        metric = head.split("{", 1)[0]
        if metric != name:
            continue
        if all(f'{k}="{v}"' in head for k, v in labels.items()):
            out.append(float(value))
    return out


def setup_jobs(s: TestSuite, b: kh.TestBroker):
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE t (id bigint NOT NULL, v varchar(40)) DUPLICATE KEY(id)")
    kh.query(conn, "CREATE TABLE tp (id bigint, v varchar(8))")
    kh.query(conn, "CREATE TABLE tv (id INT, amount DOUBLE)")
    kh.query(conn, f"""CREATE ROUTINE LOAD j ON t COLUMNS TERMINATED BY ",", COLUMNS (id, v)
PROPERTIES ("max_batch_interval" = "1")
FROM KAFKA ("kafka_broker_list" = "{b.bootstrap}", "kafka_topic" = "m",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    kh.query(conn, f"""CREATE PIPE kp BATCH_INTERVAL_IN_SECONDS = '1' RESET_KAFKA_GROUP_OFFSETS = 'earliest'
AS COPY INTO tp FROM (
    SELECT CAST(split_part(value::STRING, ',', 1) AS BIGINT), split_part(value::STRING, ',', 2)
    FROM READ_KAFKA('{b.bootstrap}', 'm', '', 'g-kp', '', '', '', '', 'raw', 'raw', 5, map()))""")
    folder = os.path.join(srv.root, "volume")  # removed with the server's directory
    os.makedirs(folder)
    with open(os.path.join(folder, "a.csv"), "w") as f:
        f.write("id,amount\n1,1.5\n2,2.5\n")
    kh.query(conn, f"CREATE VOLUME vol LOCATION 'file://{folder}/'")
    kh.query(conn, "CREATE PIPE vp BATCH_INTERVAL_IN_SECONDS = '1' AS COPY INTO tv FROM VOLUME vol USING CSV "
                   "OPTIONS ('header' = 'true')")
    return srv, conn, folder


def produce(b, lo: int, hi: int, partitions=2):
    for p in range(partitions):
        kh.produce(b.bootstrap, "m", p, [f"{i},v{i}" for i in range(lo + p, hi, partitions)])


@suite.test(timeout=150)
def test_scrape_with_every_kind_of_job_passes_promtool(s):
    promtool = tool("promtool")
    b = kh.adopt_broker(kh.TestBroker({"m": 2}).start())
    produce(b, 0, 100)
    srv, conn, _ = setup_jobs(s, b)
    kh.wait_rows(conn, "t", 100, 60, job="j")
    kh.wait_rows(conn, "tp", 100, 60)
    kh.wait_rows(conn, "tv", 2, 60)
    # Wait until the volume pipe's listing and the lag are reported.
    text = ""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        status, headers, text = http(srv, "GET", "/metrics")
        eq(status, 200, "GET /metrics as root")
        if series(text, "sluice_volume_pipe_files_loaded_total", job_name="vp") == [1.0] and \
                sum(series(text, "sluice_job_lag_messages", job_name="j")) == 0 and \
                len(series(text, "sluice_job_partition_lag_messages", job_name="j")) == 2:
            break
        time.sleep(0.5)
    check(headers.get("Content-Type", "").startswith("text/plain; version=0.0.4"), f"content type {headers}")
    lint = subprocess.run([promtool, "check", "metrics"], input=text.encode(), capture_output=True, timeout=30)
    check(lint.returncode == 0, f"promtool check metrics: {lint.stdout.decode()} {lint.stderr.decode()}\n{text[:3000]}")

    eq(series(text, "sluice_job_state", kind="routine_load", db="d", job_name="j", table="t", state="RUNNING"), [1.0],
       "the routine load's RUNNING gauge")
    eq(series(text, "sluice_job_state", job_name="j", state="PAUSED"), [0.0], "its PAUSED gauge")
    eq(series(text, "sluice_job_state", kind="pipe", job_name="kp", table="tp", state="RUNNING"), [1.0], "Kafka pipe")
    eq(series(text, "sluice_job_state", kind="volume_pipe", job_name="vp", table="tv", state="RUNNING"), [1.0],
       "volume pipe")
    eq(series(text, "sluice_job_rows_loaded_total", job_name="j"), [100.0], "rows loaded by the routine load")
    eq(series(text, "sluice_job_rows_loaded_total", job_name="kp"), [100.0], "rows loaded by the Kafka pipe")
    eq(series(text, "sluice_job_rows_loaded_total", job_name="vp"), [2.0], "rows loaded by the volume pipe")
    eq(sorted(series(text, "sluice_job_partition_lag_messages", job_name="j")), [0.0, 0.0], "lag per partition")
    eq(series(text, "sluice_job_freshness_seconds", job_name="j"), [0.0], "caught up: freshness 0")
    check(series(text, "sluice_job_tasks_committed_total", job_name="j")[0] >= 1, "committed tasks counted")
    check(series(text, "sluice_job_commit_duration_seconds_count", job_name="j")[0] >= 1, "commit histogram")
    check(series(text, "sluice_job_last_commit_timestamp_seconds", job_name="j")[0] > time.time() - 120,
          "last commit time")
    eq(series(text, "sluice_volume_pipe_files_pending", job_name="vp"), [0.0], "volume pipe: nothing pending")
    check(series(text, "sluice_volume_pipe_last_listing_timestamp_seconds", job_name="vp")[0] > time.time() - 60,
          "volume pipe listed lately")
    check(series(text, "sluice_queries_total", kind="create")[0] >= 7, "CREATE statements counted")
    check(series(text, "process_resident_memory_bytes")[0] > 1 << 20, "RSS from /proc/self")
    check(series(text, "sluice_duckdb_file_size_bytes")[0] > 0, "DuckDB file size")

    # An error counted by code: 1146 (no such table).
    try:
        kh.query(conn, "SELECT * FROM no_such_table")
    except Exception:
        pass
    _, _, text = http(srv, "GET", "/metrics")
    check(series(text, "sluice_errors_total", code="1146") == [1.0], "ERR 1146 counted once")

    _, headers, om = http(srv, "GET", "/metrics", headers={"Accept": "application/openmetrics-text; version=1.0.0"})
    check(headers.get("Content-Type", "").startswith("application/openmetrics-text"), f"OpenMetrics: {headers}")
    check(om.endswith("# EOF\n"), "OpenMetrics ends in # EOF")
    check("# TYPE sluice_job_rows_loaded counter" in om, "OpenMetrics names a counter family without _total")

    # A user with no privilege scrapes the server's own series, and no job.
    kh.query(conn, "CREATE USER 'watcher'@'%' IDENTIFIED BY 'pw'")
    status, _, text = http(srv, "GET", "/metrics", auth=("watcher", "pw"))
    eq(status, 200, "an account without privileges may scrape")
    eq(series(text, "sluice_job_state"), [], "but sees no job")
    check(series(text, "sluice_uptime_seconds"), "it sees the server's series")
    kh.query(conn, "GRANT SELECT ON d.t TO USER 'watcher'@'%'")
    _, _, text = http(srv, "GET", "/metrics", auth=("watcher", "pw"))
    eq(sorted(set(l.split('job_name="')[1].split('"')[0] for l in text.splitlines()
                  if l.startswith("sluice_job_state{"))), ["j"], "SELECT on t shows the job loading t only")
    eq(http(srv, "GET", "/metrics", auth=None)[0], 401, "no credentials: 401")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return sock.getsockname()[1]


def prom_query(port: int, expr: str) -> list:
    url = f"http://{LOOPBACK}:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=10) as r:
        body = json.loads(r.read())
    return body["data"]["result"]


@suite.test(timeout=200)
def test_prometheus_scrapes_a_loading_server(s):
    prometheus = tool("prometheus")
    b = kh.adopt_broker(kh.TestBroker({"m": 2}).start())
    srv, conn, _ = setup_jobs(s, b)
    tmp = tempfile.mkdtemp(prefix="sluice-prom-")
    port = free_port()
    config = os.path.join(tmp, "prometheus.yml")
    with open(config, "w") as f:
        f.write(f"""global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: sluice
    basic_auth:
      username: root
      password: ""
    static_configs:
      - targets: ["{LOOPBACK}:{srv.http_port}"]
""")
    log = open(os.path.join(tmp, "prometheus.log"), "w")
    proc = subprocess.Popen([prometheus, f"--config.file={config}", f"--storage.tsdb.path={tmp}/data",
                             f"--web.listen-address={LOOPBACK}:{port}"], stdout=log, stderr=subprocess.STDOUT)
    try:
        kh.wait_until(lambda: prom_query(port, 'up{job="sluice"} == 1') if proc.poll() is None else
                      check(False, "prometheus exited"), 40, "Prometheus to scrape the server")
        # Load for a bounded while: 20 batches of 200 rows, one every 0.5 s.
        for i in range(20):
            produce(b, i * 200, (i + 1) * 200)
            time.sleep(0.5)
        rate = kh.wait_until(lambda: [r for r in prom_query(
            port, 'rate(sluice_job_rows_loaded_total{job_name="j"}[5s])') if float(r["value"][1]) > 0], 30,
            "a positive rate of loaded rows in Prometheus")
        check(float(rate[0]["value"][1]) > 0, f"rate {rate}")
        kh.wait_rows(conn, "t", 4000, 60, job="j")
        eq(prom_query(port, 'sluice_job_state{job_name="j",state="PAUSED"} == 1'), [], "not PAUSED before PAUSE")
        kh.query(conn, "PAUSE ROUTINE LOAD FOR j")
        kh.wait_until(lambda: prom_query(port, 'sluice_job_state{job_name="j",state="PAUSED"} == 1'), 20,
                      "Prometheus to see the PAUSED gauge at 1")
        eq(prom_query(port, 'sluice_job_state{job_name="j",state="RUNNING"} == 1'), [], "RUNNING gauge at 0")
        changes = prom_query(port, 'sluice_job_state_changes_total{job_name="j",state="PAUSED",reason_class="user"}')
        eq([float(c["value"][1]) for c in changes], [1.0], "one state change to PAUSED by the user")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)


@suite.test(timeout=150)
def test_json_api(s):
    b = kh.adopt_broker(kh.TestBroker({"m": 2}).start())
    produce(b, 0, 50)
    srv, conn, _ = setup_jobs(s, b)
    kh.wait_rows(conn, "t", 50, 60, job="j")
    status, headers, body = http(srv, "GET", "/api/jobs", auth=None)
    eq(status, 401, "GET /api/jobs without credentials")
    check("WWW-Authenticate" in headers, "asks for Basic credentials")
    eq(http(srv, "POST", "/api/jobs/d/j/pause", auth=None)[0], 401, "POST pause without credentials")
    status, _, body = http(srv, "GET", "/api/jobs")
    eq(status, 200, "GET /api/jobs")
    jobs = {j["name"]: j for j in json.loads(body)["jobs"]}
    eq(sorted(jobs), ["j", "kp", "vp"], "every job")
    eq((jobs["j"]["kind"], jobs["j"]["db"], jobs["j"]["table"], jobs["j"]["state"]),
       ("routine_load", "d", "t", "RUNNING"), "the routine load")
    eq(jobs["kp"]["kind"], "pipe", "Kafka pipe kind")
    eq(jobs["vp"]["kind"], "volume_pipe", "volume pipe kind")
    eq(jobs["j"]["rows_loaded"], 50, "rows loaded")

    status, _, body = http(srv, "GET", "/api/jobs/d/j")
    eq(status, 200, "GET /api/jobs/d/j")
    job = json.loads(body)
    check(job["definition"].startswith("CREATE ROUTINE LOAD"), f"definition: {job['definition'][:80]}")
    eq(sorted(p["partition"] for p in job["partitions"]), [0, 1], "progress per partition")
    check(all(p["lag"] == 0 for p in job["partitions"]), f"lag per partition {job['partitions']}")
    check(job["tasks"] and job["tasks"][0]["task_id"] > 0, f"recent tasks {job['tasks']}")
    eq(http(srv, "GET", "/api/jobs/d/nope")[0], 404, "an unknown job")
    # The definition has no secrets.
    kh.query(conn, f"""CREATE ROUTINE LOAD js ON t COLUMNS TERMINATED BY ",", COLUMNS (id, v)
FROM KAFKA ("kafka_broker_list" = "{b.bootstrap}", "kafka_topic" = "m", "property.sasl.password" = "hunter2secret")""")
    status, _, body = http(srv, "GET", "/api/jobs/d/js")
    eq(status, 200, "GET /api/jobs/d/js")
    check("hunter2secret" not in body and "sasl.password" in body, f"the password is masked: {body[:600]}")
    kh.query(conn, "STOP ROUTINE LOAD FOR js")

    status, _, body = http(srv, "POST", "/api/jobs/d/j/pause")
    eq(status, 200, f"POST pause: {body}")
    eq(kh.show_job(conn, "j")["State"], "PAUSED", "SHOW ROUTINE LOAD after POST pause")
    eq(json.loads(body)["job"]["state"], "PAUSED", "the answer shows the new state")
    status, _, body = http(srv, "POST", "/api/jobs/d/j/resume")
    eq(status, 200, f"POST resume: {body}")
    kh.wait_state(conn, "j", "RUNNING", 30)
    # curl -X POST sends no Content-Length: a request without a body, not one whose body lasts until the close.
    curl = subprocess.run([tool("curl"), "-s", "-m", "10", "-o", "/dev/null", "-w", "%{http_code}", "-u", "root:",
                           "-X", "POST", f"http://{LOOPBACK}:{srv.http_port}/api/jobs/d/kp/pause"],
                          capture_output=True, timeout=20)
    eq(curl.stdout.decode(), "200", "pause the Kafka pipe with curl -X POST")
    rows = kh.show_rows(conn, "SHOW PIPES")
    eq([r["status"] for r in rows if r["name"] == "kp"], ["SUSPENDED"], "SHOW PIPES after POST pause")

    # A user who sees the table but may not INSERT into it is refused the action, by the SQL statement's check.
    kh.query(conn, "CREATE USER 'viewer'@'%' IDENTIFIED BY 'pw'")
    kh.query(conn, "GRANT SELECT ON d.t TO USER 'viewer'@'%'")
    status, _, body = http(srv, "GET", "/api/jobs", auth=("viewer", "pw"))
    eq(sorted(j["name"] for j in json.loads(body)["jobs"]), ["j", "js"], "viewer sees the jobs on t only (js STOPPED)")
    status, _, body = http(srv, "POST", "/api/jobs/d/j/pause", auth=("viewer", "pw"))
    eq(status, 403, f"viewer may not pause: {body}")
    eq(http(srv, "POST", "/api/jobs/d/kp/pause", auth=("viewer", "pw"))[0], 404, "a job viewer cannot see: 404")
    eq(kh.show_job(conn, "j")["State"], "RUNNING", "still RUNNING")

    # Rejected rows of a pipe through the errors endpoint (kind=pipe).
    kh.query(conn, "ALTER PIPE kp SET PIPE_EXECUTION_PAUSED = false")
    kh.produce(b.bootstrap, "m", 0, ["7,avaluetoolongforvarchar8"])
    kh.wait_until(lambda: "avaluetoolong" in http(srv, "GET", "/api/routine_load/errors?db=d&job=kp&kind=pipe")[2],
                  30, "the pipe's rejected row on the errors endpoint")


@suite.test(timeout=60)
def test_alert_rules_pass_promtool(s):
    promtool = tool("promtool")
    r = subprocess.run([promtool, "check", "rules", RULES], capture_output=True, timeout=30)
    check(r.returncode == 0, f"promtool check rules {RULES}: {r.stdout.decode()} {r.stderr.decode()}")
    check(b"SUCCESS" in r.stdout, r.stdout.decode())


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
