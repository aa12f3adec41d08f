#pragma once
// Implicit conversions the StarRocks way, written as DuckDB SQL that never fails at run time: a value that
// cannot be converted becomes NULL (TRY_CAST), so one bad row never fails a batch.
#include <string>
#include <vector>

#include "common/status.h"
#include "transform/time_zone.h"
#include "transform/typed_sql.h"

namespace sluice::transform {

// Text as string functions see it: numbers without a trailing ".0", booleans as 1/0, JSON strings unquoted.
std::string AsVarchar(const TypedSql& v, const TimeZone& tz);
// A condition: numbers are true when non-zero, text is read as a boolean ('true', '1', ...).
std::string AsBoolean(const TypedSql& v, const TimeZone& tz);
// A number for arithmetic: text becomes DOUBLE, booleans 1/0. Dates are refused (date_add and datediff exist).
Result<TypedSql> AsNumber(const TypedSql& v, const std::string& where);
// A whole number for positions, lengths and interval amounts.
std::string AsBigint(const TypedSql& v, const TimeZone& tz);
std::string AsDouble(const TypedSql& v, const TimeZone& tz);
// A wall-clock TIMESTAMP: text in the usual layouts ('2020-05-08 10:00:00', '2020-05-08', '20200508',
// '20200508100000', ISO 8601), dates at midnight, instants in the job's time zone.
std::string AsTimestamp(const TypedSql& v, const TimeZone& tz);

// Converts a value to a column or CAST type. Integers from text accept "12" and "12.0" but not "12.5"
// (DuckDB alone would round it to 13).
std::string ConvertTo(const TypedSql& v, const SqlType& target, const TimeZone& tz);

// Makes values comparable with each other (both sides of =, an IN list, BETWEEN bounds, CASE x WHEN ...):
// text against numbers compares as numbers, text against dates as dates, otherwise as text.
void CoerceForComparison(std::vector<TypedSql*> values, const TimeZone& tz);

// Gives values one result type (CASE branches, if(), coalesce()) and returns it: numbers stay numbers (DuckDB
// widens them), dates become DATETIME when mixed, anything else mixed becomes text.
SqlType UnifyResultTypes(std::vector<TypedSql*> values, const TimeZone& tz);

}  // namespace sluice::transform
