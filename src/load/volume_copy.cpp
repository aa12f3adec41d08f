#include "load/volume_copy.h"

#include <shared_mutex>

#include "load/table_write.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>

#include "catalog/load_history.h"
#include "common/ascii.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/test_points.h"
#include "load/csv_header.h"
#include "load/csv_read_error.h"
#include "load/file_row_count.h"
#include "sql/parser.h"

namespace sluice::load {

namespace {

using catalog::PropertySpec;
using catalog::PropertyType;
using sql::QuoteIdentifier;
using sql::QuoteLiteral;

// Option names as users write them (Lakehouse, Spark and DuckDB spellings) -> the table's name.
std::string CanonicalOption(const std::string& name) {
  std::string n = AsciiLower(name);
  if (n == "delimiter" || n == "delim" || n == "field_delimiter") return "sep";
  if (n == "nullvalue" || n == "null" || n == "nullstr" || n == "null_if") return "null_string";
  if (n == "skip_lines" || n == "skip_header" || n == "skiprows") return "skip";
  if (n == "json_format" || n == "multiline") return n == "multiline" ? "multiline" : "format";
  return n;
}

// Removes a downloaded copy when the load is over.
struct ScratchFile {
  std::string path;
  ~ScratchFile() {
    if (!path.empty()) {
      std::error_code ec;
      std::filesystem::remove(path, ec);
    }
  }
};

Result<std::vector<std::pair<std::string, std::string>>> TableColumns(storage::Connection& con,
                                                                     const std::string& db,
                                                                     const std::string& table) {
  ASSIGN_OR_RETURN(auto r, con.Query("SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = "
                                     "current_database() AND schema_name = " + QuoteLiteral(db) +
                                     " AND table_name = " + QuoteLiteral(table) + " ORDER BY column_index"));
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& row : r.result_set->rows) out.emplace_back(*row[0], *row[1]);
  if (out.empty()) return Status::UnknownTable("Unknown table '" + db + "." + table + "'");
  return out;
}

std::string ColumnsStruct(const std::vector<std::pair<std::string, std::string>>& cols) {
  std::string s = "{";
  for (size_t i = 0; i < cols.size(); i++)
    s += (i ? ", " : "") + QuoteLiteral(cols[i].first) + ": " + QuoteLiteral(cols[i].second);
  return s + "}";
}

std::string NameList(const std::vector<std::pair<std::string, std::string>>& cols) {
  std::string s;
  for (size_t i = 0; i < cols.size(); i++) s += (i ? ", " : "") + QuoteIdentifier(cols[i].first);
  return s;
}

std::string JsonPath(const std::string& key) {
  std::string escaped;
  for (char c : key) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return QuoteLiteral("$.\"" + escaped + "\"");
}

constexpr const char* kRejectsTable = "__sluice_copy_rejects";
constexpr const char* kRejectScans = "__sluice_copy_reject_scans";
constexpr const char* kJsonStage = "__sluice_copy_json";

struct Counts {
  int64_t loaded = 0;
  std::vector<catalog::RejectedFileRow> rejected;
  int64_t error_rows = 0;
};

// The INSERT for a file read as `relation`: the transform's SELECT list over it when there is one, else `plain`.
std::string InsertSql(const std::string& table_sql, const std::string& relation, const VolumeLoadTarget& t,
                      const std::string& plain) {
  if (t.select_list.empty()) return plain;
  return "INSERT INTO " + table_sql + " SELECT " + t.select_list + " FROM " + relation + " AS __file" +
         (t.where.empty() ? "" : " WHERE " + t.where);
}

// read_csv's arguments after the path(s). Without a schema (a transform over a file whose columns were not given)
// the header names the columns, or DuckDB's column0, column1 ... do, and every value is text for the SELECT list to
// convert.
std::string CsvReaderOptions(const std::vector<std::pair<std::string, std::string>>& cols, const FileFormat& f) {
  std::string args = (cols.empty() ? ", all_varchar = true"
                                   : ", columns = " + ColumnsStruct(cols) + ", auto_detect = false") +
                     std::string(", header = ") + (f.header ? "true" : "false");
  if (f.sep) args += ", delim = " + QuoteLiteral(*f.sep);
  if (f.quote) args += ", quote = " + QuoteLiteral(*f.quote);
  if (f.escape) args += ", escape = " + QuoteLiteral(*f.escape);
  if (f.null_string) args += ", nullstr = " + QuoteLiteral(*f.null_string);
  if (f.skip > 0) args += ", skip = " + std::to_string(f.skip);
  args += ", compression = " + QuoteLiteral(f.compression);
  return args;
}

Result<Counts> LoadCsv(storage::Connection& con, const std::string& path, const std::string& table_sql,
                       const std::vector<std::pair<std::string, std::string>>& cols, bool by_name,
                       const VolumeLoadTarget& t) {
  std::string args = QuoteLiteral(path) + CsvReaderOptions(cols, t.format);
  if (t.continue_on_error) {
    RETURN_IF_ERROR(con.Execute(std::string("DROP TABLE IF EXISTS temp.") + kRejectsTable +
                                "; DROP TABLE IF EXISTS temp." + kRejectScans));
    args += std::string(", store_rejects = true, rejects_table = '") + kRejectsTable + "', rejects_scan = '" +
            kRejectScans + "'";
  }
  std::string relation = "read_csv(" + args + ")";
  std::string insert = InsertSql(table_sql, relation, t,
                                 "INSERT INTO " + table_sql + (by_name ? " (" + NameList(cols) + ") SELECT " +
                                 NameList(cols) : " SELECT *") + " FROM " + relation);
  Counts counts;
  ASSIGN_OR_RETURN(auto r, con.Query(insert));
  counts.loaded = static_cast<int64_t>(r.affected_rows);
  if (!t.continue_on_error) return counts;
  // No bad rows leave no reject table behind.
  auto rej = con.Query(std::string("SELECT line, coalesce(column_name, ''), error_message, coalesce(csv_line, '') "
                                   "FROM temp.") + kRejectsTable + " ORDER BY line, column_idx");
  if (rej.ok()) {
    int64_t last_line = -1;
    for (const auto& row : rej->result_set->rows) {
      catalog::RejectedFileRow rr;
      rr.line = row[0] ? std::stoll(*row[0]) : 0;
      rr.column = row[1].value_or("");
      rr.reason = row[2].value_or("");
      rr.raw = row[3].value_or("");
      if (rr.line != last_line) counts.error_rows++;
      last_line = rr.line;
      counts.rejected.push_back(std::move(rr));
    }
    RETURN_IF_ERROR(con.Execute(std::string("DROP TABLE IF EXISTS temp.") + kRejectsTable +
                                "; DROP TABLE IF EXISTS temp." + kRejectScans));
  }
  return counts;
}

// Whether an uncompressed JSON file starts with something other than '[' (so: one document per line).
bool LooksLikeJsonLines(const std::string& path, const FileFormat& f) {
  auto ends_with = [&](std::string_view suffix) {
    return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (f.compression == "gzip" || f.compression == "zstd") return false;
  if (f.compression == "auto" && (ends_with(".gz") || ends_with(".zst") || ends_with(".zstd"))) return false;
  std::ifstream in(path, std::ios::binary);
  char c;
  while (in.get(c)) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || static_cast<unsigned char>(c) >= 0x80) continue;  // BOM too
    return c != '[';
  }
  return false;
}

