#include "sql/time_format_parts.h"

namespace sluice::sql {

TimeFormatParts PartsOfTimeFormat(std::string_view f) {
  TimeFormatParts parts;
  if (f == "yyyyMMdd" || f == "yyyy-MM-dd") {
    parts.date = true;
    return parts;
  }
  if (f == "yyyy-MM-dd HH:mm:ss") {
    parts.date = parts.time_of_day = true;
    return parts;
  }
  // The specifier letters as MySQL's Item_func_str_to_date sorts them; '%%' and unknown letters are neither.
  for (size_t i = 0; i + 1 < f.size(); i++) {
    if (f[i] != '%') continue;
    const char spec = f[++i];
    if (std::string_view("HhIiklprSsTf").find(spec) != std::string_view::npos) parts.time_of_day = true;
    if (std::string_view("abcDdejMmUuVvWwXxYy").find(spec) != std::string_view::npos) parts.date = true;
  }
  return parts;
}

}  // namespace sluice::sql
