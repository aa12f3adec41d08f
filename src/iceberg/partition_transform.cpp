#include "iceberg/partition_transform.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstring>

#include "iceberg/single_value.h"

namespace sluice::iceberg {
namespace {

constexpr int64_t kMicrosPerDay = 86400000000LL;
constexpr int64_t kMicrosPerHour = 3600000000LL;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

bool IsTemporal(TypeId id) {
  return id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampTz;
}

int64_t DaysOf(const Value& v) {
  if (v.type.id == TypeId::kDate) return std::get<int32_t>(v.v);
  return FloorDiv(std::get<int64_t>(v.v), kMicrosPerDay);
}

uint32_t Rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

}  // namespace

int32_t Murmur3Hash32(const std::string& bytes) {
  const uint32_t c1 = 0xcc9e2d51, c2 = 0x1b873593;
  uint32_t h = 0;
  const size_t n = bytes.size();
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    uint32_t k = static_cast<uint32_t>(data[i]) | static_cast<uint32_t>(data[i + 1]) << 8 |
                 static_cast<uint32_t>(data[i + 2]) << 16 | static_cast<uint32_t>(data[i + 3]) << 24;
    k *= c1;
    k = Rotl(k, 15);
    k *= c2;
    h ^= k;
    h = Rotl(h, 13);
    h = h * 5 + 0xe6546b64;
  }
  uint32_t k = 0;
  switch (n & 3) {
    case 3: k ^= static_cast<uint32_t>(data[i + 2]) << 16; [[fallthrough]];
    case 2: k ^= static_cast<uint32_t>(data[i + 1]) << 8; [[fallthrough]];
    case 1:
      k ^= data[i];
      k *= c1;
      k = Rotl(k, 15);
      k *= c2;
      h ^= k;
  }
  h ^= static_cast<uint32_t>(n);
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return static_cast<int32_t>(h);
}

std::string Transform::ToString() const {
  switch (kind) {
    case TransformKind::kIdentity: return "identity";
    case TransformKind::kYear: return "year";
    case TransformKind::kMonth: return "month";
    case TransformKind::kDay: return "day";
    case TransformKind::kHour: return "hour";
    case TransformKind::kBucket: return fmt::format("bucket[{}]", param);
    case TransformKind::kTruncate: return fmt::format("truncate[{}]", param);
    case TransformKind::kVoid: return "void";
  }
  return "identity";
}

Result<Transform> Transform::Parse(const std::string& text) {
  if (text == "identity") return Transform{TransformKind::kIdentity};
  if (text == "year") return Transform{TransformKind::kYear};
  if (text == "month") return Transform{TransformKind::kMonth};
  if (text == "day") return Transform{TransformKind::kDay};
  if (text == "hour") return Transform{TransformKind::kHour};
  if (text == "void") return Transform{TransformKind::kVoid};
  int n = 0;
  if (std::sscanf(text.c_str(), "bucket[%d]", &n) == 1 && n > 0) return Transform{TransformKind::kBucket, n};
  if (std::sscanf(text.c_str(), "truncate[%d]", &n) == 1 && n > 0) return Transform{TransformKind::kTruncate, n};
  return Status::NotSupported(fmt::format(
      "partition transform '{}' is not known (identity, year, month, day, hour, bucket[N], truncate[W], void)", text));
}

Result<Type> Transform::ResultType(const Type& source) const {
  auto refuse = [&]() -> Status {
    return Status::InvalidArgument(
        fmt::format("partition transform {} does not apply to a column of type {}", ToString(), source.ToString()));
  };
  switch (kind) {
    case TransformKind::kIdentity:
    case TransformKind::kVoid: return source;
    case TransformKind::kYear:
    case TransformKind::kMonth:
      if (!IsTemporal(source.id)) return refuse();
      return MakeType(TypeId::kInt);
    case TransformKind::kDay:
      if (!IsTemporal(source.id)) return refuse();
      return MakeType(TypeId::kDate);
    case TransformKind::kHour:
      if (source.id != TypeId::kTimestamp && source.id != TypeId::kTimestampTz) return refuse();
      return MakeType(TypeId::kInt);
    case TransformKind::kBucket:
      if (source.id == TypeId::kBoolean || source.id == TypeId::kFloat || source.id == TypeId::kDouble) {
        return refuse();
      }
      return MakeType(TypeId::kInt);
    case TransformKind::kTruncate:
      if (source.id != TypeId::kInt && source.id != TypeId::kLong && source.id != TypeId::kDecimal &&
          source.id != TypeId::kString && source.id != TypeId::kBinary) {
        return refuse();
      }
      return source;
  }
  return refuse();
}

Result<Value> Transform::Apply(const Value& source) const {
  ASSIGN_OR_RETURN(Type result_type, ResultType(source.type));
  if (source.is_null() || kind == TransformKind::kVoid) return Value::Null(result_type);
  Value out{result_type, std::monostate{}};
  switch (kind) {
    case TransformKind::kIdentity: return source;
    case TransformKind::kDay: out.v = static_cast<int32_t>(DaysOf(source)); return out;
    case TransformKind::kHour: out.v = static_cast<int32_t>(FloorDiv(std::get<int64_t>(source.v), kMicrosPerHour)); return out;
    case TransformKind::kMonth:
    case TransformKind::kYear: {
      int64_t y;
      unsigned m, d;
      CivilFromDays(DaysOf(source), &y, &m, &d);
      out.v = static_cast<int32_t>(kind == TransformKind::kYear ? y - 1970 : (y - 1970) * 12 + (m - 1));
      return out;
    }
    case TransformKind::kBucket: {
      ASSIGN_OR_RETURN(std::string bytes, BucketHashBytes(source));
      out.v = static_cast<int32_t>((Murmur3Hash32(bytes) & 0x7fffffff) % param);
      return out;
    }
    case TransformKind::kTruncate: {
      if (auto* i = std::get_if<int32_t>(&source.v)) {
        out.v = static_cast<int32_t>(*i - (((*i % param) + param) % param));
      } else if (auto* l = std::get_if<int64_t>(&source.v)) {
        out.v = *l - (((*l % param) + param) % param);
      } else if (auto* d = std::get_if<Int128>(&source.v)) {
        out.v = *d - (((*d % param) + param) % param);
      } else {
        const std::string& s = std::get<std::string>(source.v);
        if (source.type.id == TypeId::kString) {
          out.v = TruncateUtf8(s, static_cast<size_t>(param));
        } else {
          out.v = s.substr(0, static_cast<size_t>(param));
        }
      }
      return out;
    }
    case TransformKind::kVoid: break;
  }
  return out;
}

}  // namespace sluice::iceberg
