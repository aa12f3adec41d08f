#include "catalog/type_mapping.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "common/ascii.h"
#include "sql/parser.h"

namespace sluice::catalog {

namespace {

// Scalar types without parameters that matter to DuckDB.
const std::map<std::string, std::string>& ScalarTypes() {
  static const std::map<std::string, std::string> kTypes = {
      {"TINYINT", "TINYINT"},       {"SMALLINT", "SMALLINT"},       {"INT", "INTEGER"},
      {"INTEGER", "INTEGER"},       {"BIGINT", "BIGINT"},           {"LARGEINT", "HUGEINT"},
      {"FLOAT", "FLOAT"},           {"DOUBLE", "DOUBLE"},           {"REAL", "FLOAT"},
      {"BOOLEAN", "BOOLEAN"},       {"BOOL", "BOOLEAN"},            {"STRING", "VARCHAR"},
      {"TEXT", "VARCHAR"},          {"VARCHAR", "VARCHAR"},         {"CHAR", "VARCHAR"},
      {"DATE", "DATE"},             {"DATETIME", "TIMESTAMP"},      {"TIMESTAMP", "TIMESTAMP"},
      {"TIMESTAMP_NTZ", "TIMESTAMP"}, {"TIMESTAMP_LTZ", "TIMESTAMPTZ"}, {"TIME", "TIME"},
      {"JSON", "JSON"},             {"JSONB", "JSON"},              {"BINARY", "BLOB"},
      {"VARBINARY", "BLOB"},        {"BLOB", "BLOB"},               {"UUID", "UUID"},
  };
  return kTypes;
}

bool IsDecimal(const std::string& n) {
  return n == "DECIMAL" || n == "DECIMALV2" || n == "DECIMALV3" || n == "DECIMAL32" || n == "DECIMAL64" ||
         n == "DECIMAL128" || n == "NUMERIC";
}

Status Unsupported(const std::string& name) {
  return Status::NotSupported(
      "column type '" + name +
      "' is not supported; use one of tinyint, smallint, int, bigint, largeint, float, double, decimal(p,s), "
      "boolean, char(n), varchar(n), string, date, datetime, timestamp, json, binary, array<T>, map<K,V>, "
      "struct<name T, ...>");
}

}  // namespace

Result<std::string> ToDuckDBType(const sql::TypeSpec& type) {
  const std::string& n = type.name;
  if (IsDecimal(n)) {
    int64_t p = type.params.size() > 0 ? type.params[0] : 10;
    int64_t s = type.params.size() > 1 ? type.params[1] : 0;
    if (p < 1 || p > 38) return Status::InvalidArgument("decimal precision must be between 1 and 38, got " + std::to_string(p));
    if (s < 0 || s > p) return Status::InvalidArgument("decimal scale must be between 0 and the precision " + std::to_string(p) + ", got " + std::to_string(s));
    return "DECIMAL(" + std::to_string(p) + "," + std::to_string(s) + ")";
  }
  if (n == "ARRAY") {
    if (type.children.size() != 1) return Status::InvalidArgument("array<T> takes one element type");
    ASSIGN_OR_RETURN(std::string child, ToDuckDBType(type.children[0]));
    return child + "[]";
  }
  if (n == "MAP") {
    if (type.children.size() != 2) return Status::InvalidArgument("map<K,V> takes a key and a value type");
    ASSIGN_OR_RETURN(std::string k, ToDuckDBType(type.children[0]));
    ASSIGN_OR_RETURN(std::string v, ToDuckDBType(type.children[1]));
    return "MAP(" + k + ", " + v + ")";
  }
  if (n == "STRUCT") {
    if (type.children.empty() || type.children.size() != type.field_names.size())
      return Status::InvalidArgument("struct<...> needs at least one named field");
    std::string out = "STRUCT(";
    for (size_t i = 0; i < type.children.size(); i++) {
      ASSIGN_OR_RETURN(std::string child, ToDuckDBType(type.children[i]));
      if (i) out += ", ";
      out += sql::QuoteIdentifier(type.field_names[i]) + " " + child;
    }
    return out + ")";
  }
  auto it = ScalarTypes().find(n);
  if (it == ScalarTypes().end()) return Unsupported(AsciiLower(n));
  return it->second;
}

std::string DisplayType(const sql::TypeSpec& type) {
  std::string n = AsciiLower(type.name);
  if (n == "array" && type.children.size() == 1) return "array<" + DisplayType(type.children[0]) + ">";
  if (n == "map" && type.children.size() == 2)
    return "map<" + DisplayType(type.children[0]) + "," + DisplayType(type.children[1]) + ">";
  if (n == "struct") {
    std::string out = "struct<";
    for (size_t i = 0; i < type.children.size() && i < type.field_names.size(); i++) {
      if (i) out += ", ";
      out += type.field_names[i] + " " + DisplayType(type.children[i]);
    }
    return out + ">";
  }
  // bigint(20) and int(11) are display widths in MySQL; they change nothing, so DESC leaves them out.
  bool width_only = n == "tinyint" || n == "smallint" || n == "int" || n == "integer" || n == "bigint" ||
                    n == "largeint";
  if (type.params.empty() || width_only) return n;
  std::string out = n + "(";
  for (size_t i = 0; i < type.params.size(); i++) out += (i ? "," : "") + std::to_string(type.params[i]);
  return out + ")";
}

std::optional<int64_t> VarcharByteLimit(const std::string& type_text) {
  const std::string t = AsciiLower(type_text);
  size_t open = t.rfind("varchar(", 0) == 0 ? 7 : t.rfind("char(", 0) == 0 ? 4 : std::string::npos;
  if (open == std::string::npos || t.size() < open + 3 || t.back() != ')') return std::nullopt;
  const std::string n = t.substr(open + 1, t.size() - open - 2);
  if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoll(n);
}

std::string DisplayDuckDBType(const std::string& duckdb_type) {
  static const std::map<std::string, std::string> kNames = {
      {"INTEGER", "int"},     {"BIGINT", "bigint"},     {"SMALLINT", "smallint"},  {"TINYINT", "tinyint"},
      {"HUGEINT", "largeint"}, {"VARCHAR", "varchar"},  {"TIMESTAMP", "datetime"}, {"BOOLEAN", "boolean"},
      {"DOUBLE", "double"},   {"FLOAT", "float"},       {"DATE", "date"},          {"JSON", "json"},
      {"BLOB", "varbinary"},
  };
  auto it = kNames.find(duckdb_type);
  return it != kNames.end() ? it->second : AsciiLower(duckdb_type);
}

}  // namespace sluice::catalog
