#pragma once
// What the compiler needs to know about a DuckDB type: its broad class (which decides how values are coerced
// and converted) and its exact spelling (which goes into TRY_CAST).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "transform/expression.h"

namespace sluice::transform {

enum class TypeClass {
  kNull,  // the NULL literal: fits anywhere
  kBoolean,
  kInteger,  // TINYINT ... HUGEINT, unsigned too
  kFloat,    // FLOAT, DOUBLE
  kDecimal,
  kVarchar,
  kJson,
  kDate,
  kTimestamp,    // local date and time, StarRocks' DATETIME
  kTimestampTz,  // an instant; rendered in the job's time zone
  kTime,
  kList,
  kMap,
  kStruct,
  kInterval,  // only as an operand of date arithmetic
  kOther,     // BLOB, UUID, ...: compared and converted through VARCHAR
};

struct SqlType {
  TypeClass cls = TypeClass::kOther;
  std::string duckdb;                 // exact DuckDB type for casts; empty when only the class is known
  std::optional<int64_t> max_length;  // VARCHAR(n): values longer than n bytes are rejected, as in StarRocks
};

// Classifies a DuckDB type name such as "BIGINT", "DECIMAL(10,2)", "VARCHAR(26)", "INTEGER[]", "MAP(VARCHAR, INTEGER)".
SqlType ClassifyDuckDBType(std::string_view duckdb_type);

// The DuckDB type of a CAST target written the StarRocks/MySQL way (int, varchar(10), decimal(10,2), datetime ...).
Result<SqlType> CastTargetType(const TypeName& type);

// Element type of a list ("INTEGER[]" -> "INTEGER"), key and value types of a map ("MAP(VARCHAR, INTEGER)");
// empty when the type is not one.
std::string ListElementType(std::string_view list_type);
std::string MapValueType(std::string_view map_type);
std::string MapKeyType(std::string_view map_type);

inline bool IsNumeric(TypeClass c) {
  return c == TypeClass::kInteger || c == TypeClass::kFloat || c == TypeClass::kDecimal;
}
inline bool IsTemporal(TypeClass c) {
  return c == TypeClass::kDate || c == TypeClass::kTimestamp || c == TypeClass::kTimestampTz;
}

// "VARCHAR", "BIGINT", ...: how error messages name a class when no exact type is known.
const char* TypeClassName(TypeClass c);

}  // namespace sluice::transform
