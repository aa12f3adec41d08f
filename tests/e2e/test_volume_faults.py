#!/usr/bin/python3
"""Volume pipes and COPY INTO under object storage faults (issue 11, part 2; docs/pipes.md, "Object storage
faults"): s3rver behind a fault-injecting proxy of the test's own (tests/e2e/s3_fault_proxy.py).

- the endpoint down during listing, and going down during a download: the pipe stays RUNNING with the fault in
  last_error, loads nothing meanwhile, and continues by itself once the endpoint is back;
- 500 / 503 answers: a few are absorbed by the S3 client's own retries (nothing shows); lasting ones show in
  last_error while the pipe retries with backoff;
- a connection cut mid-body (with and without Content-Length): never a partial file; retried; loaded whole later;
- a listing that changes between its pages (2 keys per page): files added before the cursor load at the next
  listing, files deleted after being listed are skipped without a FAILED load, nothing loads twice; a file replaced
  between its listing and its download is loaded as the version downloaded, once;
- a slow endpoint: requests time out (--s3-timeout-seconds 1), the pipe retries, and loads once it is fast again;
- wrong credentials (a real 403 from s3rver) and a 403 on download: the pipe is FAILED at once with what was
  denied, the volume, the connection, the endpoint and what to check; it is not retried; fixed and resumed, it loads;
- LIST_PURGE never deletes a file whose load did not commit: every DELETE the proxy sees is checked against the
  committed load records at that moment, and deletes that fail after a commit (the endpoint gone, a 403) are done by
  a later listing, without loading the file again;
- COPY INTO under the same faults: a clear error naming the file and volume, never part of a file.

Every check is exact: count = distinct ids = the rows produced, and the sums of id and amount match.

    /usr/bin/python3 tests/e2e/test_volume_faults.py --server build/sluice
"""
from __future__ import annotations

import os
import re
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Collector, TestSuite, check, contains, eq, expect_mysql_error  # noqa: E402
from s3_fault_proxy import S3FaultProxy  # noqa: E402
from s3_harness import ACCESS_ID, ACCESS_KEY, S3rver  # noqa: E402
from volume_harness import q  # noqa: E402

suite = TestSuite("test_volume_faults")
ROWS = 40  # rows per file
_shared: dict = {}


def shared():
    """One s3rver and one server for the tests that do not need server flags of their own."""
    if "srv" not in _shared:
        s3 = S3rver().start()
        _shared["s3"] = s3
        _shared["srv"] = suite.shared_server()
    return _shared["srv"], _shared["s3"]


# ---- files, rows, objects ---------------------------------------------------------------------------------------

def file_ids(n: int) -> list[int]:
    """The ids of file number n: a range of its own, so a partial or repeated file shows in the counts."""
    return list(range(n * 1000, n * 1000 + ROWS))


def csv_of(n: int) -> bytes:
    return ("id,amount\n" + "".join(f"{i},{i * 3}\n" for i in file_ids(n))).encode()


def put_files(s3: S3rver, bucket: str, numbers, name=lambda n: f"in/f{n:02d}.csv") -> list[int]:
    ids = []
    for n in numbers:
        s3.put(bucket, name(n), csv_of(n))
        ids += file_ids(n)
    return ids


def objects(s3: S3rver, bucket: str, prefix: str = "in/") -> list[str]:
    """Keys under the prefix, asked of s3rver directly (not through the proxy)."""
    status, body = s3._request("GET", f"/{bucket}?list-type=2&prefix={prefix}")
    check(status == 200, f"listing {bucket} directly: HTTP {status} {body[:200]!r}")
    return sorted(re.findall(r"<Key>([^<]*)</Key>", body.decode()))


def purge_finished(proxy: S3FaultProxy) -> bool:
    """The pipe's purging task is over: a listing went out after the last DELETE was answered. The objects being gone
    from s3rver is not enough, since a DELETE's answer may still be on its way to Sluice when a test cuts the
    endpoint, and Sluice then rightly reports a delete that it could not confirm."""
    deletes = proxy.requests("delete")
    if not deletes or not all(e.outcome.startswith("forwarded") for e in deletes):
        return False
    return any(e.at > deletes[-1].at and e.outcome.startswith("forwarded") for e in proxy.requests("list"))


