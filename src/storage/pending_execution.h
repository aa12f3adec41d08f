#pragma once
// How the storage module runs a prepared DuckDB statement: through DuckDB's pending API, with the calling thread
// doing the query's work and waiting without spinning (see ExecutePrepared). Internal to src/storage.
#include <duckdb.h>

#include "common/status.h"

namespace sluice::storage {

// Owns a prepared statement for the length of a scope.
struct Prepared {
  duckdb_prepared_statement stmt = nullptr;
  Prepared() = default;
  Prepared(const Prepared&) = delete;
  Prepared& operator=(const Prepared&) = delete;
  ~Prepared() {
    if (stmt) duckdb_destroy_prepare(&stmt);
  }
};

// Runs a prepared statement like duckdb_execute_prepared, without its busy wait. DuckDB's own loop, while the
// query's only runnable task is on one of DuckDB's worker threads (a load's INSERT over one table-function scan),
// asks again and again for a task of its own, taking a core from the thread doing the work. Here the calling thread
// runs the query's tasks itself while there are any, and otherwise waits: yields first, then sleeps for up to 1 ms
// (checking again between sleeps), which delays a query's end by at most that.
// A query that fails to start (DuckDB's pending result has the error) returns its error in `start_error` and
// leaves `result` unset; otherwise `result` holds the result or the error, as with duckdb_execute_prepared.
// With `streaming`, the result is DuckDB's streaming result: it is ready as soon as the first rows can be fetched,
// and the rest of the query runs as duckdb_fetch_chunk asks for them.
duckdb_state ExecutePrepared(duckdb_prepared_statement stmt, duckdb_result* result, Status* start_error,
                             bool streaming = false);

}  // namespace sluice::storage