// JSON: each record is read as a JSON object, each column extracted by name and converted with TRY_CAST, so a value
// that does not fit is found with its record number instead of failing the file.
Result<Counts> LoadJson(storage::Connection& con, const std::string& path, const std::string& table_sql,
                        const std::vector<std::pair<std::string, std::string>>& cols, const VolumeLoadTarget& t) {
  const FileFormat& f = t.format;
  std::string format = f.json_format == "lines" ? "newline_delimited" : f.json_format;
  // read_json spells compression its own way.
  std::string compression = f.compression == "auto" ? "auto_detect" : f.compression == "none" ? "uncompressed"
                                                                                             : f.compression;
  if (cols.empty()) {  // a transform without a schema: DuckDB detects the keys and types
    std::string relation = "read_json(" + QuoteLiteral(path) + ", format = " + QuoteLiteral(format) +
                           ", compression = " + QuoteLiteral(compression) + ")";
    ASSIGN_OR_RETURN(auto r, con.Query(InsertSql(table_sql, relation, t, "")));
    Counts counts;
    counts.loaded = static_cast<int64_t>(r.affected_rows);
    return counts;
  }
  // JSON lines are read line by line, so a line that is not JSON is a rejected row with its line number rather
  // than a file that cannot be read; arrays (and compressed files of unknown shape) go through read_json_objects.
  const bool line_mode = f.json_format == "lines" || (f.json_format == "auto" && LooksLikeJsonLines(path, f));
  std::string stage = "CREATE OR REPLACE TEMP TABLE " + std::string(kJsonStage) + " AS SELECT __record, __raw, ";
  stage += line_mode ? "CASE WHEN json_valid(__raw) THEN json_type(__raw) = 'OBJECT' ELSE false END AS __valid"
                     : "true AS __valid";
  for (size_t i = 0; i < cols.size(); i++)
    stage += ", json_extract_string(CASE WHEN __valid THEN __raw END, " + JsonPath(cols[i].first) + ") AS __v" +
             std::to_string(i);
  if (line_mode) {
    stage += " FROM (SELECT row_number() OVER () AS __record, line AS __raw FROM read_csv(" + QuoteLiteral(path) +
             ", columns = {'line': 'VARCHAR'}, header = false, delim = E'\\x01', quote = '', escape = '', "
             "auto_detect = false, compression = " + QuoteLiteral(f.compression) +
             ")) WHERE __raw IS NOT NULL AND trim(__raw) <> ''";
  } else {
    stage += " FROM (SELECT row_number() OVER () AS __record, json AS __raw FROM read_json_objects(" +
             QuoteLiteral(path) + ", format = " + QuoteLiteral(format) + ", compression = " +
             QuoteLiteral(compression) + "))";
  }
  RETURN_IF_ERROR(con.Execute(stage));
  std::string bad = "(NOT __valid)", first_bad = "CASE WHEN NOT __valid THEN ''";
  for (size_t i = 0; i < cols.size(); i++) {
    std::string v = "__v" + std::to_string(i);
    std::string cond = "(" + v + " IS NOT NULL AND TRY_CAST(" + v + " AS " + cols[i].second + ") IS NULL)";
    bad += " OR " + cond;
    first_bad += " WHEN " + cond + " THEN " + QuoteLiteral(cols[i].first);
  }
  first_bad += " END";
  Counts counts;
  ASSIGN_OR_RETURN(auto br, con.Query("SELECT __record, " + first_bad + ", __raw FROM " + kJsonStage + " WHERE " +
                                      bad + " ORDER BY __record"));
  for (const auto& row : br.result_set->rows) {
    catalog::RejectedFileRow rr;
    rr.line = std::stoll(*row[0]);
    rr.column = row[1].value_or("");
    if (rr.column.empty()) {
      rr.reason = "not a JSON object";
    } else {
      const auto& type = std::find_if(cols.begin(), cols.end(), [&](auto& c) { return c.first == rr.column; })->second;
      rr.reason = "Error when converting column \"" + rr.column + "\": the value does not fit " + type;
    }
    rr.raw = row[2].value_or("");
    counts.rejected.push_back(std::move(rr));
  }
  counts.error_rows = static_cast<int64_t>(counts.rejected.size());
  if (!t.continue_on_error && !counts.rejected.empty()) {
    const auto& r = counts.rejected.front();
    return Status::InvalidArgument((line_mode ? "line " : "record ") + std::to_string(r.line) + ": " + r.reason +
                                   " (" + r.raw + ")");
  }
  std::string select;
  for (size_t i = 0; i < cols.size(); i++)
    select += (i ? ", " : "") + std::string("TRY_CAST(__v") + std::to_string(i) + " AS " + cols[i].second + ") AS " +
              QuoteIdentifier(cols[i].first);
  std::string relation = "(SELECT " + select + " FROM " + kJsonStage +
                         " WHERE NOT (" + bad + ") ORDER BY __record)";
  ASSIGN_OR_RETURN(auto ir, con.Query(InsertSql(table_sql, relation, t,
                                                "INSERT INTO " + table_sql + " (" + NameList(cols) + ") SELECT " +
                                                    NameList(cols) + " FROM " + relation)));
  counts.loaded = static_cast<int64_t>(ir.affected_rows);
  RETURN_IF_ERROR(con.Execute(std::string("DROP TABLE IF EXISTS temp.") + kJsonStage));
  return counts;
}

