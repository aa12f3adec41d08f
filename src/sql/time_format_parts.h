#pragma once
// What a MySQL date format ('%Y-%m-%d %H:%i:%s', the specifiers of date_format and str_to_date) reads or writes:
// a calendar date, a time of day, or both. MySQL types STR_TO_DATE's result by it (DATE, TIME or DATETIME), and the
// loads' str_to_date yields a DATE when the format has no time of day. StarRocks' Java-style aliases 'yyyyMMdd',
// 'yyyy-MM-dd' and 'yyyy-MM-dd HH:mm:ss' count too.
#include <string_view>

namespace sluice::sql {

struct TimeFormatParts {
  bool date = false;         // a year, month, day, week or weekday specifier
  bool time_of_day = false;  // an hour, minute, second, fraction or AM/PM specifier
};

TimeFormatParts PartsOfTimeFormat(std::string_view mysql_format);

}  // namespace sluice::sql
