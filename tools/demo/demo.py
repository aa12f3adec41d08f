#!/usr/bin/python3
"""`make demo`: everything the examples in README.md and docs/*.md load from, on fixed loopback ports.

Starts, and keeps running until Ctrl-C:
- the test broker (tools/testbroker) on 127.0.0.1:9092 with every topic the docs use, filled with the same
  deterministic sample data every run (see TOPICS below and docs/demo.md);
- a Confluent schema registry on 127.0.0.1:8081 (basic auth demo / demo-secret) serving the Avro schemas of the
  Avro topics;
- s3rver (an S3 API server) on 127.0.0.1:4568 with the bucket demo-bucket holding CSV files under landing/;
- a local folder with the same CSV files, /tmp/sluice-demo/inbox/ (for CREATE VOLUME ... 'file://...').

It prints what it started, then `READY` on a line of its own. Every port and the folder can be changed
(`--help`); tests/docs/run_doc_examples.py starts it on free ports. The broker, registry and S3 server are the
real parts the e2e tests use (tests/e2e/*_harness.py), so the demo needs a built tree (`make build`).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))

import avro_harness  # noqa: E402  (the registry fixture and the Avro producer)
import s3_harness  # noqa: E402  (s3rver)

REGISTRY_USER, REGISTRY_PASSWORD = "demo", "demo-secret"
S3_BUCKET = "demo-bucket"

# ---- the sample data -----------------------------------------------------------------------------------------------
# Every generator is deterministic: the docs show results computed from exactly these rows.

NAMES = ["Johann Georg Faust", "Mark Twain", "Jane Austen", "Marie Curie", "Lu Xun", "Astrid Lindgren",
         "Gabriel Garcia Marquez", "Natsume Soseki"]
NATIONS = ["Deutschland", "US", "UK", "France", "China", "Sverige", "Colombia", "Japan"]
COUNTRIES = ["DE", "US", "GB", "FR", "CN", "SE", "CO", "JP"]
GENDERS = ["male", "male", "female", "female", "male", "female", "male", "male"]


def ordertest1_csv(n: int = 100) -> list[list[str]]:
    """CSV orders (order_id, pay_dt, customer_name, nationality, gender, price), 20 per partition."""
    parts: list[list[str]] = [[] for _ in range(5)]
    for i in range(n):
        c = i % 8
        day = 1 + i % 28
        price = 100 + (i * 37) % 900
        parts[i % 5].append(f"{2020050000 + i + 1},202005{day:02d},{NAMES[c]},{NATIONS[c]},{GENDERS[c]},{price}")
    return parts


def ordertest2_json(n: int = 100) -> list[list[str]]:
    """JSON orders (commodity_id, customer_name, country, pay_time, price), 20 per partition."""
    parts: list[list[str]] = [[] for _ in range(5)]
    for i in range(n):
        c = i % 8
        # May 2020; before 14:00 UTC, so the day is the same in UTC and in StarRocks' default Asia/Shanghai
        pay_time = 1588291200 + (i % 28) * 86400 + (i * 3331) % 50000
        parts[i % 5].append(json.dumps({"commodity_id": str(1 + i % 10), "customer_name": NAMES[c],
                                        "country": COUNTRIES[c], "pay_time": pay_time,
                                        "price": 100 + (i * 37) % 900}))
    return parts


def app_logs_json(n: int = 40) -> list[str]:
    """JSON log lines: time, level (every fourth is debug), message, http.status, tags."""
    levels = ["info", "warn", "error", "debug"]
    out = []
    for i in range(n):
        out.append(json.dumps({"time": f"2024-05-01 12:{i // 60:02d}:{i % 60:02d}", "level": levels[i % 4],
                               "message": f"request {i + 1} served", "http": {"status": 200 if i % 4 != 2 else 500},
                               "tags": ["web", f"node-{i % 3}"]}))
    return out


def orders_json(n: int = 20) -> list[tuple[str, str]]:
    """(key, JSON value) for the INCLUDE METADATA example: order i at offset i, key customer-(i mod 4); every
    message carries the headers trace-id: a and trace-id: b."""
    return [(f"customer-{i % 4}", json.dumps({"order_id": i})) for i in range(n)]


SENSOR_SCHEMA = avro_harness.SENSOR_SCHEMA
SENSOR_TYPES = avro_harness.SENSOR_TYPES


def sensor_records(n: int = 10) -> list[dict]:
    return [{"id": i + 1, "name": f"sensor-{i + 1}", "checked": i % 2 == 0, "data": 20.0 + i / 2,
             "sensor_type": SENSOR_TYPES[i % 3]} for i in range(n)]


EVENT_SCHEMA = {
    "type": "record", "name": "event", "fields": [
        {"name": "id", "type": "long"},
        {"name": "point", "type": {"type": "record", "name": "point", "fields": [
            {"name": "x", "type": "double"},
            {"name": "tags", "type": {"type": "array", "items": "string"}}]}},
        {"name": "meta", "type": {"type": "record", "name": "meta", "fields": [{"name": "ts", "type": "long"}]}}]}


def event_records(n: int = 10) -> list[dict]:
    return [{"id": i + 1, "point": {"x": i * 1.5, "tags": [f"tag-{i % 3}", "demo"]},
             "meta": {"ts": 1714564800000 + i * 1000}} for i in range(n)]


def users_csv() -> list[str]:
    """A change stream (id, version, name, op) for __op: the example of docs/routine-load.md."""
    return ["1,1,Ann,upsert", "2,1,Bob,0", "1,2,Anna,upsert", "2,2,,delete"]


def user_names_csv() -> list[str]:
    """(id, name) for the partial_update example."""
    return ["1,Ann Lee", "3,Carol"]


def volume_files() -> dict[str, str]:
    """CSV files (id, customer, amount with a header) for the volume examples."""
    files = {}
    for f in range(3):
        rows = ["id,customer,amount"] + [f"{f * 10 + r + 1},{NAMES[(f * 10 + r) % 8].split()[0].lower()},"
                                         f"{(f * 10 + r + 1) * 2.5}" for r in range(10)]
        files[f"2024/05/orders-{f + 1}.csv"] = "\n".join(rows) + "\n"
    files["2024/06/orders-4.csv"] = "id,customer,amount\n31,mark,77.5\n32,jane,80\n"
    return files


# Topic -> partitions; the docs name these topics.
TOPICS = {"ordertest1": 5, "ordertest2": 5, "app_logs": 1, "orders": 1, "topic_0": 1, "events": 1, "users": 1,
          "user_names": 1}

# ---- starting the parts --------------------------------------------------------------------------------------------


def kcat(bootstrap: str, topic: str, partition: int, lines: list[str], extra: list[str] = ()) -> None:
    cmd = ["kcat", "-P", "-b", bootstrap, "-t", topic, "-p", str(partition), *extra]
    r = subprocess.run(cmd, input="\n".join(lines) + "\n", text=True, capture_output=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"kcat could not write to {topic}/{partition}: {r.stderr[-500:]}")


def start_broker(binary: str, port: int, workdir: str) -> tuple[subprocess.Popen, str, str]:
    args = [binary, "--port", str(port), "--control-port", "0", "--no-stdin"]
    for topic, partitions in TOPICS.items():
        args += ["--topic", f"{topic}:{partitions}"]
    out_path = os.path.join(workdir, "testbroker.out")
    proc = subprocess.Popen(args, stdout=open(out_path, "w"), stderr=open(os.path.join(workdir, "testbroker.log"), "w"),
                            stdin=subprocess.DEVNULL)
    deadline = time.time() + 30
    while time.time() < deadline:
        text = open(out_path).read()
        if "CONTROL " in text:
            lines = dict(line.split(" ", 1) for line in text.splitlines() if " " in line)
            return proc, lines["BOOTSTRAP"], lines["CONTROL"]
        if proc.poll() is not None:
            raise RuntimeError("the test broker did not start: " + open(os.path.join(workdir, "testbroker.log")).read())
        time.sleep(0.1)
    raise RuntimeError("the test broker did not start within 30 s")


def fill_topics(bootstrap: str) -> None:
    for p, lines in enumerate(ordertest1_csv()):
        kcat(bootstrap, "ordertest1", p, lines)
    for p, lines in enumerate(ordertest2_json()):
        kcat(bootstrap, "ordertest2", p, lines)
    kcat(bootstrap, "app_logs", 0, app_logs_json())
    kcat(bootstrap, "orders", 0, [f"{k}\t{v}" for k, v in orders_json()], ["-K", "\t", "-H", "trace-id=a", "-H", "trace-id=b"])
    kcat(bootstrap, "users", 0, users_csv())
    kcat(bootstrap, "user_names", 0, user_names_csv())
    avro_harness.produce_avro(bootstrap, "topic_0", 0, 1, SENSOR_SCHEMA, sensor_records())
    avro_harness.produce_avro(bootstrap, "events", 0, 2, EVENT_SCHEMA, event_records())


def main() -> int:
    ap = argparse.ArgumentParser(description="Starts the demo environment the docs' examples use (see docs/demo.md)")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--kafka-port", type=int, default=9092)
    ap.add_argument("--registry-port", type=int, default=8081)
    ap.add_argument("--s3-port", type=int, default=4568)
    ap.add_argument("--folder", default="/tmp/sluice-demo", help="where the local volume's files go")
    a = ap.parse_args()

    broker_bin = os.path.join(a.build_dir, "tools", "testbroker", "testbroker")
    # avro_harness finds avroproducer beside the testbroker it is pointed at.
    avro_harness.kh.TESTBROKER_PATH = broker_bin
    for path in (broker_bin, avro_harness.avroproducer_path()):
        if not os.access(path, os.X_OK):
            print(f"demo: {path} is missing: run `make build` first", file=sys.stderr)
            return 1

    shutil.rmtree(a.folder, ignore_errors=True)
    inbox = os.path.join(a.folder, "inbox")
    work = os.path.join(a.folder, "run")
    os.makedirs(work)
    files = volume_files()
    for rel, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(inbox, rel)), exist_ok=True)
        with open(os.path.join(inbox, rel), "w") as f:
            f.write(text)

    def stop(*_):
        raise KeyboardInterrupt

    # Ctrl-C and SIGTERM stop everything started here (SIGINT also when the shell started us with it ignored).
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    broker = registry = s3 = None
    try:
        broker, bootstrap, control = start_broker(broker_bin, a.kafka_port, work)
        registry = avro_harness.SchemaRegistry({1: SENSOR_SCHEMA, 2: EVENT_SCHEMA}, REGISTRY_USER, REGISTRY_PASSWORD)
        registry.port = a.registry_port
        registry.start()
        s3 = s3_harness.S3rver(port=a.s3_port).start()
        s3.create_bucket(S3_BUCKET)
        for rel, text in files.items():
            s3.put(S3_BUCKET, "landing/" + rel, text.encode())
        fill_topics(bootstrap)

        print(f"Kafka      {bootstrap}   topics: " + ", ".join(f"{t} ({p})" for t, p in TOPICS.items()))
        print(f"           control port {control} (tools/testbroker/README.md: broker down 1, ...)")
        print(f"registry   http://{REGISTRY_USER}:{REGISTRY_PASSWORD}@127.0.0.1:{a.registry_port}"
              "   schema 1: sensor_log (topic_0), schema 2: event (events)")
        print(f"S3         http://127.0.0.1:{a.s3_port}   bucket {S3_BUCKET}, files under landing/"
              "   (access id / key S3RVER / S3RVER)")
        print(f"folder     {inbox}/   " + ", ".join(sorted(files)))
        print("Start the server with `make run` and paste the examples of README.md and docs/*.md. Ctrl-C stops.")
        print("READY", flush=True)
        while broker.poll() is None:
            time.sleep(0.5)
        print("demo: the test broker exited", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        if s3:
            s3.stop()
        if registry:
            registry.stop()
        if broker and broker.poll() is None:
            broker.terminate()
            broker.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
