#include "catalog/load_history.h"

#include <algorithm>

#include "sql/parser.h"

namespace sluice::catalog {

Status EnsureLoadHistoryTable(storage::Connection& con) {
  return con.Execute(
      "CREATE SCHEMA IF NOT EXISTS __sluice;"
      "CREATE TABLE IF NOT EXISTS __sluice.load_history (db VARCHAR NOT NULL, table_name VARCHAR NOT NULL, "
      "job_name VARCHAR NOT NULL, job_kind VARCHAR NOT NULL, source VARCHAR NOT NULL, loaded_rows BIGINT NOT NULL, "
      "error_rows BIGINT NOT NULL, filtered_rows BIGINT NOT NULL, first_error VARCHAR, status VARCHAR NOT NULL, "
      "start_time BIGINT NOT NULL, end_time BIGINT NOT NULL);"
      // Catalogs made before attempts existed get the column; their rows were each one attempt.
      "ALTER TABLE __sluice.load_history ADD COLUMN IF NOT EXISTS attempts BIGINT DEFAULT 1");
}

namespace {

std::string SourceOf(const LoadHistoryEntry& e) {
  // kafka://topic/0:[100,200),1:[5,11)
  std::string source = e.file_url.empty() ? "kafka://" + e.topic + "/" : e.file_url;
  bool first = true;
  for (const auto& [p, r] : e.ranges) {
    if (!e.file_url.empty()) break;
    if (r.second <= r.first) continue;
    source += (first ? "" : ",") + std::to_string(p) + ":[" + std::to_string(r.first) + "," + std::to_string(r.second) + ")";
    first = false;
  }
  return source;
}

// The first 1024 bytes of the first error, cut at a character's start (the column is UTF-8).
std::string FirstErrorText(const LoadHistoryEntry& e) {
  size_t end = std::min<size_t>(e.first_error.size(), 1024);
  while (end < e.first_error.size() && end > 0 && (static_cast<unsigned char>(e.first_error[end]) & 0xC0) == 0x80) end--;
  return e.first_error.substr(0, end);
}

std::string FirstErrorSql(const LoadHistoryEntry& e) {
  return e.first_error.empty() ? std::string("NULL") : sql::QuoteLiteral(FirstErrorText(e));
}

}  // namespace

Status RecordLoadHistory(storage::Connection& con, const LoadHistoryEntry& e) {
  // Prepared once per connection (every task of every job writes one row): the values are parameters, each used
  // once in a VALUES list the INSERT selects from (as VALUES of the INSERT itself, DuckDB 1.4.4 planned the
  // statement again at every run: Connection::QueryPrepared). No error is '' made NULL in SQL: a NULL value (of no
  // type) would have DuckDB re-bind the statement.
  ASSIGN_OR_RETURN(auto r, con.QueryPrepared(
                               "INSERT INTO __sluice.load_history (db, table_name, job_name, job_kind, source, "
                               "loaded_rows, error_rows, filtered_rows, first_error, status, start_time, end_time, "
                               "attempts) SELECT db, table_name, job_name, job_kind, source, loaded_rows, error_rows, "
                               "filtered_rows, NULLIF(first_error, ''), status, start_time, end_time, 1 FROM (VALUES "
                               "($1::VARCHAR, $2::VARCHAR, $3::VARCHAR, $4::VARCHAR, $5::VARCHAR, $6::BIGINT, "
                               "$7::BIGINT, $8::BIGINT, $9::VARCHAR, $10::VARCHAR, $11::BIGINT, $12::BIGINT)) AS "
                               "__sluice_v(db, table_name, job_name, job_kind, source, loaded_rows, error_rows, "
                               "filtered_rows, first_error, status, start_time, end_time)",
                               {e.db, e.table, e.job, e.job_kind, SourceOf(e), e.loaded_rows, e.error_rows,
                                e.filtered_rows, FirstErrorText(e), e.status, e.start_ms, e.end_ms}));
  (void)r;
  return Status::Ok();
}

Status RecordFailedAttempt(storage::Connection& con, const LoadHistoryEntry& e) {
  const std::string source = SourceOf(e);
  using sql::QuoteLiteral;
  const std::string same = "db = " + QuoteLiteral(e.db) + " AND table_name = " + QuoteLiteral(e.table) +
                           " AND job_name = " + QuoteLiteral(e.job) + " AND job_kind = " + QuoteLiteral(e.job_kind) +
                           " AND source = " + QuoteLiteral(source);
  // The newest row of this source: when it is FAILED, this attempt is another try of the same failure.
  ASSIGN_OR_RETURN(auto r, con.Query("UPDATE __sluice.load_history SET first_error = " + FirstErrorSql(e) +
                                     ", end_time = " + std::to_string(e.end_ms) + ", attempts = attempts + 1 WHERE " +
                                     same + " AND status = 'FAILED' AND end_time = (SELECT max(end_time) FROM "
                                     "__sluice.load_history WHERE " + same + ") AND NOT EXISTS (SELECT 1 FROM "
                                     "__sluice.load_history WHERE " + same + " AND status <> 'FAILED' AND end_time >= "
                                     "(SELECT max(end_time) FROM __sluice.load_history WHERE " + same + "))"));
  if (r.affected_rows > 0) return Status::Ok();
  return RecordLoadHistory(con, e);
}

Result<int64_t> PurgeLoadHistory(storage::Connection& con, int64_t now_ms, int64_t retention_ms) {
  ASSIGN_OR_RETURN(auto r, con.Query("DELETE FROM __sluice.load_history WHERE end_time < " +
                                     std::to_string(now_ms - retention_ms)));
  return static_cast<int64_t>(r.affected_rows);
}

std::string LoadHistoryMacroSql() {
  return "CREATE OR REPLACE TEMP MACRO load_history(table_name_arg) AS TABLE SELECT h.job_name AS job_name, "
         "h.job_kind AS job_kind, h.db || '.' || h.table_name AS table_name, h.source AS source, "
         "h.loaded_rows AS loaded_rows, h.error_rows AS error_rows, h.filtered_rows AS filtered_rows, "
         "h.first_error AS first_error, h.status AS status, make_timestamp(h.start_time * 1000) AS start_time, "
         "make_timestamp(h.end_time * 1000) AS end_time, h.attempts AS attempts FROM __sluice.load_history h WHERE "
         "CASE WHEN contains(CAST(table_name_arg AS VARCHAR), '.') THEN h.db || '.' || h.table_name "
         "ELSE h.table_name END = CAST(table_name_arg AS VARCHAR) ORDER BY h.end_time, h.source";
}

}  // namespace sluice::catalog
