#pragma once
// Value: one typed scalar of an Iceberg column, as partition values and column bounds need them. Built from the
// text DuckDB renders (parquet_metadata's stats_min_value, a query result), compared in the type's order, and shown
// the way partition paths show it.
#include <cstdint>
#include <string>
#include <variant>

#include "common/status.h"
#include "iceberg/types.h"

namespace sluice::iceberg {

using Int128 = __int128;

struct Value {
  Type type;
  // null | boolean | int, date | long, time, timestamp(tz) | float | double | string, binary, fixed, uuid (16 raw
  // bytes) | decimal's unscaled value
  std::variant<std::monostate, bool, int32_t, int64_t, float, double, std::string, Int128> v;

  bool is_null() const { return std::holds_alternative<std::monostate>(v); }
  static Value Null(Type t) { return Value{t, std::monostate{}}; }
};

// Parses DuckDB's text form of a value of `type`: "2024-05-01 10:00:00[.123456][+00]", "12.34", "true", a UUID's
// 36 characters. Blobs are not parsed (their text is escaped): InvalidArgument.
Result<Value> ParseValueText(const Type& type, const std::string& text);
// <0, 0, >0. Both values must have the same type and not be null.
int CompareValues(const Value& a, const Value& b);
// "2024-05-01", "2024-05-01 10:00:00", "12.34", "abc": for partition paths and messages.
std::string ValueToText(const Value& value);

// Calendar helpers (proleptic Gregorian, UTC): days since 1970-01-01 <-> y/m/d.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);
void CivilFromDays(int64_t days, int64_t* y, unsigned* m, unsigned* d);

}  // namespace sluice::iceberg
