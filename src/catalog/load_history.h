#pragma once
// load_history('db.table'): one row per batch a routine load or pipe committed (LOADED / PARTIALLY_LOADED) or
// gave up (FAILED: too many error rows, nothing committed), kept in __sluice.load_history. A committed batch's row
// is written in the batch's own transaction, so the history never claims a batch that was rolled back.
#include <cstdint>
#include <map>
#include <string>

#include "common/status.h"
#include "storage/database.h"

namespace sluice::catalog {

struct LoadHistoryEntry {
  std::string db;
  std::string table;
  std::string job;       // routine load or pipe name
  std::string job_kind;  // ROUTINE_LOAD or PIPE
  std::string topic;
  std::map<int32_t, std::pair<int64_t, int64_t>> ranges;  // partition -> [first offset, next offset)
  int64_t loaded_rows = 0;
  int64_t error_rows = 0;
  int64_t filtered_rows = 0;
  std::string first_error;
  std::string status;  // LOADED, PARTIALLY_LOADED, FAILED
  int64_t start_ms = 0;
  int64_t end_ms = 0;
};

inline constexpr int64_t kLoadHistoryRetentionMs = 7LL * 24 * 3600 * 1000;

Status EnsureLoadHistoryTable(storage::Connection& con);
// Inside the caller's transaction (or on its own for FAILED batches).
Status RecordLoadHistory(storage::Connection& con, const LoadHistoryEntry& e);
// Deletes entries that ended before now - retention; returns how many.
Result<int64_t> PurgeLoadHistory(storage::Connection& con, int64_t now_ms, int64_t retention_ms = kLoadHistoryRetentionMs);
// The TEMP table macro load_history(table) for a session connection ('db.table', or 'table' in any database).
std::string LoadHistoryMacroSql();

}  // namespace sluice::catalog
