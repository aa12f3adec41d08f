#!/usr/bin/python3
"""Routine load of Avro in the Confluent wire format end to end (issue 5, "Avro"), on the test broker with a
schema-registry fixture (avro_harness.SchemaRegistry) and records written by tools/avroproducer (avro-c):

- the reference's sensor_log example (long, string, boolean, double, enum) over two partitions, checked row by
  row, with basic-auth credentials in the registry URL that SHOW ROUTINE LOAD, SHOW CREATE and the log never show;
  each schema is fetched once (cached by id);
- nested records (into a STRUCT column, a JSON column, a VARCHAR column as JSON text, and subfields through
  jsonpaths), arrays (ARRAY), maps (MAP and JSON), nullable unions and a multi-type union (JSON), row by row;
- two schema versions in one topic (the field the old one lacks loads as NULL);
- messages not in the wire format, with an unknown schema id, or with a body that does not decode are error rows
  with their reason and offset; the good messages around them load;
- a registry that is down is retried with backoff (no error rows, nothing loaded), and the job loads everything
  once it is back.

    /usr/bin/python3 tests/e2e/test_routine_load_avro.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import json
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import avro_harness as ah  # noqa: E402
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check  # noqa: E402

suite = TestSuite("test_routine_load_avro")

LOAD_TIMEOUT = 90.0

broker = kh.shared_broker
new_topic = kh.new_topic


def start_server(s: TestSuite, **kw):
    srv = s.server(**kw).start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    return srv, conn


def rows_of(conn, sql: str) -> list[tuple]:
    return [tuple(r) for r in kh.query(conn, sql)]


def compare_rows(actual: list[tuple], expected: list[tuple], what: str):
    if actual == expected:
        return
    problems = [f"{what}: {len(actual)} rows, expected {len(expected)}"]
    for i, (a, e) in enumerate(zip(actual, expected)):
        if a != e:
            problems.append(f"  first difference at row {i}: got {a!r}, expected {e!r}")
            break
    raise AssertionError("\n".join(problems))


def create_job(conn, name: str, table: str, topic: str, registry_url: str, columns: str = "",
               properties: dict | None = None):
    props = {"format": "avro", "max_batch_interval": "0.5"}
    props.update(properties or {})
    props_sql = ", ".join(f'"{k}" = {json.dumps(v)}' for k, v in props.items())
    kh.query(conn, f"""CREATE ROUTINE LOAD {name} ON {table} {columns}
