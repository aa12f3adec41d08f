# Sluice — the commands a new user needs:
#   make run    set up, build, and run the server on its embedded default (./sluice-data, MySQL port 9030)
#   make test   set up, build, and run every test (unit, SQL logic, end to end)
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60

.PHONY: all setup build run test unit-test fuzz demo clean

all: build

setup:
	@scripts/setup.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: setup $(BUILD_DIR)/build.ninja
	@ninja -C $(BUILD_DIR) -j $(JOBS)

run: build
	$(BUILD_DIR)/sluice serve $(ARGS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 900

unit-test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -R '^unit/'

# libFuzzer targets for the MySQL packet decoder and the SQL parser, built with clang in their own tree.
fuzz: setup
	cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
	  -DSLUICE_FUZZ=ON -DSLUICE_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
	ninja -C build-fuzz packet_fuzz sql_parser_fuzz
	mkdir -p build-fuzz/corpus/packet build-fuzz/corpus/sql
	build-fuzz/tests/fuzz/packet_fuzz -max_total_time=$(FUZZ_SECONDS) build-fuzz/corpus/packet tests/fuzz/corpus/packet
	build-fuzz/tests/fuzz/sql_parser_fuzz -max_total_time=$(FUZZ_SECONDS) build-fuzz/corpus/sql tests/fuzz/corpus/sql

# What the examples of README.md and docs/*.md load from (docs/demo.md): the test broker on 127.0.0.1:9092 with
# every topic the docs use, a schema registry on :8081, s3rver on :4568 and a local folder /tmp/sluice-demo/inbox/.
# DEMO_ARGS changes ports and folder (tools/demo/demo.py --help). Runs until Ctrl-C; `make run` in another terminal.
DEMO_ARGS ?=
demo: build
	/usr/bin/python3 tools/demo/demo.py --build-dir $(BUILD_DIR) $(DEMO_ARGS)

# Kafka routine loads against kcat and ClickHouse, scale, freshness, idle jobs and backlog memory (bench/README.md).
# bench rewrites the generated part of docs/benchmarks.md (~20 minutes); bench-smoke runs the same at a tiny size
# (about 4 minutes on a shared 2-core machine; `make test` runs it as the ctest bench/smoke).
.PHONY: bench bench-smoke
BENCH = /usr/bin/python3 bench/run_bench.py --sluice $(BUILD_DIR)/sluice --testbroker $(BUILD_DIR)/tools/testbroker/testbroker
bench: build
	$(BENCH) --rows 1000000 --partitions 32 --runs 3 --write-doc docs/benchmarks.md --json $(BUILD_DIR)/bench-results.json

bench-smoke: build
	$(BENCH) --smoke --write-doc $(BUILD_DIR)/bench-smoke.md --json $(BUILD_DIR)/bench-smoke.json

# The soak (tests/soak/soak.py): routine loads in CSV, JSON and Avro, a Kafka pipe and an S3 volume pipe under a
# steady load with queries alongside, a SIGKILL about every 3 minutes and one broker outage, then every table checked
# exactly and memory / open files judged flat. soak runs SOAK_MINUTES (30) and writes $(BUILD_DIR)/soak-report.md;
# soak-short is the 3-minute version `make test` runs as the ctest soak/short.
.PHONY: soak soak-short
SOAK_MINUTES ?= 30
SOAK = /usr/bin/python3 tests/soak/soak.py --server $(BUILD_DIR)/sluice --testbroker $(BUILD_DIR)/tools/testbroker/testbroker
soak: build
	$(SOAK) --minutes $(SOAK_MINUTES) --report $(BUILD_DIR)/soak-report.md

soak-short: build
	$(SOAK) --minutes 2.75 --kill-every-seconds 70 --sample-seconds 2 --checkpoint-interval-seconds 0 --report $(BUILD_DIR)/soak-short-report.md

clean:
	rm -rf $(BUILD_DIR) build-fuzz
