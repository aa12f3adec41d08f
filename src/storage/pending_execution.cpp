#include "storage/pending_execution.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "storage/result_conversion.h"

namespace sluice::storage {

duckdb_state ExecutePrepared(duckdb_prepared_statement stmt, duckdb_result* result, Status* start_error,
                             bool streaming) {
  duckdb_pending_result pending = nullptr;
  duckdb_state started =
      streaming ? duckdb_pending_prepared_streaming(stmt, &pending) : duckdb_pending_prepared(stmt, &pending);
  if (started != DuckDBSuccess) {
    const char* error = pending ? duckdb_pending_error(pending) : nullptr;
    *start_error = ErrorFromMessage(error ? error : "the query could not be started");
    duckdb_destroy_pending(&pending);
    return DuckDBError;
  }
  int idle = 0;
  for (;;) {
    const duckdb_pending_state state = duckdb_pending_execute_task(pending);
    if (duckdb_pending_execution_is_finished(state)) break;
    if (state != DUCKDB_PENDING_NO_TASKS_AVAILABLE) {
      idle = 0;
      continue;
    }
    if (++idle <= 16) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(std::min(1000, 25 << std::min(idle - 17, 6))));
    }
  }
  duckdb_state st = duckdb_execute_pending(pending, result);  // the result, or the error in `result`
  duckdb_destroy_pending(&pending);
  return st;
}

}  // namespace sluice::storage
