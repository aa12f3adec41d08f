#!/usr/bin/python3
"""The egress allow list (issue 10; docs/security.md, "Egress"): `sluice serve --allow-egress` limits where
statements can make the server connect.

- A routine load on an allowed broker loads; one on a broker the list leaves out (another port, or `localhost`,
  a name that resolves to a forbidden address) is refused at CREATE with an error naming the host and the flag,
  and so are a pipe and a SELECT over READ_KAFKA, a schema registry, an S3 storage connection (the cloud metadata
  address) and an external catalog's PostgreSQL and S3 endpoint.
- The connection itself is checked too: on a 3-broker cluster with only the bootstrap broker allowed, the CREATE
  passes (it names only that broker) but the partitions led by the other brokers, which the cluster's metadata
  names, are never connected to: the log says so and their rows do not load.
- A job created while egress was unrestricted is held to the list after a restart with it.
- A bad list stops the start with a message naming the entry.

    /usr/bin/python3 tests/e2e/test_egress.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import Collector, TestSuite, check, contains, expect_mysql_error  # noqa: E402

suite = TestSuite("test_egress")


def port_of(bootstrap: str, i: int = 0) -> int:
    return int(bootstrap.split(",")[i].rsplit(":", 1)[1])


def routine_load(name: str, brokers: str, topic: str = "t", extra: str = "") -> str:
    return (f'CREATE ROUTINE LOAD d.{name} ON rows COLUMNS TERMINATED BY ",", COLUMNS (id, v) '
            f'PROPERTIES ("max_batch_interval" = "0.2"{extra}) FROM KAFKA ("kafka_broker_list" = "{brokers}", '
            f'"kafka_topic" = "{topic}", "property.kafka_default_offsets" = "OFFSET_BEGINNING")')


def refused(c: Collector, conn, sql: str, host: str, what: str):
    try:
        _, msg = expect_mysql_error(lambda: kh.query(conn, sql), what=what)
    except AssertionError as e:
        c.check(False, str(e))
        return
    c.contains(msg, host, f"{what}: the error names the host")
    c.contains(msg, "--allow-egress", f"{what}: the error names the flag")


@suite.test(timeout=240)
def test_create_checks_the_list(s):
    allowed = kh.adopt_broker(kh.TestBroker({"t": 1}).start())
    other = kh.adopt_broker(kh.TestBroker({"t": 1}).start())
    ok_port, other_port = port_of(allowed.bootstrap), port_of(other.bootstrap)
    srv = s.server(extra_args=["--allow-egress", f"127.0.0.1:{ok_port}, 10.0.0.0/8:9092"]).start()
    c = Collector()
    c.contains(srv.log_text(), "egress limited to --allow-egress", "the start says egress is limited")
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE d.rows (id INT, v STRING)")
    allowed.produce("t", 0, ["1,a", "2,b", "3,c"])
    other.produce("t", 0, ["101,x"])

    kh.query(conn, routine_load("rl_ok", allowed.bootstrap))
    kh.wait_rows(conn, "d.rows", 3, 60, job="rl_ok")

    refused(c, conn, routine_load("rl_other_port", other.bootstrap), f"127.0.0.1:{other_port}",
            "a routine load on a broker outside the list")
    refused(c, conn, routine_load("rl_by_name", f"localhost:{other_port}"), f"localhost:{other_port}",
            "a routine load on a name resolving outside the list")
    refused(c, conn, routine_load("rl_metadata", "169.254.169.254:80"), "169.254.169.254:80",
            "a routine load on the cloud metadata address")
    refused(c, conn, routine_load("rl_registry", allowed.bootstrap, extra=', "format" = "avro"').replace(
        '"kafka_topic"', '"confluent.schema.registry.url" = "http://127.0.0.1:1", "kafka_topic"'),
        "127.0.0.1:1", "a routine load whose schema registry is outside the list")
    refused(c, conn, f"""CREATE PIPE d.p AS COPY INTO rows FROM (
        SELECT split_part(value::STRING, ',', 1)::INT, split_part(value::STRING, ',', 2)
        FROM READ_KAFKA('{other.bootstrap}', 't', '', 'g1', '', '', '', '', 'raw', 'raw', 0, map()))""",
            f"127.0.0.1:{other_port}", "a pipe over READ_KAFKA outside the list")
    refused(c, conn, f"SELECT * FROM READ_KAFKA('{other.bootstrap}', 't', '', 'g2', '', '', '', '', 'raw', 'raw', 0, "
            "map())",
            f"127.0.0.1:{other_port}", "a SELECT over READ_KAFKA outside the list")
    refused(c, conn, "CREATE STORAGE CONNECTION meta TYPE S3 ENDPOINT = 'http://169.254.169.254' ACCESS_ID = 'a' "
            "ACCESS_KEY = 'b'", "169.254.169.254:80", "an S3 endpoint outside the list")
    refused(c, conn, 'CREATE EXTERNAL CATALOG lake PROPERTIES ("type" = "iceberg", "iceberg.catalog.type" = "jdbc", '
            f'"iceberg.catalog.uri" = "jdbc:postgresql://127.0.0.1:{other_port}/lake", '
            '"iceberg.catalog.warehouse" = "s3://b/w", "aws.s3.access_key" = "a", "aws.s3.secret_key" = "b", '
            f'"aws.s3.endpoint" = "http://127.0.0.1:{ok_port}")', f"127.0.0.1:{other_port}",
            "a JDBC catalog outside the list")
    refused(c, conn, 'CREATE EXTERNAL CATALOG lake2 PROPERTIES ("type" = "iceberg", "iceberg.catalog.type" = "jdbc", '
            f'"iceberg.catalog.uri" = "postgresql://127.0.0.1:{ok_port}/lake", '
            '"iceberg.catalog.warehouse" = "s3://b/w", "aws.s3.access_key" = "a", "aws.s3.secret_key" = "b")',
            "s3.us-east-1.amazonaws.com:443", "a catalog whose S3 endpoint (AWS by default) is outside the list")
    refused(c, conn, 'CREATE EXTERNAL CATALOG lake3 PROPERTIES ("type" = "iceberg", "iceberg.catalog.type" = "rest", '
            f'"iceberg.catalog.uri" = "http://127.0.0.1:{other_port}/catalog", "aws.s3.access_key" = "a", '
            f'"aws.s3.secret_key" = "b", "aws.s3.endpoint" = "http://127.0.0.1:{ok_port}")', f"127.0.0.1:{other_port}",
            "a REST catalog outside the list")
    # Nothing of the refused statements exists; the allowed job still runs and loaded nothing else.
    jobs = [r[1] for r in kh.query(conn, "SHOW ALL ROUTINE LOAD FROM d")]
    c.eq(sorted(jobs), ["rl_ok"], "only the allowed routine load exists")
    c.eq(kh.query(conn, "SHOW STORAGE CONNECTIONS"), [], "no storage connection was created")
    c.eq(tuple(kh.query(conn, "SELECT count(*), max(id) FROM d.rows")[0]), (3, 3), "rows of the allowed broker only")
    c.done()


@suite.test(timeout=240)
def test_connections_are_checked_after_resolution(s):
    """The bootstrap broker is allowed; the two others the cluster's metadata names are not."""
    cluster = kh.adopt_broker(kh.TestBroker({"t": 3}, brokers=3).start())
    # The mock cluster picks leaders at random, and now and then all three land on the allowed broker; each
    # partition gets its own broker so partitions 1 and 2 are always led from outside the list.
    for p in range(3):
        cluster.command(f"leader t {p} {p + 1}")
    first = cluster.bootstrap.split(",")[0]
    srv = s.server(extra_args=["--allow-egress", first]).start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE d.rows (id INT, v STRING)")
    for p in range(3):
        cluster.produce("t", p, [f"{p * 100 + i},p{p}" for i in range(10)])
    kh.query(conn, routine_load("rl", first))  # names only the allowed broker: CREATE passes
    others = [b.strip() for b in cluster.bootstrap.split(",")[1:]]
    kh.wait_until(lambda: any(f"refused a connection to Kafka broker {o}" in srv.log_text() for o in others), 60,
                  "the log to show a refused broker connection")
    # Partition 0's leader is allowed: it loads while the other two wait, named in OtherMsg.
    kh.wait_rows(conn, "d.rows", 10, 60, job="rl")
    job = kh.show_job(conn, "rl")
    check(job["State"] == "RUNNING", f"the job runs: {job['State']}")
    check("partition(s) 1,2 not started" in (job["OtherMsg"] or ""), f"OtherMsg names the waiting partitions: {job}")
    time.sleep(3)
    outside = kh.query(conn, "SELECT count(*), count(*) FILTER (WHERE id >= 100) FROM d.rows")[0]
    check(tuple(outside) == (10, 0), f"rows loaded (all, of partitions led outside the list): {tuple(outside)}")
    log = srv.log_text()
    for o in others:
        check(f"Connect to ipv4#{o} failed" not in log or "Permission denied" in log,
              f"a connection to {o} was made")


