#pragma once
// Partition transforms of the Iceberg spec: identity, year, month, day, hour, bucket[N], truncate[W], void. Apply
// turns a source value into the partition value; the monotonic ones (all but bucket) also let a file's partition be
// derived from its column bounds (partition_from_bounds.*).
#include <string>

#include "common/status.h"
#include "iceberg/types.h"
#include "iceberg/value.h"

namespace sluice::iceberg {

enum class TransformKind { kIdentity, kYear, kMonth, kDay, kHour, kBucket, kTruncate, kVoid };

struct Transform {
  TransformKind kind = TransformKind::kIdentity;
  int param = 0;  // bucket count, truncate width

  bool operator==(const Transform&) const = default;
  std::string ToString() const;  // "identity", "day", "bucket[16]", "truncate[4]"
  static Result<Transform> Parse(const std::string& text);
  // Whether `a <= b` implies `Apply(a) <= Apply(b)`.
  bool monotonic() const { return kind != TransformKind::kBucket; }
  // The partition value's type for a source column of `source`; InvalidArgument when the transform does not apply
  // to that type (day of a string column).
  Result<Type> ResultType(const Type& source) const;
  // A null source value gives a null partition value.
  Result<Value> Apply(const Value& source) const;
};

// Murmur3 x86 32-bit, seed 0: Iceberg's bucket hash.
int32_t Murmur3Hash32(const std::string& bytes);

}  // namespace sluice::iceberg
