// Storage connections, volumes and COPY INTO from a volume, as a session runs them.

#include "catalog/type_mapping.h"
#include "common/ascii.h"
#include "common/clock.h"
#include "common/log.h"
#include "executor/sql_session.h"
#include "executor/result_rows.h"
#include "lakehouse/lake_volume_copy.h"
#include "load/volume_copy.h"
#include "scheduler/routine_load_manager.h"
#include "sql/lexer.h"

namespace sluice {

namespace {

// As MySQL's LOAD DATA warns of the rows it could not take, a file with skipped rows (ON_ERROR = CONTINUE) or one
// that could not be read is a Warning for SHOW WARNINGS, besides its row in the result: clients and tools that
// read only the warning count see that something was left out. At most MySQL's max_error_count (64) are listed.
// Returns how many there are.
uint16_t CopyWarnings(const ResultSet& files, std::vector<Row>& warnings) {
  constexpr size_t kMaxListed = 64;
  uint16_t count = 0;
  for (const Row& row : files.rows) {
    const std::string file = row[0].value_or("");
    const std::string status = row[1].value_or("");
    const std::string first_error = row[4].value_or("");
    std::string message;
    std::string code;
    if (status == "PARTIALLY_LOADED") {
      code = "1366";  // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, LOAD DATA's warning for a bad value
      // first_error names its line already ("line 3: ...").
      message = "'" + file + "': " + row[3].value_or("0") + " row(s) skipped (ON_ERROR = CONTINUE)";
      if (!first_error.empty()) {
        message += "; the first: " + first_error;
      } else if (row[5]) {
        message += "; the first at line " + *row[5];
      }
    } else if (status == "LOAD_FAILED") {
      code = "1105";
      message = "'" + file + "' was not loaded" + (first_error.empty() ? "" : ": " + first_error);
    } else {
      continue;
    }
    if (count < UINT16_MAX) count++;
    if (warnings.size() < kMaxListed) warnings.push_back({std::string("Warning"), code, std::move(message)});
  }
  return count;
}

ResultSet InfoRows() {
  ResultSet rs;
  rs.AddColumn("info_name");
  rs.AddColumn("info_value");
  return rs;
}

std::optional<std::string> Text(std::string s) { return std::optional<std::string>(std::move(s)); }

}  // namespace

Result<StatementResult> SqlSession::RunVolume(const sql::CreateStorageConnection& s) {
  RETURN_IF_ERROR(volumes_.CreateConnection(s, WallClockMs()));
  return StatementResult{};
}

Result<StatementResult> SqlSession::RunVolume(const sql::CreateVolume& s) {
  RETURN_IF_ERROR(volumes_.CreateVolume(s, WallClockMs()));
  return StatementResult{};
}

Result<StatementResult> SqlSession::RunVolume(const sql::DropStorageObject& s) {
  if (s.kind == sql::StorageObjectKind::kConnection) {
    RETURN_IF_ERROR(volumes_.DropConnection(s.name, s.if_exists));
  } else {
    RETURN_IF_ERROR(volumes_.DropVolume(s.name, s.if_exists));
  }
  return StatementResult{};
}

Result<StatementResult> SqlSession::RunVolume(const sql::ShowStorageObjects& s) {
  ResultSet rs;
  if (s.kind == sql::StorageObjectKind::kConnection) {
    ASSIGN_OR_RETURN(auto list, volumes_.ListConnections());
    for (const char* c : {"name", "type", "endpoint", "region", "created_time", "comment"}) rs.AddColumn(c);
    rs.columns[4].type = ValueType::kTimestamp;
    for (const auto& c : list)
      if ((!s.like || LikeMatch(c.name, *s.like)) && SeesStorageObject(true, c.name))
        rs.rows.push_back({c.name, c.type, c.endpoint, c.region, scheduler::FormatTimeMs(c.created_ms), c.comment});
  } else {
    ASSIGN_OR_RETURN(auto list, volumes_.ListVolumes());
    for (const char* c : {"name", "location", "connection", "recursive", "created_time", "comment"}) rs.AddColumn(c);
    rs.columns[4].type = ValueType::kTimestamp;
    for (const auto& v : list)
      if ((!s.like || LikeMatch(v.name, *s.like)) && SeesStorageObject(false, v.name))
        rs.rows.push_back({v.name, v.location, v.connection.empty() ? std::nullopt : Text(v.connection),
                           Text(v.recursive ? "true" : "false"), scheduler::FormatTimeMs(v.created_ms), v.comment});
  }
  return Rows(std::move(rs));
}

Result<StatementResult> SqlSession::RunVolume(const sql::DescribeStorageObject& s) {
  ResultSet rs = InfoRows();
  auto add = [&](const char* name, std::string value) { rs.rows.push_back({std::string(name), std::move(value)}); };
  if (s.kind == sql::StorageObjectKind::kConnection) {
    ASSIGN_OR_RETURN(auto list, volumes_.ListConnections());
    for (const auto& c : list) {
      if (AsciiLower(c.name) != AsciiLower(s.name)) continue;
      add("name", c.name);
      add("type", c.type);
      add("endpoint", c.endpoint);
      add("region", c.region);
      add("access_id", c.access_id_masked);
      add("access_key", "******");
      add("created_time", scheduler::FormatTimeMs(c.created_ms));
      add("comment", c.comment);
      return Rows(std::move(rs));
    }
    return Status::NotFound("storage connection '" + s.name + "' does not exist (SHOW CONNECTIONS lists them)");
  }
  ASSIGN_OR_RETURN(auto list, volumes_.ListVolumes());
  for (const auto& v : list) {
    if (AsciiLower(v.name) != AsciiLower(s.name)) continue;
    add("name", v.name);
    add("location", v.location);
    add("type", v.location.rfind("s3://", 0) == 0 ? "S3" : "LOCAL");
    add("connection", v.connection);
    add("recursive", v.recursive ? "true" : "false");
    add("created_time", scheduler::FormatTimeMs(v.created_ms));
    add("comment", v.comment);
    return Rows(std::move(rs));
  }
  return Status::NotFound("volume '" + s.name + "' does not exist (SHOW VOLUMES lists them)");
}

Result<StatementResult> SqlSession::RunVolume(const sql::CopyIntoFromVolume& s) {
  if (in_transaction_)
    return Status::InvalidArgument("COPY INTO from a volume commits each file on its own and cannot run inside "
                                   "BEGIN ... COMMIT: COMMIT or ROLLBACK first");
  load::VolumeCopyRequest req;
  const bool lake = !s.catalog.empty();
  if (lake) {
    RETURN_IF_ERROR(RequireCatalogKnown(s.catalog));
    if (s.db.empty())
      return Status::InvalidArgument("COPY INTO " + s.catalog + "." + s.table + ": name the Iceberg table as " +
                                     s.catalog + ".db.table");
    req.target.db = s.db;
  } else {
    ASSIGN_OR_RETURN(req.target.db, ResolveDb(s.db));
    if (!catalog_.DatabaseExists(req.target.db))
      return Status::UnknownDatabase("Unknown database '" + req.target.db + "'");
  }
  req.target.table = s.table;
  ASSIGN_OR_RETURN(req.target.format, load::BuildFileFormat(s.format, s.options));
  for (const auto& [name, type] : s.file_columns) {
    ASSIGN_OR_RETURN(std::string duck, catalog::ToDuckDBType(type));
    req.target.file_columns.emplace_back(name, duck);
  }
  if (!s.select_list.empty()) {
    ASSIGN_OR_RETURN(req.target.select_list, TranslateLoadSql(s.select_list));
    if (!s.where.empty()) {
      ASSIGN_OR_RETURN(req.target.where, TranslateLoadSql(s.where));
    }
  }
  req.target.continue_on_error = s.on_error == "CONTINUE";
  if (req.target.continue_on_error && !lake) {
    // An unknown table is reported by the load itself, as without ON_ERROR.
    if (auto table = catalog_.DescribeTable(req.target.db, req.target.table); table.ok())
      req.target.row_checks = load::VolumeRowChecksFor(*table);
  }
  req.target.scratch_dir = scratch_dir_;
  ASSIGN_OR_RETURN(req.volume, volumes_.Resolve(s.volume));
  req.files = s.files;
  req.regexp = s.regexp;
  req.subdirectory = s.subdirectory;
  req.force = s.force;
  ResultSet rs;
  if (lake) {
    // One commit into the Iceberg table, the files' identities in its snapshot (lakehouse/lake_volume_copy.h).
    ASSIGN_OR_RETURN(rs, lakehouse::CopyIntoLakeFromVolume(*lakes_, *con_, {s.catalog, s.db, s.table}, req,
                                                           scratch_dir_ + "iceberg-write"));
  } else {
    ASSIGN_OR_RETURN(rs, load::CopyIntoFromVolume(*con_, req));
  }
  int64_t total = 0;
  for (const auto& row : rs.rows) total += std::stoll(row[2].value_or("0"));
  log::Info("copy", "COPY INTO {}{}.{} FROM VOLUME {}: {} file(s), {} row(s)", lake ? s.catalog + "." : "",
            req.target.db, req.target.table, req.volume.info.name, rs.rows.size(), total);
  const uint16_t warnings = CopyWarnings(rs, warnings_);
  StatementResult r = Rows(std::move(rs));
  r.warnings = warnings;
  return r;
}

}  // namespace sluice
