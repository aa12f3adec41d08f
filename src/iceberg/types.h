#pragma once
// Iceberg's primitive types (table spec, "Schemas and Data Types") and the mapping from the column types Sluice
// tables declare (DuckDB's type names) to them. Nested types (struct, list, map) are not written yet: a column of
// such a type is refused with a message naming it (README.md, "Type mapping").
#include <cstdint>
#include <string>

#include "common/status.h"

namespace sluice::iceberg {

enum class TypeId {
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kDecimal,
  kDate,
  kTime,
  kTimestamp,    // microseconds, no zone
  kTimestampTz,  // microseconds, UTC
  kString,
  kUuid,
  kFixed,
  kBinary,
};

struct Type {
  TypeId id = TypeId::kString;
  int precision = 0;  // decimal
  int scale = 0;      // decimal
  int length = 0;     // fixed

  bool operator==(const Type&) const = default;
  // The spec's JSON spelling: "long", "decimal(10, 2)", "fixed[16]", "timestamptz".
  std::string ToString() const;
  static Result<Type> Parse(const std::string& text);
};

inline Type MakeType(TypeId id) { return Type{id}; }
inline Type DecimalType(int precision, int scale) { return Type{TypeId::kDecimal, precision, scale, 0}; }

// DuckDB's name of a column type ("BIGINT", "VARCHAR", "DECIMAL(18,3)", "TIMESTAMP WITH TIME ZONE") -> Iceberg.
// Types Iceberg has no lossless home for (HUGEINT, UINTEGER's full range is fine in long, but UBIGINT is not,
// INTERVAL, nested types) are NotSupported with the advice to cast.
Result<Type> TypeFromDuckDb(const std::string& duckdb_type);
// The DuckDB type a reader of the table's Parquet files declares for a column of this Iceberg type.
std::string DuckDbTypeName(const Type& type);

}  // namespace sluice::iceberg
