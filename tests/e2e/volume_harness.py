"""Small helpers the volume and COPY INTO tests share: queries, writing files, reading COPY INTO's result."""
from __future__ import annotations

import os


def q(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return [tuple(r) for r in cur.fetchall()]


def write(path, data: bytes | str):
    """Writes the file whole: into a hidden name next to it, then renamed over `path`, so a pipe listing the folder
    meanwhile never sees it empty or half written (volume listings leave names starting with '.' alone)."""
    folder, name = os.path.split(path)
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.writing")
    with open(tmp, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)
    os.replace(tmp, path)


def by_file(rows):
    """COPY INTO's result: {file: (status, rows_loaded, error_rows, first_error, first_error_line)}."""
    return {r[0]: tuple(r[1:]) for r in rows}