Result<Counts> LoadParquet(storage::Connection& con, const std::string& path, const std::string& table_sql,
                           const std::vector<std::pair<std::string, std::string>>& file_columns,
                           const VolumeLoadTarget& t) {
  std::string select = "*";
  if (!file_columns.empty()) {
    select.clear();
    for (size_t i = 0; i < file_columns.size(); i++)
      select += (i ? ", " : "") + std::string("CAST(") + QuoteIdentifier(file_columns[i].first) + " AS " +
                file_columns[i].second + ") AS " + QuoteIdentifier(file_columns[i].first);
  }
  std::string relation = "(SELECT " + select + " FROM read_parquet(" + QuoteLiteral(path) + "))";
  ASSIGN_OR_RETURN(auto r, con.Query(InsertSql(table_sql, relation, t,
                                               "INSERT INTO " + table_sql + " BY NAME SELECT * FROM " + relation)));
  Counts counts;
  counts.loaded = static_cast<int64_t>(r.affected_rows);
  return counts;
}

}  // namespace

catalog::LoadHistoryEntry FileLoadHistory(const VolumeLoadTarget& t, const std::string& file_url, int64_t start_ms,
                                          int64_t end_ms) {
  catalog::LoadHistoryEntry e;
  e.db = t.db;
  e.table = t.table;
  e.job = t.job;
  e.job_kind = t.job_kind;
  e.file_url = file_url;
  e.start_ms = start_ms;
  e.end_ms = end_ms;
  return e;
}

ResultSet CopyResultColumns() {
  ResultSet rs;
  rs.AddColumn("file");
  rs.AddColumn("status");
  rs.AddColumn("rows_loaded", ValueType::kBigInt);
  rs.AddColumn("error_rows", ValueType::kBigInt);
  rs.AddColumn("first_error");
  rs.AddColumn("first_error_line", ValueType::kBigInt);
  return rs;
}

const std::vector<PropertySpec>& CsvCopyOptions() {
  static const std::vector<PropertySpec> kTable = {
      {"header", PropertyType::kBool, "false", 0, 0, {}, true, "the first line (after skip) names the columns"},
      {"sep", PropertyType::kString, ",", 0, 0, {}, true, "column separator, 1 to 4 bytes (also: delimiter)"},
      {"quote", PropertyType::kByte, "\"", 0, 0, {}, true, "quote character"},
      {"escape", PropertyType::kByte, "\"", 0, 0, {}, true, "escape character inside quotes (default: the quote)"},
      {"null_string", PropertyType::kString, "", 0, 0, {}, true,
       "text that means NULL, e.g. \\N (also: nullValue); empty fields are NULL by default"},
      {"compression", PropertyType::kEnum, "auto", 0, 0, {"auto", "none", "gzip", "zstd"}, true,
       "auto: by file extension (.gz, .zst)"},
      {"skip", PropertyType::kInt, "0", 0, 1e9, {}, true, "lines to skip at the start of each file (also: skip_lines)"},
  };
  return kTable;
}

const std::vector<PropertySpec>& JsonCopyOptions() {
  static const std::vector<PropertySpec> kTable = {
      {"format", PropertyType::kEnum, "auto", 0, 0, {"auto", "lines", "array"}, true,
       "lines: one JSON object per line; array: a JSON array of objects; auto: either"},
      {"compression", PropertyType::kEnum, "auto", 0, 0, {"auto", "none", "gzip", "zstd"}, true,
       "auto: by file extension (.gz, .zst)"},
  };
  return kTable;
}

Result<FileFormat> BuildFileFormat(const std::string& format,
                                   const std::vector<std::pair<std::string, std::string>>& options) {
  FileFormat f;
  const std::vector<PropertySpec>* table = nullptr;
  if (format == "CSV") {
    f.kind = FileFormat::Kind::kCsv;
    table = &CsvCopyOptions();
  } else if (format == "JSON") {
    f.kind = FileFormat::Kind::kJson;
    table = &JsonCopyOptions();
  } else if (format == "PARQUET") {
    f.kind = FileFormat::Kind::kParquet;
    if (!options.empty())
      return Status::InvalidArgument("unknown option '" + options.front().first +
                                     "' for PARQUET: Parquet files take no OPTIONS (they describe themselves)");
    return f;
  } else {
    return Status::InvalidArgument("unknown file format " + format + ": use CSV, JSON or PARQUET");
  }
  std::vector<std::string> seen;
  for (const auto& [name, value] : options) {
    std::string key = CanonicalOption(name);
    if (key == "multiline") {  // Spark's spelling: multiLine = true means a JSON array / multi-line document
      if (f.kind != FileFormat::Kind::kJson) key = "?";
      else {
        static const PropertySpec kMultiLine{"multiLine", PropertyType::kBool, "false", 0, 0, {}, true, ""};
        ASSIGN_OR_RETURN(std::string v, catalog::ValidateProperty(kMultiLine, value));
        f.json_format = v == "true" ? "auto" : "lines";
        continue;
      }
    }
    const PropertySpec* spec = catalog::FindProperty(*table, key);
    if (!spec) {
      std::string list;
      for (const auto& p : *table) list += (list.empty() ? "" : ", ") + std::string(p.name);
      return Status::InvalidArgument("unknown option '" + name + "' for " + format + ": the options are " + list);
    }
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      return Status::InvalidArgument("option '" + name + "' is given twice");
    seen.push_back(key);
    ASSIGN_OR_RETURN(std::string v, catalog::ValidateProperty(*spec, value));
    if (key == "header") f.header = v == "true";
    else if (key == "sep") {
      if (v.empty() || v.size() > 4)
        return Status::InvalidArgument("option 'sep' must be 1 to 4 bytes, got \"" + v + "\"");
      f.sep = v;
    } else if (key == "quote") f.quote = v;
    else if (key == "escape") f.escape = v;
    else if (key == "null_string") f.null_string = v;
    else if (key == "compression") f.compression = v;
    else if (key == "skip") f.skip = std::stoll(v);
    else if (key == "format") f.json_format = v;
  }
  return f;
}

