#include "server/statement_params.h"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "server/protocol.h"
#include "sql/placeholders.h"

namespace sluice::server {

namespace {

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8 either.
    if (n == 2 && c < 0xc2) return false;
    if (n == 3) {
      auto c1 = static_cast<unsigned char>(s[i + 1]);
      if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0)) return false;
    }
    if (n == 4) {
      auto c1 = static_cast<unsigned char>(s[i + 1]);
      if ((c == 0xf0 && c1 < 0x90) || c > 0xf4 || (c == 0xf4 && c1 >= 0x90)) return false;
    }
    i += n;
  }
  return true;
}

// [+-]digits[.digits][(e|E)[+-]digits], with at least one digit before the exponent.
bool IsDecimalText(std::string_view t) {
  size_t i = 0, digits = 0;
  auto run = [&] {
    size_t start = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    return i - start;
  };
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  digits += run();
  if (i < t.size() && t[i] == '.') {
    ++i;
    digits += run();
  }
  if (digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (run() == 0) return false;
  }
  return i == t.size();
}

std::string DoubleLiteral(double v) {
  if (std::isnan(v)) return "CAST('nan' AS DOUBLE)";
  if (std::isinf(v)) return v > 0 ? "CAST('inf' AS DOUBLE)" : "CAST('-inf' AS DOUBLE)";
  std::string text = fmt::format("{}", v);
  // A bare 1e+20 or 5 would be read as an integer or decimal; the value was a double.
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return "CAST(" + text + " AS DOUBLE)";
}

// DATE / DATETIME / TIMESTAMP: a length byte (0, 4, 7 or 11), then year(2) month day [hour minute second
// [microsecond(4)]].
Result<std::string> DateTimeLiteral(WireReader& r, uint8_t type) {
  ASSIGN_OR_RETURN(uint8_t length, r.U8());
  if (length != 0 && length != 4 && length != 7 && length != 11)
    return Status::InvalidArgument(fmt::format("malformed packet: a date/time parameter of length {}", length));
  uint16_t year = 0;
  uint8_t month = 0, day = 0, hour = 0, minute = 0, second = 0;
  uint32_t micro = 0;
  if (length >= 4) {
    ASSIGN_OR_RETURN(year, r.U16());
    ASSIGN_OR_RETURN(month, r.U8());
    ASSIGN_OR_RETURN(day, r.U8());
  }
  if (length >= 7) {
    ASSIGN_OR_RETURN(hour, r.U8());
    ASSIGN_OR_RETURN(minute, r.U8());
    ASSIGN_OR_RETURN(second, r.U8());
  }
  if (length == 11) {
    ASSIGN_OR_RETURN(micro, r.U32());
  }
  std::string date = fmt::format("{:04}-{:02}-{:02}", year, month, day);
  if (static_cast<ColumnType>(type) == ColumnType::kDate) return "DATE '" + date + "'";
  std::string text = fmt::format("{} {:02}:{:02}:{:02}", date, hour, minute, second);
  if (micro != 0) text += fmt::format(".{:06}", micro);
  return "TIMESTAMP '" + text + "'";
}

// TIME: a length byte (0, 8 or 12), then is_negative days(4) hour minute second [microsecond(4)].
Result<std::string> TimeLiteral(WireReader& r) {
  ASSIGN_OR_RETURN(uint8_t length, r.U8());
  if (length != 0 && length != 8 && length != 12)
    return Status::InvalidArgument(fmt::format("malformed packet: a TIME parameter of length {}", length));
  uint8_t negative = 0, hour = 0, minute = 0, second = 0;
  uint32_t days = 0, micro = 0;
  if (length >= 8) {
    ASSIGN_OR_RETURN(negative, r.U8());
    ASSIGN_OR_RETURN(days, r.U32());
    ASSIGN_OR_RETURN(hour, r.U8());
    ASSIGN_OR_RETURN(minute, r.U8());
    ASSIGN_OR_RETURN(second, r.U8());
  }
  if (length == 12) {
    ASSIGN_OR_RETURN(micro, r.U32());
  }
  uint64_t hours = static_cast<uint64_t>(days) * 24 + hour;
  std::string text = fmt::format("{:02}:{:02}:{:02}", hours, minute, second);
  if (micro != 0) text += fmt::format(".{:06}", micro);
  // Within a day it is a time of day; otherwise (and negative) a span, which DuckDB's TIME cannot hold.
  if (negative == 0 && hours < 24) return "TIME '" + text + "'";
  return fmt::format("INTERVAL '{}{}'", negative ? "-" : "", text);
}

