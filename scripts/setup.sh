#!/usr/bin/env bash
# Installs what Sluice needs to build and test, and nothing when it is all there already.
# Debian packages come from apt-get; DuckDB 1.4.4 comes from the npm registry (DESIGN.md decision 1)
# unless CMake can find a system DuckDB.
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PACKAGES=(
  g++ cmake ninja-build pkg-config make
  librdkafka-dev kcat libsimdjson-dev libavro-dev libcurl4-openssl-dev libpugixml-dev
  libcpp-httplib-dev libasio-dev libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev libssl-dev
  googletest libgtest-dev libgmock-dev mariadb-client python3-pymysql nodejs curl ca-certificates
  openssl  # the CLI: test_tls makes an operator CA and checks the port with s_client -starttls mysql
  e2fsprogs  # chattr: test_volume_pipes makes a file undeletable (it skips that part without chattr)
  python3-mysqldb default-jre-headless libmariadb-java  # clients the e2e tests drive (test_prepared_statements)
  libpq-dev postgresql-15  # the Iceberg JDBC catalog (src/iceberg); tests start their own server (pg_harness.py)
  zlib1g-dev  # reading deflate-compressed Avro manifests other Iceberg writers produce
  prometheus  # promtool check metrics/rules and a real Prometheus scraping the server (test_metrics)
  chromium  # the headless browser test_dashboard drives (through playwright-core) against the page at /
)

missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "setup: installing npm"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq npm
fi

# ClickHouse 18.16 is the benchmark's reference (bench/kafka_clickhouse.py; bench-smoke runs inside `make test`).
# Installed without starting Debian's system service: the benchmark runs its own unprivileged server.
if ! command -v clickhouse-server >/dev/null 2>&1; then
  echo "setup: installing clickhouse-server (benchmark reference)"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  guard=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod +x /usr/sbin/policy-rc.d
    guard=1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends clickhouse-server \
    clickhouse-client || echo "setup: clickhouse-server could not be installed; the benchmark will say so"
  [ -z "$guard" ] || $SUDO rm -f /usr/sbin/policy-rc.d
fi

scripts/fetch-duckdb.sh

# s3rver: the S3 API server the volume tests start on loopback (DESIGN.md, "Real parts in tests"), pinned by
# tools/s3rver/package.json and package-lock.json.
if [ ! -f tools/s3rver/node_modules/s3rver/bin/s3rver.js ]; then
  echo "setup: installing s3rver into tools/s3rver"
  (cd tools/s3rver && npm ci --no-audit --no-fund --loglevel=error)
fi

# Node clients the e2e tests drive (mysql2; icebird, the Iceberg reader; playwright-core, which drives Debian's
# chromium for test_dashboard), pinned by tests/clients/package.json and package-lock.json.
if [ ! -f tests/clients/node_modules/mysql2/package.json ] || [ ! -f tests/clients/node_modules/icebird/package.json ] ||
   [ ! -f tests/clients/node_modules/playwright-core/package.json ]; then
  echo "setup: installing the Node test clients into tests/clients"
  (cd tests/clients && npm ci --no-audit --no-fund --loglevel=error)
fi
