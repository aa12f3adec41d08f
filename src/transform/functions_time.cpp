// Date and time functions. StarRocks' DATETIME is a wall-clock time in the job's time zone, which is DuckDB's
// TIMESTAMP; instants (unix seconds, now()) are turned into it with the job's zone through DuckDB's ICU.
// Format strings are MySQL's, translated at compile time, so they must be literals.
#include "sql/parser.h"
#include "transform/coercion.h"
#include "transform/function_map.h"
#include "transform/time_format.h"

namespace sluice::transform {

namespace {

TypedSql Timestamp(std::string sql) { return MakeTyped(std::move(sql), TypeClass::kTimestamp, "TIMESTAMP"); }
TypedSql Date(std::string sql) { return MakeTyped(std::move(sql), TypeClass::kDate, "DATE"); }
TypedSql Bigint(std::string sql) { return MakeTyped(std::move(sql), TypeClass::kInteger, "BIGINT"); }
TypedSql Text(std::string sql) { return MakeTyped(std::move(sql), TypeClass::kVarchar, "VARCHAR"); }

Result<std::string> Format(const TypedSql& arg, const CallSite& site) {
  ASSIGN_OR_RETURN(std::string mysql, ConstantArgument(arg, site, "format"));
  Result<std::string> duck = ToDuckDBTimeFormat(mysql);
  if (!duck.ok()) return site.Error(duck.status().message());
  return sql::QuoteLiteral(*duck);
}

std::string Ts(const TypedSql& v, const CallSite& site) { return AsTimestamp(v, site.tz); }

// StarRocks' DATETIME has whole seconds; DuckDB's now() carries microseconds.
std::string LocalNow(const CallSite& site) { return "date_trunc('second', " + site.tz.ToLocal("now()") + ")"; }

Result<TypedSql> Now(std::vector<TypedSql>&, const CallSite& site) { return Timestamp(LocalNow(site)); }
Result<TypedSql> UtcNow(std::vector<TypedSql>&, const CallSite&) {
  return Timestamp("date_trunc('second', timezone('UTC', now()))");
}
Result<TypedSql> CurDate(std::vector<TypedSql>&, const CallSite& site) {
  return Date("CAST(" + LocalNow(site) + " AS DATE)");
}
Result<TypedSql> UtcDate(std::vector<TypedSql>&, const CallSite&) {
  return Date("CAST(timezone('UTC', now()) AS DATE)");
}
Result<TypedSql> CurTime(std::vector<TypedSql>&, const CallSite& site) {
  return MakeTyped("CAST(" + LocalNow(site) + " AS TIME)", TypeClass::kTime, "TIME");
}

Result<TypedSql> FromUnixtime(std::vector<TypedSql>& a, const CallSite& site) {
  std::string seconds = a[0].type.cls == TypeClass::kInteger ? a[0].sql : AsDouble(a[0], site.tz);
  std::string fmt = "'%Y-%m-%d %H:%M:%S'";
  if (a.size() == 2) {
    ASSIGN_OR_RETURN(fmt, Format(a[1], site));
  }
  return Text("strftime(" + site.tz.LocalFromUnixSeconds(seconds) + ", " + fmt + ")");
}

Result<TypedSql> UnixTimestamp(std::vector<TypedSql>& a, const CallSite& site) {
  std::string seconds;
  if (a.empty()) {
    seconds = "epoch(now())";
  } else if (a.size() == 2) {
    ASSIGN_OR_RETURN(std::string fmt, Format(a[1], site));
    seconds = site.tz.UnixSecondsFromLocal("try_strptime(" + AsVarchar(a[0], site.tz) + ", " + fmt + ")");
  } else if (a[0].type.cls == TypeClass::kTimestampTz) {
    seconds = "epoch(" + a[0].sql + ")";
  } else {
    seconds = site.tz.UnixSecondsFromLocal(Ts(a[0], site));
  }
  return Bigint("CAST(floor(" + seconds + ") AS BIGINT)");
}

Result<TypedSql> StrToDate(std::vector<TypedSql>& a, const CallSite& site) {
  ASSIGN_OR_RETURN(std::string fmt, Format(a[1], site));
  std::string parsed = "try_strptime(" + AsVarchar(a[0], site.tz) + ", " + fmt + ")";
  // StarRocks: a format without a time of day yields a DATE.
  if (!TimeFormatHasTimeOfDay(*a[1].constant)) return Date("CAST(" + parsed + " AS DATE)");
  return Timestamp(parsed);
}

Result<TypedSql> DateFormat(std::vector<TypedSql>& a, const CallSite& site) {
  ASSIGN_OR_RETURN(std::string fmt, Format(a[1], site));
  return Text("strftime(" + Ts(a[0], site) + ", " + fmt + ")");
}

Result<TypedSql> ToDate(std::vector<TypedSql>& a, const CallSite& site) {
  if (a[0].type.cls == TypeClass::kDate) return a[0];
  return Date("CAST(" + Ts(a[0], site) + " AS DATE)");
}

template <const char* kPart, int kOffset>
Result<TypedSql> Part(std::vector<TypedSql>& a, const CallSite& site) {
  std::string sql = std::string(kPart) + "(" + Ts(a[0], site) + ")";
  if (kOffset != 0) sql = "(" + sql + " + " + std::to_string(kOffset) + ")";
  return Bigint(sql);
}
constexpr char kYear[] = "year";
constexpr char kQuarter[] = "quarter";
constexpr char kMonth[] = "month";
constexpr char kDay[] = "day";
constexpr char kDayOfWeek[] = "dayofweek";  // DuckDB counts Sunday as 0, MySQL as 1
constexpr char kDayOfYear[] = "dayofyear";
constexpr char kHour[] = "hour";
constexpr char kMinute[] = "minute";
constexpr char kSecond[] = "second";

Result<TypedSql> DateDiff(std::vector<TypedSql>& a, const CallSite& site) {
  return Bigint("date_diff('day', CAST(" + Ts(a[1], site) + " AS DATE), CAST(" + Ts(a[0], site) + " AS DATE))");
}

// date_add(d, INTERVAL n unit) or date_add(d, n) for days; the result is a DATETIME, as in StarRocks.
template <bool kSubtract>
Result<TypedSql> DateAdd(std::vector<TypedSql>& a, const CallSite& site) {
  TypedSql interval = a[1];
  if (interval.type.cls != TypeClass::kInterval) {
    interval = MakeTyped(AsBigint(a[1], site.tz), TypeClass::kInterval);
    interval.interval_unit = "DAY";
  }
  return Timestamp("(" + Ts(a[0], site) + (kSubtract ? " - " : " + ") + IntervalSql(interval) + ")");
}

// The forms of user SQL (FunctionInfo::query_macro). The format is translated when the query runs, with the
// specifier table of the load form (time_format.cpp); the session's time zone is DuckDB's TimeZone setting.
// DuckDB binds a macro body at CREATE when it can type it, and strftime/strptime then refuse a format that is a
// parameter; so the value argument is written so that its type depends on the format parameter (concat(s, ''),
// `+ ... * INTERVAL 0 SECOND`) and binding waits for the call, where a literal format is constant.
std::string DeferredTimestamp(const std::string& d, const std::string& f) {
  return "(TRY_CAST(" + d + " AS TIMESTAMP) + CAST(" + f + " IS NULL AS INTEGER) * INTERVAL 0 SECOND)";
}
std::string QueryDateFormat() {
  return "(d, f) AS strftime(" + DeferredTimestamp("d", "f") + ", " + DuckDBTimeFormatSql("f") + ")";
}
std::string QueryStrToDate() { return "(s, f) AS try_strptime(concat(s, ''), " + DuckDBTimeFormatSql("f") + ")"; }
std::string QueryFromUnixtime() {
  return "(x) AS CAST(to_timestamp(x) AS TIMESTAMP), (x, f) AS strftime(" +
         DeferredTimestamp("to_timestamp(x)", "f") + ", " + DuckDBTimeFormatSql("f") + ")";
}
std::string QueryUnixTimestamp() {
  return "() AS CAST(floor(epoch(get_current_timestamp())) AS BIGINT), "
         "(d) AS CAST(floor(epoch(CAST(CAST(d AS TIMESTAMP) AS TIMESTAMPTZ))) AS BIGINT), "
         "(d, f) AS CAST(floor(epoch(CAST(try_strptime(concat(d, ''), " +
         DuckDBTimeFormatSql("f") + ") AS TIMESTAMPTZ))) AS BIGINT)";
}
// date_add('2024-01-01', INTERVAL 1 DAY): DuckDB's date_add takes no string; the result is a DATETIME, as in loads.
std::string QueryDateAdd() { return "(d, i) AS CAST(d AS TIMESTAMP) + i"; }
std::string QueryDateSub() { return "(d, i) AS CAST(d AS TIMESTAMP) - i"; }
std::string QueryCurDate() { return "() AS CAST(CAST(get_current_timestamp() AS TIMESTAMP) AS DATE)"; }
std::string QueryCurTime() {
  return "() AS CAST(date_trunc('second', CAST(get_current_timestamp() AS TIMESTAMP)) AS TIME)";
}
std::string QueryUtcTimestamp() {
  return "() AS date_trunc('second', CAST(timezone('UTC', get_current_timestamp()) AS TIMESTAMP))";
}
// DuckDB's datediff(part, a, b) stays; MySQL's datediff(a, b) counts days from b to a.
std::string QueryDateDiff() {
  return "(a, b) AS date_diff('day', CAST(b AS DATE), CAST(a AS DATE)), (p, a, b) AS date_diff(p, a, b)";
}

}  // namespace

void AddTimeFunctions(std::vector<FunctionInfo>* out) {
  out->push_back({"from_unixtime", 1, 2, FromUnixtime,
                  "strftime(timezone(tz, to_timestamp(x)), fmt), without ICU for UTC and offsets (VARCHAR)", QueryFromUnixtime});
  out->push_back({"unix_timestamp", 0, 2, UnixTimestamp,
                  "epoch(now()) / epoch(timezone(tz, x)) / epoch(timezone(tz, strptime(s, fmt))) as BIGINT", QueryUnixTimestamp});
  out->push_back({"str_to_date", 2, 2, StrToDate, "try_strptime(s, fmt) (DATE when fmt has no time of day)", QueryStrToDate});
  out->push_back({"date_format", 2, 2, DateFormat, "strftime(x, fmt)", QueryDateFormat});
  out->push_back({"now", 0, 0, Now, "date_trunc('second', timezone(tz, now()))"});
  out->push_back({"current_timestamp", 0, 0, Now, "date_trunc('second', timezone(tz, now()))"});
  out->push_back({"localtime", 0, 0, Now, "date_trunc('second', timezone(tz, now()))"});
  out->push_back({"localtimestamp", 0, 0, Now, "date_trunc('second', timezone(tz, now()))"});
  out->push_back({"utc_timestamp", 0, 0, UtcNow, "date_trunc('second', timezone('UTC', now()))", QueryUtcTimestamp});
  out->push_back({"curdate", 0, 0, CurDate, "CAST(timezone(tz, now()) AS DATE)", QueryCurDate});
  out->push_back({"current_date", 0, 0, CurDate, "CAST(timezone(tz, now()) AS DATE)"});
  out->push_back({"utc_date", 0, 0, UtcDate, "CAST(timezone('UTC', now()) AS DATE)"});
  out->push_back({"curtime", 0, 0, CurTime, "CAST(timezone(tz, now()) AS TIME)", QueryCurTime});
  out->push_back({"current_time", 0, 0, CurTime, "CAST(timezone(tz, now()) AS TIME)"});
  out->push_back({"date", 1, 1, ToDate, "CAST(x AS DATE)"});
  out->push_back({"to_date", 1, 1, ToDate, "CAST(x AS DATE)"});
  out->push_back({"year", 1, 1, Part<kYear, 0>, "year(x)"});
  out->push_back({"quarter", 1, 1, Part<kQuarter, 0>, "quarter(x)"});
  out->push_back({"month", 1, 1, Part<kMonth, 0>, "month(x)"});
  out->push_back({"day", 1, 1, Part<kDay, 0>, "day(x)"});
  out->push_back({"dayofmonth", 1, 1, Part<kDay, 0>, "day(x)"});
  out->push_back({"dayofweek", 1, 1, Part<kDayOfWeek, 1>, "dayofweek(x) + 1 (1 = Sunday)"});
  out->push_back({"dayofyear", 1, 1, Part<kDayOfYear, 0>, "dayofyear(x)"});
  out->push_back({"hour", 1, 1, Part<kHour, 0>, "hour(x)"});
  out->push_back({"minute", 1, 1, Part<kMinute, 0>, "minute(x)"});
  out->push_back({"second", 1, 1, Part<kSecond, 0>, "second(x)"});
  out->push_back({"datediff", 2, 2, DateDiff, "date_diff('day', b, a) (days from b to a)", QueryDateDiff});
  out->push_back({"date_add", 2, 2, DateAdd<false>, "x + to_days(n) / to_months(n) / ... (DATETIME)", QueryDateAdd});
  out->push_back({"adddate", 2, 2, DateAdd<false>, "x + INTERVAL"});
  out->push_back({"days_add", 2, 2, DateAdd<false>, "x + to_days(n)"});
  out->push_back({"date_sub", 2, 2, DateAdd<true>, "x - to_days(n) / to_months(n) / ... (DATETIME)", QueryDateSub});
  out->push_back({"subdate", 2, 2, DateAdd<true>, "x - INTERVAL"});
  out->push_back({"days_sub", 2, 2, DateAdd<true>, "x - to_days(n)"});
}

}  // namespace sluice::transform
