#!/usr/bin/python3
"""The dashboard at / (docs/monitoring.md, "The dashboard") in a real headless Chromium, driven by playwright-core.

A server with a routine load, a Kafka pipe and a volume pipe, loading from the test broker while the test runs:
1. the overview lists the three jobs with the states SHOW ROUTINE LOAD / SHOW PIPES give;
2. PAUSE clicked on the overview shows as PAUSED in SHOW ROUTINE LOAD; RESUME and PAUSE run in SQL show on the page
   within 2 s (overview and job page); RESUME clicked on the job page shows as RUNNING in SQL;
3. the job page draws lag per partition, recent tasks and the rejected rows;
4. a user with SELECT only sees the job but no pause button, and the API refuses its POST (403); a POST from
   another site's page (foreign Origin) is refused even with root's credentials; / needs a login;
5. no console errors (CSP violations included) on any page; screenshots of the overview and the job page are
   written to <build>/artifacts/dashboard-*.png.
Skips (saying why) only when no Chromium is installed.

    /usr/bin/python3 tests/e2e/test_dashboard.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import LOOPBACK, TestSuite, check, eq  # noqa: E402

suite = TestSuite("test_dashboard")
CLIENTS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients"))
LIVE_MS = 2000  # what the page promises: a change shows within 2 s


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """tests/clients/dashboard_driver.mjs: one JSON command a line, one answer a line."""

    def __init__(self, chromium: str):
        self.proc = subprocess.Popen(["node", "dashboard_driver.mjs", chromium], cwd=CLIENTS, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def __call__(self, op: str, **args):
        self.proc.stdin.write(json.dumps({"op": op, **args}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(f"the browser driver died: {self.proc.stderr.read()[-3000:]}")
        answer = json.loads(line)
        if not answer.pop("ok"):
            raise AssertionError(f"browser {op} {args}: {answer['error']}")
        return answer

    def close(self):
        try:
            self("close")
        except Exception:  # noqa: BLE001 -- closing a browser that already failed
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def post(srv, path: str, auth, headers=None) -> tuple[int, str]:
    req = urllib.request.Request(f"http://{LOOPBACK}:{srv.http_port}{path}", method="POST", data=b"")
    req.add_header("Authorization", "Basic " + base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode())
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def sql_states(conn) -> dict:
    states = {f"d.{r['Name']}": r["State"] for r in kh.show_rows(conn, "SHOW ROUTINE LOAD FROM d")}
    for r in kh.show_rows(conn, "SHOW PIPES FROM d"):
        states[f"d.{r['name']}"] = r["status"]
    return states


class Producer(threading.Thread):
    """Keeps writing to both partitions of topic m, a few bad rows among them, so rows/s, lag and rejected rows
    are live while the browser watches."""

    def __init__(self, bootstrap: str):
        super().__init__(daemon=True)
        self.bootstrap, self.stop, self.next = bootstrap, threading.Event(), 1000

    def run(self):
        rounds = 0
        while not self.stop.is_set():
            for p in range(2):
                batch = [f"{i},v{i}" for i in range(self.next + p, self.next + 60, 2)]
                if rounds % 8 == 3 and p == 1:
                    batch.append(f"not-a-number-{rounds},bad")
                kh.produce(self.bootstrap, "m", p, batch)
            self.next += 60
            rounds += 1
            self.stop.wait(0.4)


@suite.test(timeout=300)
def test_dashboard_in_chromium(s):
    chromium = find_chromium()
    if chromium is None:
        print("SKIP: no Chromium installed (Debian package chromium, installed by scripts/setup.sh); "
              "the dashboard test needs a real browser")
        return
    check(os.path.exists(os.path.join(CLIENTS, "node_modules", "playwright-core", "package.json")),
          "playwright-core is not installed in tests/clients: run scripts/setup.sh (npm ci there)")
    artifacts = os.path.join(os.path.dirname(s.server_path), "artifacts")
    os.makedirs(artifacts, exist_ok=True)

    b = kh.adopt_broker(kh.TestBroker({"m": 2}).start())
    kh.produce(b.bootstrap, "m", 0, [f"{i},v{i}" for i in range(0, 200, 2)])
    kh.produce(b.bootstrap, "m", 1, [f"{i},v{i}" for i in range(1, 200, 2)] + ["oops,bad"])
    srv = s.server().start()
    conn = srv.connect()
    for stmt in [
        "CREATE DATABASE d", "USE d",
        "CREATE TABLE t (id bigint NOT NULL, v varchar(40)) DUPLICATE KEY(id)",
        "CREATE TABLE tp (id bigint, v varchar(8))",
        "CREATE TABLE tv (id INT, amount DOUBLE)",
        f"""CREATE ROUTINE LOAD clicks ON t COLUMNS TERMINATED BY ",", COLUMNS (id, v)
