#include "iceberg/value.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace sluice::iceberg {
namespace {

Status BadText(const Type& type, const std::string& text) {
  return Status::InvalidArgument(fmt::format("'{}' is not a value of Iceberg type {}", text, type.ToString()));
}

bool ParseInt64(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

// "YYYY-MM-DD" at the front of `s`; `used` is set to the characters consumed.
bool ParseDate(const std::string& s, int64_t* days, size_t* used) {
  int y = 0, m = 0, d = 0, n = 0;
  if (std::sscanf(s.c_str(), "%d-%d-%d%n", &y, &m, &d, &n) != 3 || m < 1 || m > 12 || d < 1 || d > 31) return false;
  *days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  *used = static_cast<size_t>(n);
  return true;
}

// "HH:MM:SS[.ffffff]" -> microseconds since midnight.
bool ParseTimeOfDay(const std::string& s, int64_t* micros, size_t* used) {
  int h = 0, mi = 0, sec = 0, n = 0;
  if (std::sscanf(s.c_str(), "%d:%d:%d%n", &h, &mi, &sec, &n) != 3) return false;
  int64_t frac = 0;
  size_t pos = static_cast<size_t>(n);
  if (pos < s.size() && s[pos] == '.') {
    pos++;
    int digits = 0;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
      if (digits < 6) {
        frac = frac * 10 + (s[pos] - '0');
        digits++;
      }
      pos++;
    }
    while (digits < 6) {
      frac *= 10;
      digits++;
    }
  }
  *micros = ((static_cast<int64_t>(h) * 60 + mi) * 60 + sec) * 1000000 + frac;
  *used = pos;
  return true;
}

// "+00", "+05:30", "-08", "Z" -> offset seconds east of UTC.
bool ParseOffset(const std::string& s, int64_t* seconds) {
  if (s.empty() || s == "Z") {
    *seconds = 0;
    return true;
  }
  if (s[0] != '+' && s[0] != '-') return false;
  int h = 0, m = 0;
  if (std::sscanf(s.c_str() + 1, "%d:%d", &h, &m) < 1) return false;
  *seconds = (s[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
  return true;
}

bool ParseDecimal(const std::string& s, int scale, Int128* out) {
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  Int128 v = 0;
  int frac_digits = -1;
  bool any = false;
  for (; i < s.size(); i++) {
    char c = s[i];
    if (c == '.') {
      if (frac_digits >= 0) return false;
      frac_digits = 0;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    any = true;
    if (frac_digits >= 0) {
      if (frac_digits == scale) continue;  // more digits than the scale: DuckDB never renders them
      frac_digits++;
    }
    v = v * 10 + (c - '0');
  }
  if (!any) return false;
  for (int k = frac_digits < 0 ? 0 : frac_digits; k < scale; k++) v *= 10;
  *out = neg ? -v : v;
  return true;
}

bool ParseUuid(const std::string& s, std::string* bytes) {
  std::string hex;
  for (char c : s) {
    if (c == '-') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    hex += c;
  }
  if (hex.size() != 32) return false;
  bytes->clear();
  for (size_t i = 0; i < 32; i += 2) bytes->push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return true;
}

template <typename T>
int Cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

std::string Int128ToString(Int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? static_cast<unsigned __int128>(-(v + 1)) + 1 : static_cast<unsigned __int128>(v);
  std::string out;
  while (u > 0) {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return neg ? "-" + out : out;
}

}  // namespace

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

Result<Value> ParseValueText(const Type& type, const std::string& text) {
  Value out{type, std::monostate{}};
  switch (type.id) {
    case TypeId::kBoolean:
      if (text == "true" || text == "1") {
        out.v = true;
      } else if (text == "false" || text == "0") {
        out.v = false;
      } else {
        return BadText(type, text);
      }
      return out;
    case TypeId::kInt: {
      int64_t v = 0;
      if (!ParseInt64(text, &v) || v < INT32_MIN || v > INT32_MAX) return BadText(type, text);
      out.v = static_cast<int32_t>(v);
      return out;
    }
    case TypeId::kLong: {
      int64_t v = 0;
      if (!ParseInt64(text, &v)) return BadText(type, text);
      out.v = v;
      return out;
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      char* end = nullptr;
      double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0') return BadText(type, text);
      if (type.id == TypeId::kFloat) {
        out.v = static_cast<float>(v);
      } else {
        out.v = v;
      }
      return out;
    }
    case TypeId::kDecimal: {
      Int128 v = 0;
      if (!ParseDecimal(text, type.scale, &v)) return BadText(type, text);
      out.v = v;
      return out;
    }
    case TypeId::kDate: {
      int64_t days = 0;
      size_t used = 0;
      if (!ParseDate(text, &days, &used) || used != text.size()) return BadText(type, text);
      out.v = static_cast<int32_t>(days);
      return out;
    }
    case TypeId::kTime: {
      int64_t micros = 0;
      size_t used = 0;
      if (!ParseTimeOfDay(text, &micros, &used) || used != text.size()) return BadText(type, text);
      out.v = micros;
      return out;
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      int64_t days = 0, micros = 0, offset = 0;
      size_t used = 0, used_time = 0;
      if (!ParseDate(text, &days, &used)) return BadText(type, text);
      std::string rest = text.substr(used);
      if (!rest.empty() && (rest[0] == ' ' || rest[0] == 'T')) {
        rest = rest.substr(1);
        if (!ParseTimeOfDay(rest, &micros, &used_time)) return BadText(type, text);
        rest = rest.substr(used_time);
      }
      if (!ParseOffset(rest, &offset)) return BadText(type, text);
      out.v = static_cast<int64_t>(days * 86400000000LL + micros - offset * 1000000LL);
      return out;
    }
    case TypeId::kString:
      out.v = text;
      return out;
    case TypeId::kUuid: {
      std::string bytes;
      if (!ParseUuid(text, &bytes)) return BadText(type, text);
      out.v = bytes;
      return out;
    }
    case TypeId::kFixed:
    case TypeId::kBinary:
      return Status::InvalidArgument("binary values are not parsed from text (DuckDB escapes them)");
  }
  return BadText(type, text);
}

int CompareValues(const Value& a, const Value& b) {
  return std::visit(
      [&](const auto& x) -> int {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return 0;
        } else {
          const T* y = std::get_if<T>(&b.v);
          if (y == nullptr) return 0;
          if constexpr (std::is_same_v<T, std::string>) {
            // Iceberg orders strings by their UTF-8 bytes as unsigned, which is code point order.
            int c = std::memcmp(x.data(), y->data(), std::min(x.size(), y->size()));
            if (c != 0) return c < 0 ? -1 : 1;
            return Cmp(x.size(), y->size());
          } else {
            return Cmp(x, *y);
          }
        }
      },
      a.v);
}

std::string ValueToText(const Value& value) {
  if (value.is_null()) return "null";
  const Type& t = value.type;
  switch (t.id) {
    case TypeId::kBoolean: return std::get<bool>(value.v) ? "true" : "false";
    case TypeId::kInt: return std::to_string(std::get<int32_t>(value.v));
    case TypeId::kLong: return std::to_string(std::get<int64_t>(value.v));
    case TypeId::kFloat: return fmt::format("{}", std::get<float>(value.v));
    case TypeId::kDouble: return fmt::format("{}", std::get<double>(value.v));
    case TypeId::kDecimal: {
      std::string digits = Int128ToString(std::get<Int128>(value.v));
      if (t.scale == 0) return digits;
      bool neg = digits[0] == '-';
      if (neg) digits = digits.substr(1);
      while (static_cast<int>(digits.size()) <= t.scale) digits = "0" + digits;
      digits.insert(digits.size() - static_cast<size_t>(t.scale), ".");
      return neg ? "-" + digits : digits;
    }
    case TypeId::kDate: {
      int64_t y;
      unsigned m, d;
      CivilFromDays(std::get<int32_t>(value.v), &y, &m, &d);
      return fmt::format("{:04}-{:02}-{:02}", y, m, d);
    }
    case TypeId::kTime: {
      int64_t us = std::get<int64_t>(value.v);
      return fmt::format("{:02}:{:02}:{:02}.{:06}", us / 3600000000LL, us / 60000000LL % 60, us / 1000000 % 60,
                         us % 1000000);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      int64_t us = std::get<int64_t>(value.v);
      int64_t days = us >= 0 ? us / 86400000000LL : -((-us + 86399999999LL) / 86400000000LL);
      int64_t rem = us - days * 86400000000LL;
      int64_t y;
      unsigned m, d;
      CivilFromDays(days, &y, &m, &d);
      return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:06}{}", y, m, d, rem / 3600000000LL,
                         rem / 60000000LL % 60, rem / 1000000 % 60, rem % 1000000,
                         t.id == TypeId::kTimestampTz ? "+00" : "");
    }
    case TypeId::kString: return std::get<std::string>(value.v);
    case TypeId::kUuid:
    case TypeId::kFixed:
    case TypeId::kBinary: {
      std::string out;
      for (unsigned char c : std::get<std::string>(value.v)) out += fmt::format("{:02x}", c);
      return out;
    }
  }
  return "";
}

}  // namespace sluice::iceberg
