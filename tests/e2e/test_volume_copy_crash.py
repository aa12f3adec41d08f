#!/usr/bin/python3
"""COPY INTO from a volume survives a crash (issue 4, part 5): each file's rows and its load record commit in one
transaction (file by file, or a group of files together with every file's record), so a server killed with SIGKILL
in the middle of a COPY of many files leaves every file either wholly loaded (and recorded) or not at all;
running the COPY again after the restart loads exactly the rest.

    /usr/bin/python3 tests/e2e/test_volume_copy_crash.py --server build/sluice
"""
from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import TestSuite, check, eq  # noqa: E402

from volume_harness import q  # noqa: E402

suite = TestSuite("test_volume_copy_crash")


def sigkill_during_copy(s: TestSuite, files: int, rows_per_file: int, clause: str, min_loaded: int):
    folder = tempfile.mkdtemp(prefix="sluice-crash-")
    try:
        for f in range(files):
            with open(f"{folder}/part-{f:04d}.csv", "w") as out:
                out.write("".join(f"{f},{r}\n" for r in range(rows_per_file)))
        srv = s.server().start()
        conn = srv.connect()
        q(conn, "CREATE DATABASE d")
        q(conn, "USE d")
        q(conn, "CREATE TABLE t (file INT, n INT)")
        q(conn, f"CREATE VOLUME v LOCATION 'file://{folder}/'")

        outcome = {}

        def copy():
            try:
                c = srv.connect(database="d", read_timeout=120)
                outcome["rows"] = q(c, "COPY INTO t FROM VOLUME v USING CSV" + clause)
            except Exception as e:  # the server dies under it
                outcome["error"] = e

        worker = threading.Thread(target=copy)
        worker.start()
        # kill once some files are in, well before all are
        deadline = time.monotonic() + 60
        loaded = 0
        while time.monotonic() < deadline:
            loaded = q(conn, "SELECT count(*) FROM __sluice.volume_loads")[0][0]
            if loaded >= min_loaded:
                break
            time.sleep(0.02)
        check(loaded >= min_loaded, f"the COPY made progress before the kill ({loaded} files)")
        srv.restart(signal.SIGKILL)
        worker.join(30)
        check("error" in outcome, f"the COPY was cut short by the kill (it returned {len(outcome.get('rows', []))} rows)")

        conn = srv.connect(database="d")
        per_file = dict(q(conn, "SELECT file, count(*) FROM t GROUP BY file"))
        records = q(conn, "SELECT file_url FROM __sluice.volume_loads")
        recorded = {int(url.rsplit("part-", 1)[1][:4]) for (url,) in records}
        eq(len(records), len(recorded), "one load record per file")
        check(0 < len(recorded) < files, f"the kill landed mid-COPY ({len(recorded)} of {files} files recorded)")
        eq(set(per_file), recorded, "files with rows are exactly the recorded files")
        check(all(n == rows_per_file for n in per_file.values()), f"no file is half loaded: {per_file}")

        # again: exactly the files that were missing
        rows = q(conn, "COPY INTO t FROM VOLUME v USING CSV" + clause)
        eq(len(rows), files - len(recorded), "the second COPY loads the rest")
        eq(q(conn, "SELECT count(DISTINCT file), count(*) FROM t"), [(files, files * rows_per_file)],
           "every file exactly once")
        eq(q(conn, "COPY INTO t FROM VOLUME v USING CSV" + clause), [], "nothing left to load")
        # the scratch folder is <data dir>/scratch/<random>/, made anew at each start: no file is left in it
        left = [os.path.join(d, f) for d, _, files in os.walk(os.path.join(srv.data_dir, "scratch")) for f in files]
        check(not left, f"the scratch folder is empty ({left[:3]})")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@suite.test(timeout=150)
def sigkill_during_copy_file_by_file(s: TestSuite):
    # ON_ERROR = CONTINUE loads each file in its own transaction
    sigkill_during_copy(s, 400, 5, " ON_ERROR = CONTINUE", 20)


@suite.test(timeout=150)
def sigkill_during_copy_in_groups(s: TestSuite):
    # ON_ERROR = ABORT loads up to 256 files per transaction: 600 files are 3 groups, big enough that the kill lands
    # after the first group and before the last
    sigkill_during_copy(s, 600, 3000, "", 1)


if __name__ == "__main__":
    sys.exit(suite.run())
