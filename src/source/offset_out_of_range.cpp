#include "source/offset_out_of_range.h"

#include <cstdlib>

#include <fmt/format.h>

namespace sluice::source {

namespace {

constexpr std::string_view kBelowPhrase = "is no longer available (deleted by retention)";
constexpr std::string_view kBeyondPhrase = "is beyond the end of the partition";

std::string Where(std::string_view topic, int32_t partition) {
  return fmt::format("topic '{}' partition {}", topic, partition);
}

}  // namespace

Status OffsetBelowEarliest(std::string_view topic, int32_t partition, int64_t requested, int64_t low, int64_t high) {
  return Status::OutOfRange(fmt::format("{}: offset {} {}; the earliest available offset is {} and the next offset "
                                        "to be written is {}", Where(topic, partition), requested, kBelowPhrase, low,
                                        high));
}

Status OffsetBeyondEnd(std::string_view topic, int32_t partition, int64_t requested, int64_t low, int64_t high) {
  return Status::OutOfRange(fmt::format("{}: offset {} {}; the earliest available offset is {} and the next offset "
                                        "to be written is {}", Where(topic, partition), requested, kBeyondPhrase, low,
                                        high));
}

Status OffsetOutOfRangeUnknown(std::string_view topic, int32_t partition, int64_t requested, std::string_view why) {
  return Status::OutOfRange(fmt::format("{}: offset {} is out of range; the earliest available offset could not be "
                                        "read: {}", Where(topic, partition), requested, why));
}

OutOfRangeDetail DescribeOutOfRange(const Status& st) {
  OutOfRangeDetail d;
  if (st.code() != StatusCode::kOutOfRange) return d;
  const std::string& m = st.message();
  if (m.find(kBelowPhrase) != std::string::npos) d.side = OutOfRangeSide::kBelowEarliest;
  else if (m.find(kBeyondPhrase) != std::string::npos) d.side = OutOfRangeSide::kBeyondEnd;
  // "topic '<name>' partition <n>: offset": the last "' partition " before ": offset" (a topic name may hold quotes).
  size_t colon = m.find(": offset ");
  size_t at = colon == std::string::npos ? std::string::npos : m.rfind("' partition ", colon);
  if (at != std::string::npos) {
    const char* digits = m.c_str() + at + 12;
    char* end = nullptr;
    long p = std::strtol(digits, &end, 10);
    if (end != digits && end == m.c_str() + colon && p >= 0) d.partition = static_cast<int32_t>(p);
  }
  return d;
}

}  // namespace sluice::source
