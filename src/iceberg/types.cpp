#include "iceberg/types.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdio>

namespace sluice::iceberg {
namespace {

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) b++;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) e--;
  return s.substr(b, e - b);
}

}  // namespace

std::string Type::ToString() const {
  switch (id) {
    case TypeId::kBoolean: return "boolean";
    case TypeId::kInt: return "int";
    case TypeId::kLong: return "long";
    case TypeId::kFloat: return "float";
    case TypeId::kDouble: return "double";
    case TypeId::kDecimal: return fmt::format("decimal({}, {})", precision, scale);
    case TypeId::kDate: return "date";
    case TypeId::kTime: return "time";
    case TypeId::kTimestamp: return "timestamp";
    case TypeId::kTimestampTz: return "timestamptz";
    case TypeId::kString: return "string";
    case TypeId::kUuid: return "uuid";
    case TypeId::kFixed: return fmt::format("fixed[{}]", length);
    case TypeId::kBinary: return "binary";
  }
  return "string";
}

Result<Type> Type::Parse(const std::string& raw) {
  std::string text = Trim(raw);
  static const struct {
    const char* name;
    TypeId id;
  } kSimple[] = {{"boolean", TypeId::kBoolean}, {"int", TypeId::kInt},         {"long", TypeId::kLong},
                 {"float", TypeId::kFloat},     {"double", TypeId::kDouble},   {"date", TypeId::kDate},
                 {"time", TypeId::kTime},       {"timestamp", TypeId::kTimestamp},
                 {"timestamptz", TypeId::kTimestampTz}, {"string", TypeId::kString},
                 {"uuid", TypeId::kUuid},       {"binary", TypeId::kBinary}};
  for (const auto& s : kSimple) {
    if (text == s.name) return MakeType(s.id);
  }
  int a = 0, b = 0;
  if (std::sscanf(text.c_str(), "decimal(%d ,%d)", &a, &b) == 2 || std::sscanf(text.c_str(), "decimal(%d, %d)", &a, &b) == 2) {
    return DecimalType(a, b);
  }
  if (std::sscanf(text.c_str(), "fixed[%d]", &a) == 1) return Type{TypeId::kFixed, 0, 0, a};
  return Status::NotSupported(fmt::format(
      "Iceberg type '{}' is not supported by Sluice yet (nested types, timestamp_ns, variant and geometry are not); "
      "only primitive columns can be read and written", raw));
}

Result<Type> TypeFromDuckDb(const std::string& raw) {
  std::string t = Upper(Trim(raw));
  if (t == "BOOLEAN" || t == "BOOL") return MakeType(TypeId::kBoolean);
  // Narrow integers widen to int; UINTEGER fits in long. Iceberg has no unsigned or 8/16-bit integers.
  if (t == "TINYINT" || t == "SMALLINT" || t == "INTEGER" || t == "INT" || t == "UTINYINT" || t == "USMALLINT" ||
      t == "INT1" || t == "INT2" || t == "INT4") {
    return MakeType(TypeId::kInt);
  }
  if (t == "BIGINT" || t == "INT8" || t == "UINTEGER" || t == "LONG") return MakeType(TypeId::kLong);
  if (t == "FLOAT" || t == "REAL" || t == "FLOAT4") return MakeType(TypeId::kFloat);
  if (t == "DOUBLE" || t == "FLOAT8") return MakeType(TypeId::kDouble);
  if (t == "DATE") return MakeType(TypeId::kDate);
  if (t == "TIME") return MakeType(TypeId::kTime);
  if (t == "TIMESTAMP" || t == "DATETIME" || t == "TIMESTAMP_US") return MakeType(TypeId::kTimestamp);
  if (t == "TIMESTAMP WITH TIME ZONE" || t == "TIMESTAMPTZ") return MakeType(TypeId::kTimestampTz);
  if (t == "VARCHAR" || t == "TEXT" || t == "STRING" || t == "JSON" || t.rfind("VARCHAR(", 0) == 0 ||
      t.rfind("CHAR", 0) == 0) {
    return MakeType(TypeId::kString);
  }
  if (t == "UUID") return MakeType(TypeId::kUuid);
  if (t == "BLOB" || t == "BYTEA" || t == "VARBINARY" || t == "BINARY") return MakeType(TypeId::kBinary);
  int p = 0, s = 0;
  if (std::sscanf(t.c_str(), "DECIMAL(%d,%d)", &p, &s) == 2 || std::sscanf(t.c_str(), "DECIMAL(%d, %d)", &p, &s) == 2 ||
      std::sscanf(t.c_str(), "NUMERIC(%d,%d)", &p, &s) == 2) {
    if (p < 1 || p > 38 || s < 0 || s > p) {
      return Status::InvalidArgument(fmt::format("column type {} is not a valid Iceberg decimal (precision 1..38)", raw));
    }
    return DecimalType(p, s);
  }
  if (t == "DECIMAL" || t == "NUMERIC") return DecimalType(18, 3);  // DuckDB's default
  return Status::NotSupported(fmt::format(
      "column type {} has no Iceberg type Sluice writes (supported: BOOLEAN, TINYINT..BIGINT, FLOAT, DOUBLE, "
      "DECIMAL(p,s), DATE, TIME, TIMESTAMP, TIMESTAMPTZ, VARCHAR, UUID, BLOB); cast it to one of those", raw));
}

std::string DuckDbTypeName(const Type& type) {
  switch (type.id) {
    case TypeId::kBoolean: return "BOOLEAN";
    case TypeId::kInt: return "INTEGER";
    case TypeId::kLong: return "BIGINT";
    case TypeId::kFloat: return "FLOAT";
    case TypeId::kDouble: return "DOUBLE";
    case TypeId::kDecimal: return fmt::format("DECIMAL({},{})", type.precision, type.scale);
    case TypeId::kDate: return "DATE";
    case TypeId::kTime: return "TIME";
    case TypeId::kTimestamp: return "TIMESTAMP";
    case TypeId::kTimestampTz: return "TIMESTAMPTZ";
    case TypeId::kString: return "VARCHAR";
    case TypeId::kUuid: return "UUID";
    case TypeId::kFixed:
    case TypeId::kBinary: return "BLOB";
  }
  return "VARCHAR";
}

}  // namespace sluice::iceberg
