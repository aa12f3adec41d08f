#!/usr/bin/python3
"""A volume pipe survives crashes: each file's rows and its load record commit in one transaction, and under
LIST_PURGE a file is deleted only after that commit (a file whose delete was cut short is deleted at the next listing,
not loaded again). A server SIGKILLed several times while a pipe loads hundreds of files (file by file, and in
groups of files per transaction), and restarted each time, ends with every file's rows in the table exactly once
(and, under LIST_PURGE, every file gone).

    /usr/bin/python3 tests/e2e/test_volume_pipe_crash.py --server build/sluice
"""
from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import TestSuite, check, eq  # noqa: E402

from volume_harness import q  # noqa: E402

suite = TestSuite("test_volume_pipe_crash")


def loaded_files(srv):
    try:
        conn = srv.connect(database="d")
        return q(conn, "SELECT count(*) FROM __sluice.volume_loads")[0][0]
    except Exception:
        return -1  # starting up


def kill_while_loading(s: TestSuite, mode: str, on_error: str, files: int, rows_per_file: int, thresholds: list):
    folder = tempfile.mkdtemp(prefix="sluice-vpipe-crash-")
    try:
        for f in range(files):
            with open(f"{folder}/part-{f:04d}.csv", "w") as out:
                out.write("".join(f"{f * rows_per_file + r},{f}\n" for r in range(rows_per_file)))
        srv = s.server().start()
        conn = srv.connect()
        q(conn, "CREATE DATABASE d")
        q(conn, "USE d")
        q(conn, "CREATE TABLE t (id BIGINT, file INT)")
        q(conn, f"CREATE VOLUME v LOCATION 'file://{folder}/'")
        q(conn, f"CREATE PIPE p BATCH_INTERVAL_IN_SECONDS = '1' INGEST_MODE = '{mode}' "
                f"AS COPY INTO t FROM VOLUME v USING CSV ON_ERROR = {on_error}")
        killed_at = []
        for k, target in enumerate(thresholds, 1):
            # kill once the pipe got this far, well before it is done
            deadline = time.monotonic() + 40
            n = 0
            while time.monotonic() < deadline:
                n = loaded_files(srv)
                if n >= target:
                    break
                time.sleep(0.01)
            check(target <= n < files, f"kill {k} lands while the pipe loads ({n} of {files} files loaded)")
            killed_at.append(n)
            srv.restart(signal.SIGKILL)

        conn = srv.connect(database="d")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if q(conn, "SELECT count(*) FROM __sluice.volume_loads")[0][0] >= files and \
                    (mode == "LIST" or not os.listdir(folder)):
                break
            time.sleep(0.2)
        total = files * rows_per_file
        eq(q(conn, "SELECT count(*), sum(id), count(DISTINCT id), count(DISTINCT file) FROM t"),
           [(total, total * (total - 1) // 2, total, files)], f"every file's rows exactly once (kills at {killed_at})")
        eq(q(conn, "SELECT count(*), count(DISTINCT file_url) FROM __sluice.volume_loads"), [(files, files)],
           "one load record per file")
        eq(q(conn, "SELECT count(*), sum(loaded_rows) FROM load_history('d.t') WHERE status = 'LOADED'"),
           [(files, total)], "one load_history row per file")
        if mode == "LIST_PURGE":
            eq(os.listdir(folder), [], "every file deleted")
        else:
            eq(len(os.listdir(folder)), files, "LIST keeps every file")
        time.sleep(2.5)  # more listings: nothing more
        eq(q(conn, "SELECT count(*) FROM t"), [(total,)], "later listings load nothing again")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@suite.test(timeout=110)
def sigkill_list_purge_file_by_file(s: TestSuite):
    # ON_ERROR = CONTINUE loads each file in its own transaction: kills land between files and inside one
    kill_while_loading(s, "LIST_PURGE", "CONTINUE", 300, 20, [75, 150, 225])


@suite.test(timeout=110)
def sigkill_list_purge_in_groups(s: TestSuite):
    # ON_ERROR = ABORT loads up to 256 files per transaction, then deletes them: the kills land after a group's
    # commit, while the next group loads or the deletes run
    kill_while_loading(s, "LIST_PURGE", "ABORT", 600, 3000, [1, 257])


@suite.test(timeout=110)
def sigkill_list(s: TestSuite):
    kill_while_loading(s, "LIST", "CONTINUE", 200, 20, [60, 130])


if __name__ == "__main__":
    sys.exit(suite.run())
