#pragma once
// Iceberg's single-value binary serialization (table spec, Appendix D): how lower_bounds / upper_bounds in a
// manifest hold a value. Little-endian for numbers, dates and times; UTF-8 for strings; big-endian two's
// complement (fewest bytes) for decimals and 16 big-endian bytes for UUIDs. Also the bytes the bucket transform
// hashes (Appendix B), which differ for int and date (hashed as a long) and decimals.
#include <optional>
#include <string>

#include "common/status.h"
#include "iceberg/value.h"

namespace sluice::iceberg {

Result<std::string> EncodeSingleValue(const Value& value);
Result<Value> DecodeSingleValue(const Type& type, const std::string& bytes);
Result<std::string> BucketHashBytes(const Value& value);

// The first `max_code_points` code points of UTF-8 text (whole if shorter).
std::string TruncateUtf8(const std::string& s, size_t max_code_points);
// Bounds for column statistics, truncated as Iceberg's default metrics mode truncate(16) does: a string lower
// bound is its prefix; an upper bound is its prefix with the last code point incremented, or none (nullopt) when
// no such string exists. Other types are returned whole.
Value TruncateLowerBound(const Value& v, size_t width);
std::optional<Value> TruncateUpperBound(const Value& v, size_t width);

}  // namespace sluice::iceberg