def exact(conn, table: str, ids: list[int], what: str):
    got = q(conn, f"SELECT count(*), count(DISTINCT id), coalesce(sum(id), 0), coalesce(sum(amount), 0) FROM {table}")
    c = Collector()
    c.eq(got[0], (len(ids), len(set(ids)), sum(ids), sum(i * 3 for i in ids)),
         f"{what}: (count, distinct ids, sum id, sum amount)")
    c.done()


def rows_of(conn, table: str):
    return q(conn, f"SELECT count(*), count(DISTINCT id), coalesce(sum(id), 0) FROM {table}")[0]


def wait_for(fn, what: str, timeout: float = 30.0, interval: float = 0.2):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"{what}: not within {timeout:.0f}s (last: {last!r})")


def wait_exact(conn, table: str, ids: list[int], what: str, timeout: float = 40.0):
    want = (len(ids), len(set(ids)), sum(ids))
    try:
        wait_for(lambda: rows_of(conn, table) == want, what, timeout)
    finally:
        exact(conn, table, ids, what)


def pipe(conn, name: str) -> tuple[str, str]:
    rows = q(conn, f"SHOW PIPES LIKE '{name}'")
    check(len(rows) == 1, f"SHOW PIPES LIKE '{name}': {rows}")
    return rows[0][1], rows[0][7] or ""


