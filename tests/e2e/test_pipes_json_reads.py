#!/usr/bin/python3
"""A pipe's constant-path JSON reads (`PARSE_JSON(value::STRING)['a']`, read by the raw decoder with simdjson, DuckDB
extracting only what the decoder leaves) load exactly what reading each field in DuckDB alone loads.

Two pipes over one topic of awkward JSON (escapes, unicode, numbers DuckDB rewrites, null, nested values, repeated
and odd keys, documents that are not objects, text that is not JSON) and ordinary messages: one with the fast forms,
one with `PARSE_JSON(concat(value::STRING, ''))[...]`, which parses the same text the old way. Their tables, error
rows (a NOT NULL column) and counts must be equal.

    /usr/bin/python3 tests/e2e/test_pipes_json_reads.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite  # noqa: E402

suite = TestSuite("test_pipes_json_reads")

AWKWARD = [
    r'{"s":"plain","n":42,"t":"2024-05-01 10:00:00","o":{"k":{"x":1}, "y" : [1, 2.50]},"arr":[10,"x",null,{"z":1}],"b":true}',
    r'{"s":"a\"b\\c\/d\n\u00e9\ud83d\ude00 tab\t end","n":-0,"t":"2024-05-01T10:00:00Z","b":false}',
    '{"s":"日本語 ü","n":1e3,"b":"true","t":"20240501"}',
    r'{"n":12.50,"s":123,"t":1714557600,"b":1}',
    r'{"n":-9223372036854775808,"s":18446744073709551615,"b":0}',
    r'{"n":123456789012345678901234567890,"s":1.5e-7,"b":"yes"}',
    r'{"n":"17","s":null,"t":null}',
    r'{"s":null,"n":null,"o":null,"arr":null}',
    r'{"s":{"a":[1, 2]},"n":[1],"o":"str","arr":"abc"}',
    r'{"":"empty","a/b":"slash","~":"tilde","s":"dup1","s":"dup2","n":"12.5"}',
    r'{"s":"nul \u0000 inside","n":"\ud800","o":{"k":{"x":"\u0041"}}}',
    r' { "s" : "spaced" , "n" : 7 , "o" : { "k" : { "x" : "deep" } } } ',
    r'{"s":"","n":"","o":{},"arr":[]}',
    r'{"arr":{"0":"object key zero","1":"one"},"s":"x"}',
    '[1,2,3]', '"just a string"', '42', 'null', 'not json', '{"s":"unterminated', '{"s":"x",}',
    '{"s":"x"} trailing', '{"s":"x"}{"s":"y"}', '{"s":NaN,"n":Infinity}',
]

COLUMNS = [  # (column, type, read of the parsed JSON `J`)
    ("s", "STRING", "J['s']::STRING"), ("s_bare", "STRING", "J['s']"), ("n", "BIGINT", "J['n']::BIGINT"),
    ("n_text", "STRING", "J['n']::STRING"), ("d", "DOUBLE", "J['n']::DOUBLE"),
    ("t", "TIMESTAMP", "CAST(J['t'] AS TIMESTAMP)"), ("b", "BOOLEAN", "J['b']::BOOLEAN"),
    ("o", "STRING", "J['o']::STRING"), ("o_json", "JSON", "J['o']"), ("deep", "STRING", "J['o']['k']['x']::STRING"),
    ("a1", "STRING", "J['arr'][1]::STRING"), ("a0key", "STRING", "J['arr']['0']::STRING"),
    ("odd", "STRING", "concat(J[''], J['a/b'], J['~'])"), ("nn", "STRING NOT NULL", "J['s']::STRING"),
]


def create_pipe(conn, bootstrap: str, name: str, table: str, parsed: str):
    select = ", ".join(f"{expr.replace('J', parsed)} AS {col}" for col, _, expr in COLUMNS)
    kh.query(conn, f"""CREATE PIPE {name} BATCH_INTERVAL_IN_SECONDS = '1' RESET_KAFKA_GROUP_OFFSETS = 'earliest'
AS COPY INTO {table} FROM (SELECT offset AS off, {select}
    FROM READ_KAFKA('{bootstrap}', 'awkward', '', 'g_{name}', '', '', '', '', 'raw', 'raw', 1000, map())
    WHERE {parsed}['n'] IS NULL OR {parsed}['n']::DOUBLE <> 7)""")


@suite.test(timeout=120)
def test_fast_reads_load_what_duckdb_reads(s):
    b = kh.adopt_broker(kh.TestBroker({"awkward": 1}).start())
    msgs = AWKWARD + [json.dumps({"s": f"m{i}", "n": i, "t": f"2024-05-01 10:00:{i % 60:02d}", "b": i % 2 == 0,
                                  "o": {"k": {"x": i}}, "arr": [i, str(i)]}) for i in range(300)]
    kh.produce(b.bootstrap, "awkward", 0, msgs)
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE lake")
    kh.query(conn, "USE lake")
    cols = ", ".join(f"{col} {typ}" for col, typ, _ in COLUMNS)
    for t in ("fast", "alone"):
        kh.query(conn, f"CREATE TABLE {t} (off BIGINT, {cols})")
    create_pipe(conn, b.bootstrap, "fast_pipe", "fast", "PARSE_JSON(value::STRING)")
    create_pipe(conn, b.bootstrap, "alone_pipe", "alone", "PARSE_JSON(concat(value::STRING, ''))")

    def done(name):
        d = {k: v for k, v in kh.query(conn, f"DESC PIPE EXTENDED {name}")}
        return d if json.loads(d["next_offsets"]).get("0") == len(msgs) else None

    ext = {n: kh.wait_until(lambda n=n: done(n), 60, f"{n} to read every message") for n in ("fast_pipe", "alone_pipe")}
    c = Collector()
    for key in ("loaded_rows", "error_rows", "filtered_rows"):
        c.eq(ext["fast_pipe"][key], ext["alone_pipe"][key], key)
    c.check(int(ext["fast_pipe"]["loaded_rows"]) > 300, f"loaded rows: {ext['fast_pipe']['loaded_rows']}")
    c.check(int(ext["fast_pipe"]["error_rows"]) > 5, f"error rows (nn NOT NULL): {ext['fast_pipe']['error_rows']}")
    as_text = ", ".join(f"CAST({col} AS VARCHAR)" for col, _, _ in COLUMNS)
    fast = kh.query(conn, f"SELECT off, {as_text} FROM fast ORDER BY off")
    alone = kh.query(conn, f"SELECT off, {as_text} FROM alone ORDER BY off")
    c.eq(len(fast), len(alone), "row counts")
    for f, a in zip(fast, alone):
        c.eq(f, a, f"row of offset {f[0]}")
    reasons = "SELECT \"Offset\", Reason, RawData FROM __sluice.routine_load_rejected_rows WHERE JobName = '{}' ORDER BY 1"
    # the reasons quote the expression, which is written differently in the two pipes
    alone_reasons = [(o, r.replace("PARSE_JSON(concat(value::STRING, ''))", "PARSE_JSON(value::STRING)"), raw)
                     for o, r, raw in kh.query(conn, reasons.format("alone_pipe"))]
    c.eq(kh.query(conn, reasons.format("fast_pipe")), alone_reasons, "error rows")
    c.eq(kh.scalar(conn, "SELECT s FROM fast WHERE off = 1"), 'a"b\\c/d\né\U0001F600 tab\t end', "escapes")
    c.done()


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
