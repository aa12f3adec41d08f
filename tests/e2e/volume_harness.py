"""Small helpers the volume and COPY INTO tests share: queries, writing files, reading COPY INTO's result."""
from __future__ import annotations

import os


def q(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return [tuple(r) for r in cur.fetchall()]


def write(path, data: bytes | str):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def by_file(rows):
    """COPY INTO's result: {file: (status, rows_loaded, error_rows, first_error, first_error_line)}."""
    return {r[0]: tuple(r[1:]) for r in rows}
