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

}  // namespace

void AddTimeFunctions(std::vector<FunctionInfo>* out) {
  out->push_back({"from_unixtime", 1, 2, FromUnixtime,
                  "strftime(timezone(tz, to_timestamp(x)), fmt), without ICU for UTC and offsets (VARCHAR)"});
  out->push_back({"unix_timestamp", 0, 2, UnixTimestamp,
                  "epoch(now()) / epoch(timezone(tz, x)) / epoch(timezone(tz, strptime(s, fmt))) as BIGINT"});
  out->push_back({"str_to_date", 2, 2, StrToDate, "try_strptime(s, fmt) (DATE when fmt has no time of day)"});
  out->push_back({"date_format", 2, 2, DateFormat, "strftime(x, fmt)"});
  out->push_back({"now", 0, 0, Now, "date_trunc('second', timezone(tz, now()))"});
  out->push_back({"current_timestamp", 0, 0, Now, "date_trunc('second', timezone(tz, now()))"});
  out->push_back({"localtime", 0, 0, Now, "date_trunc('second', timezone(tz, now()))"});
  out->push_back({"localtimestamp", 0, 0, Now, "date_trunc('second', timezone(tz, now()))"});
  out->push_back({"utc_timestamp", 0, 0, UtcNow, "date_trunc('second', timezone('UTC', now()))"});
  out->push_back({"curdate", 0, 0, CurDate, "CAST(timezone(tz, now()) AS DATE)"});
  out->push_back({"current_date", 0, 0, CurDate, "CAST(timezone(tz, now()) AS DATE)"});
  out->push_back({"utc_date", 0, 0, UtcDate, "CAST(timezone('UTC', now()) AS DATE)"});
  out->push_back({"curtime", 0, 0, CurTime, "CAST(timezone(tz, now()) AS TIME)"});
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
  out->push_back({"datediff", 2, 2, DateDiff, "date_diff('day', b, a) (days from b to a)"});
  out->push_back({"date_add", 2, 2, DateAdd<false>, "x + to_days(n) / to_months(n) / ... (DATETIME)"});
  out->push_back({"adddate", 2, 2, DateAdd<false>, "x + INTERVAL"});
  out->push_back({"days_add", 2, 2, DateAdd<false>, "x + to_days(n)"});
  out->push_back({"date_sub", 2, 2, DateAdd<true>, "x - to_days(n) / to_months(n) / ... (DATETIME)"});
  out->push_back({"subdate", 2, 2, DateAdd<true>, "x - INTERVAL"});
  out->push_back({"days_sub", 2, 2, DateAdd<true>, "x - to_days(n)"});
}

}  // namespace sluice::transform
