#pragma once
// MySQL/StarRocks date formats ('%Y-%m-%d %H:%i:%s') differ from DuckDB's strftime/strptime ones
// ('%Y-%m-%d %H:%M:%S'): %i is minutes, %s seconds, %M the month name, %W the weekday name, %e/%c/%k/%l unpadded.
#include <string>
#include <string_view>

#include "common/status.h"

namespace sluice::transform {

// Translates a MySQL format for DuckDB's strftime and strptime. StarRocks' Java-style aliases 'yyyyMMdd',
// 'yyyy-MM-dd' and 'yyyy-MM-dd HH:mm:ss' are accepted too. A specifier DuckDB cannot express (%D, %V, %X) is an
// InvalidArgument; any other unknown %x stands for x, as in MySQL.
Result<std::string> ToDuckDBTimeFormat(std::string_view mysql_format);

// Whether the format reads or writes a time of day (then str_to_date yields DATETIME, otherwise DATE).
bool TimeFormatHasTimeOfDay(std::string_view mysql_format);

// The same translation as DuckDB SQL, for the session macros of user SQL (date_format(d, f) with f a macro
// parameter): nested replace() calls built from the same specifier table, which DuckDB folds to a constant when
// the call's format is a literal (strftime takes constant formats only). Specifiers DuckDB cannot express stay
// as written.
std::string DuckDBTimeFormatSql(const std::string& format_sql);
// SQL that is true when the format (SQL, evaluated at run time) reads or writes a time of day.
std::string TimeFormatHasTimeOfDaySql(const std::string& format_sql);

}  // namespace sluice::transform
