// The information_schema framework: the per-statement reader, the per-session token and the table functions
// DuckDB calls when a rewritten query is bound (information_schema.h).
#include "executor/information_schema.h"

#include <atomic>
#include <ctime>
#include <mutex>
#include <random>

#include "common/ascii.h"
#include "sql/lexer.h"
#include "sql/parser.h"

namespace sluice {

namespace {

constexpr std::string_view kFunctionPrefix = "__sluice_is_";

// token -> session. The table functions are registered once per database; the token their argument carries says
// whose rows to return. Only the translator writes those calls: user SQL cannot name a __sluice function.
std::mutex& SessionsMutex() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, InformationSchemaSession*>& Sessions() {
  static std::map<std::string, InformationSchemaSession*> sessions;
  return sessions;
}

std::string NewToken() {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t salt = std::random_device{}();
  return std::to_string(++counter) + "-" + std::to_string(salt);
}

}  // namespace

Result<std::vector<std::string>> InformationSchemaReader::Databases() {
  if (!databases_) {
    ASSIGN_OR_RETURN(auto all, source_.catalog->ListDatabases());
    std::vector<std::string> seen;
    for (auto& d : all) {
      if (sql::EqualsIgnoreCase(d, "main") || sql::EqualsIgnoreCase(d, kInformationSchema)) continue;
      if (source_.sees_database(d)) seen.push_back(std::move(d));
    }
    databases_ = std::move(seen);
  }
  return *databases_;
}

Result<const std::vector<catalog::TableMeta>*> InformationSchemaReader::Tables() {
  if (!tables_) {
    ASSIGN_OR_RETURN(auto dbs, Databases());
    std::vector<catalog::TableMeta> out;
    for (const auto& d : dbs) {
      auto names = source_.catalog->ListTables(d);
      if (!names.ok()) continue;  // dropped since it was listed
      for (const auto& t : *names) {
        if (!source_.sees_table(d, t)) continue;
        auto meta = source_.catalog->DescribeTable(d, t);
        if (meta.ok()) out.push_back(std::move(meta).value());
      }
    }
    tables_ = std::move(out);
  }
  return &*tables_;
}

Result<const std::map<std::pair<std::string, std::string>, int64_t>*> InformationSchemaReader::RowEstimates() {
  if (!row_estimates_) {
    std::map<std::pair<std::string, std::string>, int64_t> out;
    ASSIGN_OR_RETURN(auto con, source_.db->Connect());
    ASSIGN_OR_RETURN(auto r, con->Query("SELECT schema_name, table_name, estimated_size FROM duckdb_tables() "
                                        "WHERE database_name = current_database()"));
    if (r.result_set) {
      for (const auto& row : r.result_set->rows) {
        if (row.size() == 3 && row[0] && row[1] && row[2]) out[{*row[0], *row[1]}] = std::stoll(*row[2]);
      }
    }
    row_estimates_ = std::move(out);
  }
  return &*row_estimates_;
}

Result<std::vector<std::string>> InformationSchemaReader::AllDatabases() {
  if (!all_databases_) {
    ASSIGN_OR_RETURN(auto all, source_.catalog->ListDatabases());
    std::erase_if(all, [](const std::string& d) {
      return sql::EqualsIgnoreCase(d, "main") || sql::EqualsIgnoreCase(d, kInformationSchema);
    });
    all_databases_ = std::move(all);
  }
  return *all_databases_;
}

const std::vector<scheduler::JobStatus>& InformationSchemaReader::JobStatuses() {
  if (!job_statuses_) job_statuses_ = source_.jobs ? source_.jobs->Statuses() : std::vector<scheduler::JobStatus>{};
  return *job_statuses_;
}

Result<std::vector<Row>> InformationSchemaReader::InternalQuery(const std::string& sql) {
  ASSIGN_OR_RETURN(auto con, source_.db->Connect());
  ASSIGN_OR_RETURN(auto r, con->Query(sql));
  if (!r.result_set) return std::vector<Row>{};
  return std::move(r.result_set->rows);
}

const InformationSchemaView* FindInformationSchemaView(std::string_view name) {
  for (const auto& v : InformationSchemaViews()) {
    if (sql::EqualsIgnoreCase(v.name, name)) return &v;
  }
  return nullptr;
}

Status RegisterInformationSchemaFunctions(storage::Database& db) {
  ASSIGN_OR_RETURN(auto con, db.Connect());
  for (const auto& view : InformationSchemaViews()) {
    const InformationSchemaView* v = &view;  // the list is static: it outlives every database
    RETURN_IF_ERROR(storage::RegisterRowsTableFunction(
        *con, std::string(kFunctionPrefix) + view.name, view.columns,
        [v](const std::string& token) -> Result<std::vector<Row>> {
          InformationSchemaSession* session = nullptr;
          {
            std::lock_guard<std::mutex> lock(SessionsMutex());
            auto it = Sessions().find(token);
            if (it != Sessions().end()) session = it->second;
          }
          // The producer runs on the session's own thread, inside its query: the session stays alive meanwhile.
          if (!session) return std::vector<Row>{};
          return session->Rows(*v);
        }));
  }
  return Status::Ok();
}

InformationSchemaSession::InformationSchemaSession(InformationSchemaSource source)
    : source_(std::move(source)), token_(NewToken()) {
  std::lock_guard<std::mutex> lock(SessionsMutex());
  Sessions()[token_] = this;
}

InformationSchemaSession::~InformationSchemaSession() {
  std::lock_guard<std::mutex> lock(SessionsMutex());
  Sessions().erase(token_);
}

void InformationSchemaSession::BeginStatement() {
  unknown_.clear();
  built_.clear();
  reader_.reset();
}

std::string InformationSchemaSession::Relation(std::string_view name) {
  const InformationSchemaView* view = FindInformationSchemaView(name);
  if (!view) {
    unknown_.emplace_back(name);
    return std::string(kFunctionPrefix) + "unknown(" + sql::QuoteLiteral(token_) + ")";
  }
  // MySQL compares information_schema's strings without regard to case (IS_NULLABLE = 'yes' holds, as
  // Connector/J's getColumns expects); DuckDB's NOCASE collation does the same.
  std::string select;
  for (const auto& c : view->columns) {
    std::string name = sql::QuoteIdentifier(c.name);
    select += (select.empty() ? "" : ", ") + name;
    if (c.type == ValueType::kVarchar) select += " COLLATE NOCASE AS " + name;
  }
  return "(SELECT " + select + " FROM " + std::string(kFunctionPrefix) + view->name + "(" +
         sql::QuoteLiteral(token_) + "))";
}

Status InformationSchemaSession::CheckNamedViews() const {
  if (unknown_.empty()) return Status::Ok();
  std::string known;
  for (const auto& v : InformationSchemaViews()) known += (known.empty() ? "" : ", ") + AsciiUpper(v.name);
  return Status::UnknownTable("Unknown table '" + unknown_.front() + "' in information_schema; it has " + known);
}

// Called while DuckDB binds the query, on the session's thread.
Result<std::vector<Row>> InformationSchemaSession::Rows(const InformationSchemaView& view) {
  auto it = built_.find(view.name);
  if (it != built_.end()) return it->second;
  if (!reader_) reader_ = std::make_unique<InformationSchemaReader>(source_);
  ASSIGN_OR_RETURN(std::vector<Row> rows, view.rows(*reader_));
  built_[view.name] = rows;
  return rows;
}

Result<std::vector<Row>> InformationSchemaSession::Rows(std::string_view name) {
  const InformationSchemaView* view = FindInformationSchemaView(name);
  if (!view) return Status::Internal("no information_schema view " + std::string(name));
  return Rows(*view);
}

namespace information_schema {

storage::RowsColumn Varchar(std::string name) { return {std::move(name), ValueType::kVarchar}; }
storage::RowsColumn BigInt(std::string name) { return {std::move(name), ValueType::kBigInt}; }
storage::RowsColumn Timestamp(std::string name) { return {std::move(name), ValueType::kTimestamp}; }

std::optional<std::string> TimestampFromMs(int64_t ms) {
  if (ms <= 0) return std::nullopt;
  return std::to_string(ms * 1000);
}

std::optional<std::string> TimestampFromText(const std::optional<std::string>& text) {
  if (!text || text->empty()) return std::nullopt;
  std::tm tm{};
  const char* end = strptime(text->c_str(), "%Y-%m-%d %H:%M:%S", &tm);
  if (!end || *end) return std::nullopt;
  return std::to_string(static_cast<int64_t>(timegm(&tm)) * 1000000);
}

int ColumnIndex(const ResultSet& rs, std::string_view name) {
  for (size_t i = 0; i < rs.columns.size(); i++)
    if (rs.columns[i].name == name) return static_cast<int>(i);
  return -1;
}

namespace {

// The type as written, without its arguments: "varchar(26)" -> "varchar", "decimal(10, 2)" -> "decimal".
std::string BaseType(const std::string& type_text) {
  std::string lower = AsciiLower(type_text);
  size_t end = lower.find_first_of("(<[ ");
  return lower.substr(0, end);
}

}  // namespace

std::string MysqlDataType(const catalog::ColumnMeta& c) {
  std::string base = BaseType(c.type_text.empty() ? c.duckdb_type : c.type_text);
  if (base == "boolean" || base == "bool") return "tinyint";
  if (base == "integer" || base == "int") return "int";
  if (base == "string" || base == "text") return "varchar";
  if (base == "largeint" || base == "hugeint") return "bigint";
  if (base == "timestamp") return "datetime";
  if (base == "decimalv2" || base == "decimal32" || base == "decimal64" || base == "decimal128" ||
      base == "numeric")
    return "decimal";
  if (base == "real") return "float";
  if (base == "array" || base == "map" || base == "struct") return base;
  if (base == "blob" || base == "varbinary" || base == "binary") return base;
  return base;
}

std::string MysqlColumnType(const catalog::ColumnMeta& c) {
  std::string t = AsciiLower(c.type_text.empty() ? c.duckdb_type : c.type_text);
  if (t == "boolean" || t == "bool") return "tinyint(1)";
  if (t == "integer") return "int";
  return t;
}

std::vector<std::string> KeyColumns(const catalog::TableMeta& t) {
  if (!t.key_columns.empty()) return t.key_columns;
  std::vector<std::string> out;
  for (const auto& c : t.columns)
    if (c.is_key) out.push_back(c.name);
  return out;
}

bool KeyIsUnique(const catalog::TableMeta& t) {
  return t.key_model == "PRIMARY" || t.key_model == "UNIQUE" || t.key_model == "AGGREGATE";
}

}  // namespace information_schema

}  // namespace sluice