Result<std::string> ValueLiteral(WireReader& r, const ParamType& p) {
  switch (static_cast<ColumnType>(p.type)) {
    case ColumnType::kNull:
      return std::string("NULL");
    case ColumnType::kTiny: {
      ASSIGN_OR_RETURN(uint8_t v, r.U8());
      return p.is_unsigned ? std::to_string(v) : std::to_string(static_cast<int8_t>(v));
    }
    case ColumnType::kShort:
    case ColumnType::kYear: {
      ASSIGN_OR_RETURN(uint16_t v, r.U16());
      return p.is_unsigned ? std::to_string(v) : std::to_string(static_cast<int16_t>(v));
    }
    case ColumnType::kLong:
    case ColumnType::kInt24: {
      ASSIGN_OR_RETURN(uint32_t v, r.U32());
      return p.is_unsigned ? std::to_string(v) : std::to_string(static_cast<int32_t>(v));
    }
    case ColumnType::kLongLong: {
      ASSIGN_OR_RETURN(uint64_t v, r.U64());
      return p.is_unsigned ? std::to_string(v) : std::to_string(static_cast<int64_t>(v));
    }
    case ColumnType::kFloat: {
      ASSIGN_OR_RETURN(uint32_t bits, r.U32());
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return DoubleLiteral(f);
    }
    case ColumnType::kDouble: {
      ASSIGN_OR_RETURN(uint64_t bits, r.U64());
      double d;
      std::memcpy(&d, &bits, sizeof d);
      return DoubleLiteral(d);
    }
    case ColumnType::kDate:
    case ColumnType::kDateTime:
    case ColumnType::kTimestamp:
      return DateTimeLiteral(r, p.type);
    case ColumnType::kTime:
      return TimeLiteral(r);
    case ColumnType::kDecimal:
    case ColumnType::kNewDecimal: {
      ASSIGN_OR_RETURN(std::string_view text, r.LenencString());
      // Digits as written are an exact DECIMAL literal in SQL; anything else goes in as text to be cast.
      return IsDecimalText(text) ? std::string(text) : sql::QuoteStringLiteral(text);
    }
    default: {
      // VARCHAR, VAR_STRING, STRING, BLOBs, JSON, ENUM, SET, BIT, GEOMETRY: length-encoded bytes.
      ASSIGN_OR_RETURN(std::string_view bytes, r.LenencString());
      return TextOrBlobLiteral(bytes);
    }
  }
}

}  // namespace

std::string TextOrBlobLiteral(std::string_view bytes) {
  if (IsValidUtf8(bytes) && bytes.find('\0') == std::string_view::npos) return sql::QuoteStringLiteral(bytes);
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "unhex('";
  out.reserve(bytes.size() * 2 + 10);
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0xf]);
  }
  return out + "')";
}

Result<std::vector<std::string>> DecodeParamLiterals(WireReader& r, size_t count, std::vector<ParamType>& types,
                                                     const std::map<uint16_t, std::string>& long_data) {
  std::vector<std::string> literals;
  if (count == 0) return literals;
  if (types.size() != count) types.assign(count, ParamType{});
  ASSIGN_OR_RETURN(std::string_view null_bitmap, r.Bytes((count + 7) / 8));
  ASSIGN_OR_RETURN(uint8_t new_params_bound, r.U8());
  if (new_params_bound == 1) {
    for (size_t i = 0; i < count; ++i) {
      ASSIGN_OR_RETURN(uint8_t type, r.U8());
      ASSIGN_OR_RETURN(uint8_t flags, r.U8());
      types[i] = ParamType{type, (flags & 0x80) != 0};
    }
  }
  literals.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    if (static_cast<uint8_t>(null_bitmap[i / 8]) & (1u << (i % 8))) {
      literals.emplace_back("NULL");
      continue;
    }
    if (auto it = long_data.find(static_cast<uint16_t>(i)); it != long_data.end()) {
      literals.push_back(TextOrBlobLiteral(it->second));
      continue;
    }
    ASSIGN_OR_RETURN(std::string literal, ValueLiteral(r, types[i]));
    literals.push_back(std::move(literal));
  }
  return literals;
}

}  // namespace sluice::server
