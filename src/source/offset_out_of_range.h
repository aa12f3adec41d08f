#pragma once
// The OutOfRange statuses KafkaSource::Consume returns when a partition's next offset is not readable, and how a
// caller tells them apart: below the earliest available offset (the data was deleted by retention) is repaired
// differently from beyond the end (an offset never written, or a topic that was recreated). The messages are
// built and read here only, so their wording and their parsing cannot drift apart.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace sluice::source {

enum class OutOfRangeSide { kBelowEarliest, kBeyondEnd, kUnknown };

Status OffsetBelowEarliest(std::string_view topic, int32_t partition, int64_t requested, int64_t low, int64_t high);
Status OffsetBeyondEnd(std::string_view topic, int32_t partition, int64_t requested, int64_t low, int64_t high);
// The watermarks could not be read, so which side is not known.
Status OffsetOutOfRangeUnknown(std::string_view topic, int32_t partition, int64_t requested, std::string_view why);

struct OutOfRangeDetail {
  OutOfRangeSide side = OutOfRangeSide::kUnknown;
  std::optional<int32_t> partition;  // when the status names it
};
// What an OutOfRange status made by the functions above says (kUnknown / no partition for any other status).
OutOfRangeDetail DescribeOutOfRange(const Status& st);

}  // namespace sluice::source
