#include "iceberg/single_value.h"

#include <fmt/format.h>

#include <cstring>
#include <optional>
#include <vector>

namespace sluice::iceberg {
namespace {

template <typename T>
std::string LittleEndian(T v) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &v, sizeof(T));  // x86-64 and arm64 are little-endian
  return out;
}

template <typename T>
bool FromLittleEndian(const std::string& bytes, T* out) {
  if (bytes.size() != sizeof(T)) return false;
  std::memcpy(out, bytes.data(), sizeof(T));
  return true;
}

// Two's complement, big-endian, in the fewest bytes that keep the sign.
std::string DecimalBytes(Int128 v) {
  std::string be;
  for (int i = 15; i >= 0; i--) be.push_back(static_cast<char>(static_cast<unsigned char>((v >> (i * 8)) & 0xff)));
  size_t start = 0;
  while (start < 15) {
    unsigned char b = static_cast<unsigned char>(be[start]);
    unsigned char next = static_cast<unsigned char>(be[start + 1]);
    if ((b == 0x00 && !(next & 0x80)) || (b == 0xff && (next & 0x80))) {
      start++;
    } else {
      break;
    }
  }
  return be.substr(start);
}

size_t Utf8Length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xe) return 3;
  return 4;
}

std::string EncodeUtf8(uint32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
  return out;
}

uint32_t DecodeUtf8(const std::string& s) {
  auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i])); };
  switch (s.size()) {
    case 1: return b(0);
    case 2: return ((b(0) & 0x1f) << 6) | (b(1) & 0x3f);
    case 3: return ((b(0) & 0x0f) << 12) | ((b(1) & 0x3f) << 6) | (b(2) & 0x3f);
    default: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3f) << 12) | ((b(2) & 0x3f) << 6) | (b(3) & 0x3f);
  }
}

}  // namespace

Result<std::string> EncodeSingleValue(const Value& value) {
  if (value.is_null()) return Status::InvalidArgument("a null has no single-value serialization");
  switch (value.type.id) {
    case TypeId::kBoolean: return std::string(1, std::get<bool>(value.v) ? '\x01' : '\x00');
    case TypeId::kInt:
    case TypeId::kDate: return LittleEndian(std::get<int32_t>(value.v));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: return LittleEndian(std::get<int64_t>(value.v));
    case TypeId::kFloat: return LittleEndian(std::get<float>(value.v));
    case TypeId::kDouble: return LittleEndian(std::get<double>(value.v));
    case TypeId::kDecimal: return DecimalBytes(std::get<Int128>(value.v));
    case TypeId::kString:
    case TypeId::kUuid:
    case TypeId::kFixed:
    case TypeId::kBinary: return std::get<std::string>(value.v);
  }
  return Status::Internal("unknown Iceberg type");
}

Result<Value> DecodeSingleValue(const Type& type, const std::string& bytes) {
  Value out{type, std::monostate{}};
  auto bad = [&]() {
    return Status::InvalidArgument(
        fmt::format("a bound of {} bytes is not a serialized {} value", bytes.size(), type.ToString()));
  };
  switch (type.id) {
    case TypeId::kBoolean:
      if (bytes.size() != 1) return bad();
      out.v = bytes[0] != 0;
      return out;
    case TypeId::kInt:
    case TypeId::kDate: {
      int32_t v;
      if (!FromLittleEndian(bytes, &v)) return bad();
      out.v = v;
      return out;
    }
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      int64_t v;
      if (!FromLittleEndian(bytes, &v)) return bad();
      out.v = v;
      return out;
    }
    case TypeId::kFloat: {
      float v;
      if (!FromLittleEndian(bytes, &v)) return bad();
      out.v = v;
      return out;
    }
    case TypeId::kDouble: {
      double v;
      if (!FromLittleEndian(bytes, &v)) return bad();
      out.v = v;
      return out;
    }
    case TypeId::kDecimal: {
      if (bytes.empty() || bytes.size() > 16) return bad();
      Int128 v = (static_cast<unsigned char>(bytes[0]) & 0x80) ? -1 : 0;
      for (unsigned char c : bytes) v = static_cast<Int128>((static_cast<unsigned __int128>(v) << 8) | c);
      out.v = v;
      return out;
    }
    case TypeId::kUuid:
      if (bytes.size() != 16) return bad();
      out.v = bytes;
      return out;
    case TypeId::kString:
    case TypeId::kFixed:
    case TypeId::kBinary: out.v = bytes; return out;
  }
  return bad();
}

Result<std::string> BucketHashBytes(const Value& value) {
  switch (value.type.id) {
    case TypeId::kInt:
    case TypeId::kDate: return LittleEndian(static_cast<int64_t>(std::get<int32_t>(value.v)));
    case TypeId::kDecimal: return DecimalBytes(std::get<Int128>(value.v));
    case TypeId::kBoolean:
    case TypeId::kFloat:
    case TypeId::kDouble:
      return Status::InvalidArgument(fmt::format("bucket does not apply to {}", value.type.ToString()));
    default: return EncodeSingleValue(value);
  }
}

std::string TruncateUtf8(const std::string& s, size_t max_code_points) {
  size_t pos = 0, count = 0;
  while (pos < s.size() && count < max_code_points) {
    pos += Utf8Length(static_cast<unsigned char>(s[pos]));
    count++;
  }
  return s.substr(0, std::min(pos, s.size()));
}

Value TruncateLowerBound(const Value& v, size_t width) {
  if (v.type.id == TypeId::kString) return Value{v.type, TruncateUtf8(std::get<std::string>(v.v), width)};
  if (v.type.id == TypeId::kBinary) return Value{v.type, std::get<std::string>(v.v).substr(0, width)};
  return v;
}

std::optional<Value> TruncateUpperBound(const Value& v, size_t width) {
  if (v.type.id != TypeId::kString && v.type.id != TypeId::kBinary) return v;
  const std::string& s = std::get<std::string>(v.v);
  std::string prefix = v.type.id == TypeId::kString ? TruncateUtf8(s, width) : s.substr(0, width);
  if (prefix.size() == s.size()) return v;
  if (v.type.id == TypeId::kBinary) {
    while (!prefix.empty()) {
      unsigned char last = static_cast<unsigned char>(prefix.back());
      if (last < 0xff) {
        prefix.back() = static_cast<char>(last + 1);
        return Value{v.type, prefix};
      }
      prefix.pop_back();
    }
    return std::nullopt;
  }
  // Increment the last code point that can be (skipping the surrogate range); drop those that cannot.
  std::vector<std::string> cps;
  for (size_t pos = 0; pos < prefix.size();) {
    size_t n = Utf8Length(static_cast<unsigned char>(prefix[pos]));
    cps.push_back(prefix.substr(pos, n));
    pos += n;
  }
  while (!cps.empty()) {
    uint32_t cp = DecodeUtf8(cps.back()) + 1;
    if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xE000;
    if (cp <= 0x10FFFF) {
      cps.back() = EncodeUtf8(cp);
      std::string out;
      for (const auto& c : cps) out += c;
      return Value{v.type, out};
    }
    cps.pop_back();
  }
  return std::nullopt;
}

}  // namespace sluice::iceberg
