#!/usr/bin/python3
"""Issue 2's example session through the real `mariadb` command-line client: batch mode (statements piped on stdin),
`-e` with `\\G` vertical output, interactive mode on a pseudo-terminal (which sends `select @@version_comment limit 1`
and prints tables), error numbers with SQLSTATE, `-D db` and the client's `use` command.

    /usr/bin/python3 tests/e2e/test_mariadb_cli.py --server build/sluice
"""
from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import time

sys.dont_write_bytecode = True  # keep the source tree clean of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Collector, TestSuite, check, contains, eq  # noqa: E402

suite = TestSuite("test_mariadb_cli")
MARIADB = shutil.which("mariadb") or "/usr/bin/mariadb"

EXAMPLE = """CREATE DATABASE example_db;
USE example_db;
CREATE TABLE example_tbl1 (
    order_id bigint NOT NULL COMMENT "Order ID",
    pay_dt date NOT NULL COMMENT "Payment date",
    customer_name varchar(26) NULL COMMENT "Customer name",
    nationality varchar(26) NULL COMMENT "Nationality",
    price double NULL COMMENT "Price")
ENGINE=OLAP DUPLICATE KEY (order_id, pay_dt) DISTRIBUTED BY HASH(order_id);
INSERT INTO example_tbl1 VALUES (2020050802, '2020-05-08', 'Johann Georg Faust', 'Deutschland', 895);
SELECT nationality, sum(price) FROM example_tbl1 GROUP BY 1;
SHOW TABLES; DESC example_tbl1; SHOW CREATE TABLE example_tbl1;
"""

DESC_BATCH = """Field\tType\tNull\tKey\tDefault\tExtra
order_id\tbigint\tNO\ttrue\tNULL\t
pay_dt\tdate\tNO\ttrue\tNULL\t
customer_name\tvarchar(26)\tYES\tfalse\tNULL\t
nationality\tvarchar(26)\tYES\tfalse\tNULL\t
price\tdouble\tYES\tfalse\tNULL\t
"""

state: dict = {}


def shared(s):
    srv = state.get("server")
    if srv is None:
        srv = s.shared_server()
        state["server"] = srv
    if not srv.alive():
        raise AssertionError(f"the shared server died (exit {srv.proc.returncode}):\n{srv.log_tail(30)}")
    return srv


