#!/usr/bin/env bash
# Puts libduckdb.so and duckdb.h (DuckDB 1.4.4) under third_party/duckdb, from the npm registry, checksum-checked.
# A system DuckDB (libduckdb + duckdb.h where CMake finds them) makes this unnecessary; CMake prefers it.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=third_party/duckdb
if [ -f "$dest/libduckdb.so" ] && [ -f "$dest/duckdb.h" ]; then exit 0; fi
if [ -f /usr/include/duckdb.h ] || [ -f /usr/local/include/duckdb.h ]; then
  echo "setup: using the system DuckDB"; exit 0
fi

LIB_PKG="@duckdb/node-bindings-linux-x64@1.4.4-r.4"
LIB_SHA=732fac4dc6b8f198870b9c4bb6ddf13544466daca00ad28ba2f1d80de5d7aa4b
HDR_PKG="duckdb@1.4.4"
HDR_SHA=5bb967dcbcd517670ba5f169f238fb9d6787e53752c60ebe24386169d76941ed

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "setup: fetching DuckDB 1.4.4 from the npm registry"
(cd "$tmp" && npm pack --silent "$LIB_PKG" >/dev/null && npm pack --silent "$HDR_PKG" >/dev/null)
check() { echo "$2  $1" | sha256sum -c --status || { echo "setup: checksum mismatch for $(basename "$1")" >&2; exit 1; }; }
check "$tmp/duckdb-node-bindings-linux-x64-1.4.4-r.4.tgz" "$LIB_SHA"
check "$tmp/duckdb-1.4.4.tgz" "$HDR_SHA"
mkdir -p "$dest"
tar -xzf "$tmp/duckdb-node-bindings-linux-x64-1.4.4-r.4.tgz" -C "$tmp" package/libduckdb.so
cp "$tmp/package/libduckdb.so" "$dest/libduckdb.so"
tar -xzf "$tmp/duckdb-1.4.4.tgz" -C "$tmp" package/src/duckdb/src/include/duckdb.h
cp "$tmp/package/src/duckdb/src/include/duckdb.h" "$dest/duckdb.h"
echo "setup: DuckDB 1.4.4 is in $dest"