namespace {

// DuckDB's readers expand glob characters in a path; a file whose name has them is read through a copy.
bool HasGlobCharacters(const std::string& path) { return path.find_first_of("*?[{") != std::string::npos; }

std::string SafeFileName(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
  return out;
}

// One load of a given file into a given table at a time in this process, so two statements (or a statement and a
// pipe) cannot both find the file not yet loaded and both load it.
class FileLoadLocks {
 public:
  class Guard {
   public:
    Guard(FileLoadLocks& locks, std::string key) : locks_(locks), key_(std::move(key)) {
      std::unique_lock<std::mutex> lock(locks_.mu_);
      locks_.cv_.wait(lock, [&] { return locks_.busy_.count(key_) == 0; });
      locks_.busy_.insert(key_);
    }
    ~Guard() {
      {
        std::lock_guard<std::mutex> lock(locks_.mu_);
        locks_.busy_.erase(key_);
      }
      locks_.cv_.notify_all();
    }

   private:
    FileLoadLocks& locks_;
    std::string key_;
  };

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> busy_;
};

FileLoadLocks& GlobalFileLoadLocks() {
  static FileLoadLocks locks;
  return locks;
}

}  // namespace

namespace {

// The test points of a file load (common/test_points.h), by who loads: a volume pipe or COPY INTO.
struct FileLoadPoints {
  std::string_view after_download;  // the file (every file of a group) is fetched, before the transaction begins
  std::string_view inside_commit;   // rows, load records and history are written; before COMMIT
  std::string_view commit;          // storage's COMMIT of the load
};

const FileLoadPoints& PointsOf(const VolumeLoadTarget& t) {
  static constexpr FileLoadPoints kPipe{"volume_pipe.after_download", "volume_pipe.inside_commit",
                                        "storage.commit.volume_pipe"};
  static constexpr FileLoadPoints kCopy{"copy_into.after_download", "copy_into.inside_commit",
                                        "storage.commit.copy_into"};
  return t.job_kind == "PIPE" ? kPipe : kCopy;
}

}  // namespace

namespace {

constexpr const char* kCheckedStage = "__sluice_copy_checked";

// The rows of the stage a check refuses become rejected rows (the first check that refuses names the reason), the
// others go into the table in the file's order. A check that is NULL (a NULL value's length) refuses nothing.
Result<Counts> InsertCheckedRows(storage::Connection& con, const std::string& table_sql, const VolumeRowChecks& rc,
                                 Counts counts) {
  const std::string stage = std::string("temp.") + kCheckedStage;
  std::string bad, column = "CASE", reason = "CASE";
  for (const auto& c : rc.checks) {
    const std::string refuses = "coalesce(" + c.bad_sql + ", false)";
    bad += (bad.empty() ? "" : " OR ") + refuses;
    column += " WHEN " + refuses + " THEN " + QuoteLiteral(c.column);
    reason += " WHEN " + refuses + " THEN " + c.reason_sql;
  }
  column += " END";
  reason += " END";
  // rowid follows the insert order, but rows a transaction has not committed yet have rowids from far up.
  ASSIGN_OR_RETURN(auto rejected, con.Query("SELECT __sluice_n, " + column + ", " + reason + ", __sluice_raw FROM "
                                            "(SELECT row_number() OVER (ORDER BY rowid) AS __sluice_n, "
                                            "CAST(__row AS VARCHAR) AS __sluice_raw, * FROM " + stage +
                                            " AS __row) WHERE " + bad + " ORDER BY __sluice_n"));
  for (const auto& row : rejected.result_set->rows) {
    catalog::RejectedFileRow rr;
    rr.column = row[1].value_or("");
    // The stage does not know the row's line; its place among the rows read finds it.
    rr.reason = "row " + row[0].value_or("?") + " of the rows read: " + row[2].value_or("");
    rr.raw = row[3].value_or("");
    counts.rejected.push_back(std::move(rr));
    counts.error_rows++;
  }
  ASSIGN_OR_RETURN(auto inserted, con.Query("INSERT INTO " + table_sql + " SELECT * FROM " + stage + " WHERE NOT (" +
                                            bad + ") ORDER BY rowid"));
  counts.loaded = static_cast<int64_t>(inserted.affected_rows);
  RETURN_IF_ERROR(con.Execute("DROP TABLE IF EXISTS " + stage));
  return counts;
}

}  // namespace

