// information_schema.ROUTINE_LOAD_JOBS, StarRocks' view of routine loads: one row per job (STOPPED and CANCELLED
// included, as SHOW ALL ROUTINE LOAD), every value taken from SHOW ROUTINE LOAD's own row of the job, so the two
// never disagree and secrets are masked the same way. A user sees the jobs whose table they may see.
#include "executor/information_schema_views.h"

namespace sluice::information_schema {

namespace {

// (view column, SHOW ROUTINE LOAD column, how the value is typed), in StarRocks' order.
struct ColumnSource {
  const char* view;
  const char* show;
  ValueType type;
};

constexpr ColumnSource kColumns[] = {
    {"ID", "Id", ValueType::kBigInt},
    {"NAME", "Name", ValueType::kVarchar},
    {"CREATE_TIME", "CreateTime", ValueType::kTimestamp},
    {"PAUSE_TIME", "PauseTime", ValueType::kTimestamp},
    {"END_TIME", "EndTime", ValueType::kTimestamp},
    {"DB_NAME", "DbName", ValueType::kVarchar},
    {"TABLE_NAME", "TableName", ValueType::kVarchar},
    {"STATE", "State", ValueType::kVarchar},
    {"DATA_SOURCE_TYPE", "DataSourceType", ValueType::kVarchar},
    {"CURRENT_TASK_NUM", "CurrentTaskNum", ValueType::kBigInt},
    {"JOB_PROPERTIES", "JobProperties", ValueType::kVarchar},
    {"DATA_SOURCE_PROPERTIES", "DataSourceProperties", ValueType::kVarchar},
    {"CUSTOM_PROPERTIES", "CustomProperties", ValueType::kVarchar},
    {"STATISTICS", "Statistic", ValueType::kVarchar},
    {"PROGRESS", "Progress", ValueType::kVarchar},
    {"REASONS_OF_STATE_CHANGED", "ReasonOfStateChanged", ValueType::kVarchar},
    {"ERROR_LOG_URLS", "ErrorLogUrls", ValueType::kVarchar},
    {"TRACKING_SQL", "TrackingSQL", ValueType::kVarchar},
    {"OTHER_MSG", "OtherMsg", ValueType::kVarchar},
    {"LATEST_SOURCE_POSITION", "LatestSourcePosition", ValueType::kVarchar},
    {"OFFSET_LAG", "OffsetLag", ValueType::kVarchar},
    {"TIMESTAMP_PROGRESS", "TimestampProgress", ValueType::kVarchar},
};

Result<std::vector<Row>> RoutineLoadJobRows(InformationSchemaReader& r) {
  const auto& s = r.source();
  std::vector<Row> rows;
  if (!s.jobs) return rows;
  ASSIGN_OR_RETURN(auto dbs, r.AllDatabases());
  for (const auto& db : dbs) {
    sql::ShowRoutineLoad show;
    show.all = true;
    auto rs = s.jobs->Show(show, db);
    if (!rs.ok()) continue;  // dropped since it was listed
    int db_col = ColumnIndex(*rs, "DbName"), name_col = ColumnIndex(*rs, "Name");
    std::vector<int> from;
    for (const auto& c : kColumns) from.push_back(ColumnIndex(*rs, c.show));
    for (const auto& show_row : rs->rows) {
      if (db_col < 0 || name_col < 0 || !show_row[db_col] || !show_row[name_col]) continue;
      if (!s.sees_routine_load(*show_row[db_col], *show_row[name_col])) continue;
      Row row;
      for (size_t i = 0; i < std::size(kColumns); i++) {
        std::optional<std::string> v = from[i] < 0 ? kNull : show_row[from[i]];
        row.push_back(kColumns[i].type == ValueType::kTimestamp ? TimestampFromText(v) : v);
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace

InformationSchemaView RoutineLoadJobs() {
  std::vector<storage::RowsColumn> columns;
  for (const auto& c : kColumns) columns.push_back({c.view, c.type});
  return {"routine_load_jobs", std::move(columns), RoutineLoadJobRows};
}

}  // namespace sluice::information_schema
