#include "storage/result_conversion.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "storage/duckdb_error_table.h"
#include "storage/storage_health.h"

namespace sluice::storage {

namespace {

bool Contains(const std::string& s, const char* needle) { return s.find(needle) != std::string::npos; }

// DuckDB prefixes messages with their class ("Catalog Error: ..."); users of a MySQL front door
// get the part that says what happened.
std::string StripPrefix(std::string msg) {
  static const char* kPrefixes[] = {"Catalog Error: ", "Parser Error: ", "Binder Error: ", "Conversion Error: ",
                                    "Constraint Error: ", "Invalid Input Error: ", "TransactionContext Error: ",
                                    "Not implemented Error: ", "Out of Range Error: ", "IO Error: "};
  for (const char* p : kPrefixes) {
    std::string prefix(p);
    if (msg.rfind(prefix, 0) == 0) return msg.substr(prefix.size());
  }
  return msg;
}

}  // namespace

namespace {

// The CHECK (strlen(c) <= n) that Sluice gives a VARCHAR(n)/CHAR(n) column (catalog/table_definition.cpp) failed:
// DuckDB says "CHECK constraint failed on table t with expression CHECK((strlen(c) <= 5))". Worded as MySQL's
// ER_DATA_TOO_LONG (the front door answers 1406); DuckDB does not say which row, so the message does not either.
std::optional<std::string> DataTooLong(const std::string& msg) {
  if (!Contains(msg, "CHECK constraint failed")) return std::nullopt;
  const size_t open = msg.find("CHECK((strlen(");
  if (open == std::string::npos) return std::nullopt;
  const size_t name_at = open + 14;
  const size_t close = msg.find(") <= ", name_at);
  if (close == std::string::npos) return std::nullopt;
  std::string column = msg.substr(name_at, close - name_at);
  if (column.size() >= 2 && column.front() == '"' && column.back() == '"') {
    column = column.substr(1, column.size() - 2);
    for (size_t i = column.find("\"\""); i != std::string::npos; i = column.find("\"\"", i + 1)) column.erase(i, 1);
  }
  size_t limit_end = close + 5;
  while (limit_end < msg.size() && msg[limit_end] >= '0' && msg[limit_end] <= '9') limit_end++;
  const std::string limit = msg.substr(close + 5, limit_end - close - 5);
  return "Data too long for column '" + column + "': a value is longer than its " + limit + " bytes";
}

// DuckDB's class of the error decides the code; the message table (duckdb_error_table.cpp) words it as MySQL does.
Status ErrorOfType(duckdb_error_type type, const std::string& raw) {
  const std::string msg = WithoutStackTrace(raw);  // DuckDB appends one to fatal and internal errors
  std::string text = StripPrefix(msg);
  // Sluice's own table functions (READ_KAFKA's egress and file checks) refuse in MySQL's words; DuckDB's own
  // refusals read "Permission Error". Kept as a refusal, so the client gets 1227, not 1105.
  if (text.rfind("Access denied", 0) == 0) return Status::AccessDenied(text);
  auto worded = [&](DuckDBErrorClass cls, StatusCode fallback) { return MysqlStatusFromDuckDB(cls, text, fallback); };
  switch (type) {
    case DUCKDB_ERROR_PARSER:
      return worded(DuckDBErrorClass::kParser, StatusCode::kSyntaxError);
    case DUCKDB_ERROR_CATALOG:
      if (Contains(msg, "Schema with name") && Contains(msg, "does not exist"))
        return worded(DuckDBErrorClass::kCatalog, StatusCode::kUnknownDatabase);
      if ((Contains(msg, "Table with name") || Contains(msg, "Table or view")) && Contains(msg, "does not exist"))
        return worded(DuckDBErrorClass::kCatalog, StatusCode::kUnknownTable);
      if (Contains(msg, "already exists")) return worded(DuckDBErrorClass::kCatalog, StatusCode::kAlreadyExists);
      return worded(DuckDBErrorClass::kCatalog, StatusCode::kNotFound);
    case DUCKDB_ERROR_BINDER:
      if (Contains(msg, "Referenced column") && Contains(msg, "not found"))
        return worded(DuckDBErrorClass::kBinder, StatusCode::kUnknownColumn);
      return worded(DuckDBErrorClass::kBinder, StatusCode::kInvalidArgument);
    case DUCKDB_ERROR_INTERRUPT:
      return Status::Timeout("the query was interrupted");
    case DUCKDB_ERROR_IO:
      return Status::IoError(WithoutDuckDBDecorations(text));
    case DUCKDB_ERROR_TRANSACTION:
      return Status::Conflict(WithoutDuckDBDecorations(text));
    case DUCKDB_ERROR_NOT_IMPLEMENTED:
      return worded(DuckDBErrorClass::kOther, StatusCode::kNotSupported);
    case DUCKDB_ERROR_CONSTRAINT:
      if (auto too_long = DataTooLong(msg)) return Status::InvalidArgument(*too_long);
      return worded(DuckDBErrorClass::kConstraint, StatusCode::kInvalidArgument);
    case DUCKDB_ERROR_INTERNAL:
    case DUCKDB_ERROR_FATAL:
      return Status::Internal(text);
    default:
      return worded(DuckDBErrorClass::kOther, StatusCode::kInvalidArgument);
  }
}

// A query that failed while its tasks ran (Connection::Query runs them one by one) comes back wrapped, with the
// class of the wrapper: "Conflict on update!" read as an invalid input would pause a job whose task only lost a
// fenced race. The class (and the message) is the wrapped error's.
constexpr std::string_view kPendingWrapper =
    "Invalid Input Error: Attempting to execute an unsuccessful or closed pending query result\nError: ";

bool IsWrapped(std::string_view msg) { return msg.substr(0, kPendingWrapper.size()) == kPendingWrapper; }

}  // namespace

Status ErrorFromResult(duckdb_result* result) {
  const char* raw = duckdb_result_error(result);
  if (raw && IsWrapped(raw)) return ErrorFromMessage(raw);
  return ErrorOfType(duckdb_result_error_type(result), raw ? raw : "unknown DuckDB error");
}

Status ErrorFromMessage(const std::string& msg) {
  if (IsWrapped(msg)) return ErrorFromMessage(msg.substr(kPendingWrapper.size()));
  static const std::pair<const char*, duckdb_error_type> kTypes[] = {
      {"Parser Error: ", DUCKDB_ERROR_PARSER},         {"Catalog Error: ", DUCKDB_ERROR_CATALOG},
      {"Binder Error: ", DUCKDB_ERROR_BINDER},         {"INTERRUPT Error: ", DUCKDB_ERROR_INTERRUPT},
      {"IO Error: ", DUCKDB_ERROR_IO},                 {"TransactionContext Error: ", DUCKDB_ERROR_TRANSACTION},
      {"Not implemented Error: ", DUCKDB_ERROR_NOT_IMPLEMENTED}, {"INTERNAL Error: ", DUCKDB_ERROR_INTERNAL},
      {"FATAL Error: ", DUCKDB_ERROR_FATAL},           {"Constraint Error: ", DUCKDB_ERROR_CONSTRAINT}};
  for (const auto& [prefix, type] : kTypes) {
    if (msg.rfind(prefix, 0) == 0) return ErrorOfType(type, msg);
  }
  return ErrorOfType(DUCKDB_ERROR_INVALID_INPUT, msg);
}

ValueType ValueTypeOf(duckdb_type type) {
  switch (type) {
    case DUCKDB_TYPE_BOOLEAN: return ValueType::kBoolean;
    case DUCKDB_TYPE_TINYINT: return ValueType::kTinyInt;
    case DUCKDB_TYPE_SMALLINT: return ValueType::kSmallInt;
    case DUCKDB_TYPE_INTEGER: return ValueType::kInteger;
    case DUCKDB_TYPE_BIGINT: return ValueType::kBigInt;
    case DUCKDB_TYPE_HUGEINT: return ValueType::kHugeInt;
    case DUCKDB_TYPE_UTINYINT: return ValueType::kUTinyInt;
    case DUCKDB_TYPE_USMALLINT: return ValueType::kUSmallInt;
    case DUCKDB_TYPE_UINTEGER: return ValueType::kUInteger;
    case DUCKDB_TYPE_UBIGINT: return ValueType::kUBigInt;
    case DUCKDB_TYPE_FLOAT: return ValueType::kFloat;
    case DUCKDB_TYPE_DOUBLE: return ValueType::kDouble;
    case DUCKDB_TYPE_DECIMAL: return ValueType::kDecimal;
    case DUCKDB_TYPE_VARCHAR: return ValueType::kVarchar;
    case DUCKDB_TYPE_BLOB: return ValueType::kBlob;
    case DUCKDB_TYPE_DATE: return ValueType::kDate;
    case DUCKDB_TYPE_TIME: return ValueType::kTime;
    case DUCKDB_TYPE_TIMESTAMP:
    case DUCKDB_TYPE_TIMESTAMP_S:
    case DUCKDB_TYPE_TIMESTAMP_MS:
    case DUCKDB_TYPE_TIMESTAMP_NS: return ValueType::kTimestamp;
    case DUCKDB_TYPE_TIMESTAMP_TZ: return ValueType::kTimestampTz;
    case DUCKDB_TYPE_INTERVAL: return ValueType::kInterval;
    default: return ValueType::kOther;
  }
}

ColumnInfo DescribeColumn(const char* name, duckdb_logical_type type) {
  ColumnInfo col;
  col.name = name ? name : "";
  // DuckDB names an unaliased count(*) "count_star()"; MySQL clients, BI tools and the docs expect the
  // expression as written, which MySQL uses for every unaliased column.
  if (col.name == "count_star()") col.name = "count(*)";
  duckdb_type t = duckdb_get_type_id(type);
  col.type = ValueTypeOf(t);
  if (t == DUCKDB_TYPE_DECIMAL) {
    col.decimal_width = duckdb_decimal_width(type);
    col.decimal_scale = duckdb_decimal_scale(type);
  }
  // JSON is a VARCHAR alias in DuckDB; clients show it better when told it is JSON.
  if (t == DUCKDB_TYPE_VARCHAR) {
    char* alias = duckdb_logical_type_get_alias(type);
    if (alias) {
      if (std::string(alias) == "JSON") col.type = ValueType::kJson;
      duckdb_free(alias);
    }
  }
  return col;
}

Result<StatementResult> ConvertResult(duckdb_result* result, const std::vector<ColumnInfo>& columns) {
  StatementResult out;
  duckdb_result_type kind = duckdb_result_return_type(*result);
  if (kind == DUCKDB_RESULT_TYPE_CHANGED_ROWS) {
    out.affected_rows = duckdb_rows_changed(result);
    return out;
  }
  if (kind == DUCKDB_RESULT_TYPE_NOTHING) return out;

  ResultSet rs;
  idx_t ncols = duckdb_column_count(result);
  for (idx_t c = 0; c < ncols; c++) {
    duckdb_logical_type lt = duckdb_column_logical_type(result, c);
    rs.columns.push_back(DescribeColumn(duckdb_column_name(result, c), lt));
    duckdb_destroy_logical_type(&lt);
  }
  std::vector<ColumnInfo> shown = columns.size() == ncols ? columns : rs.columns;
  idx_t nrows = duckdb_row_count(result);
  rs.rows.reserve(nrows);
  for (idx_t r = 0; r < nrows; r++) {
    Row row(ncols);
    for (idx_t c = 0; c < ncols; c++) {
      if (duckdb_value_is_null(result, c, r)) continue;
      if (rs.columns[c].type == ValueType::kBlob) {  // raw bytes, not DuckDB's escaped text
        duckdb_blob b = duckdb_value_blob(result, c, r);
        row[c] = std::string(static_cast<const char*>(b.data), b.size);
        duckdb_free(b.data);
        continue;
      }
      duckdb_string s = duckdb_value_string(result, c, r);
      if (s.data) {
        row[c] = std::string(s.data, s.size);
        // MySQL prints a whole double as 895, DuckDB as 895.0; clients and scripts expect MySQL's form.
        // (`shown`: a result rendered as text by DuckDB still trims its DOUBLE columns.)
        if ((shown[c].type == ValueType::kDouble || shown[c].type == ValueType::kFloat) &&
            row[c]->size() > 2 && row[c]->compare(row[c]->size() - 2, 2, ".0") == 0)
          row[c]->resize(row[c]->size() - 2);
        duckdb_free(s.data);
      } else {
        row[c] = std::string();
      }
    }
    rs.rows.push_back(std::move(row));
  }
  rs.columns = std::move(shown);
  out.result_set = std::move(rs);
  return out;
}

}  // namespace sluice::storage
