#!/usr/bin/python3
"""mariadb-dump round trip and values that must arrive intact (issue 13 items 7 and 8): `mariadb-dump db > f.sql`
with its default options, then `mariadb db2 < f.sql` into a fresh server; SHOW CREATE TABLE and every row agree
between the two. Executable comments alone (`/*!40101 SET NAMES utf8mb4 */`). NUL bytes in string values through
pymysql, the mariadb CLI and Node mysql2's execute() (binary rows).

    /usr/bin/python3 tests/e2e/test_mysql_dump.py --server build/sluice
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import TestSuite, check, eq  # noqa: E402

suite = TestSuite("test_mysql_dump")
MARIADB = shutil.which("mariadb") or "/usr/bin/mariadb"
MARIADB_DUMP = shutil.which("mariadb-dump") or "/usr/bin/mariadb-dump"
CLIENTS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients"))

SCHEMA = r"""
CREATE DATABASE shop;
USE shop;
CREATE TABLE orders (
  id bigint NOT NULL COMMENT "order id",
  customer varchar(26) NULL COMMENT "who 'ordered'",
  price decimal(10, 2) NULL,
  ratio double NULL,
  paid_at datetime NULL,
  day date NULL,
  note string NULL,
  flag boolean NULL
) PRIMARY KEY (id) COMMENT "the orders" DISTRIBUTED BY HASH(id) BUCKETS 4;
CREATE TABLE events (k int, v varchar(10)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1;
CREATE TABLE daily (dt date NOT NULL, id int NOT NULL, amount bigint NULL)
  DUPLICATE KEY(dt, id)
  PARTITION BY RANGE(dt) (PARTITION p1 VALUES LESS THAN ("2024-01-01"), PARTITION p2 VALUES LESS THAN ("2025-01-01"))
  DISTRIBUTED BY HASH(id) BUCKETS 2;
INSERT INTO orders VALUES
  (1, 'a''b "c"', 1.50, 0.25, '2024-01-02 03:04:05', '2024-01-02', 'back\\slash', true),
  (2, NULL, NULL, NULL, NULL, NULL, 'line\nbreak\ttab', NULL),
  (3, '文字', -0.01, -1e300, '2024-12-31 23:59:59', '1999-12-31', 'nul:\0:end', false),
  (4, '', 0, 0, '2000-01-01 00:00:00', '2000-01-01', '', false);
INSERT INTO events VALUES (1, 'x'), (1, 'x'), (2, NULL);
INSERT INTO daily VALUES ('2023-05-01', 1, 10), ('2024-05-01', 2, NULL);
"""
TABLES = ["daily", "events", "orders"]


def mariadb(srv, *args, stdin: bytes | None = None, timeout: float = 60):
    cmd = [MARIADB, "--no-defaults", "-h127.0.0.1", f"-P{srv.mysql_port}", "-uroot", *args]
    return subprocess.run(cmd, input=stdin or b"", capture_output=True, timeout=timeout)


def rows_of(srv, db: str, table: str) -> list:
    con = srv.connect(database=db, raw_values=True)
    try:
        cur = con.cursor()
        cur.execute(f"SELECT * FROM `{table}`")
        return sorted((tuple(r) for r in cur.fetchall()), key=repr)
    finally:
        con.close()


def create_table_of(srv, db: str, table: str) -> str:
    con = srv.connect(database=db)
    try:
        cur = con.cursor()
        cur.execute(f"SHOW CREATE TABLE `{table}`")
        return cur.fetchone()[1]
    finally:
        con.close()


@suite.test(timeout=180)
def test_dump_round_trip_into_a_fresh_server(s):
    src = s.server(extra_args=["--log-level", "debug"]).start()
    p = mariadb(src, stdin=SCHEMA.encode())
    eq(p.returncode, 0, f"schema setup: {p.stderr.decode()}")
    with tempfile.TemporaryDirectory() as tmp:
        dump_path = os.path.join(tmp, "shop.sql")
        with open(dump_path, "wb") as out:
            d = subprocess.run([MARIADB_DUMP, "--no-defaults", "-h127.0.0.1", f"-P{src.mysql_port}", "-uroot", "shop"],
                               stdout=out, stderr=subprocess.PIPE, timeout=120)
        eq(d.returncode, 0, f"mariadb-dump exit code (stderr: {d.stderr.decode()})")
        # a clean stderr: the tablespace queries over INFORMATION_SCHEMA.FILES get MySQL's empty answer
        eq(d.stderr.decode(), "", "mariadb-dump's stderr")
        dump = open(dump_path, "rb").read()
        for t in TABLES:
            check(f"CREATE TABLE `{t}`".encode() in dump, f"no CREATE TABLE {t} in the dump")
        check(b"LOCK TABLES" in dump and b"INSERT INTO `orders` VALUES" in dump, "the dump has no data section")
        # every statement the dump sent was logged (--log-level debug), and each one worked
        log = src.log_text()
        for sent in ("LOCK TABLES `daily` READ", "SELECT /*!40001 SQL_NO_CACHE */", "show create table `orders`",
                     "INFORMATION_SCHEMA.FILES", "UNLOCK TABLES"):
            check(sent.lower() in log.lower(), f"the dump did not send {sent!r} (or it was not logged)")

        # --single-transaction (START TRANSACTION WITH CONSISTENT SNAPSHOT, SAVEPOINT, ROLLBACK TO SAVEPOINT) dumps
        # the same
        st = subprocess.run([MARIADB_DUMP, "--no-defaults", "--single-transaction", "-h127.0.0.1",
                             f"-P{src.mysql_port}", "-uroot", "shop"], capture_output=True, timeout=120)
        eq(st.returncode, 0, f"mariadb-dump --single-transaction (stderr: {st.stderr.decode()})")
        eq(st.stderr.decode(), "", "mariadb-dump --single-transaction's stderr")
        body = lambda b: [line for line in b.splitlines() if not line.startswith(b"-- Dump completed")]
        eq(body(st.stdout), body(dump), "the --single-transaction dump")

        dst = s.server().start()
        p = mariadb(dst, "-e", "CREATE DATABASE shop2")
        eq(p.returncode, 0, f"CREATE DATABASE shop2: {p.stderr.decode()}")
        with open(dump_path, "rb") as f:
            p = mariadb(dst, "shop2", stdin=f.read(), timeout=120)
        eq(p.returncode, 0, f"replaying the dump: {p.stderr.decode()}")
        for t in TABLES:
            eq(create_table_of(dst, "shop2", t), create_table_of(src, "shop", t), f"SHOW CREATE TABLE {t}")
            eq(rows_of(dst, "shop2", t), rows_of(src, "shop", t), f"rows of {t}")
        eq(len(rows_of(dst, "shop2", "events")), 3, "duplicate rows of a DUPLICATE KEY table survive")
        nul = [r for r in rows_of(dst, "shop2", "orders") if r[0] == "3"][0]
        eq(nul[6], "nul:\x00:end", "a NUL byte inside a value survives the round trip")
        # the copy keeps its key model: a second row with the same key replaces the first
        con = dst.connect(database="shop2")
        cur = con.cursor()
        cur.execute("INSERT INTO orders (id, customer) VALUES (1, 'replaced')")
        cur.execute("SELECT count(*), max(customer) FROM orders WHERE id = 1")
        eq(cur.fetchone(), (1, "replaced"), "PRIMARY KEY model after the round trip")
        con.close()


@suite.test(timeout=60)
def test_executable_comments_alone_and_inside(s):
    srv = s.server().start()
    for sql, want in [("/*!40101 SET NAMES utf8mb4 */", b""),
                      ("/*!40100 SET @@SQL_MODE='' */", b""),
                      ("/*!40101 SET @OLD_CS=@@CHARACTER_SET_CLIENT */; SELECT @OLD_CS", b"utf8mb4"),
                      ("SELECT 1 /*!40001 + 10 */ AS x", b"11"),
                      ("/*!99999 SELECT 'too new' */ SELECT 'kept' AS x", b"kept"),
                      ("/*M!100100 SELECT 'mariadb only' */ SELECT 'kept' AS x", b"kept"),
                      ("SELECT /*!40001 SQL_NO_CACHE */ 5 AS x", b"5")]:
        p = mariadb(srv, "-N", "-e", sql)
        eq(p.returncode, 0, f"{sql}: {p.stderr.decode()}")
        eq(p.stdout.strip(), want, f"output of {sql}")


@suite.test(timeout=90)
def test_nul_bytes_reach_every_client(s):
    srv = s.server().start()
    con = srv.connect()
    cur = con.cursor()
    cur.execute("CREATE DATABASE n")
    cur.execute("USE n")
    cur.execute("CREATE TABLE t (id int, s varchar(20), d datetime) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1")
    cur.execute("INSERT INTO t VALUES (1, chr(0) || 'n文x', '2024-01-01 00:00:00'), (2, 'a\\0b', NULL)")
    cur.execute("SELECT id, s FROM t ORDER BY id")
    eq(cur.fetchall(), ((1, "\x00n文x"), (2, "a\x00b")), "text rows (pymysql)")
    cur.execute("SELECT 'a' || chr(0) || 'b', length('a' || chr(0) || 'b')")
    eq(cur.fetchone(), ("a\x00b", 3), "a computed value with a NUL (pymysql)")
    # a JSON message's \u0000, read as a loaded value would be
    cur.execute("SELECT json_extract_string('{\"s\":\"\\\\u0000n\"}', '$.s')")
    eq(cur.fetchone(), ("\x00n",), "json \\u0000 (pymysql)")
    con.close()
    p = mariadb(srv, "-N", "--raw", "n", "-e", "SELECT s, hex(s) FROM t ORDER BY id")
    eq(p.returncode, 0, f"mariadb CLI: {p.stderr.decode()}")
    eq(p.stdout, "\x00n文x\t006EE69687 78\na\x00b\t610062\n".replace(" ", "").encode(), "mariadb --raw output")
    node = shutil.which("node")
    if node and os.path.isdir(os.path.join(CLIENTS, "node_modules", "mysql2")):
        script = ("const m=require('mysql2/promise');(async()=>{const c=await m.createConnection({host:'127.0.0.1',"
                  f"port:{srv.mysql_port},user:'root',password:'',database:'n'}});"
                  "const [r]=await c.execute('SELECT s FROM t WHERE id = ?',[1]);"
                  "console.log(JSON.stringify(r[0].s));await c.end();})();")
        out = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60, cwd=CLIENTS)
        eq(out.returncode, 0, f"node: {out.stderr}")
        eq(json.loads(out.stdout), "\x00n文x", "binary rows (mysql2 execute)")


if __name__ == "__main__":
    sys.exit(suite.run())
