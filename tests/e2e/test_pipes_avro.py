#!/usr/bin/python3
"""Kafka pipes reading Avro values (READ_KAFKA value format 'avro', the registry in argument 12), on the test broker
with the schema-registry fixture (avro_harness.SchemaRegistry) and records written by tools/avroproducer:

1. sensor_log records over two partitions, read with PARSE_JSON(value::STRING)['field'] and checked row by row;
   the registry URL carries basic-auth credentials that reach the registry and never show in SHOW PIPES, DESC PIPE
   or the server log.
2. A message not in the wire format, one with an unknown schema id and one whose body does not decode are error
   rows (reason and offset) counted against max errors; the good messages around them load.
3. A registry that is down: the pipe stays RUNNING, records no error rows and loads nothing; once the registry is
   back everything loads.
4. The READ_KAFKA preview (plain SELECT) decodes too; a bad message has a NULL value there.

    /usr/bin/python3 tests/e2e/test_pipes_avro.py --server build/sluice --testbroker build/tools/testbroker/testbroker
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
from harness import Collector, TestSuite  # noqa: E402

suite = TestSuite("test_pipes_avro")
LOAD_TIMEOUT = 60.0
broker = kh.shared_broker

SENSOR_SCHEMA = ah.SENSOR_SCHEMA
sensor_record = ah.sensor_record
REGISTRY_USER = "SR-KEY-91fe"
REGISTRY_SECRET = "sr-pipe-s3cr3t-5b"


def expected_row(r: dict) -> tuple:
    return (r["id"], r["name"], int(r["checked"]), r["data"], r["sensor_type"])


def start_server(s: TestSuite, **kw):
    srv = s.server(**kw).start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE lake")
    kh.query(conn, "USE lake")
    kh.query(conn, "CREATE TABLE sensor_log (id BIGINT NOT NULL, name STRING, checked BOOLEAN, data DOUBLE, "
                   "sensor_type STRING)")
    return srv, conn


def create_pipe(conn, name: str, topic: str, registry_url: str, max_errors: int = 0,
                setting: str = "schema.registry.url", interval: int = 1):
    kh.query(conn, f"""CREATE PIPE {name} BATCH_INTERVAL_IN_SECONDS = '{interval}'
RESET_KAFKA_GROUP_OFFSETS = 'earliest'
AS COPY INTO sensor_log FROM (
    SELECT PARSE_JSON(value::STRING)['id']::BIGINT, PARSE_JSON(value::STRING)['name']::STRING,
           PARSE_JSON(value::STRING)['checked']::BOOLEAN, PARSE_JSON(value::STRING)['data']::DOUBLE,
           PARSE_JSON(value::STRING)['sensor_type']::STRING
    FROM READ_KAFKA('{broker().bootstrap}', '{topic}', '', '{name}_group', '', '', '', '', 'raw', 'avro',
                    {max_errors}, map('{setting}', '{registry_url}')))""")


def rows(conn) -> list[tuple]:
    return [tuple(r) for r in kh.query(conn, "SELECT id, name, checked, data, sensor_type FROM sensor_log ORDER BY id")]


@suite.test(timeout=120)
def test_avro_pipe_loads_records(s):
    """Two partitions of sensor_log records, with registry credentials; checked row by row."""
    topic = kh.new_topic("pipe_sensor", 2)
    with ah.SchemaRegistry({1: SENSOR_SCHEMA}, REGISTRY_USER, REGISTRY_SECRET) as registry:
        srv, conn = start_server(s, extra_args=["--log-level", "debug"])
        records = [sensor_record(i) for i in range(200)]
        for p in (0, 1):
            ah.produce_avro(broker().bootstrap, topic, p, 1, SENSOR_SCHEMA, records[p::2])
        create_pipe(conn, "sensor_pipe", topic, registry.url(), setting="kafka.schema.registry.url")
        kh.wait_rows(conn, "sensor_log", len(records), LOAD_TIMEOUT)
        c = Collector()
        c.eq(rows(conn), [expected_row(r) for r in records], "loaded rows")
        c.check(registry.auth_headers and all(h.startswith("Basic ") for h in registry.auth_headers),
                f"the registry got basic auth: {registry.auth_headers}")
        shown = json.dumps([list(map(str, r)) for r in kh.query(conn, "SHOW PIPES")])
        shown += json.dumps([list(map(str, r)) for r in kh.query(conn, "DESC PIPE EXTENDED sensor_pipe")])
        c.check(REGISTRY_SECRET not in shown and REGISTRY_USER not in shown,
                f"SHOW PIPES / DESC PIPE show the registry credentials: {shown}")
        c.contains(shown, f"http://******@127.0.0.1:{registry.port}", "the statement keeps the URL, credentials masked")
        srv.stop()
        log = srv.log_text()
        c.check(REGISTRY_SECRET not in log, "the server log holds the registry secret")
        # the sealed URL survives a restart: the pipe reads new records with it
        srv.start()
        conn = srv.connect()
        kh.query(conn, "USE lake")
        more = [sensor_record(i) for i in range(200, 210)]
        ah.produce_avro(broker().bootstrap, topic, 0, 1, SENSOR_SCHEMA, more)
        kh.wait_rows(conn, "sensor_log", len(records) + len(more), LOAD_TIMEOUT)
        c.eq(rows(conn), [expected_row(r) for r in records + more], "rows after a restart")
        c.done()


@suite.test(timeout=120)
def test_bad_messages_are_error_rows(s):
    """Not framed, unknown schema id, truncated body: error rows with reason and offset; the rest loads."""
    topic = kh.new_topic("pipe_bad_avro", 1)
    with ah.SchemaRegistry({1: SENSOR_SCHEMA}) as registry:
        srv, conn = start_server(s)
        bs = broker().bootstrap
        ah.produce_avro(bs, topic, 0, 1, SENSOR_SCHEMA, [sensor_record(0), sensor_record(1)])   # offsets 0, 1
        ah.produce_hex(bs, topic, 0, [b'{"id": 5}',                                             # 2: not framed
                                      b"\x00" + struct.pack(">i", 77) + b"\x02",               # 3: unknown id
                                      bytes.fromhex("00000000010200")])                        # 4: truncated
        ah.produce_avro(bs, topic, 0, 1, SENSOR_SCHEMA, [sensor_record(2)])                     # 5
        # A batch reads until it is caught up or for BATCH_INTERVAL_IN_SECONDS: with 1 s, a slow registry answer or
        # fetch on a busy machine splits these six messages over two batches (two history rows; a strict_pipe batch
        # with only two of the bad messages would commit). 10 s keeps them in one batch; the next batch's wait
        # costs nothing here, the first one starts at once.
        create_pipe(conn, "bad_pipe", topic, registry.url(), max_errors=3, setting="confluent.schema.registry.url",
                    interval=10)
        kh.wait_rows(conn, "sensor_log", 3, LOAD_TIMEOUT)
        c = Collector()
        c.eq(rows(conn), [expected_row(sensor_record(i)) for i in range(3)], "loaded rows")
        rejected = kh.rejected_rows(conn, "lake", "bad_pipe")
        c.eq([(r["Partition"], r["Offset"]) for r in rejected], [(0, 2), (0, 3), (0, 4)], "rejected offsets")
        reasons = [r["Reason"] for r in rejected]
        if len(reasons) == 3:
            c.contains(reasons[0], "not in the Confluent wire format", "reason of offset 2")
            c.contains(reasons[1], "schema id 77 is not in the schema registry", "reason of offset 3")
            c.contains(reasons[2], "the Avro body (schema id 1) does not decode", "reason of offset 4")
        hist = kh.query(conn, "SELECT status, loaded_rows, error_rows FROM load_history('lake.sensor_log')")
        c.eq([tuple(h) for h in hist], [("PARTIALLY_LOADED", 3, 3)], "load_history: error rows counted")

        # above max errors (2 < 3) the batch commits nothing and the pipe fails
        kh.query(conn, "CREATE TABLE strict_log (id BIGINT)")
        kh.query(conn, f"""CREATE PIPE strict_pipe BATCH_INTERVAL_IN_SECONDS = '10' RESET_KAFKA_GROUP_OFFSETS = 'earliest'
            MAX_SKIP_BATCH_COUNT_ON_ERROR = '1'
