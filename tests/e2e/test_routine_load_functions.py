#!/usr/bin/python3
"""Lambdas and the StarRocks/Doris JSON functions in a routine load's COLUMNS and WHERE (issue 12), on the test
broker: JSON messages with an array, a map and a nested document; array_filter / array_map / map_filter compute
ARRAY and MAP columns, json_query / json_unquote / json_length / json_exists read the document; WHERE drops the
messages without a city. Every loaded row is compared with what Python computes from the message. A volume pipe's
SELECT (which runs on the scheduler's workers, not a session) uses them too.

    /usr/bin/python3 tests/e2e/test_routine_load_functions.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import TestSuite, eq  # noqa: E402

suite = TestSuite("test_routine_load_functions")

LOAD_TIMEOUT = 90.0
CITIES = ["Zürich", "Lyon", "Kyoto", 'Say "hi"', "Oslo"]


def message(i: int) -> dict:
    vals = [i % 7 - 3, -(i % 4), i % 5, 10 - i % 11]
    attrs = {"color": ["red", "blue", None][i % 3], "size": ["S", None, "L", "XL"][i % 4]}
    doc: dict = {"tags": ["t"] * (i % 4), "extra": {"n": i}}
    if i % 10 != 0:
        doc["city"] = CITIES[i % len(CITIES)]
    return {"id": i, "vals": vals, "attrs": attrs, "doc": doc}


@suite.test(timeout=180)
def test_lambdas_and_json_functions_in_columns_and_where(s):
    topic = kh.new_topic("functions", 2)
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE events (id bigint NOT NULL, vals ARRAY<INT>, positives ARRAY<INT>, "
                   "doubled ARRAY<BIGINT>, attrs MAP<VARCHAR(20), VARCHAR(20)>, kept MAP<VARCHAR(20), VARCHAR(20)>, "
                   "city varchar(20), n_tags int, extra_n bigint) DUPLICATE KEY(id)")
    msgs = [message(i) for i in range(300)]
    for i, m in enumerate(msgs):
        kh.produce(kh.shared_broker().bootstrap, topic, i % 2, [json.dumps(m, ensure_ascii=i % 2 == 0)])
    kh.query(conn, f"""CREATE ROUTINE LOAD d.fn_job ON events
COLUMNS (id, vals, attrs, doc,
         positives = array_filter(x -> x > 0, vals),
         doubled = array_map((x, y) -> x * 2 + y - y, vals, vals),
         kept = map_filter((k, v) -> v is not null, attrs),
         city = json_unquote(json_query(doc, '$.city')),
         n_tags = json_length(doc, '$.tags'),
         extra_n = get_json_int(json_query(doc, '$.extra'), '$.n')),
WHERE json_exists(doc, '$.city') AND array_length(array_filter(x -> x > 100, vals)) = 0
PROPERTIES ("format" = "json", "max_batch_interval" = "1")
FROM KAFKA ("kafka_broker_list" = "{kh.shared_broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    selected = [m for m in msgs if "city" in m["doc"]]
    kh.wait_rows(conn, "events", len(selected), LOAD_TIMEOUT, job="fn_job")
    # lists and maps as JSON text, so Python can read them back
    actual = kh.query(conn, "SELECT id, CAST(to_json(positives) AS VARCHAR), CAST(to_json(doubled) AS VARCHAR), "
                            "CAST(to_json(kept) AS VARCHAR), city, n_tags, extra_n FROM events ORDER BY id")
    expected = []
    for m in selected:
        expected.append((m["id"], [v for v in m["vals"] if v > 0], [v * 2 for v in m["vals"]],
                         {k: v for k, v in m["attrs"].items() if v is not None}, m["doc"]["city"],
                         len(m["doc"]["tags"]), m["doc"]["extra"]["n"]))
    got = [(r[0], json.loads(r[1]), json.loads(r[2]), json.loads(r[3]), r[4], r[5], r[6]) for r in actual]
    eq(len(got), len(expected), "rows loaded")
    for g, e in zip(got, expected):
        eq(g, e, f"row {e[0]}")
    job = kh.wait_until(lambda: (j := kh.show_job(conn, "fn_job"))["Statistic"].get("totalRows") == len(msgs) and j,
                        LOAD_TIMEOUT, "every message read")
    eq(job["Statistic"]["unselectedRows"], len(msgs) - len(selected), "unselectedRows (no city)")
    eq(job["Statistic"]["errorRows"], 0, "errorRows")


@suite.test(timeout=120)
def test_volume_pipe_select_uses_lambdas_and_json_functions(s):
    folder = tempfile.mkdtemp(prefix="sluice-fn-")
    try:
        rows = [{"id": i, "vals": [i - 2, -i, i], "doc": json.dumps({"a": list(range(i)), "s": f"v{i}"})}
                for i in range(1, 6)]
        with open(f"{folder}/a.json", "w") as f:
            f.write("\n".join(json.dumps(r) for r in rows) + "\n")
        srv = s.server().start()
        conn = srv.connect()
        kh.query(conn, "CREATE DATABASE d")
        kh.query(conn, "USE d")
        kh.query(conn, "CREATE TABLE t (id INT, pos ARRAY<INT>, n INT, s VARCHAR(10))")
        kh.query(conn, f"CREATE VOLUME v LOCATION 'file://{folder}/'")
        kh.query(conn, "CREATE PIPE p BATCH_INTERVAL_IN_SECONDS = '1' AS COPY INTO t FROM (SELECT id, "
                       "array_filter(x -> x > 0, vals), json_length(doc, '$.a'), json_unquote(json_query(doc, '$.s')) "
                       "FROM VOLUME v USING JSON WHERE json_exists(doc, '$.a[1]'))")
        want = [(r["id"], json.dumps([v for v in r["vals"] if v > 0]).replace(" ", ""), r["id"], f"v{r['id']}")
                for r in rows if r["id"] >= 2]
        loaded = "SELECT id, CAST(to_json(pos) AS VARCHAR), n, s FROM t ORDER BY id"
        kh.wait_until(lambda: kh.query(conn, loaded) == want or None, 60, f"the pipe to load {want}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
