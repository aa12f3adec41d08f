#!/usr/bin/python3
"""Volume pipes end to end (docs/pipes.md, "Volume pipes"): CREATE PIPE ... AS COPY INTO t FROM VOLUME vol over a local
folder and over S3 (s3rver, tests/e2e/s3_harness.py).

- LIST_PURGE: new files load and disappear once loaded; rows exact (count and sum);
- LIST: files stay and do not load again on later listings; a file replaced with new content loads again;
- names starting with '.' or '_temporary' (any path component) are left alone;
- ON_ERROR = CONTINUE: good rows load, bad ones are recorded with file and line, load_history says PARTIALLY_LOADED;
- LIST_PURGE: a loaded file whose delete fails is not loaded again; a later listing deletes it;
- ON_ERROR = ABORT: a bad file is not skipped silently: FAILED rows in load_history, then the pipe is FAILED with
  the file and line after MAX_SKIP_BATCH_COUNT_ON_ERROR tries; other files still load;
- load_history rows per file, for the pipe and for one-shot COPY INTO;
- SUSPEND / resume, DESC PIPE's pendingFileCount, and a pipe keeps loading after a restart.

    /usr/bin/python3 tests/e2e/test_volume_pipes.py --server build/sluice
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import TestSuite, check, eq  # noqa: E402
from volume_harness import q, write  # noqa: E402
from s3_harness import ACCESS_ID, ACCESS_KEY, S3rver  # noqa: E402

suite = TestSuite("test_volume_pipes")


def wait_for(fn, expected, what, timeout=30.0):
    deadline = time.monotonic() + timeout
    got = None
    while time.monotonic() < deadline:
        got = fn()
        if got == expected:
            return got
        time.sleep(0.1)
    eq(got, expected, what + f" (within {timeout:.0f}s)")


def csv(rows, header=True):
    return ("id,amount\n" if header else "") + "".join(f"{i},{a}\n" for i, a in rows)


def totals(conn, table="t"):
    return q(conn, f"SELECT count(*), coalesce(sum(id), 0), coalesce(sum(amount), 0) FROM {table}")[0]


def files_in(folder):
    out = []
    for root, _, names in os.walk(folder):
        out += [os.path.relpath(os.path.join(root, n), folder) for n in names]
    return sorted(out)


def desc(conn, pipe):
    return dict(q(conn, f"DESC PIPE {pipe}"))


@suite.test(timeout=110)
def local_list_purge(s: TestSuite):
    folder = tempfile.mkdtemp(prefix="sluice-vpipe-")
    try:
        write(f"{folder}/a.csv", csv([(1, 1.5), (2, 2.5)]))
        write(f"{folder}/sub/b.csv", csv([(3, 3.0)]))
        write(f"{folder}/.hidden.csv", csv([(100, 100.0)]))
        write(f"{folder}/_temporary/0/x.csv", csv([(200, 200.0)]))
        write(f"{folder}/sub/.part/y.csv", csv([(300, 300.0)]))
        srv = s.server().start()
        conn = srv.connect()
        q(conn, "CREATE DATABASE d")
        q(conn, "USE d")
        q(conn, "CREATE TABLE t (id INT, amount DOUBLE)")
        q(conn, f"CREATE VOLUME v LOCATION 'file://{folder}/' RECURSIVE = TRUE")
        q(conn, "CREATE PIPE p VIRTUAL_CLUSTER = 'default' BATCH_INTERVAL_IN_SECONDS = '1' "
                "AS COPY INTO t FROM VOLUME v USING CSV OPTIONS ('header' = 'true')")
        wait_for(lambda: totals(conn), (3, 6, 7.0), "the first files loaded")
        wait_for(lambda: files_in(folder), [".hidden.csv", "_temporary/0/x.csv", "sub/.part/y.csv"],
                 "loaded files are deleted, hidden ones are left alone")

        # a new file: loaded and deleted; rows exact
        write(f"{folder}/c.csv", csv([(4, 0.25), (5, 0.75)]))
        wait_for(lambda: totals(conn), (5, 15, 8.0), "a new file loads")
        wait_for(lambda: os.path.exists(f"{folder}/c.csv"), False, "and is deleted")

        hist = q(conn, "SELECT job_name, job_kind, source, loaded_rows, error_rows, status FROM load_history('d.t') "
                       "ORDER BY source")
        eq(hist, [("p", "PIPE", f"file://{folder}/a.csv", 2, 0, "LOADED"),
                  ("p", "PIPE", f"file://{folder}/c.csv", 2, 0, "LOADED"),
                  ("p", "PIPE", f"file://{folder}/sub/b.csv", 1, 0, "LOADED")], "load_history: one row per file")
        info = desc(conn, "p")
        eq(info["pipe_kind"], "VOLUME", "DESC PIPE pipe_kind")

        def pending_and_last():
            lat = json.loads(desc(conn, "p")["pipe_latency"])["volume"]
            return lat["pendingFileCount"], lat["pendingFileBytes"], lat["lastIngestedFilePath"]
        # (the task deletes c.csv before it ends and reports its listing, so these may change a moment later)
        wait_for(pending_and_last, (0, 0, f"file://{folder}/c.csv"), "nothing pending; the last file loaded",
                 timeout=10)
        ext = desc(conn, "EXTENDED p")
        eq((ext["loaded_files"], ext["loaded_rows"]), ("3", "5"), "DESC PIPE EXTENDED counts")

        # suspended: nothing loads, and DESC shows no new listing; resumed: the file loads
        q(conn, "ALTER PIPE p SET PIPE_EXECUTION_PAUSED = true")
        write(f"{folder}/d.csv", csv([(6, 1.0)]))
        time.sleep(2.5)
        eq(totals(conn), (5, 15, 8.0), "a suspended pipe loads nothing")
        check(os.path.exists(f"{folder}/d.csv"), "and deletes nothing")
        q(conn, "ALTER PIPE p SET PIPE_EXECUTION_PAUSED = false")
        wait_for(lambda: totals(conn), (6, 21, 9.0), "resumed, the file loads")

        # the pipe survives a restart and keeps loading; nothing loads twice
        srv.restart()
        conn = srv.connect(database="d")
        eq([r[:3] for r in q(conn, "SHOW PIPES")], [("p", "RUNNING", "VOLUME")], "the pipe after a restart")
        write(f"{folder}/e.csv", csv([(7, 2.0)]))
        wait_for(lambda: totals(conn), (7, 28, 11.0), "loads after the restart")
        wait_for(lambda: files_in(folder), [".hidden.csv", "_temporary/0/x.csv", "sub/.part/y.csv"], "all purged")

        # DROP PIPE: the rows stay; new files stay in the folder
        q(conn, "DROP PIPE p")
        write(f"{folder}/f.csv", csv([(8, 1.0)]))
        time.sleep(1.5)
        eq(totals(conn), (7, 28, 11.0), "rows stay after DROP PIPE; nothing more loads")
        check(os.path.exists(f"{folder}/f.csv"), "a dropped pipe deletes nothing")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def make_undeletable(path: str) -> bool:
    """Makes `path` impossible to delete: a read-only folder for other users, the immutable attribute for root.
    False where that cannot be done (no chattr, no CAP_LINUX_IMMUTABLE, a filesystem without the attribute)."""
    import atexit
    import subprocess
    if os.geteuid() != 0:
        os.chmod(os.path.dirname(path), 0o555)
        atexit.register(make_deletable, path)  # even if the test is abandoned at its time limit
        return True
    try:
        made = subprocess.run(["chattr", "+i", path], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
    if made:
        atexit.register(make_deletable, path)
    return made


def make_deletable(path: str):
    """Undoes make_undeletable (and nothing, quietly, where it did nothing or was undone already)."""
    import subprocess
    try:
        if os.geteuid() != 0:
            os.chmod(os.path.dirname(path), 0o755)
        elif os.path.exists(path):
            subprocess.run(["chattr", "-i", path], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        pass


@suite.test(timeout=60)
def failed_delete_is_retried_not_reloaded(s: TestSuite):
    folder = tempfile.mkdtemp(prefix="sluice-vpipe-")
    path = f"{folder}/stuck/a.csv"
    try:
        write(path, csv([(1, 1.0), (2, 2.0)]))
        if not make_undeletable(path):
            print("    (skipped: no undeletable file here: chattr +i needs the chattr tool, CAP_LINUX_IMMUTABLE and a "
                  "filesystem with the immutable attribute)")
            return
        srv = s.server().start()
        conn = srv.connect()
        q(conn, "CREATE DATABASE d")
        q(conn, "USE d")
        q(conn, "CREATE TABLE t (id INT, amount DOUBLE)")
        q(conn, f"CREATE VOLUME v LOCATION 'file://{folder}/stuck/'")
        q(conn, "CREATE PIPE p BATCH_INTERVAL_IN_SECONDS = '1' AS COPY INTO t FROM VOLUME v USING CSV "
                "OPTIONS ('header' = 'true')")
        wait_for(lambda: totals(conn), (2, 3, 3.0), "the file loads")
        time.sleep(2.5)  # listings that find the loaded file and fail to delete it
        eq(totals(conn), (2, 3, 3.0), "a loaded file whose delete failed is not loaded again")
        check(os.path.exists(path), "the file is still there")
        check("a.csv is loaded but could not be deleted" in srv.log_text(), "the failed delete is logged")
        make_deletable(path)
        wait_for(lambda: os.path.exists(path), False, "a later listing deletes it")
        eq(totals(conn), (2, 3, 3.0), "and loads nothing more")
        eq(q(conn, "SELECT count(*) FROM load_history('t')"), [(1,)], "one load in the history")
    finally:
        make_deletable(path)
        shutil.rmtree(folder, ignore_errors=True)


@suite.test(timeout=110)
def local_list_mode_errors_and_history(s: TestSuite):
    folder = tempfile.mkdtemp(prefix="sluice-vpipe-")
    bad_folder = tempfile.mkdtemp(prefix="sluice-vpipe-bad-")
    try:
        write(f"{folder}/a.csv", csv([(1, 1.0), (2, 2.0)]))
        write(f"{folder}/b.csv", csv([(3, 3.0)]))
        srv = s.server().start()
        conn = srv.connect()
        q(conn, "CREATE DATABASE d")
        q(conn, "USE d")
        q(conn, "CREATE TABLE t (id INT, amount DOUBLE)")
        q(conn, f"CREATE VOLUME v LOCATION 'file://{folder}/'")
        q(conn, "CREATE PIPE keep BATCH_INTERVAL_IN_SECONDS = '1' INGEST_MODE = 'LIST' "
                "AS COPY INTO t FROM VOLUME v USING CSV OPTIONS ('header' = 'true') ON_ERROR = CONTINUE")
        wait_for(lambda: totals(conn), (3, 6, 6.0), "LIST loads the files")
        time.sleep(3.5)  # three more listings
        eq(totals(conn), (3, 6, 6.0), "LIST does not load a file twice")
        eq(files_in(folder), ["a.csv", "b.csv"], "LIST keeps the files")

        # a file replaced with new content is a new file
        write(f"{folder}/a.csv", csv([(10, 0.5), (11, 0.5), (12, 0.5)]))
        wait_for(lambda: totals(conn), (6, 39, 7.5), "the replaced file loads again")

        # bad rows under ON_ERROR = CONTINUE: the good rows load, the bad one is recorded with file and line
        write(f"{folder}/bad.csv", "id,amount\n20,1.0\nxx,2.0\n21,1.0\n")
        wait_for(lambda: totals(conn), (8, 80, 9.5), "the good rows of bad.csv")
        rej = q(conn, "SELECT file_url, line FROM __sluice.volume_rejected_rows")
        eq(rej, [(f"file://{folder}/bad.csv", 3)], "the rejected row with its file and line")
        hist = q(conn, "SELECT source, loaded_rows, error_rows, status, first_error FROM load_history('t') "
                       "WHERE source LIKE '%bad.csv'")
        eq([h[:4] for h in hist], [(f"file://{folder}/bad.csv", 2, 1, "PARTIALLY_LOADED")], "load_history")
        check(hist[0][4].startswith("line 3:"), f"the first error names the line: {hist[0][4]!r}")
        eq(q(conn, "SELECT status, count(*) FROM load_history('d.t') WHERE job_name = 'keep' GROUP BY status "
                   "ORDER BY status"), [("LOADED", 3), ("PARTIALLY_LOADED", 1)], "the pipe's history")

        # ON_ERROR = ABORT: the bad file is retried, recorded FAILED, and fails the pipe naming file and line;
        # the good file next to it loads
        q(conn, "CREATE TABLE u (id INT, amount DOUBLE)")
        write(f"{bad_folder}/a_bad.csv", "id,amount\n1,1.0\nyy,2.0\n")
        write(f"{bad_folder}/b_good.csv", csv([(5, 5.0)]))
        q(conn, f"CREATE VOLUME bad LOCATION 'file://{bad_folder}/'")
        q(conn, "CREATE PIPE strict BATCH_INTERVAL_IN_SECONDS = '1' MAX_SKIP_BATCH_COUNT_ON_ERROR = '2' "
                "AS COPY INTO u FROM VOLUME bad USING CSV OPTIONS ('header' = 'true')")
        wait_for(lambda: [r[1] for r in q(conn, "SHOW PIPES LIKE 'strict'")], ["FAILED"], "the pipe fails")
        last_error = q(conn, "SHOW PIPES LIKE 'strict'")[0][7]
        check("a_bad.csv" in last_error and "line" in last_error.lower(),
              f"the reason names the file and the line: {last_error}")
        eq(totals(conn, "u"), (1, 5, 5.0), "the good file loaded, nothing of the bad one")
        failed = q(conn, "SELECT source, status, attempts, first_error FROM load_history('u') WHERE status = 'FAILED'")
        check(len(failed) == 1 and failed[0][:2] == (f"file://{bad_folder}/a_bad.csv", "FAILED") and failed[0][2] >= 2,
              f"the retried file has one FAILED row counting its attempts: {failed}")
        check(failed[0][3].startswith("line 3: ") and "null_padding" not in failed[0][3] and "ON_ERROR" in failed[0][3],
              f"its error is in Sluice's words: {failed[0][3]!r}")
        eq(files_in(bad_folder), ["a_bad.csv"], "the bad file stays; the loaded one is purged")
        lat = json.loads(desc(conn, "strict")["pipe_latency"])["volume"]
        eq((lat["pendingFileCount"], lat["pendingFileBytes"], lat["timeLag"]),
           (1, os.path.getsize(f"{bad_folder}/a_bad.csv"), -1), "the bad file is pending; FAILED has no time lag")
        # fixed, resumed: loads
        write(f"{bad_folder}/a_bad.csv", "id,amount\n1,1.0\n2,2.0\n")
        q(conn, "ALTER PIPE strict SET PIPE_EXECUTION_PAUSED = false")
        wait_for(lambda: totals(conn, "u"), (3, 8, 8.0), "the fixed file loads after resuming")

        # the transform form, with REGEXP choosing the files
        q(conn, "CREATE TABLE x (id INT, amount DOUBLE)")
        write(f"{bad_folder}/sub/x1.csv", "a,b\n1,2\n0,5\n3,4\n")
        write(f"{bad_folder}/sub/x2.txt", "a,b\n9,9\n")
        q(conn, f"CREATE VOLUME sub LOCATION 'file://{bad_folder}/sub/'")
        q(conn, "CREATE PIPE shaped BATCH_INTERVAL_IN_SECONDS = '1' AS COPY INTO x FROM (SELECT CAST(a AS INT) * 10, "
                "CAST(b AS DOUBLE) FROM VOLUME sub USING CSV OPTIONS ('header' = 'true') WHERE a <> '0') "
                "REGEXP '.*[.]csv'")
        wait_for(lambda: q(conn, "SELECT id, amount FROM x ORDER BY id"), [(10, 2.0), (30, 4.0)], "the transform")
        wait_for(lambda: files_in(f"{bad_folder}/sub"), ["x2.txt"], "REGEXP leaves the other file alone")

        # one-shot COPY INTO writes load_history too (job_kind COPY, no job name)
        q(conn, "CREATE TABLE w (id INT, amount DOUBLE)")
        q(conn, "COPY INTO w FROM VOLUME v USING CSV OPTIONS ('header' = 'true') FILES ('b.csv')")
        eq(q(conn, "SELECT job_name, job_kind, source, loaded_rows, status FROM load_history('d.w')"),
           [("", "COPY", f"file://{folder}/b.csv", 1, "LOADED")], "COPY INTO's load_history row")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(bad_folder, ignore_errors=True)


@suite.test(timeout=110)
def s3_list_purge_and_list(s: TestSuite):
    with S3rver() as s3:
        s3.create_bucket("inbox")
        s3.put("inbox", "landing/a.csv", csv([(1, 1.0), (2, 2.0)]).encode())
        s3.put("inbox", "landing/day=1/b.csv", csv([(3, 3.0)]).encode())
        s3.put("inbox", "landing/.hidden.csv", csv([(100, 1.0)]).encode())
        s3.put("inbox", "landing/_temporary/x.csv", csv([(200, 1.0)]).encode())
        s3.put("inbox", "keep/k.csv", csv([(7, 7.0)]).encode())
        srv = s.server().start()
        conn = srv.connect()
        q(conn, "CREATE DATABASE d")
        q(conn, "USE d")
        q(conn, "CREATE TABLE t (id INT, amount DOUBLE)")
        q(conn, "CREATE TABLE k (id INT, amount DOUBLE)")
        q(conn, f"CREATE STORAGE CONNECTION s3c TYPE S3 ENDPOINT = '{s3.endpoint}' ACCESS_ID = '{ACCESS_ID}' "
                f"ACCESS_KEY = '{ACCESS_KEY}'")
        q(conn, "CREATE EXTERNAL VOLUME landing LOCATION 's3://inbox/landing/' USING CONNECTION s3c RECURSIVE = TRUE")
        q(conn, "CREATE EXTERNAL VOLUME keep LOCATION 's3://inbox/keep/' USING CONNECTION s3c")
        q(conn, "CREATE PIPE purge BATCH_INTERVAL_IN_SECONDS = '1' "
                "AS COPY INTO t FROM VOLUME landing USING CSV OPTIONS ('header' = 'true')")
        q(conn, "CREATE PIPE listed BATCH_INTERVAL_IN_SECONDS = '1' INGEST_MODE = 'LIST' "
                "AS COPY INTO k FROM VOLUME keep USING CSV OPTIONS ('header' = 'true')")
        wait_for(lambda: totals(conn), (3, 6, 6.0), "S3 LIST_PURGE loads")
        wait_for(lambda: q(conn, "SELECT count(*) FROM DIRECTORY(landing)"), [(0,)], "and deletes the objects")
        eq(s3._request("GET", "/inbox/landing/.hidden.csv")[0], 200, "hidden objects stay")
        eq(s3._request("GET", "/inbox/landing/_temporary/x.csv")[0], 200, "_temporary objects stay")
        s3.put("inbox", "landing/c.csv", csv([(4, 4.0)]).encode())
        wait_for(lambda: totals(conn), (4, 10, 10.0), "a new object loads")

        wait_for(lambda: totals(conn, "k"), (1, 7, 7.0), "S3 LIST loads")
        time.sleep(3.5)
        eq(totals(conn, "k"), (1, 7, 7.0), "S3 LIST loads a file once")
        eq(q(conn, "SELECT relative_path FROM DIRECTORY(keep)"), [("k.csv",)], "LIST keeps the object")
        s3.put("inbox", "keep/k.csv", csv([(8, 8.0), (9, 9.0)]).encode())
        wait_for(lambda: totals(conn, "k"), (3, 24, 24.0), "new content under the same name loads again")
        eq(q(conn, "SELECT count(*), count(DISTINCT source) FROM load_history('d.k') WHERE job_name = 'listed'"),
           [(2, 1)], "two loads of one object")


if __name__ == "__main__":
    sys.exit(suite.run())