@suite.test(timeout=240)
def test_old_jobs_are_held_to_the_list_after_a_restart(s):
    broker = kh.adopt_broker(kh.TestBroker({"t": 1}).start())
    srv = s.server().start()
    contains(srv.log_text(), "egress is unrestricted", "the start says egress is unrestricted")
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE d.rows (id INT, v STRING)")
    broker.produce("t", 0, ["1,a", "2,b"])
    kh.query(conn, routine_load("rl", broker.bootstrap))
    kh.wait_rows(conn, "d.rows", 2, 60, job="rl")
    conn.close()
    srv.stop()
    srv.extra_args = ["--allow-egress", "10.0.0.0/8"]
    srv.start()
    conn = srv.connect(database="d")
    broker.produce("t", 0, ["3,c"])
    kh.wait_until(lambda: "--allow-egress" in kh.show_job(conn, "rl").get("ReasonOfStateChanged", "") +
                  kh.show_job(conn, "rl").get("OtherMsg", "") + srv.log_text(), 60,
                  "the job to report the egress refusal")
    time.sleep(2)
    check(kh.query(conn, "SELECT count(*) FROM d.rows")[0][0] == 2, "the job loaded from a broker outside the list")


@suite.test(timeout=60)
def test_bad_list_stops_the_start(s):
    srv = s.server(extra_args=["--allow-egress", "10.0.0.0/33"])
    proc = srv.spawn()
    code = proc.wait(30)
    check(code not in (0, None), f"the server started with a bad --allow-egress (exit {code})")
    contains(srv.log_text(), "10.0.0.0/33", "the log names the bad entry")


if __name__ == "__main__":
    sys.exit(kh.run_suite(suite))
