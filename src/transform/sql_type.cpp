#include "transform/sql_type.h"

#include <array>
#include <utility>

#include "common/ascii.h"
#include "sql/lexer.h"

namespace sluice::transform {

namespace {

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\n");
  return std::string(s.substr(b, e - b + 1));
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Splits "K, V" at top-level commas (not inside parentheses).
std::pair<std::string, std::string> SplitPair(std::string_view inner) {
  int level = 0;
  for (size_t i = 0; i < inner.size(); i++) {
    if (inner[i] == '(') level++;
    if (inner[i] == ')') level--;
    if (inner[i] == ',' && level == 0) return {Trim(inner.substr(0, i)), Trim(inner.substr(i + 1))};
  }
  return {Trim(inner), ""};
}

struct NamedClass {
  std::string_view name;
  TypeClass cls;
};

constexpr std::array<NamedClass, 36> kScalarNames = {{
    {"TINYINT", TypeClass::kInteger},    {"SMALLINT", TypeClass::kInteger},  {"INTEGER", TypeClass::kInteger},
    {"INT", TypeClass::kInteger},        {"BIGINT", TypeClass::kInteger},    {"HUGEINT", TypeClass::kInteger},
    {"UTINYINT", TypeClass::kInteger},   {"USMALLINT", TypeClass::kInteger}, {"UINTEGER", TypeClass::kInteger},
    {"UBIGINT", TypeClass::kInteger},    {"UHUGEINT", TypeClass::kInteger},  {"INT1", TypeClass::kInteger},
    {"INT2", TypeClass::kInteger},       {"INT4", TypeClass::kInteger},      {"INT8", TypeClass::kInteger},
    {"FLOAT", TypeClass::kFloat},        {"DOUBLE", TypeClass::kFloat},      {"REAL", TypeClass::kFloat},
    {"FLOAT4", TypeClass::kFloat},       {"FLOAT8", TypeClass::kFloat},      {"BOOLEAN", TypeClass::kBoolean},
    {"BOOL", TypeClass::kBoolean},       {"VARCHAR", TypeClass::kVarchar},   {"TEXT", TypeClass::kVarchar},
    {"STRING", TypeClass::kVarchar},     {"CHAR", TypeClass::kVarchar},      {"BPCHAR", TypeClass::kVarchar},
    {"DATE", TypeClass::kDate},          {"TIMESTAMP", TypeClass::kTimestamp}, {"DATETIME", TypeClass::kTimestamp},
    {"TIMESTAMP_US", TypeClass::kTimestamp}, {"TIMESTAMP_MS", TypeClass::kTimestamp},
    {"TIMESTAMP_S", TypeClass::kTimestamp},  {"TIMESTAMPTZ", TypeClass::kTimestampTz},
    {"TIME", TypeClass::kTime},          {"JSON", TypeClass::kJson},
}};

}  // namespace

SqlType ClassifyDuckDBType(std::string_view duckdb_type) {
  // Classify on the upper-cased name, but keep the spelling: struct field names inside may be case-sensitive.
  std::string t = AsciiUpper(Trim(duckdb_type));
  SqlType out;
  out.duckdb = Trim(duckdb_type);
  if (!t.empty() && t.back() == ']') {
    out.cls = TypeClass::kList;
  } else if (StartsWith(t, "MAP(")) {
    out.cls = TypeClass::kMap;
  } else if (StartsWith(t, "STRUCT(")) {
    out.cls = TypeClass::kStruct;
  } else if (StartsWith(t, "DECIMAL") || StartsWith(t, "NUMERIC")) {
    out.cls = TypeClass::kDecimal;
  } else if (t == "TIMESTAMP WITH TIME ZONE") {
    out.cls = TypeClass::kTimestampTz;
  } else if ((StartsWith(t, "VARCHAR(") || StartsWith(t, "CHAR(")) && t.back() == ')') {
    out.cls = TypeClass::kVarchar;
    out.duckdb = "VARCHAR";
    std::string n = Trim(t.substr(t.find('(') + 1, t.size() - t.find('(') - 2));
    if (!n.empty() && n.size() < 10 && n.find_first_not_of("0123456789") == std::string::npos)
      out.max_length = std::stoll(n);
  } else {
    for (const auto& [name, cls] : kScalarNames) {
      if (t == name) {
        out.cls = cls;
        out.duckdb = t;
        if (cls == TypeClass::kVarchar) out.duckdb = "VARCHAR";
        if (name == "DATETIME") out.duckdb = "TIMESTAMP";
        return out;
      }
    }
    out.cls = TypeClass::kOther;
  }
  return out;
}

Result<SqlType> CastTargetType(const TypeName& type) {
  const std::string& n = type.name;
  auto scalar = [&](TypeClass cls, std::string duckdb) -> Result<SqlType> {
    SqlType t;
    t.cls = cls;
    t.duckdb = std::move(duckdb);
    return t;
  };
  if (n == "ARRAY") {
    if (type.element.empty()) return Status::InvalidArgument("ARRAY in CAST needs its element type, e.g. ARRAY<INT>");
    ASSIGN_OR_RETURN(SqlType element, CastTargetType(type.element[0]));
    return ClassifyDuckDBType(element.duckdb + "[]");
  }
  if (n == "TINYINT") return scalar(TypeClass::kInteger, "TINYINT");
  if (n == "SMALLINT") return scalar(TypeClass::kInteger, "SMALLINT");
  if (n == "INT" || n == "INTEGER") return scalar(TypeClass::kInteger, "INTEGER");
  if (n == "BIGINT" || n == "SIGNED") return scalar(TypeClass::kInteger, "BIGINT");
  if (n == "UNSIGNED") return scalar(TypeClass::kInteger, "UBIGINT");
  if (n == "LARGEINT") return scalar(TypeClass::kInteger, "HUGEINT");
  if (n == "FLOAT") return scalar(TypeClass::kFloat, "FLOAT");
  if (n == "DOUBLE" || n == "REAL") return scalar(TypeClass::kFloat, "DOUBLE");
  if (n == "BOOLEAN" || n == "BOOL") return scalar(TypeClass::kBoolean, "BOOLEAN");
  if (n == "CHAR" || n == "VARCHAR" || n == "STRING" || n == "TEXT") return scalar(TypeClass::kVarchar, "VARCHAR");
  if (n == "DATE") return scalar(TypeClass::kDate, "DATE");
  if (n == "DATETIME" || n == "TIMESTAMP") return scalar(TypeClass::kTimestamp, "TIMESTAMP");
  if (n == "TIME") return scalar(TypeClass::kTime, "TIME");
  if (n == "JSON" || n == "JSONB") return scalar(TypeClass::kJson, "JSON");
  if (n == "BINARY" || n == "VARBINARY") return scalar(TypeClass::kOther, "BLOB");
  if (n == "DECIMAL" || n == "DECIMALV2" || n == "DECIMALV3" || n == "DECIMAL32" || n == "DECIMAL64" ||
      n == "DECIMAL128" || n == "NUMERIC") {
    // MySQL's default for a bare DECIMAL is DECIMAL(10,0).
    int64_t p = type.params.size() > 0 ? type.params[0] : 10;
    int64_t s = type.params.size() > 1 ? type.params[1] : 0;
    if (type.params.size() > 2 || p < 1 || p > 38 || s < 0 || s > p)
      return Status::InvalidArgument("DECIMAL(p,s) needs 1 <= p <= 38 and 0 <= s <= p, got " + n + "(" +
                                     std::to_string(p) + "," + std::to_string(s) + ")");
    return scalar(TypeClass::kDecimal, "DECIMAL(" + std::to_string(p) + "," + std::to_string(s) + ")");
  }
  return Status::InvalidArgument("unknown type '" + AsciiLower(n) +
                                 "' in CAST; use one of tinyint, smallint, int, bigint, largeint, signed, unsigned, "
                                 "float, double, decimal(p,s), boolean, char, varchar, string, date, datetime, "
                                 "time, json, varbinary, array<type>");
}

std::string ListElementType(std::string_view list_type) {
  std::string t = Trim(list_type);
  if (t.empty() || t.back() != ']') return "";
  size_t open = t.rfind('[');
  return open == std::string::npos ? "" : Trim(t.substr(0, open));
}

std::string MapValueType(std::string_view map_type) {
  std::string t = Trim(map_type);
  if (!StartsWith(AsciiUpper(t), "MAP(") || t.back() != ')') return "";
  return SplitPair(std::string_view(t).substr(4, t.size() - 5)).second;
}

std::string MapKeyType(std::string_view map_type) {
  std::string t = Trim(map_type);
  if (!StartsWith(AsciiUpper(t), "MAP(") || t.back() != ')') return "";
  return SplitPair(std::string_view(t).substr(4, t.size() - 5)).first;
}

const char* TypeClassName(TypeClass c) {
  switch (c) {
    case TypeClass::kNull: return "NULL";
    case TypeClass::kBoolean: return "BOOLEAN";
    case TypeClass::kInteger: return "BIGINT";
    case TypeClass::kFloat: return "DOUBLE";
    case TypeClass::kDecimal: return "DECIMAL";
    case TypeClass::kVarchar: return "VARCHAR";
    case TypeClass::kJson: return "JSON";
    case TypeClass::kDate: return "DATE";
    case TypeClass::kTimestamp: return "DATETIME";
    case TypeClass::kTimestampTz: return "TIMESTAMPTZ";
    case TypeClass::kTime: return "TIME";
    case TypeClass::kList: return "ARRAY";
    case TypeClass::kMap: return "MAP";
    case TypeClass::kStruct: return "STRUCT";
    case TypeClass::kInterval: return "INTERVAL";
    case TypeClass::kOther: return "value";
  }
  return "value";
}

}  // namespace sluice::transform