Result<FileLoadOutcome> LoadVolumeFile(storage::Connection& con, source::VolumeReader& reader,
                                       const catalog::ResolvedVolume& volume, const source::VolumeFile& file,
                                       const VolumeLoadTarget& t, bool force) {
  FileLoadLocks::Guard guard(GlobalFileLoadLocks(), volume.location.url + file.path + "\n" + t.db + "." + t.table);
  const int64_t start_ms = WallClockMs();
  const bool staged = !t.stage_sql.empty();
  if (!force && !staged) {
    catalog::FileLoadRecord id;
    id.file_url = volume.location.url + file.path;
    id.target = t.db + "." + t.table;
    id.size = file.size;
    id.last_modified_ms = file.last_modified_ms;
    id.etag = file.etag;
    ASSIGN_OR_RETURN(bool loaded, catalog::VolumeStore::IsFileLoaded(con, id));
    if (loaded) {
      FileLoadOutcome skipped;
      skipped.status = "SKIPPED";
      return skipped;
    }
  }
  ScratchFile scratch;
  auto fetched = reader.Fetch(file, t.scratch_dir);
  if (!fetched.ok()) {
    // Gone or replaced since the listing: not this file's fault, and nothing of it was read.
    const StatusCode code = fetched.status().code();
    if (code == StatusCode::kNotFound || code == StatusCode::kConflict) {
      FileLoadOutcome changed;
      changed.status = kFileChanged;
      changed.first_error = fetched.status().message();
      return changed;
    }
    return fetched.status();
  }
  std::string local = std::move(*fetched);
  if (reader.FetchCopies()) scratch.path = local;
  if (HasGlobCharacters(local)) {
    static std::atomic<uint64_t> counter{0};
    std::error_code ec;
    std::filesystem::create_directories(t.scratch_dir, ec);
    std::string copy = (std::filesystem::path(t.scratch_dir) /
                        ("copy-" + std::to_string(counter++) + "-" +
                         SafeFileName(std::filesystem::path(file.path).filename().string())))
                           .string();
    std::filesystem::copy_file(local, copy, std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) return Status::IoError("cannot copy '" + local + "' to '" + copy + "': " + ec.message());
    if (!scratch.path.empty()) std::filesystem::remove(scratch.path, ec);
    scratch.path = local = copy;
  }
  RETURN_IF_ERROR(TestPoint(PointsOf(t).after_download));
  std::string table_sql = staged ? t.stage_sql : QuoteIdentifier(t.db) + "." + QuoteIdentifier(t.table);
  catalog::FileLoadRecord record;
  record.file_url = volume.location.url + file.path;
  record.target = t.db + "." + t.table;
  record.size = file.size;
  record.last_modified_ms = file.last_modified_ms;
  record.etag = file.etag;
  Counts counts;
  // No ALTER TABLE rebuilds the table while the file's rows go in (load/table_write.h).
  std::shared_lock<std::shared_mutex> schema_lock(TableSchemaMutex(QuoteIdentifier(t.db) + "." + QuoteIdentifier(t.table)));
  RETURN_IF_ERROR(storage::InTransaction(con, [&]() -> Status {
    std::vector<std::pair<std::string, std::string>> cols = t.file_columns;
    bool by_name = !cols.empty();
    if (cols.empty() && t.select_list.empty()) {
      if (staged) cols = t.stage_columns;
      else {
        ASSIGN_OR_RETURN(cols, TableColumns(con, t.db, t.table));
      }
    }
    // A transform over a CSV file with a header reads the header's names, every value as text, as DuckDB would
    // (csv_header.h says why Sluice reads them itself).
    if (cols.empty() && t.format.kind == FileFormat::Kind::kCsv) {
      if (auto names = ReadCsvHeader(local, t.format)) {
        for (std::string& n : *names) cols.emplace_back(std::move(n), "VARCHAR");
      }
    }
    // Under ON_ERROR = CONTINUE a table with row checks is loaded through a stage without its constraints, so a
    // row they refuse is a rejected row instead of the file's failure.
    const bool checked = t.continue_on_error && !t.row_checks.empty();
    std::string into = table_sql;
    if (checked) {
      RETURN_IF_ERROR(con.Execute(std::string("CREATE OR REPLACE TEMP TABLE ") + kCheckedStage + " (" +
                                  t.row_checks.stage_columns_sql + ")"));
      into = std::string("temp.") + kCheckedStage;
    }
    switch (t.format.kind) {
      case FileFormat::Kind::kCsv: {
        auto read = LoadCsv(con, local, into, cols, by_name, t);
        if (!read.ok()) return CsvReadError(read.status(), t.continue_on_error);
        counts = std::move(read).value();
        break;
      }
      case FileFormat::Kind::kJson: {
        ASSIGN_OR_RETURN(counts, LoadJson(con, local, into, cols, t));
        break;
      }
      case FileFormat::Kind::kParquet: {
        ASSIGN_OR_RETURN(counts, LoadParquet(con, local, into, t.file_columns, t));
        break;
      }
    }
    if (checked) {
      ASSIGN_OR_RETURN(counts, InsertCheckedRows(con, table_sql, t.row_checks, std::move(counts)));
    }
    record.rows_loaded = counts.loaded;
    record.error_rows = counts.error_rows;
    if (!counts.rejected.empty()) {
      const auto& r = counts.rejected.front();
      record.first_error = (r.line > 0 ? "line " + std::to_string(r.line) + ": " : "") + r.reason;
    }
    record.status = counts.error_rows > 0 ? "PARTIALLY_LOADED" : "LOADED";
    if (staged) return Status::Ok();  // recorded by the caller once its commit holds the rows
    int64_t now = WallClockMs();
    RETURN_IF_ERROR(catalog::VolumeStore::RecordFileLoad(con, record, now));
    catalog::LoadHistoryEntry h = FileLoadHistory(t, record.file_url, start_ms, now);
    h.loaded_rows = record.rows_loaded;
    h.error_rows = record.error_rows;
    h.first_error = record.first_error;
    h.status = record.status;
    RETURN_IF_ERROR(catalog::RecordLoadHistory(con, h));
    RETURN_IF_ERROR(catalog::VolumeStore::RecordRejectedRows(con, record.target, record.file_url, counts.rejected, now));
    return TestPoint(PointsOf(t).inside_commit);
  }, PointsOf(t).commit));
  FileLoadOutcome out;
  out.status = record.status;
  out.rows_loaded = record.rows_loaded;
  out.error_rows = record.error_rows;
  out.first_error = record.first_error;
  out.first_error_line = counts.rejected.empty() ? 0 : counts.rejected.front().line;
  if (staged) out.rejected = std::move(counts.rejected);
  return out;
}

namespace {

// A group loaded by one INSERT stays under these bounds (and is loaded file by file when it fails).
constexpr int64_t kGroupMaxBytes = kVolumeGroupMaxBytes;
constexpr size_t kGroupMaxFiles = kVolumeGroupMaxFiles;
constexpr const char* kSourceFileColumn = "__sluice_source_file";

// read_json's format for a downloaded file, or "" when only the per-file load can tell (compressed, format auto).
std::string JsonGroupFormat(const std::string& local, const FileFormat& f) {
  if (f.json_format == "lines") return "newline_delimited";
  if (f.json_format == "array") return "array";
  bool compressed = f.compression == "gzip" || f.compression == "zstd" ||
                    (f.compression == "auto" && (local.ends_with(".gz") || local.ends_with(".zst") ||
                                                 local.ends_with(".zstd")));
  if (compressed) return "";
  return LooksLikeJsonLines(local, f) ? "newline_delimited" : "array";
}

}  // namespace