AS COPY INTO strict_log FROM (SELECT PARSE_JSON(value::STRING)['id']::BIGINT
    FROM READ_KAFKA('{bs}', '{topic}', '', 'strict_group', '', '', '', '', 'raw', 'avro', 2,
                    map('schema.registry.url', '{registry.url()}')))""")
        failed = kh.wait_until(lambda: next((r for r in kh.query(conn, "SHOW PIPES LIKE 'strict_pipe'")
                                             if "FAILED" in [str(x) for x in r]), None), 40, "strict_pipe FAILED")
        c.contains(" ".join(map(str, failed)), "above max errors 2", "the reason")
        c.eq(kh.scalar(conn, "SELECT count(*) FROM strict_log"), 0, "nothing committed above max errors")

        # the preview decodes too; the bad messages have a NULL value there
        preview = kh.query(conn, f"""SELECT "offset", json_extract_string(value, '$.name') FROM READ_KAFKA('{bs}',
            '{topic}', '', '', '', '', '', '', 'raw', 'avro', 0, MAP {{'schema.registry.url': '{registry.url()}'}})
            ORDER BY "offset" """)
        c.eq([tuple(r) for r in preview],
             [(0, sensor_record(0)["name"]), (1, sensor_record(1)["name"]), (2, None), (3, None), (4, None),
              (5, sensor_record(2)["name"])], "preview")
        c.done()


@suite.test(timeout=120)
def test_registry_down_is_retried(s):
    """With the registry down the pipe stays RUNNING and records no error rows; once it is back everything loads."""
    topic = kh.new_topic("pipe_outage", 1)
    registry = ah.SchemaRegistry({21: SENSOR_SCHEMA}).start()
    port = registry.port
    registry.stop(keep_port=True)  # refuses connections; no other process can take the port meanwhile
    try:
        srv, conn = start_server(s)
        records = [sensor_record(i) for i in range(30)]
        ah.produce_avro(broker().bootstrap, topic, 0, 21, SENSOR_SCHEMA, records)
        create_pipe(conn, "outage_pipe", topic, registry.url())
        time.sleep(3)
        c = Collector()
        status = [str(x) for x in kh.query(conn, "SHOW PIPES LIKE 'outage_pipe'")[0]]
        c.check("RUNNING" in status, f"RUNNING while the registry is down: {status}")
        c.eq(kh.scalar(conn, "SELECT count(*) FROM sensor_log"), 0, "nothing loaded while the registry is down")
        c.eq(kh.rejected_rows(conn, "lake", "outage_pipe"), [], "no error rows while the registry is down")
        registry.port = port
        registry.start()
        kh.wait_rows(conn, "sensor_log", len(records), LOAD_TIMEOUT)
        c.eq(rows(conn), [expected_row(r) for r in records], "rows once the registry is back")
        c.done()
    finally:
        registry.stop()


if __name__ == "__main__":
    sys.exit(kh.run_suite(suite))
