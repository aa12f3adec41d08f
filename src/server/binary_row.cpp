#include "server/binary_row.h"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "server/protocol.h"
#include "server/result_encoder.h"
#include "server/wire.h"

namespace sluice::server {

namespace {

template <typename T>
T ParseInteger(std::string_view v) {
  T out{};
  if (v == "true" || v == "t") return 1;
  std::from_chars(v.data(), v.data() + v.size(), out);
  return out;
}

// Reads `count` digits at `pos` (advancing it); false when they are not there.
bool Digits(std::string_view v, size_t& pos, size_t count, uint32_t& out) {
  if (pos + count > v.size()) return false;
  out = 0;
  for (size_t i = 0; i < count; ++i) {
    char c = v[pos + i];
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<uint32_t>(c - '0');
  }
  pos += count;
  return true;
}

// Up to six fraction digits after a '.', as microseconds.
uint32_t Micros(std::string_view v, size_t& pos) {
  if (pos >= v.size() || v[pos] != '.') return 0;
  ++pos;
  uint32_t micro = 0;
  size_t n = 0;
  for (; pos < v.size() && v[pos] >= '0' && v[pos] <= '9'; ++pos, ++n)
    if (n < 6) micro = micro * 10 + static_cast<uint32_t>(v[pos] - '0');
  for (; n < 6; ++n) micro *= 10;
  return micro;
}

// "YYYY-MM-DD[ HH:MM:SS[.ffffff]][+zz]" as DATE (4 bytes) or DATETIME (7 or 11); length 0 for what does not
// parse (years before 1 or after 9999, which MySQL's packed form cannot hold).
void PutDateTime(std::string& out, std::string_view v, bool with_time) {
  size_t pos = 0;
  uint32_t year, month, day, hour = 0, minute = 0, second = 0, micro = 0;
  if (!Digits(v, pos, 4, year) || pos >= v.size() || v[pos++] != '-' || !Digits(v, pos, 2, month) ||
      pos >= v.size() || v[pos++] != '-' || !Digits(v, pos, 2, day) || (pos < v.size() && v[pos] == '-')) {
    PutU8(out, 0);
    return;
  }
  if (with_time && pos < v.size() && (v[pos] == ' ' || v[pos] == 'T')) {
    ++pos;
    if (Digits(v, pos, 2, hour) && pos < v.size() && v[pos++] == ':' && Digits(v, pos, 2, minute) &&
        pos < v.size() && v[pos++] == ':' && Digits(v, pos, 2, second))
      micro = Micros(v, pos);
  }
  uint8_t length = !with_time ? 4 : micro != 0 ? 11 : (hour | minute | second) != 0 ? 7 : 4;
  PutU8(out, length);
  PutU16(out, static_cast<uint16_t>(year));
  PutU8(out, static_cast<uint8_t>(month));
  PutU8(out, static_cast<uint8_t>(day));
  if (length >= 7) {
    PutU8(out, static_cast<uint8_t>(hour));
    PutU8(out, static_cast<uint8_t>(minute));
    PutU8(out, static_cast<uint8_t>(second));
  }
  if (length == 11) PutU32(out, micro);
}

// "HH:MM:SS[.ffffff]" as TIME: 8 or 12 bytes (0 for midnight).
void PutTime(std::string& out, std::string_view v) {
  size_t pos = 0;
  bool negative = !v.empty() && v[0] == '-';
  if (negative) ++pos;
  uint32_t hours = 0;
  while (pos < v.size() && v[pos] >= '0' && v[pos] <= '9') hours = hours * 10 + static_cast<uint32_t>(v[pos++] - '0');
  uint32_t minute = 0, second = 0, micro = 0;
  if (pos < v.size() && v[pos] == ':') {
    ++pos;
    Digits(v, pos, 2, minute);
    if (pos < v.size() && v[pos] == ':') {
      ++pos;
      Digits(v, pos, 2, second);
      micro = Micros(v, pos);
    }
  }
  if (!negative && hours == 0 && minute == 0 && second == 0 && micro == 0) {
    PutU8(out, 0);
    return;
  }
  PutU8(out, micro != 0 ? 12 : 8);
  PutU8(out, negative ? 1 : 0);
  PutU32(out, hours / 24);
  PutU8(out, static_cast<uint8_t>(hours % 24));
  PutU8(out, static_cast<uint8_t>(minute));
  PutU8(out, static_cast<uint8_t>(second));
  if (micro != 0) PutU32(out, micro);
}

void PutValue(std::string& out, const ColumnInfo& column, std::string_view v) {
  switch (ToMysqlColumnType(column).type) {
    case ColumnType::kTiny: PutU8(out, static_cast<uint8_t>(ParseInteger<int64_t>(v))); return;
    case ColumnType::kShort:
    case ColumnType::kYear: PutU16(out, static_cast<uint16_t>(ParseInteger<int64_t>(v))); return;
    case ColumnType::kLong:
    case ColumnType::kInt24: PutU32(out, static_cast<uint32_t>(ParseInteger<int64_t>(v))); return;
    case ColumnType::kLongLong:
      if (column.type == ValueType::kUBigInt)
        PutU64(out, ParseInteger<uint64_t>(v));
      else
        PutU64(out, static_cast<uint64_t>(ParseInteger<int64_t>(v)));
      return;
    case ColumnType::kFloat: {
      float f = std::strtof(std::string(v).c_str(), nullptr);
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      PutU32(out, bits);
      return;
    }
    case ColumnType::kDouble: {
      double d = std::strtod(std::string(v).c_str(), nullptr);
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      PutU64(out, bits);
      return;
    }
    case ColumnType::kDate: PutDateTime(out, v, false); return;
    case ColumnType::kDateTime:
    case ColumnType::kTimestamp: PutDateTime(out, v, true); return;
    case ColumnType::kTime: PutTime(out, v); return;
    default: PutLenencString(out, v); return;
  }
}

}  // namespace

std::string EncodeBinaryRow(const std::vector<ColumnInfo>& columns, const Row& row) {
  std::string out;
  out.push_back('\0');
  size_t bitmap_at = out.size();
  out.append((columns.size() + 7 + 2) / 8, '\0');
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i >= row.size() || !row[i]) {
      size_t bit = i + 2;  // the binary protocol's bitmap starts at bit 2
      out[bitmap_at + bit / 8] = static_cast<char>(static_cast<uint8_t>(out[bitmap_at + bit / 8]) | (1u << (bit % 8)));
      continue;
    }
    PutValue(out, columns[i], *row[i]);
  }
  return out;
}

}  // namespace sluice::server
