"""Reading Iceberg tables back with npm icebird, an Iceberg reader Sluice did not write (tests/clients/icebird_read.mjs
maps s3:// to the s3rver endpoint given)."""
from __future__ import annotations

import json
import os
import subprocess

from s3_harness import S3rver

CLIENTS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients"))


def icebird(s3: S3rver, table_location: str, metadata_location: str) -> dict:
    """The table as icebird reads it from `metadata_location` (its rows and snapshot summary, as JSON)."""
    name = metadata_location.rsplit("/", 1)[1]
    r = subprocess.run(["node", os.path.join(CLIENTS, "icebird_read.mjs"), s3.endpoint, table_location, name],
                       capture_output=True, text=True, timeout=120, cwd=CLIENTS)
    if r.returncode != 0:
        raise AssertionError(f"icebird failed: {r.stderr}")
    return json.loads(r.stdout)


def q(cur, sql: str) -> list[tuple]:
    """The rows of `sql` on a pymysql cursor."""
    cur.execute(sql)
    return list(cur.fetchall())


def error_of(cur, sql: str) -> str:
    """The error `sql` fails with on a pymysql cursor; a statement that succeeds fails the test."""
    try:
        cur.execute(sql)
    except Exception as e:  # pymysql's OperationalError / ProgrammingError
        return str(e)
    raise AssertionError(f"expected an error from: {sql}")
