#!/usr/bin/python3
"""No statement crashes the server (security issue, part 4).

Each input below once killed the server (a segfault from a stack overflow inside DuckDB) or silently changed what a
statement did. Each is sent, must fail with an error or succeed, and the server must still answer afterwards with
a canary table intact:
- json_structure over 100,000 nested '[' (built at run time with repeat(): no text scan can see it; the server's
  threads have stacks big enough for it, see docs/security.md);
- 100,000 nested '(' / '[' in the statement text (refused by the lexer's nesting bound);
- a 20,000-term expression (DuckDB's max_expression_depth of 1000 refuses it);
- a NUL byte inside and outside a string literal (a syntax error, never a truncated statement);
- a Kafka message of 100,000 nested '[' loaded by a routine load into JSON and VARCHAR columns, then read with
  json_structure (the planted crash).

    /usr/bin/python3 tests/e2e/test_crash_inputs.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import TestSuite, check, eq, expect_mysql_error  # noqa: E402

suite = TestSuite("test_crash_inputs")

DEEP = 100_000


def q(conn, sql, args=None):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall() if cur.description else []


def raw_query(conn, sql: bytes):
    """Sends `sql` bytes as they are (pymysql would otherwise encode a str and could not carry a NUL as sent)."""
    conn._execute_command(3, sql)  # COM_QUERY
    return conn._read_query_result()


def with_canary(s):
    srv = s.shared_server()
    conn = srv.connect()
    q(conn, "CREATE DATABASE IF NOT EXISTS crash")
    q(conn, "CREATE TABLE IF NOT EXISTS crash.canary (id INT)")
    if q(conn, "SELECT count(*) FROM crash.canary")[0][0] == 0:
        q(conn, "INSERT INTO crash.canary SELECT * FROM range(100)")
    return srv, conn


def still_alive(srv, what: str):
    check(srv.alive(), f"the server died after {what}:\n{srv.log_tail(20)}")
    conn = srv.connect()
    eq(q(conn, "SELECT count(*) FROM crash.canary")[0][0], 100, f"canary rows after {what}")
    conn.close()


@suite.test(timeout=180)
def test_json_structure_deep_nesting(s):
    srv, conn = with_canary(s)
    for depth in (DEEP, 200_000):
        sql = f"SELECT json_structure((repeat('[', {depth}) || '1' || repeat(']', {depth}))::JSON) IS NOT NULL"
        try:
            rows = q(conn, sql)
            eq(rows[0][0], 1, f"json_structure at depth {depth}")
        except Exception as e:  # an error is fine; a dead server is not
            check("Lost connection" not in str(e) and srv.alive(), f"depth {depth}: {e}")
            conn = srv.connect()
        still_alive(srv, f"json_structure at depth {depth}")


@suite.test(timeout=120)
def test_deep_nesting_in_text_is_refused(s):
    srv, conn = with_canary(s)
    for open_, close in (("(", ")"), ("[", "]")):
        sql = "SELECT " + open_ * DEEP + "1" + close * DEEP
        _, msg = expect_mysql_error(lambda: q(conn, sql), 1064, what=f"{DEEP} nested {open_}")
        check("nest more than 1000 levels" in msg, msg)
        still_alive(srv, f"{DEEP} nested {open_} in the text")
    # A nesting a statement really uses still works.
    eq(q(conn, "SELECT " + "(" * 50 + "1" + ")" * 50)[0][0], 1, "50 nested parentheses")


@suite.test(timeout=120)
def test_long_expression_hits_duckdbs_depth_limit(s):
    srv, conn = with_canary(s)
    sql = "SELECT " + "+".join(["1"] * 20_000)
    _, msg = expect_mysql_error(lambda: q(conn, sql), what="a 20,000-term expression")
    check("depth" in msg.lower(), f"the error names the depth limit: {msg[:300]}")
    still_alive(srv, "a 20,000-term expression")


@suite.test(timeout=120)
def test_nul_byte_is_a_syntax_error(s):
    srv, conn = with_canary(s)
    q(conn, "CREATE TABLE IF NOT EXISTS crash.nul (id INT, s VARCHAR)")
    q(conn, "DELETE FROM crash.nul")
    q(conn, "INSERT INTO crash.nul SELECT i, 'x' FROM range(100) t(i)")
    _, msg = expect_mysql_error(lambda: raw_query(conn, b"DELETE FROM crash.nul WHERE id < 50 \x00 AND id < 0"), 1064,
                                what="a NUL outside a string")
    check("Syntax error at line 1, column 37 near '\\0'" in msg, msg)
    eq(q(conn, "SELECT count(*) FROM crash.nul")[0][0], 100, "rows after the refused DELETE")
    # Inside a string literal: refused too, never cut short.
    _, msg = expect_mysql_error(lambda: raw_query(conn, b"DELETE FROM crash.nul WHERE s <> 'a\x00' OR id < 50"), 1064,
                                what="a NUL inside a string")
    check("near '\\0'" in msg, msg)
    # The MySQL escape \0 in a string works: the NUL is a character of the value (chr(0)), nothing is cut.
    with conn.cursor() as cur:
        cur.execute("SELECT length('a\\0b'), 'a\\0b' = 'a', 'a\\0b' = concat('a', chr(0), 'b')")
        eq(tuple(cur.fetchone()), (3, 0, 1), "the \\0 escape: length, not cut, equal to chr(0)")
    eq(q(conn, "SELECT count(*) FROM crash.nul")[0][0], 100, "rows after the refused DELETEs")
    # In a comment, and on a later line: the position is right.
    _, msg = expect_mysql_error(lambda: raw_query(conn, b"SELECT 1\n/* a \x00 */"), 1064, what="a NUL in a comment")
    check("line 2, column 6 near '\\0'" in msg, msg)
    still_alive(srv, "NUL bytes")


@suite.test(timeout=240)
def test_planted_deep_message_through_a_routine_load(s):
    b = kh.shared_broker()
    topic = kh.new_topic("deep_json", 1)
    srv, conn = with_canary(s)
    q(conn, "USE crash")
    q(conn, "CREATE TABLE crash.planted (id INT, doc JSON, txt VARCHAR)")
    deep = "[" * DEEP + "1" + "]" * DEEP
    messages = ['{"id": 1, "doc": {"a": 1}, "txt": "ok"}',
                '{"id": 2, "doc": ' + deep + ', "txt": "deep-doc"}',
                '{"id": 3, "doc": null, "txt": ' + '"' + deep + '"}',
                '{"id": 4, "doc": [1], "txt": "after"}']
    kh.produce(b.bootstrap, topic, 0, messages)
    q(conn, f"""CREATE ROUTINE LOAD crash.deep ON planted PROPERTIES ("format" = "json", "max_batch_interval" = "1",
        "max_error_number" = "100") FROM KAFKA ("kafka_broker_list" = "{b.bootstrap}", "kafka_topic" = "{topic}",
        "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")

    def done():
        j = kh.show_job(conn, "deep")
        st = j["Statistic"]
        return j if st.get("totalRows", 0) >= 4 and isinstance(j["OffsetLag"], dict) and \
            all(v == 0 for v in j["OffsetLag"].values()) else None
    kh.wait_until(done, 120, "the routine load to read the 4 messages")
    ids = [r[0] for r in q(conn, "SELECT id FROM crash.planted ORDER BY id")]
    check(1 in ids and 4 in ids, f"the ordinary messages loaded: {ids}")
    check(2 not in ids, "the message with a 100,000-deep JSON value is an error row, not a row")
    # Whatever did load, any reader may run json_structure over it.
    for sql in ("SELECT max(length(json_structure(doc)::VARCHAR)) FROM crash.planted",
                "SELECT max(length(json_structure(try_cast(txt AS JSON))::VARCHAR)) FROM crash.planted"):
        try:
            q(conn, sql)
        except Exception as e:
            check(srv.alive(), f"{sql}: {e}")
            conn = srv.connect()
        still_alive(srv, sql)
    q(conn, "STOP ROUTINE LOAD FOR crash.deep")


if __name__ == "__main__":
    sys.exit(kh.run_suite(suite))
