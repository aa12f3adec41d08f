#include "transform/time_zone.h"

#include "common/ascii.h"
#include "sql/lexer.h"
#include "sql/parser.h"

namespace sluice::transform {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// "+8", "+08", "+08:00", "-05:30", "+0530" -> "08:00:00" / "-05:30:00"; empty when `s` is not an offset.
std::string ParseOffset(std::string_view s) {
  if (s.size() < 2 || (s[0] != '+' && s[0] != '-')) return "";
  std::string_view rest = s.substr(1);
  std::string hours, minutes = "00";
  size_t i = 0;
  while (i < rest.size() && IsDigit(rest[i]) && hours.size() < 2) hours.push_back(rest[i++]);
  if (hours.empty()) return "";
  if (i < rest.size() && rest[i] == ':') i++;
  if (i < rest.size()) {
    if (rest.size() - i != 2 || !IsDigit(rest[i]) || !IsDigit(rest[i + 1])) return "";
    minutes = std::string(rest.substr(i, 2));
  }
  int h = std::stoi(hours), m = std::stoi(minutes);
  if (m >= 60 || h * 60 + m > 14 * 60) return "";
  std::string hh = (h < 10 ? "0" : "") + std::to_string(h);
  return std::string(s[0] == '-' ? "-" : "") + hh + ":" + minutes + ":00";
}

bool IsZoneNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsDigit(c) || c == '_' || c == '/' || c == '+' ||
         c == '-';
}

}  // namespace

Result<TimeZone> TimeZone::Parse(std::string_view spec) {
  TimeZone tz;
  std::string upper = AsciiUpper(spec);
  if (spec.empty() || upper == "UTC" || upper == "GMT" || upper == "Z") {
    tz.name_ = "UTC";
    tz.utc_ = true;
    return tz;
  }
  if (upper == "CST") {  // StarRocks reads CST as China Standard Time
    tz.name_ = "Asia/Shanghai";
    return tz;
  }
  if (spec[0] == '+' || spec[0] == '-') {
    tz.offset_ = ParseOffset(spec);
    if (tz.offset_.empty())
      return Status::InvalidArgument("timezone '" + std::string(spec) +
                                     "' is not a valid offset; write it like '+08:00' (between -14:00 and +14:00)");
    tz.name_ = std::string(spec);
    return tz;
  }
  bool valid = spec.size() <= 64 && ((spec[0] >= 'a' && spec[0] <= 'z') || (spec[0] >= 'A' && spec[0] <= 'Z'));
  for (char c : spec) valid = valid && IsZoneNameChar(c);
  if (!valid)
    return Status::InvalidArgument("timezone '" + std::string(spec) +
                                   "' is not a time zone name; use an IANA name like 'Asia/Shanghai' or an offset "
                                   "like '+08:00'");
  tz.name_ = std::string(spec);
  return tz;
}

std::string TimeZone::ToLocal(const std::string& instant_sql) const {
  if (!offset_.empty())
    return "(timezone('UTC', " + instant_sql + ") + INTERVAL " + sql::QuoteLiteral(offset_) + ")";
  return "timezone(" + sql::QuoteLiteral(name_) + ", " + instant_sql + ")";
}

std::string TimeZone::FromLocal(const std::string& local_sql) const {
  if (!offset_.empty())
    return "timezone('UTC', " + local_sql + " - INTERVAL " + sql::QuoteLiteral(offset_) + ")";
  return "timezone(" + sql::QuoteLiteral(name_) + ", " + local_sql + ")";
}

std::string TimeZone::LocalFromUnixSeconds(const std::string& seconds_sql) const {
  if (!utc_ && offset_.empty()) return ToLocal("to_timestamp(" + seconds_sql + ")");
  // Microseconds through DOUBLE: exact for any second count up to the year 2255.
  std::string utc = "make_timestamp(TRY_CAST(" + seconds_sql + " * 1e6 AS BIGINT))";
  return utc_ ? utc : "(" + utc + " + INTERVAL " + sql::QuoteLiteral(offset_) + ")";
}

std::string TimeZone::UnixSecondsFromLocal(const std::string& local_sql) const {
  if (utc_) return "epoch(" + local_sql + ")";
  if (!offset_.empty()) return "epoch(" + local_sql + " - INTERVAL " + sql::QuoteLiteral(offset_) + ")";
  return "epoch(" + FromLocal(local_sql) + ")";
}

}  // namespace sluice::transform