PROPERTIES ({props_sql})
FROM KAFKA ("kafka_broker_list" = "{broker().bootstrap}", "kafka_topic" = "{topic}",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING",
            "confluent.schema.registry.url" = "{registry_url}")""")


# ---- the sensor_log example --------------------------------------------------------------------------------------

SENSOR_SCHEMA = ah.SENSOR_SCHEMA
sensor_record = ah.sensor_record
REGISTRY_USER = "SR-KEY-4d2c"
REGISTRY_SECRET = "sr-s3cr3t-77aa"


@suite.test(timeout=180)
def test_sensor_log_example(s):
    """The reference's sensor_log example over two partitions, with registry credentials; checked row by row; the
    credentials reach the registry and nothing the user sees; each schema id is fetched once."""
    topic = new_topic("sensor_log", 2)
    with ah.SchemaRegistry({1: SENSOR_SCHEMA}, REGISTRY_USER, REGISTRY_SECRET) as registry:
        srv, conn = start_server(s, extra_args=["--log-level", "debug"])
        kh.query(conn, "CREATE TABLE sensor_log (id bigint NOT NULL, name varchar(64), checked boolean, data double, "
                       "sensor_type varchar(26)) DUPLICATE KEY(id)")
        records = [sensor_record(i) for i in range(400)]
        for p in (0, 1):
            ah.produce_avro(broker().bootstrap, topic, p, 1, SENSOR_SCHEMA, records[p::2])
        create_job(conn, "sensor_job", "sensor_log", topic, registry.url(), properties={"desired_concurrent_number": "2"})
        kh.wait_rows(conn, "sensor_log", len(records), LOAD_TIMEOUT, job="sensor_job")
        actual = rows_of(conn, "SELECT id, name, checked, data, sensor_type FROM sensor_log ORDER BY id")
        expected = [(r["id"], r["name"], int(r["checked"]), r["data"], r["sensor_type"]) for r in records]
        compare_rows(actual, expected, "sensor_log")

        job = kh.show_job(conn, "sensor_job")
        c = Collector()
        c.eq(job["State"], "RUNNING", "State")
        c.eq(job["Statistic"].get("errorRows"), 0, "Statistic.errorRows")
        c.eq(job["DataSourceProperties"].get("confluent.schema.registry.url"), registry.url(with_credentials=False),
             "DataSourceProperties registry URL (without credentials)")
        c.eq(job["JobProperties"].get("dataFormat"), "avro", "JobProperties.dataFormat")
        for col in kh.SHOW_COLUMNS:
            raw = str(job.get(col + "_raw", job.get(col)))
            c.check(REGISTRY_SECRET not in raw and REGISTRY_USER not in raw, f"SHOW ROUTINE LOAD column {col} shows "
                    f"the registry credentials: {raw}")
        create = kh.query(conn, "SHOW CREATE ROUTINE LOAD sensor_job")[0][1]
        c.check(REGISTRY_SECRET not in create and REGISTRY_USER not in create,
                f"SHOW CREATE shows the registry credentials:\n{create}")
        c.contains(create, f'"confluent.schema.registry.url" = "{registry.url(with_credentials=False)}"', "SHOW CREATE")
        c.contains(create, '"format" = "avro"', "SHOW CREATE")
        c.check(registry.auth_headers and all(h.startswith("Basic ") for h in registry.auth_headers),
                f"the registry got basic auth: {registry.auth_headers}")
        # one fetch per id and process; two tasks starting at once may both miss the cache
        c.check(1 <= registry.requests.get(1, 0) <= 2, f"schema id 1 fetched {registry.requests.get(1)} times")
        srv.stop()
        log = srv.log_text()
        c.check(REGISTRY_SECRET not in log, "the server log holds the registry secret")
        c.done()


@suite.test(timeout=180)
def test_include_metadata_with_avro(s):
    """INCLUDE METADATA applies to avro as to json: the partition and offset of each record land next to its fields,
    usable in COLUMNS expressions."""
    topic = new_topic("sensor_meta", 2)
    with ah.SchemaRegistry({1: SENSOR_SCHEMA}) as registry:
        srv, conn = start_server(s)
        kh.query(conn, "CREATE TABLE sensor_meta (id bigint NOT NULL, name varchar(64), src varchar(64)) "
                       "DUPLICATE KEY(id)")
        records = [sensor_record(i) for i in range(60)]
        for p in (0, 1):
            ah.produce_avro(broker().bootstrap, topic, p, 1, SENSOR_SCHEMA, records[p::2])
        create_job(conn, "meta_job", "sensor_meta", topic, registry.url(),
                   columns="INCLUDE METADATA (PARTITION AS m_partition, OFFSET AS m_offset), "
                           "COLUMNS (id, name, src = concat(m_partition, ':', m_offset))")
        kh.wait_rows(conn, "sensor_meta", len(records), LOAD_TIMEOUT, job="meta_job")
        actual = rows_of(conn, "SELECT id, name, src FROM sensor_meta ORDER BY id")
        # record i went to partition i % 2, at offset i // 2
        expected = [(r["id"], r["name"], f"{i % 2}:{i // 2}") for i, r in enumerate(records)]
        compare_rows(actual, expected, "sensor_meta")


# ---- nested types --------------------------------------------------------------------------------------------------

NESTED_SCHEMA = {
    "type": "record", "name": "event", "fields": [
        {"name": "id", "type": "int"},
        {"name": "rec", "type": {"type": "record", "name": "point", "fields": [
            {"name": "x", "type": "int"}, {"name": "label", "type": "string"},
            {"name": "tags", "type": {"type": "array", "items": "string"}}]}},
        {"name": "rec_json", "type": "point"},
        {"name": "rec_text", "type": "point"},
        {"name": "arr", "type": {"type": "array", "items": "long"}},
        {"name": "m", "type": {"type": "map", "values": "int"}},
        {"name": "m_json", "type": {"type": "map", "values": ["null", "string"]}},
        {"name": "opt_s", "type": ["null", "string"]},
        {"name": "opt_d", "type": ["double", "null"]},
        {"name": "multi", "type": ["null", "long", "string", "point"]},
        {"name": "fx", "type": {"type": "fixed", "name": "code", "size": 2}},
        {"name": "raw", "type": "bytes"}]}


def nested_record(i: int) -> dict:
    point = {"x": i, "label": f"p{i}", "tags": [f"t{j}" for j in range(i % 3)]}
    multi = [None, {"long": i * 1000}, {"string": f"s{i}"}, {"point": point}][i % 4]
    return {"id": i, "rec": point, "rec_json": point, "rec_text": point,
            "arr": [i, -i, 2 ** 40 + i][: i % 4], "m": {f"k{j}": i * j for j in range(i % 3)},
            "m_json": {"a": None if i % 2 else f"v{i}"}, "opt_s": None if i % 2 else f"o{i}",
            "opt_d": None if i % 3 == 0 else i / 4, "multi": multi, "fx": f"c{i % 10}", "raw": f"r{i}"}


def multi_json(i: int):
    """What the multi-type union holds as JSON (the branch's value)."""
    r = nested_record(i)["multi"]
    return None if r is None else list(r.values())[0]


@suite.test(timeout=180)
def test_nested_types(s):
    """Records into STRUCT, JSON and VARCHAR (JSON text) columns, arrays into ARRAY, maps into MAP and JSON,
    nullable unions, a multi-type union into JSON, fixed and bytes into VARCHAR; then subfields through jsonpaths."""
    topic = new_topic("nested", 1)
    with ah.SchemaRegistry({3: NESTED_SCHEMA}) as registry:
        srv, conn = start_server(s)
        kh.query(conn, "CREATE TABLE nested (id int NOT NULL, rec struct<x int, label varchar(20), tags array<varchar(20)>>, "
                       "rec_json json, rec_text varchar(200), arr array<bigint>, m map<varchar(10), int>, m_json json, "
                       "opt_s varchar(10), opt_d double, multi json, fx varchar(10), raw varchar(10)) DUPLICATE KEY(id)")
        kh.query(conn, "CREATE TABLE picked (id int NOT NULL, x int, label varchar(20), first_tag varchar(20), "
                       "second_elem bigint, k1 int, missing varchar(10)) DUPLICATE KEY(id)")
        records = [nested_record(i) for i in range(60)]
        ah.produce_avro(broker().bootstrap, topic, 0, 3, NESTED_SCHEMA, records)
        create_job(conn, "nested_job", "nested", topic, registry.url())
        create_job(conn, "picked_job", "picked", topic, registry.url(),
                   "COLUMNS (id, x, label, first_tag, second_elem, k1, missing)",
                   {"jsonpaths": json.dumps(["$.id", "$.rec.x", "$.rec.label", "$.rec.tags[0]", "$.arr[1]", "$.m.k1",
                                             "$.rec.nope"])})
        kh.wait_rows(conn, "nested", len(records), LOAD_TIMEOUT, job="nested_job")
        kh.wait_rows(conn, "picked", len(records), LOAD_TIMEOUT, job="picked_job")

        actual = rows_of(conn, "SELECT id, to_json(rec), CAST(rec_json AS VARCHAR), rec_text, to_json(arr), to_json(m), "
                               "CAST(m_json AS VARCHAR), opt_s, opt_d, CAST(multi AS VARCHAR), fx, raw FROM nested ORDER BY id")
        decoded = []
        for row in actual:
            row = list(row)
            for col in (1, 2, 3, 4, 5, 6, 9):
                row[col] = None if row[col] is None else json.loads(row[col])
            decoded.append(tuple(row))
        expected = [(r["id"], r["rec"], r["rec_json"], r["rec_text"], r["arr"], r["m"], r["m_json"], r["opt_s"],
                     r["opt_d"], multi_json(r["id"]), r["fx"], r["raw"]) for r in records]
        compare_rows(decoded, expected, "nested")
        # the record's JSON text keeps the field order of the schema
        check(rows_of(conn, "SELECT rec_text FROM nested WHERE id = 4")[0][0] ==
              '{"x":4,"label":"p4","tags":["t0"]}', "rec_text is the record's JSON text in field order")

        actual = rows_of(conn, "SELECT id, x, label, first_tag, second_elem, k1, missing FROM picked ORDER BY id")
        expected = [(r["id"], r["rec"]["x"], r["rec"]["label"], (r["rec"]["tags"] or [None])[0],
                     r["arr"][1] if len(r["arr"]) > 1 else None, r["m"].get("k1"), None) for r in records]
        compare_rows(actual, expected, "picked (jsonpaths)")
        for job in ("nested_job", "picked_job"):
            st = kh.show_job(conn, job)["Statistic"]
            check(st.get("errorRows") == 0, f"{job}: no error rows: {st}")


@suite.test(timeout=180)
def test_strings_into_json_columns_stay_strings(s):
    """An Avro string loaded into a JSON column is a JSON string whatever its text reads like ("5", "null",
    "[1, 2]", plain words), as with format json; numbers, booleans and enums keep their JSON value."""
    topic = new_topic("json_cols", 1)
    texts = ["5", "null", "[1, 2]", "a string", '{"k": 1}', "true", ""]
    records = [{"id": i, "name": t, "checked": i % 2 == 0, "data": i + 0.5, "sensor_type": ah.SENSOR_TYPES[i % 3]}
               for i, t in enumerate(texts)]
    with ah.SchemaRegistry({1: SENSOR_SCHEMA}) as registry:
        srv, conn = start_server(s)
        kh.query(conn, "CREATE TABLE j (id bigint NOT NULL, name json, checked json, data json, sensor_type json) "
                       "DUPLICATE KEY(id)")
        ah.produce_avro(broker().bootstrap, topic, 0, 1, SENSOR_SCHEMA, records)
        create_job(conn, "json_job", "j", topic, registry.url())
        kh.wait_rows(conn, "j", len(records), LOAD_TIMEOUT, job="json_job")
        actual = rows_of(conn, "SELECT id, CAST(name AS VARCHAR), json_type(name), CAST(checked AS VARCHAR), "
                               "CAST(data AS VARCHAR), CAST(sensor_type AS VARCHAR) FROM j ORDER BY id")
        expected = [(r["id"], json.dumps(r["name"], separators=(",", ":")), "VARCHAR", json.dumps(r["checked"]),
                     json.dumps(r["data"]), json.dumps(r["sensor_type"])) for r in records]
        compare_rows(actual, expected, "JSON columns")
        check(kh.show_job(conn, "json_job")["Statistic"].get("errorRows") == 0, "no error rows")


# ---- schema versions ---------------------------------------------------------------------------------------------

V1 = {"type": "record", "name": "sensor_log", "fields": [
    {"name": "id", "type": "long"}, {"name": "name", "type": "string"}]}
V2 = {"type": "record", "name": "sensor_log", "fields": [
    {"name": "id", "type": "long"}, {"name": "name", "type": "string"},
    {"name": "data", "type": ["null", "double"], "default": None}]}


@suite.test(timeout=180)
def test_two_schema_versions_in_one_topic(s):
    """Messages written with schema ids 11 (id, name) and 12 (id, name, data) interleave in one partition; the rows
    of version 1 have data NULL."""
    topic = new_topic("versions", 1)
    with ah.SchemaRegistry({11: V1, 12: V2}) as registry:
        srv, conn = start_server(s)
        kh.query(conn, "CREATE TABLE versions (id bigint NOT NULL, name varchar(20), data double) DUPLICATE KEY(id)")
        expected = []
        for block in range(6):
            sid, schema = (11, V1) if block % 2 == 0 else (12, V2)
            recs = []
            for j in range(25):
                i = block * 25 + j
                r = {"id": i, "name": f"n{i}"}
                if sid == 12:
                    r["data"] = None if j == 0 else i + 0.5
                recs.append(r)
                expected.append((i, f"n{i}", r.get("data")))
            ah.produce_avro(broker().bootstrap, topic, 0, sid, schema, recs)
        create_job(conn, "versions_job", "versions", topic, registry.url())
        kh.wait_rows(conn, "versions", len(expected), LOAD_TIMEOUT, job="versions_job")
        compare_rows(rows_of(conn, "SELECT id, name, data FROM versions ORDER BY id"), expected, "versions")
        check(registry.requests == {11: 1, 12: 1}, f"each schema id fetched once: {registry.requests}")


# ---- error rows ----------------------------------------------------------------------------------------------------

@suite.test(timeout=180)
def test_bad_messages_are_error_rows(s):
    """Not in the wire format, an unknown schema id, a truncated body and trailing bytes are error rows with their
    reason and offset; the good messages around them load."""
    topic = new_topic("bad_avro", 1)
    with ah.SchemaRegistry({1: SENSOR_SCHEMA}) as registry:
        srv, conn = start_server(s)
        kh.query(conn, "CREATE TABLE sensor_log (id bigint NOT NULL, name varchar(64), checked boolean, data double, "
                       "sensor_type varchar(26)) DUPLICATE KEY(id)")
        bs = broker().bootstrap
        ah.produce_avro(bs, topic, 0, 1, SENSOR_SCHEMA, [sensor_record(0), sensor_record(1)])   # offsets 0, 1
        good = bytes.fromhex("00000000010200")  # framed id 1, but the body is cut short
        ah.produce_hex(bs, topic, 0, [b'{"id": 5}',                                             # 2: not framed
                                      b"\x00" + struct.pack(">i", 77) + b"\x02",               # 3: unknown id
                                      good])                                                   # 4: truncated
        ah.produce_avro(bs, topic, 0, 1, SENSOR_SCHEMA, [sensor_record(2)])                     # 5
        create_job(conn, "bad_job", "sensor_log", topic, registry.url(), properties={"max_error_number": "10"})
        kh.wait_rows(conn, "sensor_log", 3, LOAD_TIMEOUT, job="bad_job")
        job = kh.wait_until(lambda: (lambda j: j if j["Statistic"].get("totalRows") == 6 else None)(
            kh.show_job(conn, "bad_job")), LOAD_TIMEOUT, "bad_job to read 6 messages")
        c = Collector()
        c.eq(job["State"], "RUNNING", "State")
        c.eq(job["Statistic"].get("errorRows"), 3, "Statistic.errorRows")
        c.eq(job["Statistic"].get("loadedRows"), 3, "Statistic.loadedRows")
        rejected = kh.rejected_rows(conn, "d", "bad_job")
        c.eq([(r["Partition"], r["Offset"]) for r in rejected], [(0, 2), (0, 3), (0, 4)], "rejected offsets")
        reasons = [r["Reason"] for r in rejected]
        if len(reasons) == 3:
            c.contains(reasons[0], "not in the Confluent wire format", "reason of offset 2")
            c.contains(reasons[1], f"schema id 77 is not in the schema registry {registry.url()}", "reason of offset 3")
            c.contains(reasons[2], "the Avro body (schema id 1) does not decode", "reason of offset 4")
        c.eq(rows_of(conn, "SELECT id FROM sensor_log ORDER BY id"),
             [(sensor_record(i)["id"],) for i in range(3)], "loaded ids")
        c.done()


# ---- registry outage -----------------------------------------------------------------------------------------------

@suite.test(timeout=180)
def test_registry_down_is_retried(s):
    """With the registry down the job stays RUNNING, retries with backoff (OtherMsg says so), loads nothing and
    records no error rows; once the registry is back everything loads."""
    topic = new_topic("outage", 1)
    registry = ah.SchemaRegistry({21: SENSOR_SCHEMA}).start()
    port = registry.port
    registry.stop()
    try:
        srv, conn = start_server(s)
        kh.query(conn, "CREATE TABLE sensor_log (id bigint NOT NULL, name varchar(64), checked boolean, data double, "
                       "sensor_type varchar(26)) DUPLICATE KEY(id)")
        records = [sensor_record(i) for i in range(50)]
        ah.produce_avro(broker().bootstrap, topic, 0, 21, SENSOR_SCHEMA, records)
        create_job(conn, "outage_job", "sensor_log", topic, registry.url())
        job = kh.wait_until(lambda: (lambda j: j if "retrying" in (j.get("OtherMsg") or "") else None)(
            kh.show_job(conn, "outage_job")), 30, "the job to report that it retries")
        c = Collector()
        c.eq(job["State"], "RUNNING", "State while the registry is down")
        c.contains(job["OtherMsg"], f"could not reach the schema registry http://127.0.0.1:{port}", "OtherMsg")
        time.sleep(2)
        job = kh.show_job(conn, "outage_job")
        c.eq(job["Statistic"].get("errorRows", 0), 0, "no error rows while the registry is down")
        c.eq(kh.scalar(conn, "SELECT count(*) FROM sensor_log"), 0, "nothing loaded while the registry is down")
        c.eq(kh.rejected_rows(conn, "d", "outage_job"), [], "no rejected rows")
        registry.port = port
        registry.start()
        kh.wait_rows(conn, "sensor_log", len(records), LOAD_TIMEOUT, job="outage_job")
        compare_rows(rows_of(conn, "SELECT id, name, checked, data, sensor_type FROM sensor_log ORDER BY id"),
                     [(r["id"], r["name"], int(r["checked"]), r["data"], r["sensor_type"]) for r in records],
                     "sensor_log after the outage")
        job = kh.show_job(conn, "outage_job")
        c.eq(job["Statistic"].get("errorRows"), 0, "no error rows after the outage")
        c.eq(job["State"], "RUNNING", "State after the outage")
        c.done()
    finally:
        registry.stop()


@suite.test(timeout=120)
def test_wrong_credentials_pause_the_job(s):
    """A registry that refuses the credentials (401) pauses the job with a message that names the registry
    without the credentials; after ALTER to the right ones and RESUME, everything loads."""
    topic = new_topic("wrong_creds", 1)
    with ah.SchemaRegistry({1: SENSOR_SCHEMA}, REGISTRY_USER, REGISTRY_SECRET) as registry:
        srv, conn = start_server(s)
        kh.query(conn, "CREATE TABLE sensor_log (id bigint NOT NULL, name varchar(64), checked boolean, data double, "
                       "sensor_type varchar(26)) DUPLICATE KEY(id)")
        records = [sensor_record(i) for i in range(20)]
        ah.produce_avro(broker().bootstrap, topic, 0, 1, SENSOR_SCHEMA, records)
        wrong = f"http://{REGISTRY_USER}:not-the-secret@127.0.0.1:{registry.port}"
        create_job(conn, "creds_job", "sensor_log", topic, wrong)
        job = kh.wait_state(conn, "creds_job", "PAUSED", 30)
        c = Collector()
        c.contains(job["ReasonOfStateChanged"], f"the schema registry {registry.url(with_credentials=False)} "
                   "(schema id 1) refused the request (HTTP 401)", "ReasonOfStateChanged")
        c.check("not-the-secret" not in json.dumps(job, default=str), "SHOW ROUTINE LOAD shows the secret")
        c.eq(kh.scalar(conn, "SELECT count(*) FROM sensor_log"), 0, "nothing loaded with the wrong credentials")
        kh.query(conn, f"""ALTER ROUTINE LOAD FOR creds_job FROM KAFKA ("confluent.schema.registry.url" = "{registry.url()}")""")
        kh.query(conn, "RESUME ROUTINE LOAD FOR creds_job")
        kh.wait_rows(conn, "sensor_log", len(records), LOAD_TIMEOUT, job="creds_job")
        c.eq(kh.show_job(conn, "creds_job")["Statistic"].get("errorRows"), 0, "no error rows")
        c.done()


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
