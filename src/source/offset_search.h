#pragma once
// Finding the first offset at or after a point in time when the broker will not say (librdkafka's mock cluster
// answers ListOffsets-by-time with -1; so does a real broker when no message is that new). We binary-search
// the partition by fetching single messages and reading their timestamps, which assumes timestamps do not
// decrease along the partition (CreateTime from one producer, or LogAppendTime).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/status.h"
#include "source/kafka_handles.h"
#include "source/kafka_source.h"

namespace sluice::source::internal {

struct ProbedMessage {
  int64_t offset;
  int64_t timestamp_ms;  // -1 when the message has none: counts as older than any target
};

// The first message at or after an offset, or nullopt when there is none before the end of the partition.
using ProbeFn = std::function<Result<std::optional<ProbedMessage>>(int64_t offset)>;

// The offset to start reading at so that the first message read is the first one with timestamp >= ts_ms;
// wm.high when there is none. Offsets without messages (compaction, transaction markers) are allowed: the
// answer may then be such an offset, which reads the same first message.
Result<int64_t> SearchOffsetForTimestamp(Watermarks wm, int64_t ts_ms, const ProbeFn& probe);

// A second consumer, separate from the data path's, so probing never disturbs the source's assignment.
class OffsetProbe {
 public:
  static Result<std::unique_ptr<OffsetProbe>> Create(const KafkaClientConfig& config);

  Result<std::optional<ProbedMessage>> FirstAtOrAfter(int32_t partition, int64_t offset,
                                                       std::chrono::steady_clock::time_point deadline);

 private:
  OffsetProbe(KafkaHandle rk, QueueHandle queue, std::string topic)
      : rk_(std::move(rk)), queue_(std::move(queue)), topic_(std::move(topic)) {}
  Result<std::optional<ProbedMessage>> Await(int32_t partition, int64_t offset,
                                             std::chrono::steady_clock::time_point deadline);

  KafkaHandle rk_;  // declared first: destroyed after the queue
  QueueHandle queue_;
  std::string topic_;
};

}  // namespace sluice::source::internal
