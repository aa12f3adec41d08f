#!/usr/bin/python3
"""Routine load formats end to end (issue 3, parts 2, 3 and 8), on the test broker.

- the CSV orders example from the reference (6 fields, temp_gender skipped through a placeholder column) and the
  JSON example (jsonpaths + COLUMNS with pay_dt = from_unixtime(pay_time, '%Y%m%d')), checked row by row against
  what was produced;
- CSV: enclose with RFC 4180 doubling, escape, a multi-byte separator, several rows per message, `\\N` vs the empty
  string, trim_space;
- JSON: keys by column name, strip_outer_array, json_root;
- WHERE (unselectedRows in Statistic, not errors), strict_mode on and off;
- SHOW ROUTINE LOAD values once caught up (State, Statistic, Progress = last offset per partition, OffsetLag 0,
  LatestSourcePosition, CustomProperties with a password shown as ******, never in SHOW CREATE or the server log),
  SHOW ROUTINE LOAD TASK.

    /usr/bin/python3 tests/e2e/test_routine_load_formats.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import datetime
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check, eq, expect_mysql_error  # noqa: E402

suite = TestSuite("test_routine_load_formats")

LOAD_TIMEOUT = 90.0

broker = kh.shared_broker
new_topic = kh.new_topic


def start_server(s: TestSuite, **kw):
    srv = s.server(**kw).start()
    conn = srv.connect()
    return srv, conn


def rows_of(conn, sql: str) -> list[tuple]:
    return [tuple(r) for r in kh.query(conn, sql)]


def scalar_list(conn, sql):
    return [r[0] for r in kh.query(conn, sql)]


def compare_rows(actual: list[tuple], expected: list[tuple], what: str):
    if actual == expected:
        return
    problems = [f"{what}: {len(actual)} rows, expected {len(expected)}"]
    for i, (a, e) in enumerate(zip(actual, expected)):
        if a != e:
            problems.append(f"  first difference at row {i}: got {a!r}, expected {e!r}")
            break
    else:
        extra = actual[len(expected):] or expected[len(actual):]
        problems.append(f"  extra rows ({'actual' if len(actual) > len(expected) else 'expected'}): {extra[:5]!r}")
    raise AssertionError("\n".join(problems))


def wait_caught_up(conn, job: str, loaded: int, timeout: float = LOAD_TIMEOUT, total: int | None = None) -> dict:
    """Waits until Statistic.totalRows (default: loaded) is reached and every partition's OffsetLag is 0."""
    want_total = loaded if total is None else total
    holder = {}

    def probe():
        j = kh.show_job(conn, job)
        holder["job"] = j
        st = j["Statistic"]
        lag = j["OffsetLag"]
        return j if (st.get("totalRows") == want_total and isinstance(lag, dict) and lag
                     and all(v == 0 for v in lag.values())) else None

    try:
        return kh.wait_until(probe, timeout, f"job {job} to read {want_total} rows and catch up")
    except AssertionError as e:
        raise AssertionError(f"{e}\n  job: {kh.describe_job(holder.get('job', {}))}") from None


# ---- the reference examples ------------------------------------------------------------------------------------

FIRST = ["Johann Georg", "Julien", "Dorian", "Anna", "Émile", "Lev", "Jane", "Fyodor", "Virginia", "Gabriel"]
LAST = ["Faust", "Sorel", "Grey", "Karenina", "Zola", "Tolstoy", "Eyre", "Dostoevsky", "Woolf", "Márquez"]
NATIONS = ["Deutschland", "France", "UK", "Russia", "España", "Italia", "中国"]