def running_until(conn, name: str, cond, what: str, timeout: float = 30.0) -> list[str]:
    """Polls SHOW PIPES until cond(last_error) holds; the pipe must be RUNNING at every poll. Returns the distinct
    last_error values seen."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while True:
        status, err = pipe(conn, name)
        if err not in seen:
            seen.append(err)
        check(status == "RUNNING", f"{what}: pipe {name} left RUNNING: {status} {err!r}")
        if cond(err):
            return seen
        check(time.monotonic() < deadline, f"{what}: not within {timeout:.0f}s; last_error values seen: {seen}")
        time.sleep(0.2)


def stays_running(conn, name: str, seconds: float, what: str) -> list[str]:
    seen: list[str] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        status, err = pipe(conn, name)
        if err not in seen:
            seen.append(err)
        check(status == "RUNNING", f"{what}: pipe {name} left RUNNING: {status} {err!r}")
        time.sleep(0.2)
    return seen


# ---- the setup every test shares ---------------------------------------------------------------------------------

class DeleteGuard:
    """Checks every DELETE the proxy forwards against the committed load records at that moment: the proxy holds the
    answer back until the check is done, so Sluice is still waiting for its delete and a file deleted before its
    load committed would be found without a record."""

    def __init__(self, srv, proxy: S3FaultProxy, bucket: str):
        self.srv, self.bucket = srv, bucket
        self.checked: list[str] = []
        self.violations: list[str] = []
        self._lock = threading.Lock()
        proxy.hook("delete", self._check)

    def _check(self, r):
        conn = self.srv.connect()
        try:
            url = f"s3://{self.bucket}/{r.key}"
            n = q(conn, f"SELECT count(*) FROM __sluice.volume_loads WHERE file_url = '{url}'")[0][0]
        finally:
            conn.close()
        with self._lock:
            self.checked.append(r.key)
            if n == 0:
                self.violations.append(r.key)

    def seen(self) -> int:
        with self._lock:
            return len(set(self.checked))

    def done(self, expect_checked: int | None = None):
        if expect_checked is not None:
            # The check of the last DELETE runs after s3rver deleted the object, so a test that saw the bucket empty
            # may get here while that check is still asking Sluice: give it the time a check takes.
            deadline = time.monotonic() + 10
            while self.seen() < expect_checked and time.monotonic() < deadline:
                time.sleep(0.05)
            check(self.seen() >= expect_checked,
                  f"the guard saw deletes of {self.seen()} files, expected at least {expect_checked}")
        with self._lock:
            eq(self.violations, [], "files deleted without a committed load record")


class Setup:
    """A bucket, a proxy in front of s3rver, a table, a connection through the proxy and a volume, all named after
    the test; `pipe()` creates a LIST_PURGE pipe listing every second."""

    def __init__(self, name: str, srv=None, s3=None, through_proxy: bool = True, access_id: str = ACCESS_ID):
        if srv is None:
            srv, s3 = shared()
        self.srv, self.s3, self.name = srv, s3, name
        self.bucket = name.replace("_", "-")
        s3.create_bucket(self.bucket)
        self.proxy = S3FaultProxy(s3.port).start()
        self.conn = srv.connect()
        q(self.conn, "CREATE DATABASE IF NOT EXISTS d")
        q(self.conn, "USE d")
        self.table, self.volume, self.connection, self.pipe_name = name, f"{name}_v", f"{name}_c", f"{name}_p"
        q(self.conn, f"CREATE TABLE {self.table} (id INT, amount BIGINT)")
        self.create_volume(access_id, through_proxy)
        self.guard = DeleteGuard(srv, self.proxy, self.bucket)

    def create_volume(self, access_id: str = ACCESS_ID, through_proxy: bool = True):
        endpoint = self.proxy.endpoint if through_proxy else self.s3.endpoint
        q(self.conn, f"CREATE STORAGE CONNECTION {self.connection} TYPE S3 ENDPOINT = '{endpoint}' "
                     f"ACCESS_ID = '{access_id}' ACCESS_KEY = '{ACCESS_KEY}'")
        q(self.conn, f"CREATE EXTERNAL VOLUME {self.volume} LOCATION 's3://{self.bucket}/in/' "
                     f"USING CONNECTION {self.connection}")

    def drop_volume(self):
        q(self.conn, f"DROP VOLUME {self.volume}")
        q(self.conn, f"DROP STORAGE CONNECTION {self.connection}")

    def pipe(self, extra: str = ""):
        q(self.conn, f"CREATE PIPE {self.pipe_name} BATCH_INTERVAL_IN_SECONDS = '1' {extra} AS COPY INTO "
                     f"{self.table} FROM VOLUME {self.volume} USING CSV OPTIONS ('header' = 'true')")

    def status(self):
        return pipe(self.conn, self.pipe_name)

    def close(self):
        try:
            q(self.conn, f"DROP PIPE IF EXISTS {self.pipe_name}")
        except Exception:
            pass
        self.proxy.stop()


# ---- the endpoint down ------------------------------------------------------------------------------------------

@suite.test(timeout=90)
def endpoint_down_during_listing(s: TestSuite):
    t = Setup("down_list")
    try:
        ids = put_files(t.s3, t.bucket, range(5))
        t.pipe()
        wait_exact(t.conn, t.table, ids, "the first files")
        wait_for(lambda: objects(t.s3, t.bucket) == [], "the loaded files are purged")
        wait_for(lambda: purge_finished(t.proxy), "the purging task ends (a listing after the last DELETE)")

        t.proxy.down()
        ids += put_files(t.s3, t.bucket, range(5, 10))
        seen = running_until(t.conn, t.pipe_name, lambda e: "retrying" in e, "endpoint down: the pipe says it retries")
        err = seen[-1]
        for part in ("volume down_list_v", "storage connection down_list_c", "listing s3://down-list/in/",
                     f"cannot reach the S3 endpoint '{t.proxy.endpoint}'", "tried", "retrying in"):
            contains(err, part, "last_error while the endpoint is down")
        ext = dict(q(t.conn, f"DESC PIPE EXTENDED {t.pipe_name}"))
        contains(ext["last_error"], "cannot reach the S3 endpoint", "DESC PIPE EXTENDED's last_error")
        eq(ext["pipe_status"], "RUNNING", "DESC PIPE's pipe_status")
        stays_running(t.conn, t.pipe_name, 2.0, "endpoint down")
        exact(t.conn, t.table, ids[:5 * ROWS], "nothing new loads while the endpoint is down")
        eq(len(objects(t.s3, t.bucket)), 5, "the new files wait in the bucket")

        t.proxy.up()
        wait_exact(t.conn, t.table, ids, "the endpoint is back: the new files load, once")
        wait_for(lambda: objects(t.s3, t.bucket) == [], "and are purged")
        wait_for(lambda: t.status() == ("RUNNING", ""), "last_error clears")
        eq(q(t.conn, f"SELECT count(*), count(DISTINCT source) FROM load_history('d.{t.table}') "
                     "WHERE status = 'LOADED'"), [(10, 10)], "one load per file")
        t.guard.done(expect_checked=10)
    finally:
        t.close()


@suite.test(timeout=90)
def endpoint_down_during_download(s: TestSuite):
    t = Setup("down_get")
    try:
        ids = put_files(t.s3, t.bucket, range(6))
        t.proxy.fault("down", kinds={"get"}, times=1)  # the listing answers, then the endpoint dies at the first GET
        t.pipe()
        seen = running_until(t.conn, t.pipe_name, lambda e: "retrying" in e, "down during the download")
        contains(seen[-1], "reading s3://down-get/in/", "last_error names the object being read")
        contains(seen[-1], "volume down_get_v", "and the volume")
        stays_running(t.conn, t.pipe_name, 1.5, "endpoint down")
        exact(t.conn, t.table, [], "nothing of a group whose download failed is loaded")
        eq(len(objects(t.s3, t.bucket)), 6, "no file is deleted")
        eq(t.proxy.requests("delete"), [], "no DELETE was even tried")

        t.proxy.up()
        wait_exact(t.conn, t.table, ids, "the endpoint is back: every file loads once")
        wait_for(lambda: objects(t.s3, t.bucket) == [], "and is purged")
        wait_for(lambda: t.status() == ("RUNNING", ""), "last_error clears")
        t.guard.done(expect_checked=6)
    finally:
        t.close()


# ---- 500 / 503 ---------------------------------------------------------------------------------------------------

@suite.test(timeout=90)
def http_500_and_503(s: TestSuite):
    t = Setup("http_5xx")
    try:
        # a few: absorbed by the client's own retries, the pipe never shows an error
        ids = put_files(t.s3, t.bucket, range(4))
        lists = t.proxy.fault("status", kinds={"list"}, status=500, code="InternalError",
                              message="We encountered an internal error. Please try again.", times=2)
        gets = t.proxy.fault("status", kinds={"get"}, status=503, code="SlowDown", times=3)
        t.pipe()
        done = (len(ids), len(ids), sum(ids))
        seen = running_until(t.conn, t.pipe_name, lambda e: rows_of(t.conn, t.table) == done, "blips are absorbed")
        exact(t.conn, t.table, ids, "every file once")
        eq((lists.hits, gets.hits), (2, 3), "the proxy answered 500 twice and 503 three times")
        eq(seen, [""], "no error shows for faults the retries absorb")

        # lasting: 500 on every GET; the pipe retries with backoff, RUNNING, the fault in last_error
        wait_for(lambda: objects(t.s3, t.bucket) == [], "purged")
        lasting = t.proxy.fault("status", kinds={"get"}, status=500, code="InternalError",
                                message="We encountered an internal error. Please try again.")
        ids += put_files(t.s3, t.bucket, range(4, 8))
        seen = running_until(t.conn, t.pipe_name, lambda e: "HTTP 500 InternalError" in e, "lasting 500s")
        for part in ("reading s3://http-5xx/in/f04.csv", "volume http_5xx_v", "tried 4 times", "retrying in"):
            contains(seen[-1], part, "last_error under lasting 500s")
        exact(t.conn, t.table, ids[:4 * ROWS], "nothing loads while every GET fails")
        eq(len(objects(t.s3, t.bucket)), 4, "nothing is deleted")
        tries = lasting.hits
        stays_running(t.conn, t.pipe_name, 2.0, "lasting 500s")
        check(lasting.hits > tries, "the pipe keeps trying")
        t.proxy.remove(lasting)
        wait_exact(t.conn, t.table, ids, "the store recovers: every file once")
        wait_for(lambda: t.status() == ("RUNNING", ""), "last_error clears")
        t.guard.done(expect_checked=8)
    finally:
        t.close()


# ---- a connection cut mid-body ------------------------------------------------------------------------------------

@suite.test(timeout=90)
def connection_cut_mid_body(s: TestSuite):
    t = Setup("cut_body")
    try:
        # once, with Content-Length (curl sees the body end early): retried at once, loaded whole
        ids = put_files(t.s3, t.bucket, range(3))
        once = t.proxy.fault("cut", kinds={"get"}, key=r"f01\.csv$", cut_at=0.5, times=1)
        # and the first listing cut short without Content-Length (not a whole XML document): listed again
        listing = t.proxy.fault("cut_unannounced", kinds={"list"}, cut_at=0.6, times=1)
        t.pipe()
        wait_exact(t.conn, t.table, ids, "a body cut once is downloaded again and loaded whole")
        eq((once.hits, listing.hits), (1, 1), "the proxy cut one body and one listing")
        wait_for(lambda: objects(t.s3, t.bucket) == [], "purged")

        # every time, without Content-Length (the answer just ends: only the listed size tells): never loaded in part
        lasting = t.proxy.fault("cut_unannounced", kinds={"get"}, key=r"f04\.csv$", cut_at=0.5)
        ids += put_files(t.s3, t.bucket, range(3, 6))
        size = len(csv_of(4))
        seen = running_until(t.conn, t.pipe_name, lambda e: "ended after" in e, "a body cut every time")
        contains(seen[-1], f"ended after {size // 2} of {size} bytes", "last_error says how much came")
        contains(seen[-1], "reading s3://cut-body/in/f04.csv", "and which object")
        stays_running(t.conn, t.pipe_name, 1.5, "cut bodies")
        eq(q(t.conn, f"SELECT count(*) FROM {t.table} WHERE id BETWEEN 4000 AND 4999"), [(0,)],
           "no row of the cut file")
        check("in/f04.csv" in objects(t.s3, t.bucket), "the cut file is not deleted")
        eq(t.proxy.requests("delete", "in/f04.csv"), [], "no DELETE of the cut file")
        t.proxy.remove(lasting)
        wait_exact(t.conn, t.table, ids, "whole again: every file once")
        wait_for(lambda: objects(t.s3, t.bucket) == [], "purged")
        t.guard.done(expect_checked=6)
        scratch = os.path.join(t.srv.data_dir, "scratch")
        left = [f for f in os.listdir(scratch) if f.startswith("s3-")] if os.path.isdir(scratch) else []
        eq(left, [], "no partial download is left in the scratch folder")
    finally:
        t.close()


# ---- a listing that changes between its pages ----------------------------------------------------------------------

@suite.test(timeout=60)
def listing_changes_between_pages(s: TestSuite):
    t = Setup("pages")
    try:
        t.proxy.list_page_size = 2  # ListObjectsV2 pages of 2 keys, so 8 files take 4+ pages
        put_files(t.s3, t.bucket, range(8))  # f00 ... f07
        changed = threading.Event()

        def between_pages(r):
            # the first page (f00, f01) is answered; before Sluice asks for the next one: f01 (listed) and f05 (not
            # listed yet) are deleted, f00a (before the cursor: this listing misses it) and f06a (after) are added
            if "continuation-token" in r.query or changed.is_set():
                return
            changed.set()
            t.s3.delete(t.bucket, "in/f01.csv")
            t.s3.delete(t.bucket, "in/f05.csv")
            t.s3.put(t.bucket, "in/f00a.csv", csv_of(10))
            t.s3.put(t.bucket, "in/f06a.csv", csv_of(11))

        t.proxy.hook("list", between_pages)
        t.pipe()
        ids = [i for n in (0, 2, 3, 4, 6, 7, 10, 11) for i in file_ids(n)]
        wait_exact(t.conn, t.table, ids, "every file there at the end, once; the deleted ones never")
        wait_for(lambda: objects(t.s3, t.bucket) == [], "all purged")
        check(changed.is_set(), "the listing was changed between its pages")
        pages = [e for e in t.proxy.requests("list") if "continuation-token" in e.query]
        check(len(pages) >= 3, f"the listing was paged ({len(pages)} follow-up pages)")
        eq([e.outcome for e in t.proxy.requests("get", "in/f01.csv")][:1], ["forwarded 404"],
           "the file deleted after it was listed was asked for, and was gone")
        hist = q(t.conn, f"SELECT status, count(*), count(DISTINCT source) FROM load_history('d.{t.table}') "
                         "GROUP BY status ORDER BY status")
        eq(hist, [("LOADED", 8, 8)], "load_history: 8 files loaded once each, no FAILED load for the vanished file")
        stays_running(t.conn, t.pipe_name, 1.0, "after the changed listing")
        eq(t.status(), ("RUNNING", ""), "no error for a file that vanished")
        t.guard.done(expect_checked=8)
    finally:
        t.close()


@suite.test(timeout=60)
def file_replaced_between_listing_and_download(s: TestSuite):
    t = Setup("replaced")
    try:
        put_files(t.s3, t.bucket, range(2))
        # f01 is replaced (same size, other rows) after the listing, just before its download: s3rver ignores
        # If-Match, so only the ETag of the answer tells that this is not the version listed
        check(len(csv_of(1)) == len(csv_of(3)), "the replacement has the same size")
        t.proxy.hook("get", lambda r: t.s3.put(t.bucket, "in/f01.csv", csv_of(3)), times=1, key=r"f01\.csv$",
                     before=True)
        t.pipe("INGEST_MODE = 'LIST'")
        ids = file_ids(0) + file_ids(3)
        wait_exact(t.conn, t.table, ids, "the version downloaded is loaded once, under its own identity")
        stays_running(t.conn, t.pipe_name, 2.5, "later listings")
        exact(t.conn, t.table, ids, "later listings do not load it again")
        eq(q(t.conn, f"SELECT status, count(*), count(DISTINCT source) FROM load_history('d.{t.table}') "
                     "GROUP BY status"), [("LOADED", 2, 2)], "two loads, no FAILED one")
        check("changed since it was listed" in t.srv.log_text(), "the skipped version is logged")
    finally:
        t.close()


# ---- a slow endpoint ------------------------------------------------------------------------------------------------

@suite.test(timeout=90)
def slow_endpoint_times_out(s: TestSuite):
    _, s3 = shared()
    srv = s.server(extra_args=["--s3-timeout-seconds", "1", "--s3-retries", "1"]).start()
    t = Setup("slow", srv=srv, s3=s3)
    try:
        ids = put_files(t.s3, t.bucket, range(4))
        slow = t.proxy.fault("delay", seconds=2.5)  # every request answers after 2.5 s; the client waits 1 s
        t.pipe()
        seen = running_until(t.conn, t.pipe_name, lambda e: "timed out" in e and "retrying" in e, "a slow endpoint")
        contains(seen[-1], f"the S3 endpoint '{t.proxy.endpoint}' timed out", "last_error names the endpoint")
        contains(seen[-1], "volume slow_v", "and the volume")
        stays_running(t.conn, t.pipe_name, 1.5, "slow endpoint")
        exact(t.conn, t.table, [], "nothing loads while every request times out")
        t.proxy.remove(slow)
        wait_exact(t.conn, t.table, ids, "fast again: every file once")
        wait_for(lambda: objects(t.s3, t.bucket) == [], "purged")

        # slow, but within the timeout: loads
        t.proxy.fault("delay", kinds={"get"}, seconds=0.3)
        ids += put_files(t.s3, t.bucket, range(4, 7))
        wait_exact(t.conn, t.table, ids, "a slow endpoint within the timeout")
        wait_for(lambda: objects(t.s3, t.bucket) == [], "purged")
        t.guard.done(expect_checked=7)
    finally:
        t.close()


# ---- 403 -------------------------------------------------------------------------------------------------------------

@suite.test(timeout=90)
def wrong_credentials_403(s: TestSuite):
    # s3rver refuses an unknown access id with a real 403 InvalidAccessKeyId (the proxy only passes it on)
    t = Setup("creds", access_id="NOT-S3RVER")
    try:
        ids = put_files(t.s3, t.bucket, range(3))
        t.pipe()
        wait_for(lambda: t.status()[0] == "FAILED", "403: the pipe fails", timeout=20)
        err = t.status()[1]
        for part in ("object storage refused access", "volume creds_v", "storage connection creds_c",
                     "listing s3://creds/in/", f"at '{t.proxy.endpoint}'", "HTTP 403 InvalidAccessKeyId",
                     "ACCESS_ID, ACCESS_KEY and REGION", "s3:ListBucket on bucket 'creds'",
                     "ALTER PIPE creds_p SET PIPE_EXECUTION_PAUSED = false"):
            contains(err, part, "last_error after a 403")
        lists = len(t.proxy.requests("list"))
        eq(lists, 1, "a 403 is not retried: one listing")
        time.sleep(2.0)
        eq(len(t.proxy.requests("list")), lists, "a FAILED pipe lists no more")
        exact(t.conn, t.table, [], "nothing loaded")
        eq(len(objects(t.s3, t.bucket)), 3, "nothing deleted")
        expect_mysql_error(lambda: q(t.conn, f"COPY INTO {t.table} FROM VOLUME {t.volume} USING CSV "
                                             "OPTIONS ('header' = 'true')"),
                           substring="HTTP 403 InvalidAccessKeyId", what="COPY INTO with refused credentials")

        # fixed the documented way (the connection and volume made again), resumed: loads, exactly
        t.drop_volume()
        t.create_volume()
        q(t.conn, f"ALTER PIPE {t.pipe_name} SET PIPE_EXECUTION_PAUSED = false")
        wait_exact(t.conn, t.table, ids, "resumed with good credentials")
        wait_for(lambda: t.status() == ("RUNNING", ""), "RUNNING without an error")

        # a 403 on the download (a policy without s3:GetObject): FAILED, naming the object and the permission
        wait_for(lambda: objects(t.s3, t.bucket) == [], "purged")
        denied = t.proxy.fault("status", kinds={"get"}, status=403, code="AccessDenied", message="Access Denied")
        ids += put_files(t.s3, t.bucket, range(3, 5))
        wait_for(lambda: t.status()[0] == "FAILED", "403 on GET: the pipe fails", timeout=20)
        err = t.status()[1]
        for part in ("reading s3://creds/in/f03.csv", "HTTP 403 AccessDenied", "s3:GetObject on bucket 'creds'",
                     "volume creds_v"):
            contains(err, part, "last_error after a 403 on GET")
        eq(denied.hits, 1, "the refused GET is not retried")
        exact(t.conn, t.table, ids[:3 * ROWS], "nothing of the refused files")
        eq(len(objects(t.s3, t.bucket)), 2, "the refused files stay")
        t.proxy.remove(denied)
        q(t.conn, f"ALTER PIPE {t.pipe_name} SET PIPE_EXECUTION_PAUSED = false")
        wait_exact(t.conn, t.table, ids, "resumed: the files load once")
        # The purge follows the load's commit: the last files' deletes may still be on their way.
        wait_for(lambda: objects(t.s3, t.bucket) == [], "the resumed files purged")
        t.guard.done(expect_checked=5)
    finally:
        t.close()


# ---- LIST_PURGE around the commit ------------------------------------------------------------------------------------

@suite.test(timeout=90)
def delete_fails_after_the_commit(s: TestSuite):
    t = Setup("purge")
    try:
        ids = put_files(t.s3, t.bucket, range(5))
        # the loads commit; the endpoint dies at the first DELETE (which never reaches s3rver)
        t.proxy.fault("down", kinds={"delete"}, times=1)
        t.pipe()
        wait_exact(t.conn, t.table, ids, "the files load")
        wait_for(lambda: t.proxy.is_down, "the endpoint went down at the first delete")
        seen = running_until(t.conn, t.pipe_name, lambda e: "retrying" in e, "deletes fail")
        check(any("could not be deleted" in e or "cannot reach" in e for e in seen), f"last_error: {seen}")
        stays_running(t.conn, t.pipe_name, 1.5, "endpoint down after the commit")
        eq(len(objects(t.s3, t.bucket)), 5, "the files are still there (their deletes failed)")
        exact(t.conn, t.table, ids, "loaded once, still")
        t.proxy.up()
        wait_for(lambda: objects(t.s3, t.bucket) == [], "a later listing deletes them")
        exact(t.conn, t.table, ids, "and does not load them again")
        eq(q(t.conn, f"SELECT count(*), count(DISTINCT source) FROM load_history('d.{t.table}')"), [(5, 5)],
           "one load per file in the history")
        wait_for(lambda: t.status() == ("RUNNING", ""), "last_error clears")

        # deletes refused (a policy without s3:DeleteObject): the loads go on, the files stay, last_error says why;
        # one refused delete per listing, not one per file
        refused = t.proxy.fault("status", kinds={"delete"}, status=403, code="AccessDenied", message="Access Denied")
        listings = len(t.proxy.requests("list"))
        ids += put_files(t.s3, t.bucket, range(5, 8))
        wait_exact(t.conn, t.table, ids, "new files load while deletes are refused")
        seen = running_until(t.conn, t.pipe_name, lambda e: "could not be deleted" in e, "refused deletes")
        for part in ("HTTP 403 AccessDenied", "s3:DeleteObject on bucket 'purge'", "retrying at the next listing"):
            contains(seen[-1], part, "last_error while deletes are refused")
        stays_running(t.conn, t.pipe_name, 2.0, "refused deletes")
        hits = refused.hits  # before the listings: a task lists before it deletes
        listings = len(t.proxy.requests("list")) - listings
        check(2 <= hits <= listings, f"one refused delete per listing: {hits} refused deletes in {listings} listings "
                                     "(3 files to delete)")
        eq(len(objects(t.s3, t.bucket)), 3, "the refused files stay")
        t.proxy.remove(refused)
        wait_for(lambda: objects(t.s3, t.bucket) == [], "deletes allowed again: purged")
        exact(t.conn, t.table, ids, "nothing loaded twice")
        wait_for(lambda: t.status() == ("RUNNING", ""), "last_error clears")
        t.guard.done(expect_checked=8)
    finally:
        t.close()


# ---- COPY INTO ---------------------------------------------------------------------------------------------------------

@suite.test(timeout=90)
def copy_into_under_faults(s: TestSuite):
    t = Setup("copy")
    copy = f"COPY INTO {t.table} FROM VOLUME {t.volume} USING CSV OPTIONS ('header' = 'true')"
    try:
        ids = put_files(t.s3, t.bucket, range(5))
        t.proxy.down()
        _, msg = expect_mysql_error(lambda: q(t.conn, copy), what="COPY INTO with the endpoint down")
        for part in ("volume copy_v", "storage connection copy_c", "listing s3://copy/in/", "cannot reach"):
            contains(msg, part, "COPY INTO's error with the endpoint down")
        exact(t.conn, t.table, [], "nothing loaded")
        t.proxy.up()

        # the third file's body is cut every time: the statement stops there, files before it load whole
        cut = t.proxy.fault("cut_unannounced", kinds={"get"}, key=r"f02\.csv$", cut_at=0.4)
        _, msg = expect_mysql_error(lambda: q(t.conn, copy), what="COPY INTO with a cut body")
        for part in ("COPY INTO stopped at file 'f02.csv' of volume copy_v", "nothing of it was loaded",
                     "ended after", "Run the COPY again"):
            contains(msg, part, "COPY INTO's error for a cut body")
        exact(t.conn, t.table, ids[:2 * ROWS], "the files before it, whole; nothing of the cut one")
        t.proxy.remove(cut)

        # blips: absorbed
        t.proxy.fault("status", kinds={"list"}, status=503, code="SlowDown", times=2)
        t.proxy.fault("reset", kinds={"get"}, times=2)
        res = q(t.conn, copy)
        eq(sorted((r[0], r[1], r[2]) for r in res), [(f"f{n:02d}.csv", "LOADED", ROWS) for n in range(2, 5)],
           "COPY again loads the rest")
        exact(t.conn, t.table, ids, "every file once")
        eq(q(t.conn, copy), [], "and a COPY after that loads nothing")

        # 403 on the download
        ids_more = put_files(t.s3, t.bucket, range(5, 7))
        t.proxy.fault("status", kinds={"get"}, status=403, code="AccessDenied", message="Access Denied")
        _, msg = expect_mysql_error(lambda: q(t.conn, copy), what="COPY INTO with a refused GET")
        for part in ("COPY INTO stopped at file 'f05.csv'", "HTTP 403 AccessDenied", "s3:GetObject"):
            contains(msg, part, "COPY INTO's error for a refused GET")
        exact(t.conn, t.table, ids, "nothing of the refused files")
        t.proxy.clear()
        q(t.conn, copy)
        exact(t.conn, t.table, ids + ids_more, "every file once")
    finally:
        t.close()


if __name__ == "__main__":
    try:
        sys.exit(suite.run())
    finally:
        if "s3" in _shared:
            _shared["s3"].stop()
