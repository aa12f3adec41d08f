#include "transform/time_format.h"

#include <string_view>

#include "sql/time_format_parts.h"

namespace sluice::transform {

namespace {

// The DuckDB spelling of one MySQL specifier letter; nullptr when DuckDB has no equivalent, "" when the letter
// is not a specifier at all (MySQL then prints the letter itself).
const char* Translate(char c) {
  switch (c) {
    case 'a': return "%a";            // abbreviated weekday name
    case 'b': return "%b";            // abbreviated month name
    case 'c': return "%-m";           // month 1..12
    case 'd': return "%d";            // day 01..31
    case 'e': return "%-d";           // day 1..31
    case 'f': return "%f";            // microseconds
    case 'H': return "%H";            // hour 00..23
    case 'h': case 'I': return "%I";  // hour 01..12
    case 'i': return "%M";            // minutes
    case 'j': return "%j";            // day of year
    case 'k': return "%-H";           // hour 0..23
    case 'l': return "%-I";           // hour 1..12
    case 'M': return "%B";            // month name
    case 'm': return "%m";            // month 01..12
    case 'p': return "%p";            // AM/PM
    case 'r': return "%I:%M:%S %p";   // 12-hour time
    case 'S': case 's': return "%S";  // seconds
    case 'T': return "%H:%M:%S";      // 24-hour time
    case 'U': return "%U";            // week, Sunday first
    case 'u': return "%W";            // week, Monday first
    case 'v': return "%V";            // ISO week
    case 'W': return "%A";            // weekday name
    case 'w': return "%w";            // weekday 0=Sunday
    case 'x': return "%G";            // ISO year
    case 'Y': return "%Y";
    case 'y': return "%y";
    case '%': return "%%";
    case 'D': case 'V': case 'X': return nullptr;
    default: return "";
  }
}

}  // namespace

Result<std::string> ToDuckDBTimeFormat(std::string_view f) {
  if (f == "yyyyMMdd") return std::string("%Y%m%d");
  if (f == "yyyy-MM-dd") return std::string("%Y-%m-%d");
  if (f == "yyyy-MM-dd HH:mm:ss") return std::string("%Y-%m-%d %H:%M:%S");
  // DuckDB refuses an empty format when the SQL is bound, which would fail every batch of the job.
  if (f.empty()) return Status::InvalidArgument("the date format must not be empty, e.g. '%Y-%m-%d %H:%i:%s'");
  std::string out;
  for (size_t i = 0; i < f.size(); i++) {
    if (f[i] != '%') {
      out.push_back(f[i]);
      continue;
    }
    if (i + 1 == f.size()) {  // a trailing '%' is itself
      out += "%%";
      break;
    }
    char spec = f[++i];
    const char* duck = Translate(spec);
    if (duck == nullptr)
      return Status::InvalidArgument(std::string("the date format specifier %") + spec +
                                     " is not supported; see the transform function list for the supported ones");
    if (*duck == '\0') {
      out.push_back(spec);
    } else {
      out += duck;
    }
  }
  return out;
}

bool TimeFormatHasTimeOfDay(std::string_view f) { return sql::PartsOfTimeFormat(f).time_of_day; }

std::string DuckDBTimeFormatSql(const std::string& format_sql) {
  // Two passes so that one specifier's output is never read as another's input (MySQL's %M becomes %B, and %i
  // becomes %M): '%%' is set aside as chr(1), each '%x' becomes chr(2) x, then each chr(2) x becomes DuckDB's.
  std::string sql = "replace(" + format_sql + ", '%%', chr(1))";
  std::string letters;
  for (char c = 'A'; c <= 'z'; c++) {
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) continue;
    const char* duck = Translate(c);
    if (duck == nullptr || std::string_view(duck) == std::string(1, '%') + c) continue;  // unchanged or unknown
    letters.push_back(c);
    sql = "replace(" + sql + ", '%" + c + "', chr(2) || '" + c + "')";
  }
  for (char c : letters) {
    const char* duck = Translate(c);
    std::string to = *duck == '\0' ? std::string(1, c) : std::string(duck);
    sql = "replace(" + sql + ", chr(2) || '" + c + "', '" + to + "')";
  }
  return "replace(" + sql + ", chr(1), '%%')";
}

std::string TimeFormatHasTimeOfDaySql(const std::string& format_sql) {
  return "regexp_matches(" + format_sql + ", '%[HhIiklprSsTf]')";
}

}  // namespace sluice::transform