@suite.test(timeout=180)
def test_csv_orders_example(s):
    """The reference's CSV example: 6 fields, temp_gender skipped; 2 partitions; checked row by row; then more data
    arrives and is loaded too; SHOW values once caught up."""
    topic = new_topic("orders_csv", 2)
    srv, conn = start_server(s)
    kh.query(conn, "CREATE DATABASE example_db")
    kh.query(conn, "USE example_db")
    kh.query(conn, "CREATE TABLE example_tbl1 (order_id bigint NOT NULL COMMENT 'id', pay_dt int, "
                   "customer_name varchar(26), nationality varchar(26), price double) DUPLICATE KEY(order_id)")
    expected = []
    per_partition: dict[int, list[str]] = {0: [], 1: []}
    received = 0
    for i in range(600):
        oid = 2020050800 + i
        pay_dt = 20200508 + (i % 20)
        name = f"{FIRST[i % len(FIRST)]} {LAST[(i * 7) % len(LAST)]}"
        nation = NATIONS[i % len(NATIONS)]
        gender = "Male" if i % 3 else "Female"
        price = float(800 + i) if i % 4 else 800 + i + 0.25
        line = f"{oid},{pay_dt},{name},{nation},{gender},{price:g}" if i % 4 else \
            f"{oid},{pay_dt},{name},{nation},{gender},{price}"
        per_partition[i % 2].append(line)
        received += len(line.encode())
        expected.append((oid, pay_dt, name, nation, price))
    # first half now, the rest while the job runs
    half = {p: len(v) // 2 for p, v in per_partition.items()}
    for p, lines in per_partition.items():
        kh.produce(broker().bootstrap, topic, p, lines[:half[p]])
    kh.query(conn, f"""CREATE ROUTINE LOAD example_db.example_tbl1_ordertest1 ON example_tbl1
COLUMNS TERMINATED BY ",",
COLUMNS (order_id, pay_dt, customer_name, nationality, temp_gender, price)
PROPERTIES ("desired_concurrent_number" = "5", "max_batch_interval" = "1")
FROM KAFKA ("kafka_broker_list" = "{broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    n_first = sum(half.values())
    kh.wait_rows(conn, "example_tbl1", n_first, LOAD_TIMEOUT, job="example_tbl1_ordertest1")
    for p, lines in per_partition.items():
        kh.produce(broker().bootstrap, topic, p, lines[half[p]:])
    kh.wait_rows(conn, "example_tbl1", len(expected), LOAD_TIMEOUT, job="example_tbl1_ordertest1")
    actual = rows_of(conn, "SELECT order_id, pay_dt, customer_name, nationality, price FROM example_tbl1 "
                           "ORDER BY order_id")
    compare_rows(actual, sorted(expected), "example_tbl1")

    job = wait_caught_up(conn, "example_tbl1_ordertest1", len(expected))
    c = Collector()
    c.eq(job["Name"], "example_tbl1_ordertest1", "Name")
    c.eq(job["DbName"], "example_db", "DbName")
    c.eq(job["TableName"], "example_tbl1", "TableName")
    c.eq(job["State"], "RUNNING", "State")
    c.eq(job["DataSourceType"], "KAFKA", "DataSourceType")
    st = job["Statistic"]
    c.eq(st.get("loadedRows"), len(expected), "Statistic.loadedRows")
    c.eq(st.get("totalRows"), len(expected), "Statistic.totalRows")
    c.eq(st.get("errorRows"), 0, "Statistic.errorRows")
    c.eq(st.get("unselectedRows"), 0, "Statistic.unselectedRows")
    c.eq(st.get("abortedTaskNum"), 0, "Statistic.abortedTaskNum")
    c.eq(st.get("receivedBytes"), received, "Statistic.receivedBytes (sum of the message sizes)")
    c.check(st.get("committedTaskNum", 0) >= 2, f"Statistic.committedTaskNum >= 2 (2 partitions, 2 rounds): {st}")
    last = {str(p): str(len(v) - 1) for p, v in per_partition.items()}
    c.eq(job["Progress"], last, "Progress (last loaded offset per partition)")
    c.eq(job["LatestSourcePosition"], last, "LatestSourcePosition")
    c.eq(job["OffsetLag"], {"0": 0, "1": 0}, "OffsetLag")
    c.eq(sorted(job["TimestampProgress"].keys()), ["0", "1"], "TimestampProgress partitions")
    now_ms = time.time() * 1000
    for p, ts in job["TimestampProgress"].items():
        c.check(abs(int(ts) - now_ms) < 10 * 60 * 1000, f"TimestampProgress[{p}] = {ts} is a recent time in ms")
    c.eq(job["DataSourceProperties"].get("topic"), topic, "DataSourceProperties.topic")
    c.eq(job["DataSourceProperties"].get("brokerList"), broker().bootstrap, "DataSourceProperties.brokerList")
    c.eq(job["DataSourceProperties"].get("currentKafkaPartitions"), "0,1", "currentKafkaPartitions")
    c.eq(job["CustomProperties"].get("kafka_default_offsets"), "OFFSET_BEGINNING", "CustomProperties default offset")
    jp = job["JobProperties"]
    c.eq(jp.get("desireTaskConcurrentNum"), "5", "JobProperties.desireTaskConcurrentNum")
    c.eq(jp.get("columnSeparator"), ",", "JobProperties.columnSeparator")
    c.eq(jp.get("columnToColumnExpr"), "order_id,pay_dt,customer_name,nationality,temp_gender,price",
         "JobProperties.columnToColumnExpr")
    c.eq(job["ReasonOfStateChanged"], "", "ReasonOfStateChanged")
    c.eq(job["ErrorLogUrls"], "", "ErrorLogUrls without errors")
    c.eq(job["PauseTime"], None, "PauseTime")
    c.eq(job["EndTime"], None, "EndTime")
    # concurrency = min(partitions 2, desired 5, workers 4, 5): two tasks, one partition each
    tasks = kh.show_rows(conn, 'SHOW ROUTINE LOAD TASK WHERE JobName = "example_tbl1_ordertest1"')
    c.eq(len(tasks), 2, "SHOW ROUTINE LOAD TASK rows")
    parts = sorted(p for t in tasks for p in t["DataSourceProperties"].keys())
    c.eq(parts, ["0", "1"], "partitions over the tasks (one each)")
    for t in tasks:
        c.eq(str(t["JobId"]), str(job["Id"]), "task JobId")
        c.eq(t["Timeout"], "60", "task Timeout")
    # once idle, a task says why it waits
    kh.wait_until(lambda: all("there is no new data in kafka, wait for 1 seconds" in (t["Message"] or "")
                              for t in kh.show_rows(conn, 'SHOW ROUTINE LOAD TASK WHERE JobName = '
                                                          '"example_tbl1_ordertest1"')),
                  30, "task messages saying there is no new data")
    c.done()
    kh.query(conn, "STOP ROUTINE LOAD FOR example_tbl1_ordertest1")
    eq(kh.show_job(conn, "example_tbl1_ordertest1")["State"], "STOPPED", "State after STOP")


@suite.test(timeout=180)
def test_json_example(s):
    """The reference's JSON example: jsonpaths mapped in order onto COLUMNS, pay_dt = from_unixtime(pay_time,
    '%Y%m%d') into a DATE column; 5 partitions listed in kafka_partitions; checked row by row."""
    topic = new_topic("ordertest2", 5)
    srv, conn = start_server(s)
    kh.query(conn, "CREATE DATABASE example_db")
    kh.query(conn, "USE example_db")
    kh.query(conn, """CREATE TABLE example_db.example_tbl2 (
    `commodity_id` varchar(26) NULL COMMENT "",
    `customer_name` varchar(26) NULL COMMENT "",
    `country` varchar(26) NULL COMMENT "",
    `pay_time` bigint(20) NULL COMMENT "",
    `pay_dt` date NULL COMMENT "",
    `price` double SUM NULL COMMENT ""
) AGGREGATE KEY(`commodity_id`,`customer_name`,`country`,`pay_time`,`pay_dt`)
DISTRIBUTED BY HASH(`commodity_id`)""")
    expected = []
    messages: dict[int, list[str]] = {p: [] for p in range(5)}
    base = 1589191487  # 2020-05-11 10:04:47 UTC
    for i in range(500):
        pay_time = base + i * 86400 // 3 + (i * 37) % 3600
        doc = {"commodity_id": str(i + 1), "customer_name": f"{FIRST[i % len(FIRST)]} {LAST[i % len(LAST)]}",
               "country": NATIONS[(i * 3) % len(NATIONS)], "pay_time": pay_time,
               "price": 875 + i if i % 2 else 875.5 + i, "ignored": {"nested": [1, 2]}}
        if i % 5 == 0:
            # key order does not matter, extra keys are ignored
            doc = dict(reversed(list(doc.items())))
        expected.append((doc["commodity_id"], doc["customer_name"], doc["country"], pay_time,
                         datetime.datetime.fromtimestamp(pay_time, datetime.timezone.utc).date(),
                         float(doc["price"])))
        messages[i % 5].append(json.dumps(doc, ensure_ascii=i % 2 == 0))
    for p, msgs in messages.items():
        kh.produce(broker().bootstrap, topic, p, msgs)
    kh.query(conn, f"""CREATE ROUTINE LOAD example_db.example_tbl2_ordertest2 ON example_tbl2
COLUMNS(commodity_id, customer_name, country, pay_time, price, pay_dt=from_unixtime(pay_time, '%Y%m%d'))
PROPERTIES
(
    "desired_concurrent_number"="5",
    "max_batch_interval" = "1",
    "format" ="json",
    "jsonpaths" ="[\\"$.commodity_id\\",\\"$.customer_name\\",\\"$.country\\",\\"$.pay_time\\",\\"$.price\\"]"
 )
FROM KAFKA
(
    "kafka_broker_list" ="{broker().bootstrap}",
    "kafka_topic" = "{topic}",
    "kafka_partitions" ="0,1,2,3,4",
    "property.kafka_default_offsets" = "OFFSET_BEGINNING"
)""")
    kh.wait_rows(conn, "example_tbl2", len(expected), LOAD_TIMEOUT, job="example_tbl2_ordertest2")
    actual = rows_of(conn, "SELECT commodity_id, customer_name, country, pay_time, pay_dt, price FROM example_tbl2 "
                           "ORDER BY CAST(commodity_id AS BIGINT)")
    compare_rows(actual, expected, "example_tbl2")
    job = wait_caught_up(conn, "example_tbl2_ordertest2", len(expected))
    eq(job["State"], "RUNNING", "State")
    eq(job["Statistic"]["errorRows"], 0, "errorRows")
    eq(job["Progress"], {str(p): "99" for p in range(5)}, "Progress")
    eq(job["DataSourceProperties"]["currentKafkaPartitions"], "0,1,2,3,4", "currentKafkaPartitions")
    eq(job["JobProperties"]["dataFormat"], "json", "JobProperties.dataFormat")


# ---- CSV details ------------------------------------------------------------------------------------------------

@suite.test(timeout=150)
def test_csv_enclose_escape_multibyte_separator(s):
    """enclose '"' with doubling, escape '\\', the 2-byte separator "||" and the 3-byte "•", several rows per
    message (the message delimiter given to kcat is \\x1e, rows are separated by \\n inside), \\N and ''."""
    topic = new_topic("csv_enclose", 1)
    topic2 = new_topic("csv_bullet", 1)
    srv, conn = start_server(s)
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE t (id int NOT NULL, a varchar(100), b varchar(100)) DUPLICATE KEY(id)")
    kh.query(conn, "CREATE TABLE t2 (id int NOT NULL, a varchar(100), b varchar(100)) DUPLICATE KEY(id)")
    msgs = [
        '1||plain||text',
        '2||"a||b"||"enclosed separator"',
        '3||"say ""hi"""||doubled quotes',
        '4||a\\||b||escaped separator',
        '5||"multi\nline"||enclosed row delimiter',
        '6||\\N||',                                  # NULL and the empty string
        '7||""||"\\N"',                              # enclosed empty is ''; enclosed, \N is not NULL: the
                                                     # escape makes it N
        '8||x||y\n9||z||w\n10||last||row\n',         # three rows in one message; a trailing delimiter adds none
        '11||tab\there||back\\\\slash',               # escape of the escape byte
    ]
    expected = [
        (1, "plain", "text"), (2, "a||b", "enclosed separator"), (3, 'say "hi"', "doubled quotes"),
        (4, "a||b", "escaped separator"), (5, "multi\nline", "enclosed row delimiter"), (6, None, ""),
        (7, "", "N"), (8, "x", "y"), (9, "z", "w"), (10, "last", "row"), (11, "tab\there", "back\\slash"),
    ]
    kh.produce(broker().bootstrap, topic, 0, msgs, delimiter="\x1e")
    kh.produce(broker().bootstrap, topic2, 0, ["1•ünï•cödé", "2•\\N•", "3•a•b•c", "4•only two"], delimiter="\x1e")
    kh.query(conn, f"""CREATE ROUTINE LOAD j_enc ON t COLUMNS TERMINATED BY "||"
PROPERTIES ("enclose" = "\\"", "escape" = "\\\\", "max_batch_interval" = "0.5", "max_error_number" = "100")
FROM KAFKA ("kafka_broker_list" = "{broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    kh.query(conn, f"""CREATE ROUTINE LOAD j_bullet ON t2 COLUMNS TERMINATED BY "•"
PROPERTIES ("max_batch_interval" = "0.5", "max_error_number" = "100")
FROM KAFKA ("kafka_broker_list" = "{broker().bootstrap}", "kafka_topic" = "{topic2}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    kh.wait_rows(conn, "t", len(expected), LOAD_TIMEOUT, job="j_enc")
    compare_rows(rows_of(conn, "SELECT id, a, b FROM t ORDER BY id"), expected, "t (enclose/escape)")
    wait_caught_up(conn, "j_bullet", 2, total=4)
    compare_rows(rows_of(conn, "SELECT id, a, b FROM t2 ORDER BY id"), [(1, "ünï", "cödé"), (2, None, "")],
                 "t2 (3-byte separator)")
    job = kh.show_job(conn, "j_bullet")
    eq(job["Statistic"]["errorRows"], 2, "errorRows (a row with 4 fields, a row with 2)")
    eq(job["State"], "RUNNING", "State (2 errors <= max_error_number 100)")
    rej = kh.rejected_rows(conn, "d", "j_bullet")
    eq([(r["Partition"], r["Offset"]) for r in rej], [(0, 2), (0, 3)], "rejected rows' partition and offset")
    for r in rej:
        check("column" in r["Reason"].lower() or "field" in r["Reason"].lower(),
              f"the reason names the column/field count problem: {r['Reason']!r}")
    eq([r["RawData"] is not None for r in rej], [True, True], "RawData of the rejected rows is set")
    # (RawData of non-ASCII text: test_rejected_row_raw_data_is_the_message_text)


@suite.test(timeout=120)
def test_rejected_row_raw_data_is_the_message_text(s):
    """RawData of a rejected row is the row as it came, readable: UTF-8 text stays text (not \\xE2\\x80... escapes),
    in SQL and in the ErrorLogUrls page."""
    topic = new_topic("raw_utf8", 1)
    srv, conn = start_server(s)
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE t (id int NOT NULL, a varchar(100)) DUPLICATE KEY(id)")
    kh.produce(broker().bootstrap, topic, 0, ["1,中国", "2,Zoë,extra field", "x,naïve"])
    kh.query(conn, f"""CREATE ROUTINE LOAD j_raw ON t COLUMNS TERMINATED BY ","
PROPERTIES ("max_batch_interval" = "0.5", "max_error_number" = "10", "strict_mode" = "true")
FROM KAFKA ("kafka_broker_list" = "{broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    job = wait_caught_up(conn, "j_raw", 1, total=3)
    eq(rows_of(conn, "SELECT id, a FROM t"), [(1, "中国")], "loaded row")
    rej = kh.rejected_rows(conn, "d", "j_raw")
    c = Collector()
    c.eq([(r["Offset"], r["RawData"]) for r in rej], [(1, "2,Zoë,extra field"), (2, "x,naïve")],
         "RawData of the rejected rows (SQL)")
    url = job["ErrorLogUrls"]
    if url.startswith("http://"):
        status, body = srv.http_get(url.split(str(srv.http_port), 1)[1])
        c.contains(body, "Row: [2,Zoë,extra field]", "ErrorLogUrls page")
        c.contains(body, "Row: [x,naïve]", "ErrorLogUrls page")
    else:
        c.check(False, f"ErrorLogUrls: {url!r}")
    c.done()


@suite.test(timeout=120)
def test_csv_null_empty_trim_and_row_delimiter(s):
    """Without COLUMNS the fields map to the table's columns in order; `\\N` is NULL and an empty field the empty
    string; trim_space strips blanks around fields (not inside enclose); ROWS TERMINATED BY a custom delimiter."""
    topic = new_topic("csv_null", 1)
    topic2 = new_topic("csv_trim", 1)
    srv, conn = start_server(s)
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE t (id int NOT NULL, s varchar(20), n int, x double) DUPLICATE KEY(id)")
    kh.query(conn, "CREATE TABLE t2 (id int NOT NULL, s varchar(20), n int) DUPLICATE KEY(id)")
    kh.produce(broker().bootstrap, topic, 0, ["1,a,,1.5", "2,,\\N,\\N", "3,\\N,7,", "4,\\\\N,8,2e3"])
    kh.produce(broker().bootstrap, topic2, 0, ["1 ;  padded  ; 5 |2;' kept ';6|", "3;x;7"])
    kh.query(conn, f"""CREATE ROUTINE LOAD j_null ON t COLUMNS TERMINATED BY ","
PROPERTIES ("max_batch_interval" = "0.5")
FROM KAFKA ("kafka_broker_list" = "{broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    kh.query(conn, f"""CREATE ROUTINE LOAD j_trim ON t2 COLUMNS TERMINATED BY ";", ROWS TERMINATED BY "|"
PROPERTIES ("max_batch_interval" = "0.5", "trim_space" = "true", "enclose" = "'")
FROM KAFKA ("kafka_broker_list" = "{broker().bootstrap}", "kafka_topic" = "{topic2}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    kh.wait_rows(conn, "t", 4, LOAD_TIMEOUT, job="j_null")
    # an empty field for an int column is not a number: non-strict mode loads NULL
    compare_rows(rows_of(conn, "SELECT id, s, n, x FROM t ORDER BY id"),
                 [(1, "a", None, 1.5), (2, "", None, None), (3, None, 7, None), (4, "\\\\N", 8, 2000.0)],
                 "t (\\N vs empty)")
    eq(scalar_list(conn, "SELECT count(*) FROM t WHERE s = ''"), [1], "rows with the empty string")
    eq(scalar_list(conn, "SELECT count(*) FROM t WHERE s IS NULL"), [1], "rows with NULL")
    kh.wait_rows(conn, "t2", 3, LOAD_TIMEOUT, job="j_trim")
    compare_rows(rows_of(conn, "SELECT id, s, n FROM t2 ORDER BY id"),
                 [(1, "padded", 5), (2, " kept ", 6), (3, "x", 7)], "t2 (trim_space, ROWS TERMINATED BY '|')")


# ---- JSON details -----------------------------------------------------------------------------------------------

@suite.test(timeout=120)
def test_json_keys_strip_outer_array_json_root(s):
    """Keys by column name (any order, case-insensitive fallback, missing key -> NULL, nested value -> its JSON
    text); strip_outer_array: one row per element; json_root picks the element to read."""
    t_plain = new_topic("json_plain", 1)
    t_strip = new_topic("json_strip", 1)
    t_root = new_topic("json_root", 1)
    srv, conn = start_server(s)
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    for t in ("t_plain", "t_strip", "t_root"):
        kh.query(conn, f"CREATE TABLE {t} (id bigint NOT NULL, name varchar(40), score double, tags varchar(100)) "
                       f"DUPLICATE KEY(id)")
    kh.produce(broker().bootstrap, t_plain, 0, [
        '{"id": 1, "name": "one", "score": 1.5, "tags": "a"}',
        '{"tags": "b", "score": 2, "name": "two", "id": 2}',
        '{"id": 3, "name": null}',
        '{"ID": 4, "Name": "four"}',
        '{"id": 5, "name": "five", "tags": {"k": [1, 2]}}',
        '{"id": 6, "name": "sîx \\u00e9 \\"q\\"", "score": -0.25}',
    ])
    kh.produce(broker().bootstrap, t_strip, 0, [
        '[{"id": 10, "name": "ten"}, {"id": 11, "name": "eleven"}]',
        '[{"id": 12, "name": "twelve", "score": 12}]',
        '[]',
    ])
    kh.produce(broker().bootstrap, t_root, 0, [
        '{"meta": {"v": 1}, "data": [{"id": 20, "name": "twenty"}, {"id": 21, "name": "twenty-one"}]}',
        '{"data": [{"id": 22, "name": "twenty-two", "tags": "x"}]}',
    ])
    bs = broker().bootstrap
    kh.query(conn, f"""CREATE ROUTINE LOAD j_plain ON t_plain PROPERTIES ("format" = "json", "max_batch_interval" = "0.5")
FROM KAFKA ("kafka_broker_list" = "{bs}", "kafka_topic" = "{t_plain}", "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    kh.query(conn, f"""CREATE ROUTINE LOAD j_strip ON t_strip PROPERTIES ("format" = "json", "strip_outer_array" = "true",
"max_batch_interval" = "0.5")
FROM KAFKA ("kafka_broker_list" = "{bs}", "kafka_topic" = "{t_strip}", "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    kh.query(conn, f"""CREATE ROUTINE LOAD j_root ON t_root PROPERTIES ("format" = "json", "strip_outer_array" = "true",
"json_root" = "$.data", "max_batch_interval" = "0.5")
FROM KAFKA ("kafka_broker_list" = "{bs}", "kafka_topic" = "{t_root}", "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    kh.wait_rows(conn, "t_plain", 6, LOAD_TIMEOUT, job="j_plain")
    rows = rows_of(conn, "SELECT id, name, score, tags FROM t_plain ORDER BY id")
    eq(rows[:4] + rows[5:], [(1, "one", 1.5, "a"), (2, "two", 2.0, "b"), (3, None, None, None),
                             (4, "four", None, None), (6, 'sîx é "q"', -0.25, None)], "t_plain")
    eq(rows[4][:3], (5, "five", None), "t_plain row 5")
    eq(json.loads(rows[4][3]), {"k": [1, 2]}, "a nested object loads as its JSON text")
    kh.wait_rows(conn, "t_strip", 3, LOAD_TIMEOUT, job="j_strip")
    compare_rows(rows_of(conn, "SELECT id, name, score FROM t_strip ORDER BY id"),
                 [(10, "ten", None), (11, "eleven", None), (12, "twelve", 12.0)], "t_strip")
    kh.wait_rows(conn, "t_root", 3, LOAD_TIMEOUT, job="j_root")
    compare_rows(rows_of(conn, "SELECT id, name, tags FROM t_root ORDER BY id"),
                 [(20, "twenty", None), (21, "twenty-one", None), (22, "twenty-two", "x")], "t_root")
    for j in ("j_plain", "j_strip", "j_root"):
        job = kh.show_job(conn, j)
        eq(job["Statistic"]["errorRows"], 0, f"{j} errorRows")
        eq(job["State"], "RUNNING", f"{j} State")


@suite.test(timeout=120)
def test_json_column_keeps_json_strings_and_varchar_limits(s):
    """A JSON string loaded into a JSON column stays a JSON string ("5" is not the number 5, "null" not NULL),
    by key name and through jsonpaths; other values keep their JSON. VARCHAR(n)/CHAR(n) values longer than n bytes
    are error rows naming the column, the length and the limit, without strict_mode; a value at the limit loads."""
    t_name = new_topic("json_col_name", 1)
    t_path = new_topic("json_col_path", 1)
    srv, conn = start_server(s)
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE t_name (id int NOT NULL, j json, s varchar(5), c char(2)) DUPLICATE KEY(id)")
    kh.query(conn, "CREATE TABLE t_path (id int NOT NULL, j json, s varchar(5)) DUPLICATE KEY(id)")
    values = ['"5"', '"[1, 2]"', '"null"', '"a string"', '5', '[1,2]', 'null', '{"a":1}', '"q \\"x\\" \\u00e9"']
    kh.produce(broker().bootstrap, t_name, 0, [f'{{"id": {i + 1}, "j": {v}, "s": {v}, "c": "ab"}}'
                                               for i, v in enumerate(values[:3]) if i != 1] +
               ['{"id": 2, "j": "[1, 2]", "c": "ab"}'] +
               [f'{{"id": {i + 1}, "j": {v}, "c": "ab"}}' for i, v in enumerate(values) if i >= 3] +
               ['{"id": 20, "s": "abcde", "c": "ab"}',            # both at their limits
                '{"id": 21, "s": "\u00e9\u00e9", "c": "\u00e9"}',  # 4 and 2 bytes: fit
                '{"id": 22, "s": "\u00e9\u00e9\u00e9"}',         # 6 bytes > 5
                '{"id": 23, "c": "abc"}'])                         # 3 bytes > 2
    kh.produce(broker().bootstrap, t_path, 0, [f'{{"k": {i + 1}, "p": {{"j": {v}}}}}' for i, v in enumerate(values)] +
               ['{"k": 30, "p": {"s": "abcdef"}}'])
    bs = broker().bootstrap
    kh.query(conn, f"""CREATE ROUTINE LOAD j_name ON t_name
PROPERTIES ("format" = "json", "max_batch_interval" = "0.5", "max_error_number" = "100")
FROM KAFKA ("kafka_broker_list" = "{bs}", "kafka_topic" = "{t_name}", "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    kh.query(conn, f"""CREATE ROUTINE LOAD j_path ON t_path COLUMNS (id, j, s)
PROPERTIES ("format" = "json", "jsonpaths" = "[\\"$.k\\", \\"$.p.j\\", \\"$.p.s\\"]", "max_batch_interval" = "0.5",
            "max_error_number" = "100")
FROM KAFKA ("kafka_broker_list" = "{bs}", "kafka_topic" = "{t_path}", "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    name_job = wait_caught_up(conn, "j_name", 11, total=13)
    path_job = wait_caught_up(conn, "j_path", 9, total=10)
    c = Collector()
    expected_types = ["VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "UBIGINT", "ARRAY", None, "OBJECT", "VARCHAR"]
    expected_values = ["5", "[1, 2]", "null", "a string", 5, [1, 2], None, {"a": 1}, 'q "x" \u00e9']
    for table in ("t_name", "t_path"):
        rows = rows_of(conn, f"SELECT id, CAST(j AS VARCHAR), json_type(j) FROM {table} WHERE id < 20 ORDER BY id")
        c.eq([r[0] for r in rows], list(range(1, 10)), f"{table} ids")
        c.eq([json.loads(r[1]) if r[1] is not None else None for r in rows], expected_values, f"{table} JSON values")
        c.eq([r[2] for r in rows], expected_types, f"{table} json_type")
    c.eq(rows_of(conn, "SELECT CAST(j AS VARCHAR), j->>'$' FROM t_name WHERE id IN (1, 3) ORDER BY id"),
         [('"5"', "5"), ('"null"', "null")], "JSON strings keep their quotes")
    # Into VARCHAR the strings are unescaped text, as before.
    c.eq(rows_of(conn, "SELECT s FROM t_name WHERE id <= 3 ORDER BY id"), [("5",), (None,), ("null",)],
         "strings into varchar")
    c.eq(rows_of(conn, "SELECT id, s, c FROM t_name WHERE id >= 20 ORDER BY id"),
         [(20, "abcde", "ab"), (21, "éé", "é")], "values at the byte limits")
    c.eq((name_job["Statistic"]["loadedRows"], name_job["Statistic"]["errorRows"]), (11, 2), "j_name loaded/error")
    c.eq((path_job["Statistic"]["loadedRows"], path_job["Statistic"]["errorRows"]), (9, 1), "j_path loaded/error")
    reasons = sorted(r["Reason"] for r in kh.rejected_rows(conn, "d", "j_name"))
    c.eq(reasons, ["column 'c': the value 'abc' is 3 bytes long, more than the 2 bytes of CHAR(2)",
                   "column 's': the value 'ééé' is 6 bytes long, more than the 5 bytes of VARCHAR(5)"],
         "length error reasons")
    c.eq([r["Reason"] for r in kh.rejected_rows(conn, "d", "j_path")],
         ["column 's': the value 'abcdef' is 6 bytes long, more than the 5 bytes of VARCHAR(5)"], "j_path reason")
    c.done()


# ---- WHERE, strict_mode ----------------------------------------------------------------------------------------

@suite.test(timeout=120)
def test_where_counts_unselected_rows(s):
    """Rows failing WHERE are unselectedRows, not errors: with max_error_number 0 the job keeps running."""
    topic = new_topic("where_topic", 2)
    srv, conn = start_server(s)
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE t (id int NOT NULL, price double, city varchar(20)) DUPLICATE KEY(id)")
    lines = {0: [], 1: []}
    expected = []
    for i in range(200):
        price = (i * 13) % 250
        city = ["Paris", "Lyon", "Nice"][i % 3]
        lines[i % 2].append(f"{i},{price},{city}")
        if price > 100 and city != "Nice":
            expected.append((i, float(price), city))
    for p, ls in lines.items():
        kh.produce(broker().bootstrap, topic, p, ls)
    kh.query(conn, f"""CREATE ROUTINE LOAD j_where ON t COLUMNS TERMINATED BY ",", WHERE price > 100 AND city <> 'Nice'
PROPERTIES ("max_batch_interval" = "0.5", "max_batch_rows" = "30")
FROM KAFKA ("kafka_broker_list" = "{broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    job = wait_caught_up(conn, "j_where", len(expected), total=200)
    compare_rows(rows_of(conn, "SELECT id, price, city FROM t ORDER BY id"), expected, "t (WHERE)")
    st = job["Statistic"]
    c = Collector()
    c.eq(st["loadedRows"], len(expected), "loadedRows")
    c.eq(st["unselectedRows"], 200 - len(expected), "unselectedRows")
    c.eq(st["errorRows"], 0, "errorRows")
    c.eq(st["totalRows"], 200, "totalRows")
    c.check(st["committedTaskNum"] >= 200 // 30, f"max_batch_rows 30 -> at least {200 // 30} committed tasks: {st}")
    c.eq(job["State"], "RUNNING", "State")
    c.eq(job["JobProperties"]["whereExpr"], "price > 100 AND city <> 'Nice'", "JobProperties.whereExpr")
    c.done()


@suite.test(timeout=150)
def test_strict_mode(s):
    """strict_mode false: a value that fails conversion becomes NULL (an error only for a NOT NULL column);
    strict_mode true: the row is an error row. Error rows are counted and recorded with partition and offset."""
    topic = new_topic("strict_topic", 1)
    srv, conn = start_server(s)
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE t_loose (id int NOT NULL, v int, d date, s varchar(10)) DUPLICATE KEY(id)")
    kh.query(conn, "CREATE TABLE t_strict (id int NOT NULL, v int, d date, s varchar(10)) DUPLICATE KEY(id)")
    lines = ["1,10,2020-01-01,ok",        # good
             "2,abc,2020-01-02,badint",   # v does not convert
             "3,30,notadate,baddate",     # d does not convert
             "x,40,2020-01-04,badid",     # id (NOT NULL) does not convert
             "\\N,50,2020-01-05,nullid",  # id NULL into NOT NULL
             "6,\\N,\\N,nulls",           # NULL values are not conversion failures
             "7,70,2020-01-07,ok"]
    kh.produce(broker().bootstrap, topic, 0, lines)
    for name, strict in (("j_loose", "false"), ("j_strict", "true")):
        table = "t_loose" if strict == "false" else "t_strict"
        kh.query(conn, f"""CREATE ROUTINE LOAD {name} ON {table} COLUMNS TERMINATED BY ","
PROPERTIES ("max_batch_interval" = "0.5", "strict_mode" = "{strict}", "max_error_number" = "100",
            "log_rejected_record_num" = "-1")
FROM KAFKA ("kafka_broker_list" = "{broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    loose = wait_caught_up(conn, "j_loose", 5, total=7)
    strict = wait_caught_up(conn, "j_strict", 3, total=7)
    c = Collector()
    c.eq(rows_of(conn, "SELECT id, v, d, s FROM t_loose ORDER BY id"),
         [(1, 10, datetime.date(2020, 1, 1), "ok"), (2, None, datetime.date(2020, 1, 2), "badint"),
          (3, 30, None, "baddate"), (6, None, None, "nulls"), (7, 70, datetime.date(2020, 1, 7), "ok")],
         "t_loose rows")
    c.eq(rows_of(conn, "SELECT id, v, d, s FROM t_strict ORDER BY id"),
         [(1, 10, datetime.date(2020, 1, 1), "ok"), (6, None, None, "nulls"),
          (7, 70, datetime.date(2020, 1, 7), "ok")], "t_strict rows")
    c.eq((loose["Statistic"]["loadedRows"], loose["Statistic"]["errorRows"]), (5, 2), "j_loose loaded/error rows")
    c.eq((strict["Statistic"]["loadedRows"], strict["Statistic"]["errorRows"]), (3, 4), "j_strict loaded/error rows")
    rej_loose = kh.rejected_rows(conn, "d", "j_loose")
    rej_strict = kh.rejected_rows(conn, "d", "j_strict")
    c.eq([(r["Partition"], r["Offset"]) for r in rej_loose], [(0, 3), (0, 4)], "j_loose rejected offsets")
    c.eq([(r["Partition"], r["Offset"]) for r in rej_strict], [(0, 1), (0, 2), (0, 3), (0, 4)],
         "j_strict rejected offsets")
    for r in rej_loose + rej_strict:
        c.check(r["Reason"], f"a rejected row has a reason: {r}")
        c.check(r["TaskId"] is not None and r["CreateTime"] is not None, f"TaskId and CreateTime are set: {r}")
    if len(rej_strict) == 4:
        c.contains(rej_strict[0]["Reason"], "v", "reason of the row with v = 'abc'")
        c.contains(rej_strict[0]["RawData"], "abc", "RawData of the row with v = 'abc'")
        c.contains(rej_strict[1]["RawData"], "notadate", "RawData of the row with a bad date")
    c.eq(loose["State"], "RUNNING", "j_loose State")
    c.eq(strict["State"], "RUNNING", "j_strict State")
    c.check(strict["ErrorLogUrls"].startswith(f"http://127.0.0.1:{srv.http_port}/api/routine_load/errors?"),
            f"ErrorLogUrls points at the HTTP port: {strict['ErrorLogUrls']!r}")
    c.eq(strict["TrackingSQL"], "SELECT * FROM __sluice.routine_load_rejected_rows WHERE DbName = 'd' AND "
                                "JobName = 'j_strict'", "TrackingSQL")
    if strict["ErrorLogUrls"].startswith("http://"):
        path = strict["ErrorLogUrls"].split(str(srv.http_port), 1)[1]
        status, body = srv.http_get(path)
        c.eq(status, 200, "ErrorLogUrls status")
        c.eq(len([ln for ln in body.splitlines() if ln.startswith("Error: ")]), 4, f"ErrorLogUrls lines:\n{body}")
        c.contains(body, "partition: 0, offset: 1", "ErrorLogUrls body")
        c.contains(body, "abc", "ErrorLogUrls body")
    if strict["TrackingSQL"]:
        c.eq(len(kh.query(conn, strict["TrackingSQL"])), 4, "rows of TrackingSQL")
    c.done()


# ---- SHOW values and secrets -----------------------------------------------------------------------------------

SECRET = "s3cr3t-Pa55word-x9"
SECRET2 = "k3y-7f7f7f-pass"


def secret_job(s: TestSuite, topic: str, log_level: str | None):
    """A job with property.sasl.password and property.ssl.key.password; returns (server, connection)."""
    srv, conn = start_server(s, extra_args=["--log-level", log_level] if log_level else [])
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE t (id int NOT NULL, v varchar(10)) DUPLICATE KEY(id)")
    kh.produce(broker().bootstrap, topic, 0, ["1,a", "2,b"])
    kh.query(conn, f"""CREATE ROUTINE LOAD j_secret ON t COLUMNS TERMINATED BY ","
PROPERTIES ("max_batch_interval" = "0.5")
FROM KAFKA ("kafka_broker_list" = "{broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING",
            "property.sasl.username" = "alice", "property.sasl.password" = "{SECRET}",
            "property.ssl.key.password" = "{SECRET2}", "property.client.id" = "c1")""")
    kh.wait_rows(conn, "t", 2, LOAD_TIMEOUT, job="j_secret")
    # a statement that fails, and an ALTER, with the secret in them
    expect_mysql_error(lambda: kh.query(conn, f"""ALTER ROUTINE LOAD FOR j_secret FROM KAFKA
("property.sasl.password" = "{SECRET}")"""), 1105)
    kh.query(conn, "PAUSE ROUTINE LOAD FOR j_secret")
    kh.query(conn, f"""ALTER ROUTINE LOAD FOR j_secret FROM KAFKA ("property.sasl.password" = "{SECRET}-2")""")
    kh.query(conn, "RESUME ROUTINE LOAD FOR j_secret")
    kh.wait_state(conn, "j_secret", "RUNNING", 60)
    return srv, conn


def secret_lines(log: str) -> str:
    return "\n".join(ln for ln in log.splitlines() if SECRET in ln or SECRET2 in ln)[:3000]


@suite.test(timeout=120)
def test_secrets_are_masked_in_show_and_log(s):
    """property.sasl.password (and other keys with password/secret/token) show as ****** in SHOW ROUTINE LOAD,
    SHOW ROUTINE LOAD TASK and SHOW CREATE ROUTINE LOAD, also after ALTER, and never reach the server log."""
    srv, conn = secret_job(s, new_topic("secret_topic", 1), None)
    job = wait_caught_up(conn, "j_secret", 2)
    c = Collector()
    cp = job["CustomProperties"]
    c.eq(cp.get("sasl.password"), "******", "CustomProperties sasl.password")
    c.eq(cp.get("ssl.key.password"), "******", "CustomProperties ssl.key.password")
    c.eq(cp.get("sasl.username"), "alice", "CustomProperties sasl.username")
    c.eq(cp.get("client.id"), "c1", "CustomProperties client.id")
    for col in kh.SHOW_COLUMNS:
        raw = job.get(col + "_raw", job.get(col))
        c.check(SECRET not in str(raw) and SECRET2 not in str(raw), f"SHOW ROUTINE LOAD column {col} shows a secret")
    create = kh.query(conn, "SHOW CREATE ROUTINE LOAD j_secret")[0][1]
    c.check(SECRET not in create and SECRET2 not in create, f"SHOW CREATE shows a secret:\n{create}")
    c.contains(create, '"property.sasl.password" = "******"', "SHOW CREATE")
    c.contains(create, '"property.ssl.key.password" = "******"', "SHOW CREATE")
    c.contains(create, '"property.sasl.username" = "alice"', "SHOW CREATE")
    tasks = kh.show_rows(conn, 'SHOW ROUTINE LOAD TASK WHERE JobName = "j_secret"')
    c.check(SECRET not in json.dumps(tasks, default=str), "SHOW ROUTINE LOAD TASK shows a secret")
    srv.stop()
    log = srv.log_text()
    c.check(SECRET not in log and SECRET2 not in log, "the server log holds a secret:\n" + secret_lines(log))
    c.done()


@suite.test(timeout=120)
def test_secrets_not_in_debug_log(s):
    """Even at --log-level debug (which logs every statement) the password values must not be written."""
    srv, conn = secret_job(s, new_topic("secret_topic_debug", 1), "debug")
    srv.stop()
    log = srv.log_text()
    check(SECRET not in log and SECRET2 not in log, "the debug server log holds a secret:\n" + secret_lines(log))


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