// ON_ERROR = ABORT (a bad row fails the file anyway, so a group that fails is loaded again file by file to name the
// file and keep the files before it), no transform (its expressions may depend on the file); CSV, JSON or Parquet.
bool GroupLoadFits(const VolumeLoadTarget& t) {
  return !t.continue_on_error && t.select_list.empty() &&
         (t.format.kind == FileFormat::Kind::kCsv || t.format.kind == FileFormat::Kind::kJson ||
          t.format.kind == FileFormat::Kind::kParquet);
}

Result<std::vector<FileLoadOutcome>> LoadVolumeGroup(storage::Connection& con, source::VolumeReader& reader,
                                                     const catalog::ResolvedVolume& volume,
                                                     const std::vector<source::VolumeFile>& files,
                                                     const VolumeLoadTarget& t, bool force) {
  // The same per-file locks as LoadVolumeFile, taken in one order so two groups cannot wait for each other.
  std::vector<std::string> keys;
  for (const auto& file : files) keys.push_back(volume.location.url + file.path + "\n" + t.db + "." + t.table);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<std::unique_ptr<FileLoadLocks::Guard>> guards;
  for (const auto& key : keys) guards.push_back(std::make_unique<FileLoadLocks::Guard>(GlobalFileLoadLocks(), key));
  const int64_t start_ms = WallClockMs();
  std::vector<catalog::FileLoadRecord> records(files.size());
  for (size_t i = 0; i < files.size(); i++) {
    auto& r = records[i];
    r.file_url = volume.location.url + files[i].path;
    r.target = t.db + "." + t.table;
    r.size = files[i].size;
    r.last_modified_ms = files[i].last_modified_ms;
    r.etag = files[i].etag;
    if (!force) {
      ASSIGN_OR_RETURN(bool loaded, catalog::VolumeStore::IsFileLoaded(con, r));
      if (loaded) return Status::Conflict("file '" + files[i].path + "' was loaded meanwhile");
    }
  }
  // Each file is counted once fetched (its rows for its load record, where Sluice can count them exactly:
  // file_row_count.h), so DuckDB reads the group's files once. The files are fetched one after another: a store
  // that refuses or fails one gets no further requests from this group.
  std::vector<std::optional<Result<std::string>>> fetched(files.size());
  std::vector<std::string> shapes(files.size());  // JSON: read_json's format of each file
  std::vector<std::optional<int64_t>> counted(files.size());
  for (size_t i = 0; i < files.size(); i++) {
    fetched[i] = reader.Fetch(files[i], t.scratch_dir);
    if (!fetched[i]->ok()) {
      for (size_t j = i + 1; j < files.size(); j++) fetched[j] = Status::Internal("not fetched");
      break;
    }
    const std::string& local = **fetched[i];
    if (t.format.kind == FileFormat::Kind::kCsv) {
      counted[i] = CountCsvRows(local, t.format);
    } else if (t.format.kind == FileFormat::Kind::kJson) {
      shapes[i] = JsonGroupFormat(local, t.format);
      if (shapes[i] == "newline_delimited") counted[i] = CountJsonLines(local, t.format);
    }
  }
  std::vector<ScratchFile> scratch(files.size());
  if (reader.FetchCopies())
    for (size_t i = 0; i < files.size(); i++)
      if (fetched[i]->ok()) scratch[i].path = **fetched[i];
  std::vector<std::string> locals;
  std::string json_format;
  for (size_t i = 0; i < files.size(); i++) {
    if (!fetched[i]->ok()) return fetched[i]->status();
    std::string local = **fetched[i];
    if (HasGlobCharacters(local)) return Status::NotSupported("file name '" + local + "' has glob characters");
    if (t.format.kind == FileFormat::Kind::kJson) {
      const std::string& fmt = shapes[i];
      if (fmt.empty() || (!json_format.empty() && fmt != json_format))
        return Status::NotSupported("JSON files of unknown or mixed shape");
      json_format = fmt;
    }
    locals.push_back(std::move(local));
  }
  RETURN_IF_ERROR(TestPoint(PointsOf(t).after_download));
  std::map<std::string, size_t> index;
  std::string list = "[";
  for (size_t i = 0; i < locals.size(); i++) {
    if (!index.emplace(locals[i], i).second) return Status::NotSupported("two files share the path " + locals[i]);
    list += (i ? ", " : "") + QuoteLiteral(locals[i]);
  }
  list += "]";
  std::string table_sql = QuoteIdentifier(t.db) + "." + QuoteIdentifier(t.table);
  std::vector<int64_t> rows(files.size(), 0);
  std::shared_lock<std::shared_mutex> schema_lock(TableSchemaMutex(table_sql));
  RETURN_IF_ERROR(storage::InTransaction(con, [&]() -> Status {
    std::vector<std::pair<std::string, std::string>> cols = t.file_columns;
    bool by_name = !cols.empty();
    if (cols.empty()) {
      ASSIGN_OR_RETURN(cols, TableColumns(con, t.db, t.table));
    }
    if (t.format.kind == FileFormat::Kind::kJson) by_name = true;  // JSON keys name the columns
    // The files of `file_list` (a DuckDB list of paths) as one relation with the file's path in kSourceFileColumn.
    auto relation_of = [&](const std::string& file_list) -> std::string {
      if (t.format.kind == FileFormat::Kind::kCsv)
        return "read_csv(" + file_list + CsvReaderOptions(cols, t.format) + ", filename = '" + kSourceFileColumn +
               "')";
      if (t.format.kind == FileFormat::Kind::kParquet) {
        // As LoadParquet does, file by file: the files' own columns by name (cast to FILE_COLUMNS' types when
        // given). Files whose schemas differ fail the group, which then loads file by file.
        std::string select = "*";
        if (!t.file_columns.empty()) {
          select.clear();
          for (const auto& [name, type] : t.file_columns)
            select += "CAST(" + QuoteIdentifier(name) + " AS " + type + ") AS " + QuoteIdentifier(name) + ", ";
          select += kSourceFileColumn;
        }
        return "(SELECT " + select + " FROM read_parquet(" + file_list + ", filename = '" + kSourceFileColumn + "'))";
      }
      const FileFormat& f = t.format;
      std::string compression = f.compression == "auto" ? "auto_detect" : f.compression == "none" ? "uncompressed"
                                                                                                 : f.compression;
      // As LoadJson does, file by file: each column's value as text (JSON text for arrays and objects), converted
      // with CAST (LoadJson's TRY_CAST that finds no bad value), so a group loads exactly what its files would one by
      // one; a record that is not a JSON object fails the group (records = 'true') like it fails the file.
      std::vector<std::pair<std::string, std::string>> text_cols;
      std::string select;
      for (const auto& [name, type] : cols) {
        text_cols.emplace_back(name, "VARCHAR");
        select += "CAST(" + QuoteIdentifier(name) + " AS " + type + ") AS " + QuoteIdentifier(name) + ", ";
      }
      return "(SELECT " + select + kSourceFileColumn + " FROM read_json(" + file_list + ", format = " +
             QuoteLiteral(json_format) + ", records = 'true', compression = " + QuoteLiteral(compression) +
             ", columns = " + ColumnsStruct(text_cols) + ", filename = '" + kSourceFileColumn + "'))";
    };
    const std::string relation = relation_of(list);
    const std::string insert_sql =
        t.format.kind == FileFormat::Kind::kParquet
            ? "INSERT INTO " + table_sql + " BY NAME SELECT * EXCLUDE (" + kSourceFileColumn + ") FROM " + relation
            : "INSERT INTO " + table_sql + (by_name ? " (" + NameList(cols) + ")" : "") + " SELECT " +
                  NameList(cols) + " FROM " + relation;
    ASSIGN_OR_RETURN(auto ins, con.Query(insert_sql));
    // A Parquet file says how many rows it holds (its footer, which the INSERT has just read).
    auto take_counts = [&](const ResultSet& rs) -> Status {
      for (const auto& row : rs.rows) {
        auto it = row[0] ? index.find(*row[0]) : index.end();
        if (it == index.end() || !row[1]) return Status::Internal("rows from an unexpected file " + row[0].value_or(""));
        counted[it->second] = std::stoll(*row[1]);
      }
      return Status::Ok();
    };
    if (t.format.kind == FileFormat::Kind::kParquet) {
      ASSIGN_OR_RETURN(auto meta, con.Query("SELECT file_name, num_rows FROM parquet_file_metadata(" + list + ")"));
      RETURN_IF_ERROR(take_counts(*meta.result_set));
    }
    // The files not counted yet are read again by DuckDB, counting only (it skips converting the columns).
    std::string uncounted;
    for (size_t i = 0; i < locals.size(); i++)
      if (!counted[i]) uncounted += (uncounted.empty() ? "" : ", ") + QuoteLiteral(locals[i]);
    if (!uncounted.empty()) {
      ASSIGN_OR_RETURN(auto per_file, con.Query(std::string("SELECT ") + kSourceFileColumn + ", count(*) FROM " +
                                                relation_of("[" + uncounted + "]") + " GROUP BY 1"));
      RETURN_IF_ERROR(take_counts(*per_file.result_set));
    }
    int64_t total = 0;
    for (size_t i = 0; i < files.size(); i++) {
      rows[i] = counted[i].value_or(0);  // a file DuckDB found no row in has no count(*) group
      total += rows[i];
    }
    if (total != static_cast<int64_t>(ins.affected_rows))
      return Status::Internal("the files' rows (" + std::to_string(total) + ") do not add up to the rows inserted (" +
                              std::to_string(ins.affected_rows) + ")");
    int64_t now = WallClockMs();
    for (size_t i = 0; i < files.size(); i++) {
      records[i].rows_loaded = rows[i];
      records[i].error_rows = 0;
      records[i].status = "LOADED";
      RETURN_IF_ERROR(catalog::VolumeStore::RecordFileLoad(con, records[i], now));
      catalog::LoadHistoryEntry h = FileLoadHistory(t, records[i].file_url, start_ms, now);
      h.loaded_rows = rows[i];
      h.status = "LOADED";
      RETURN_IF_ERROR(catalog::RecordLoadHistory(con, h));
    }
    return TestPoint(PointsOf(t).inside_commit);
  }, PointsOf(t).commit));
  std::vector<FileLoadOutcome> out(files.size());
  for (size_t i = 0; i < files.size(); i++) {
    out[i].status = "LOADED";
    out[i].rows_loaded = rows[i];
  }
  return out;
}

