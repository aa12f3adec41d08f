#pragma once
// load_history('db.table'): one row per Kafka batch a routine load or pipe committed (LOADED / PARTIALLY_LOADED) or
// gave up (FAILED: too many error rows, nothing committed), and one row per file a volume pipe or a one-shot
// COPY INTO loaded (LOADED / PARTIALLY_LOADED) or could not load (FAILED), kept in __sluice.load_history. A
// committed load's row is written in the load's own transaction, so the history never claims a load that was rolled
// back. `source` says what was read: kafka://topic/0:[100,200),1:[5,11) for a batch, the file's URL for a file.
#include <cstdint>
#include <map>
#include <string>

#include "common/status.h"
#include "storage/database.h"

namespace sluice::catalog {

struct LoadHistoryEntry {
  std::string db;
  std::string table;
  std::string job;       // routine load or pipe name; empty for a one-shot COPY INTO
  std::string job_kind;  // ROUTINE_LOAD, PIPE or COPY
  std::string topic;
  std::string file_url;  // a file load: the source is this URL (topic and ranges unused)
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
// A FAILED row for a file (or batch) that could not be loaded: when the newest row of the same source, job and
// table is already FAILED, that row is updated (first_error, end_time = this attempt, attempts + 1) instead of a
// new row being added, so a file retried again and again keeps one FAILED row.
Status RecordFailedAttempt(storage::Connection& con, const LoadHistoryEntry& e);
// Deletes entries that ended before now - retention; returns how many.
Result<int64_t> PurgeLoadHistory(storage::Connection& con, int64_t now_ms, int64_t retention_ms = kLoadHistoryRetentionMs);
// The TEMP table macro load_history(table) for a session connection ('db.table', or 'table' in any database).
std::string LoadHistoryMacroSql();

}  // namespace sluice::catalog
