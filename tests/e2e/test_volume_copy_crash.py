#!/usr/bin/python3
"""COPY INTO from a volume survives a crash (issue 4, part 5): each file's rows and its load record commit in one
transaction, so a server killed with SIGKILL in the middle of a COPY of many files leaves every file either wholly
loaded (and recorded) or not at all; running the COPY again after the restart loads exactly the rest.

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

suite = TestSuite("test_volume_copy_crash")

FILES = 400
ROWS_PER_FILE = 5


def q(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return [tuple(r) for r in cur.fetchall()]


@suite.test(timeout=150)
def sigkill_during_copy_loads_every_file_once(s: TestSuite):
    folder = tempfile.mkdtemp(prefix="sluice-crash-")
    try:
        for f in range(FILES):
            with open(f"{folder}/part-{f:04d}.csv", "w") as out:
                out.write("".join(f"{f},{r}\n" for r in range(ROWS_PER_FILE)))
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
                outcome["rows"] = q(c, "COPY INTO t FROM VOLUME v USING CSV")
            except Exception as e:  # the server dies under it
                outcome["error"] = e

        worker = threading.Thread(target=copy)
        worker.start()
        # kill once some files are in, well before all are
        deadline = time.monotonic() + 60
        loaded = 0
        while time.monotonic() < deadline:
            loaded = q(conn, "SELECT count(*) FROM __sluice.volume_loads")[0][0]
            if loaded >= 20:
                break
            time.sleep(0.02)
        check(loaded >= 20, f"the COPY made progress before the kill ({loaded} files)")
        srv.restart(signal.SIGKILL)
        worker.join(30)
        check("error" in outcome, f"the COPY was cut short by the kill (it returned {len(outcome.get('rows', []))} rows)")

        conn = srv.connect(database="d")
        per_file = dict(q(conn, "SELECT file, count(*) FROM t GROUP BY file"))
        records = q(conn, "SELECT file_url FROM __sluice.volume_loads")
        recorded = {int(url.rsplit("part-", 1)[1][:4]) for (url,) in records}
        eq(len(records), len(recorded), "one load record per file")
        check(0 < len(recorded) < FILES, f"the kill landed mid-COPY ({len(recorded)} of {FILES} files recorded)")
        eq(set(per_file), recorded, "files with rows are exactly the recorded files")
        check(all(n == ROWS_PER_FILE for n in per_file.values()), f"no file is half loaded: {per_file}")

        # again: exactly the files that were missing
        rows = q(conn, "COPY INTO t FROM VOLUME v USING CSV")
        eq(len(rows), FILES - len(recorded), "the second COPY loads the rest")
        eq(q(conn, "SELECT count(DISTINCT file), count(*) FROM t"), [(FILES, FILES * ROWS_PER_FILE)],
           "every file exactly once")
        eq(q(conn, "COPY INTO t FROM VOLUME v USING CSV"), [], "nothing left to load")
        check(not os.listdir(os.path.join(srv.data_dir, "scratch")) if os.path.isdir(
            os.path.join(srv.data_dir, "scratch")) else True, "the scratch folder is empty")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(suite.run())