Status VolumeStatus(const catalog::ResolvedVolume& volume, const Status& st) {
  if (st.ok()) return st;
  std::string where = volume.info.location.empty() ? volume.location.url : volume.info.location;
  if (!volume.info.connection.empty()) where += ", storage connection " + volume.info.connection;
  return Status(st.code(), "volume " + volume.info.name + " (" + where + "): " + st.message());
}

std::string ConciseLoadError(const std::string& message) {
  std::string head = message.substr(0, message.find("\n\n"));
  std::string out;
  size_t start = 0;
  while (start <= head.size()) {
    size_t end = head.find('\n', start);
    std::string line = head.substr(start, end == std::string::npos ? std::string::npos : end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) out += (out.empty() ? "" : "; ") + line;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out.empty() ? message : out;
}

Status RecordFileLoadFailure(storage::Connection& con, const catalog::ResolvedVolume& volume,
                             const source::VolumeFile& file, const VolumeLoadTarget& target,
                             const std::string& error, int64_t start_ms) {
  catalog::LoadHistoryEntry h = FileLoadHistory(target, volume.location.url + file.path, start_ms, WallClockMs());
  h.first_error = ConciseLoadError(error);
  h.status = "FAILED";
  return catalog::RecordFailedAttempt(con, h);
}

Result<std::vector<source::VolumeFile>> ChooseVolumeFiles(source::VolumeReader& reader, const VolumeCopyRequest& req) {
  bool recursive = req.volume.info.recursive || !req.files.empty();
  auto listing = reader.List(req.subdirectory.value_or(""), recursive);
  if (!listing.ok()) return VolumeStatus(req.volume, listing.status());
  auto listed = std::move(*listing);
  std::vector<source::VolumeFile> chosen;
  if (!req.files.empty()) {
    for (const auto& name : req.files) {
      std::string want = name;
      while (!want.empty() && want.front() == '/') want.erase(0, 1);
      auto it = std::find_if(listed.begin(), listed.end(), [&](const auto& f) { return f.path == want; });
      if (it == listed.end())
        return Status::NotFound("file '" + name + "' is not in volume " + req.volume.info.name + " (" +
                                req.volume.info.location + "); SELECT * FROM DIRECTORY(" + req.volume.info.name +
                                ") lists its files");
      if (std::find_if(chosen.begin(), chosen.end(), [&](const auto& f) { return f.path == want; }) == chosen.end())
        chosen.push_back(*it);
    }
  } else if (req.regexp) {
    std::regex re;
    try {
      re = std::regex(*req.regexp, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return Status::InvalidArgument("REGEXP '" + *req.regexp + "' is not a valid regular expression: " + e.what());
    }
    for (const auto& f : listed)
      if (std::regex_match(f.path, re)) chosen.push_back(f);
  } else {
    chosen = std::move(listed);
  }
  return chosen;
}

Result<ResultSet> CopyIntoFromVolume(storage::Connection& con, const VolumeCopyRequest& req) {
  const auto& t = req.target;
  // The table must exist before any file is touched.
  {
    auto cols = TableColumns(con, t.db, t.table);
    if (!cols.ok()) return cols.status();
  }
  ASSIGN_OR_RETURN(auto reader, source::OpenVolume(req.volume.location, req.volume.credentials));
  ASSIGN_OR_RETURN(std::vector<source::VolumeFile> chosen, ChooseVolumeFiles(*reader, req));
  ResultSet rs = CopyResultColumns();
  std::set<std::string> loaded;
  if (!req.force) {
    ASSIGN_OR_RETURN(loaded, catalog::VolumeStore::LoadedFileKeys(con, req.volume.location.url, t.db + "." + t.table));
  }
  std::vector<source::VolumeFile> todo;
  for (const auto& file : chosen)
    if (!loaded.count(catalog::VolumeStore::FileIdentityKey(req.volume.location.url + file.path, file.size,
                                                            file.last_modified_ms, file.etag)))
      todo.push_back(file);
  auto add_row = [&](const std::string& path, const FileLoadOutcome& o) {
    rs.rows.push_back({path, o.status, std::to_string(o.rows_loaded), std::to_string(o.error_rows),
                       o.first_error.empty() ? std::nullopt : std::optional<std::string>(o.first_error),
                       o.first_error_line ? std::optional<std::string>(std::to_string(o.first_error_line))
                                          : std::nullopt});
  };
  // One file in its own transaction; an error stops the statement.
  auto load_one = [&](const source::VolumeFile& file) -> Status {
    const int64_t start_ms = WallClockMs();
    auto outcome = LoadVolumeFile(con, *reader, req.volume, file, t, req.force);
    if (outcome.ok() && outcome->status == "SKIPPED") return Status::Ok();
    if (outcome.ok() && outcome->status == kFileChanged)  // the statement named a file that is not there any more
      outcome = Status::NotFound(outcome->first_error);
    if (!outcome.ok()) {
      if (Status st = RecordFileLoadFailure(con, req.volume, file, t, outcome.status().message(), start_ms); !st.ok())
        log::Warn("copy", "could not record the failed load of {} in load_history: {}", file.path, st.message());
      log::Warn("copy", "loading {} from volume {} into {}.{} failed: {}", file.path, req.volume.info.name, t.db,
                t.table, outcome.status().message());
      // ON_ERROR is about the files' contents: a store that cannot be reached or refuses access stops the
      // statement either way (every file after would fail the same, each after its retries).
      const Status& st = outcome.status();
      const bool store_fault = st.retriable() || st.code() == StatusCode::kAccessDenied;
      if (!t.continue_on_error || store_fault)
        return Status(st.code(), "COPY INTO stopped at file '" + file.path + "' of volume " + req.volume.info.name +
                                     " (nothing of it was loaded; files before it were): " + st.message() +
                                     (st.retriable() ? ". Run the COPY again once the store answers: the files "
                                                       "loaded are skipped" : ""));
      rs.rows.push_back({file.path, std::string("LOAD_FAILED"), std::string("0"), std::string("0"),
                         outcome.status().message(), std::nullopt});
      return Status::Ok();
    }
    add_row(file.path, *outcome);
    return Status::Ok();
  };
  size_t next = 0;
  while (next < todo.size()) {
    // Under ON_ERROR = ABORT without a transform, files go in groups, each loaded by one INSERT in one transaction;
    // a group that fails is loaded again file by file, which stops at the failing file as documented.
    std::vector<source::VolumeFile> group;
    int64_t bytes = 0;
    if (GroupLoadFits(t)) {
      while (next + group.size() < todo.size() && group.size() < kGroupMaxFiles &&
             (group.empty() || bytes + todo[next + group.size()].size <= kGroupMaxBytes)) {
        bytes += todo[next + group.size()].size;
        group.push_back(todo[next + group.size()]);
      }
    }
    if (group.size() >= 2) {
      auto outcomes = LoadVolumeGroup(con, *reader, req.volume, group, t, req.force);
      if (outcomes.ok()) {
        log::Info("copy", "loaded {} files ({} bytes) from volume {} into {}.{} in one transaction", group.size(),
                  bytes, req.volume.info.name, t.db, t.table);
        for (size_t i = 0; i < group.size(); i++) add_row(group[i].path, (*outcomes)[i]);
        next += group.size();
        continue;
      }
      log::Info("copy", "loading {} files from volume {} into {}.{} at once failed ({}); loading them one by one",
                group.size(), req.volume.info.name, t.db, t.table, outcomes.status().message());
      for (const auto& file : group) RETURN_IF_ERROR(load_one(file));
      next += group.size();
      continue;
    }
    RETURN_IF_ERROR(load_one(todo[next]));
    next++;
  }
  return rs;
}

}  // namespace sluice::load