def mariadb(srv, *args, stdin: str | None = None, timeout: float = 30):
    cmd = [MARIADB, "--no-defaults", "-h127.0.0.1", f"-P{srv.mysql_port}", "-uroot", *args]
    p = subprocess.run(cmd, input=(stdin or "").encode(), capture_output=True, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def flat_ddl(text: str) -> str:
    return " ".join(text.replace("`", "").split())


DDL_PARTS = ("CREATE TABLE", "order_id bigint", "NOT NULL", 'COMMENT "Order ID"', "pay_dt date",
             'COMMENT "Payment date"', "customer_name varchar(26)", "nationality varchar(26)", "price double",
             "DUPLICATE KEY(order_id, pay_dt)", "DISTRIBUTED BY HASH(order_id)")


@suite.test(timeout=60)
def test_example_session_batch(s):
    check(os.access(MARIADB, os.X_OK), f"mariadb client not found at {MARIADB}")
    srv = shared(s)
    code, out, err = mariadb(srv, "--batch", stdin=EXAMPLE)
    c = Collector()
    c.eq(code, 0, f"exit code of the example session (stderr: {err.strip()})")
    c.eq(err.strip(), "", "stderr of the example session")
    c.contains(out, "nationality\tsum(price)\nDeutschland\t895\n", "SELECT nationality, sum(price) in batch output")
    c.contains(out, "Tables_in_example_db\nexample_tbl1\n", "SHOW TABLES in batch output")
    c.contains(out, DESC_BATCH, "DESC example_tbl1 in batch output")
    m = re.search(r"Table\tCreate Table\nexample_tbl1\t(.*)\n", out)
    c.check(m is not None, f"SHOW CREATE TABLE header/row not found in:\n{out}")
    if m:
        ddl = m.group(1).replace("\\n", "\n")  # batch mode escapes newlines inside values
        for part in DDL_PARTS:
            c.contains(flat_ddl(ddl), part, "SHOW CREATE TABLE (backticks removed, whitespace collapsed)")
    c.done()


@suite.test(timeout=60)
def test_vertical_output(s):
    srv = shared(s)
    c = Collector()
    code, out, err = mariadb(srv, "-e", "select nationality, sum(price) as total from example_db.example_tbl1 "
                                        "group by 1\\G")
    c.eq(code, 0, f"exit code (stderr: {err.strip()})")
    c.contains(out, "*************************** 1. row ***************************", "\\G output")
    c.contains(out, "nationality: Deutschland", "\\G output")
    c.contains(out, "      total: 895\n", "\\G output")
    code, out, err = mariadb(srv, "-D", "example_db", "-e", "SHOW CREATE TABLE example_tbl1\\G")
    c.eq(code, 0, f"exit code (stderr: {err.strip()})")
    c.contains(out, "       Table: example_tbl1", "SHOW CREATE TABLE \\G output")
    m = re.search(r"Create Table: (.*)", out, re.S)
    c.check(m is not None, f"no Create Table field in:\n{out}")
    for part in DDL_PARTS if m else ():
        c.contains(flat_ddl(m.group(1)), part, "SHOW CREATE TABLE \\G (backticks removed, whitespace collapsed)")
    code, out, err = mariadb(srv, "-D", "example_db", "-e", "DESC example_tbl1\\G")
    c.eq(code, 0, f"exit code (stderr: {err.strip()})")
    c.contains(out, "*************************** 5. row ***************************\n  Field: price\n   Type: double\n"
                  "   Null: YES\n    Key: false\nDefault: NULL\n  Extra: \n", "DESC \\G output")
    c.done()


@suite.test(timeout=60)
def test_table_output_and_use_command(s):
    srv = shared(s)
    c = Collector()
    code, out, err = mariadb(srv, "--table", stdin="use example_db\nSELECT order_id, pay_dt, price FROM "
                                                    "example_tbl1;\nSELECT DATABASE();\n")
    c.eq(code, 0, f"exit code (stderr: {err.strip()})")
    c.contains(out, "| order_id   | pay_dt     | price |\n", "table output header")
    c.contains(out, "| 2020050802 | 2020-05-08 |   895 |\n", "table output row (numbers right-aligned)")
    c.contains(out, "| example_db |", "SELECT DATABASE() after the client's use command")
    c.done()


@suite.test(timeout=60)
def test_errors_with_sqlstate(s):
    srv = shared(s)
    cases = [
        ("SELECT * FROM example_db.no_such_table", "ERROR 1146 (42S02)"),
        ("USE no_such_db", "ERROR 1049 (42000)"),
        ("SHOW TABLES", "ERROR 1046 (3D000)"),
        ("CREATE DATABASE example_db", "ERROR 1007 (HY000)"),
        ("CREATE TABLE example_db.example_tbl1 (a int)", "ERROR 1050 (42S01)"),
        ("CREATE TABLE example_db.t (a int", "ERROR 1064 (42000)"),
    ]
    for sql, expected in cases:
        code, out, err = mariadb(srv, "-e", sql)
        eq(code, 1, f"exit code of mariadb -e {sql!r}")
        contains(err, expected, f"stderr of mariadb -e {sql!r}")
    # --force continues after an error; the server keeps the session
    code, out, err = mariadb(srv, "--batch", "--force", stdin="SELECT * FROM nope.nope;\nSELECT 7 AS seven;\n")
    contains(out, "seven\n7\n", "output after an error with --force")


@suite.test(timeout=60)
def test_interactive_session_on_a_terminal(s):
    """What a user types in issue 2's example, in the client's interactive mode on a pseudo-terminal."""
    srv = shared(s)
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "dumb"
        os.execv(MARIADB, [MARIADB, "--no-defaults", "-h127.0.0.1", f"-P{srv.mysql_port}", "-uroot"])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 250, 0, 0))
    out = b""

    def read_until(pattern: bytes, timeout: float):
        nonlocal out
        deadline = time.monotonic() + timeout
        while pattern not in out and time.monotonic() < deadline:
            r, _, _ = select.select([fd], [], [], 0.2)
            if r:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
        return pattern in out

    try:
        check(read_until(b"]> ", 15), f"no prompt from the interactive client:\n{out.decode(errors='replace')}")
        welcome = out.decode(errors="replace")
        contains(welcome, "Welcome to the MariaDB monitor", "interactive banner")
        contains(welcome, "Server version:", "interactive banner (sent after select @@version_comment)")
        script = [
            "CREATE DATABASE IF NOT EXISTS tty_db;", "USE tty_db;",
            "CREATE TABLE t1 (order_id bigint NOT NULL COMMENT \"Order ID\", price double NULL COMMENT \"Price\")",
            "ENGINE=OLAP DUPLICATE KEY (order_id) DISTRIBUTED BY HASH(order_id);",
            "INSERT INTO t1 VALUES (1, 895);",
            "USE tty_db;",  # with a table now, the client's auto-rehash sends COM_FIELD_LIST for it
            "SELECT sum(price) AS total FROM t1;",
            "SELECT 'vertical' AS v\\G",
        ]
        for line in script:
            os.write(fd, line.encode() + b"\n")
        check(read_until(b"v: vertical", 20), f"no vertical output:\n{out.decode(errors='replace')}")
        os.write(fd, b"exit\n")
        read_until(b"Bye", 10)
    finally:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        os.close(fd)
    text = re.sub(r"\x1b(\[[0-9;?]*[A-Za-z]|\([A-Z0-9])", "", out.decode(errors="replace")).replace("\r\n", "\n")
    c = Collector()
    c.check("ERROR" not in text, f"an error in the interactive session:\n{text}")
    c.contains(text, "Database changed", "interactive USE")
    c.contains(text, "| total |\n+-------+\n|   895 |\n", "interactive SELECT sum(price)")
    c.contains(text, "1 row in set", "interactive row count line")
    c.contains(text, "Query OK, 1 row affected", "interactive INSERT")
    c.done()


@suite.test(timeout=30)
def test_shared_server_shuts_down_cleanly(s):
    srv = shared(s)
    eq(srv.stop(), 0, "exit code of the shared server on SIGTERM")


if __name__ == "__main__":
    sys.exit(suite.run())
