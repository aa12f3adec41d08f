// information_schema.LOADS: the loads Sluice finished recently, in StarRocks 3.x's column names where they apply --
// each Kafka batch a routine load or pipe committed or gave up on, and each file a volume pipe or COPY INTO loaded
// or could not load, as __sluice.load_history keeps them (load_history_retention_days). A running task is not a
// load yet: SHOW ROUTINE LOAD TASK shows it. A user sees the loads into the tables they may see.
#include "executor/information_schema_views.h"

namespace sluice::information_schema {

namespace {

// ID: stable for as long as the row is kept (a hash of what identifies the load), so two queries agree on it.
// STATE: StarRocks' FINISHED (rows committed, some maybe rejected: FILTERED_ROWS) or CANCELLED (nothing
// committed). TYPE: ROUTINE_LOAD, PIPE or COPY. SCAN_ROWS counts every row read.
constexpr const char* kLoadsSql =
    "SELECT (hash(db, table_name, job_name, job_kind, source, start_time) >> 2)::BIGINT, source, db, table_name, "
    "CASE WHEN status = 'FAILED' THEN 'CANCELLED' ELSE 'FINISHED' END, job_kind, "
    "loaded_rows + error_rows + filtered_rows, error_rows, filtered_rows, loaded_rows, start_time, "
    "CASE WHEN status = 'FAILED' THEN NULL ELSE end_time END, end_time, first_error, nullif(job_name, ''), "
    "attempts FROM __sluice.load_history ORDER BY end_time, source";

Result<std::vector<Row>> LoadRows(InformationSchemaReader& r) {
  ASSIGN_OR_RETURN(auto history, r.InternalQuery(kLoadsSql));
  std::map<std::pair<std::string, std::string>, bool> seen;  // asked once per table
  std::vector<Row> rows;
  for (auto& h : history) {
    if (!h[2] || !h[3]) continue;
    auto [it, fresh] = seen.try_emplace({*h[2], *h[3]}, false);
    if (fresh) it->second = r.source().sees_table(*h[2], *h[3]);
    if (!it->second) continue;
    auto ms = [&](size_t i) { return h[i] ? TimestampFromMs(std::stoll(*h[i])) : kNull; };
    rows.push_back({h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], ms(10), ms(10), ms(11), ms(12),
                    h[13], h[14], h[15]});
  }
  return rows;
}

}  // namespace

InformationSchemaView Loads() {
  return {"loads",
          {BigInt("ID"), Varchar("LABEL"), Varchar("DB_NAME"), Varchar("TABLE_NAME"), Varchar("STATE"),
           Varchar("TYPE"), BigInt("SCAN_ROWS"), BigInt("FILTERED_ROWS"), BigInt("UNSELECTED_ROWS"),
           BigInt("SINK_ROWS"), Timestamp("CREATE_TIME"), Timestamp("LOAD_START_TIME"), Timestamp("LOAD_COMMIT_TIME"),
           Timestamp("LOAD_FINISH_TIME"), Varchar("ERROR_MSG"), Varchar("JOB_NAME"), BigInt("ATTEMPTS")},
          LoadRows};
}

}  // namespace sluice::information_schema
