#!/usr/bin/python3
"""A job that is not running still shows its lag growing: users alert on "lag grows while paused".

A routine load loads 40 messages and is paused; 30 more are produced. Within a bounded time SHOW ROUTINE LOAD's
OffsetLag adds up to 30 (LatestSourcePosition moved), and so do /metrics (sluice_job_lag_messages) and
/api/jobs/{db}/{name}. After a restart the job, still paused, has run no task: 20 more messages show as a lag of 50
in SHOW ROUTINE LOAD and in /metrics too.

    /usr/bin/python3 tests/e2e/test_routine_load_paused_lag.py --server build/sluice --testbroker build/tools/testbroker/testbroker
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_harness as kh  # noqa: E402
from harness import TestSuite, eq  # noqa: E402

suite = TestSuite("test_routine_load_paused_lag")
# Jobs that are not running have their high watermarks refreshed every 10 s; allow for a slow machine.
REFRESH_WAIT = 45


def produce(b, lo: int, hi: int):
    for p in range(2):
        kh.produce(b.bootstrap, "m", p, [f"{i},v{i}" for i in range(lo + p, hi, 2)])


def metric(srv, name: str, job: str) -> float | None:
    status, text = srv.http_get("/metrics")
    eq(status, 200, "GET /metrics")
    values = [float(line.rpartition(" ")[2]) for line in text.splitlines()
              if line.startswith(name + "{") and f'job_name="{job}"' in line]
    return sum(values) if values else None


def lags(conn, srv, job: str) -> dict:
    j = kh.show_job(conn, job)
    lag = j["OffsetLag"]
    _, api = srv.http_json(f"/api/jobs/d/{job}")
    return {"show": sum(lag.values()) if isinstance(lag, dict) and lag else None,
            "latest": j["LatestSourcePosition"],
            "metrics": metric(srv, "sluice_job_lag_messages", job),
            "api": sum(p["lag"] for p in api["partitions"]) if api.get("partitions") else None,
            "state": j["State"]}


def wait_lag(conn, srv, job: str, expected: int, sources: tuple[str, ...]) -> dict:
    holder = {}

    def probe():
        holder["l"] = lags(conn, srv, job)
        return holder["l"] if all(holder["l"][s] == expected for s in sources) else None

    try:
        return kh.wait_until(probe, REFRESH_WAIT, f"a lag of {expected} in {', '.join(sources)}", interval=1)
    except AssertionError as e:
        raise AssertionError(f"{e}\n  last: {holder.get('l')}") from None


@suite.test(timeout=240)
def test_lag_grows_while_paused_and_after_a_restart(s):
    b = kh.adopt_broker(kh.TestBroker({"m": 2}).start())
    produce(b, 0, 40)
    srv = s.server().start()
    conn = srv.connect()
    kh.query(conn, "CREATE DATABASE d")
    kh.query(conn, "USE d")
    kh.query(conn, "CREATE TABLE t (id bigint NOT NULL, v varchar(40)) DUPLICATE KEY(id)")
    kh.query(conn, f"""CREATE ROUTINE LOAD j ON t COLUMNS TERMINATED BY ",", COLUMNS (id, v)
PROPERTIES ("max_batch_interval" = "1")
FROM KAFKA ("kafka_broker_list" = "{b.bootstrap}", "kafka_topic" = "m",
            "property.kafka_default_offsets" = "OFFSET_BEGINNING")""")
    kh.wait_rows(conn, "t", 40, 60, job="j")
    wait_lag(conn, srv, "j", 0, ("show", "metrics", "api"))
    kh.query(conn, "PAUSE ROUTINE LOAD FOR j")
    kh.wait_state(conn, "j", "PAUSED")

    produce(b, 40, 70)
    got = wait_lag(conn, srv, "j", 30, ("show", "metrics", "api"))
    eq(got["latest"], {"0": "34", "1": "34"}, "LatestSourcePosition: the last offset of each partition")
    eq(kh.scalar(conn, "SELECT count(*) FROM t"), 40, "nothing loaded while paused")

    srv.restart()
    conn = srv.connect(database="d")
    eq(kh.show_job(conn, "j")["State"], "PAUSED", "still paused after the restart")
    produce(b, 70, 90)
    wait_lag(conn, srv, "j", 50, ("show", "metrics"))

    kh.query(conn, "RESUME ROUTINE LOAD FOR j")
    kh.wait_rows(conn, "t", 90, 60, job="j")
    wait_lag(conn, srv, "j", 0, ("show", "metrics"))


def main() -> int:
    return kh.run_suite(suite)


if __name__ == "__main__":
    sys.exit(main())