PROPERTIES ("max_batch_interval" = "1", "max_error_number" = "1000")
FROM KAFKA ("kafka_broker_list" = "{b.bootstrap}", "kafka_topic" = "m",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""",
        f"""CREATE PIPE events_pipe BATCH_INTERVAL_IN_SECONDS = '1' RESET_KAFKA_GROUP_OFFSETS = 'earliest'
AS COPY INTO tp FROM (
    SELECT CAST(split_part(value::STRING, ',', 1) AS BIGINT), split_part(value::STRING, ',', 2)
    FROM READ_KAFKA('{b.bootstrap}', 'm', '', 'g-kp', '', '', '', '', 'raw', 'raw', 1000, map()))""",
    ]:
        kh.query(conn, stmt)
    folder = os.path.join(srv.root, "volume")
    os.makedirs(folder)
    with open(os.path.join(folder, "a.csv"), "w") as f:
        f.write("id,amount\n1,1.5\n2,2.5\n")
    kh.query(conn, f"CREATE VOLUME vol LOCATION 'file://{folder}/'")
    kh.query(conn, "CREATE PIPE files_pipe BATCH_INTERVAL_IN_SECONDS = '1' AS COPY INTO tv FROM VOLUME vol USING CSV "
                   "OPTIONS ('header' = 'true')")
    kh.query(conn, "CREATE USER 'watcher'@'%' IDENTIFIED BY 'pw'")
    kh.query(conn, "GRANT SELECT ON d.t TO USER 'watcher'@'%'")
    kh.wait_rows(conn, "t", 200, 60, job="clicks")
    kh.wait_rows(conn, "tv", 2, 60)

    # Without credentials the page is a 401 that makes a browser ask for a Sluice user; no page content leaks.
    status, _ = srv.http_get("/", auth=None)
    eq(status, 401, "GET / without credentials")
    status, page = srv.http_get("/")
    eq(status, 200, "GET / as root")
    check('src="/dashboard/dashboard.js"' in page and "<script>" not in page, "the page loads its script from a file")

    producer = Producer(b.bootstrap)
    producer.start()
    web = Browser(chromium)
    base = f"http://{LOOPBACK}:{srv.http_port}/"
    try:
        eq(web("open", page="main", url=base, user="root", password="")["status"], 200, "the overview loads")
        web("open", page="job", url=base + "#/job/d/clicks", user="root", password="")

        # 1. Every job, with the state SQL shows.
        web("wait", page="main", selector='tr.job-row[data-job="d.files_pipe"]', timeout_ms=10000)
        rows = web("attrs", page="main", selector="tr.job-row", attr="data-job")["values"]
        eq(sorted(rows), ["d.clicks", "d.events_pipe", "d.files_pipe"], "jobs listed on the overview")
        kinds = dict(zip(rows, web("attrs", page="main", selector="tr.job-row", attr="data-kind")["values"]))
        eq(kinds, {"d.clicks": "routine_load", "d.events_pipe": "pipe", "d.files_pipe": "volume_pipe"}, "their kinds")
        expected = sql_states(conn)
        for job, state in expected.items():
            web("wait", page="main", selector=f'tr[data-job="{job}"] .pill[data-state="{state}"]', timeout_ms=LIVE_MS)
        eq(expected["d.clicks"], "RUNNING", "the routine load runs")
        eq(web("count", page="main", selector='tr[data-job="d.clicks"] button[data-action="pause"]')["count"], 1,
           "root sees a Pause button for the routine load")

        time.sleep(3)  # some history for rows/s and the charts
        # 2. PAUSE clicked on the page is PAUSED in SQL.
        web("click", page="main", selector='tr[data-job="d.clicks"] button[data-action="pause"]')
        kh.wait_state(conn, "clicks", "PAUSED", timeout=5)
        web("wait", page="main", selector='tr[data-job="d.clicks"] .pill[data-state="PAUSED"]', timeout_ms=LIVE_MS)
        time.sleep(4)  # lag grows while paused (the producer keeps writing)

        # A state changed in SQL shows on both pages within 2 s.
        kh.query(conn, "RESUME ROUTINE LOAD FOR clicks")
        t0 = time.monotonic()
        web("wait", page="main", selector='tr[data-job="d.clicks"] .pill[data-state="RUNNING"]', timeout_ms=LIVE_MS)
        web("wait", page="job", selector='.job-meta .pill[data-state="RUNNING"]', timeout_ms=LIVE_MS)
        resumed_ms = (time.monotonic() - t0) * 1000
        time.sleep(4)
        kh.query(conn, "PAUSE ROUTINE LOAD FOR clicks")
        t0 = time.monotonic()
        web("wait", page="job", selector='.job-meta .pill[data-state="PAUSED"]', timeout_ms=LIVE_MS)
        web("wait", page="main", selector='tr[data-job="d.clicks"] .pill[data-state="PAUSED"]', timeout_ms=LIVE_MS)
        paused_ms = (time.monotonic() - t0) * 1000
        print(f"SQL RESUME seen on the pages after {resumed_ms:.0f} ms, SQL PAUSE after {paused_ms:.0f} ms")
        time.sleep(3)
        shots = []
        # The overview with a paused job (what "needs attention" looks like).
        path = os.path.join(artifacts, "dashboard-overview.png")
        web("screenshot", page="main", path=path, full_page=True)
        shots.append(path)
        # RESUME clicked on the job page is RUNNING in SQL.
        web("click", page="job", selector='.job-actions button[data-action="resume"]')
        kh.wait_state(conn, "clicks", "RUNNING", timeout=5)
        web("wait", page="job", selector='.job-meta .pill[data-state="RUNNING"]', timeout_ms=LIVE_MS)

        # 3. The job page: lag per partition, tasks, rejected rows.
        time.sleep(5)
        eq(len(web("texts", page="job", selector="#lag-chart .legend-item")["texts"]), 2, "a lag line per partition")
        check(web("count", page="job", selector="#lag-chart svg path")["count"] >= 2, "the lag chart has lines")
        check(web("count", page="job", selector="#rejected tbody tr")["count"] >= 1, "rejected rows are listed")
        raw = " ".join(web("texts", page="job", selector="#rejected code.raw")["texts"])
        check("oops,bad" in raw or "not-a-number" in raw, f"a rejected row's data is shown: {raw[:200]}")
        check(web("count", page="job", selector="text=Recent tasks")["count"] == 1, "recent tasks are shown")

        path = os.path.join(artifacts, "dashboard-job.png")
        web("screenshot", page="job", path=path, full_page=True)
        shots.append(path)
        # The volume pipe's page too (files instead of partitions).
        web("goto", page="job", url=base + "#/job/d/files_pipe?kind=pipe")
        web("wait", page="job", selector='.job-head[data-job="d.files_pipe"] .pill[data-state="RUNNING"]',
            timeout_ms=5000)
        check(web("count", page="job", selector="#lag-chart")["count"] == 0, "a volume pipe has no partitions to chart")
        path = os.path.join(artifacts, "dashboard-volume-pipe.png")
        web("screenshot", page="job", path=path, full_page=True)
        shots.append(path)
        # A smaller laptop screen: the overview must still fit without scrolling sideways.
        web("open", page="laptop", url=base, user="root", password="", width=1280, height=720)
        web("wait", page="laptop", selector='tr.job-row[data-job="d.files_pipe"]', timeout_ms=5000)
        time.sleep(2.5)  # rows/s needs two samples
        path = os.path.join(artifacts, "dashboard-overview-1280.png")
        web("screenshot", page="laptop", path=path)
        shots.append(path)
        eq(web("scroll_width", page="laptop")["width"] <= 1280, True, "the overview fits 1280 px without a sideways scroll")
        for path in shots:
            check(os.path.getsize(path) > 10_000, f"screenshot {path} has content")
            print(f"screenshot: {path}")

        # 4. A user who may only read: the job, no button; the API refuses the action whatever the page shows.
        web("open", page="watcher", url=base, user="watcher", password="pw")
        web("wait", page="watcher", selector='tr.job-row[data-job="d.clicks"]', timeout_ms=5000)
        eq(web("attrs", page="watcher", selector="tr.job-row", attr="data-job")["values"], ["d.clicks"],
           "watcher sees only the job loading the table it may read")
        eq(web("count", page="watcher", selector="button[data-action]")["count"], 0, "and no pause button")
        web("goto", page="watcher", url=base + "#/job/d/clicks")
        web("wait", page="watcher", selector=".job-actions .readonly", timeout_ms=5000)
        eq(web("count", page="watcher", selector="button[data-action]")["count"], 0, "no button on its job page")
        status, body = post(srv, "/api/jobs/d/clicks/pause", ("watcher", "pw"))
        eq(status, 403, f"watcher's POST pause is refused: {body}")
        eq(kh.show_job(conn, "clicks")["State"], "RUNNING", "the job still runs")
        status, body = post(srv, "/api/jobs/d/clicks/pause", ("root", ""), {"Origin": "http://evil.example"})
        eq(status, 403, f"a cross-site POST is refused even with root's credentials: {body}")
        status, body = post(srv, "/api/jobs/d/clicks/pause", ("root", ""), {"Sec-Fetch-Site": "cross-site"})
        eq(status, 403, f"a POST marked cross-site is refused: {body}")
        eq(kh.show_job(conn, "clicks")["State"], "RUNNING", "the job still runs after the refused POSTs")

        # 5. Nothing went wrong in the browser (a CSP violation is a console error).
        for page in ("main", "job", "watcher", "laptop"):
            eq(web("problems", page=page)["problems"], [], f"console errors on page {page}")
    finally:
        producer.stop.set()
        web.close()
        producer.join(timeout=10)


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
