#pragma once
// What a KafkaSource holds: its librdkafka handles and, per assigned partition, how far it has delivered.
// Shared by the files implementing KafkaSource; not part of the public API.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "source/kafka_config.h"
#include "source/kafka_handles.h"
#include "source/kafka_source.h"
#include "source/message_batch.h"
#include "source/offset_search.h"

namespace sluice::source {

struct PartitionProgress {
  int64_t next_offset = 0;  // the next offset to deliver
  bool at_eof = false;      // librdkafka reported the end of the partition at next_offset
};

struct KafkaSource::State {
  // Kept for the probe consumer, which is created on first use. Holds secrets: never log it.
  KafkaClientConfig config;
  // Members are destroyed bottom-up: messages and queues go before the handle they belong to, the error
  // record after it.
  std::unique_ptr<internal::ClientErrors> errors = std::make_unique<internal::ClientErrors>();
  internal::KafkaHandle rk;
  internal::QueueHandle queue;  // the consumer queue: messages and every event
  internal::MessageBatch batch;
  std::unique_ptr<internal::OffsetProbe> probe;

  std::map<int32_t, PartitionProgress> assigned;
  // Set when Consume() failed after delivering messages: positions are past what the caller keeps.
  bool needs_assign = false;
};

namespace internal {
int TimeoutMs(std::chrono::milliseconds timeout);
int RemainingMs(std::chrono::steady_clock::time_point deadline);
// One metadata answer for all topics: each topic's partitions (sorted) and error. Shared by the jobs of one
// connection setup (KafkaMetadataClients), so that a check for new partitions costs one request, not one per job.
struct TopicsMetadata {
  struct Topic {
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
    std::vector<int32_t> partitions;
  };
  std::map<std::string, Topic> topics;
};
// `topic` and `brokers` only name what was asked in error messages.
Result<TopicsMetadata> ReadTopicsMetadata(rd_kafka_t* rk, const std::string& topic, const std::string& brokers,
                                          std::chrono::milliseconds timeout);
// `topic`'s partitions in `metadata`. Absent or without partitions -> NotFound.
Result<std::vector<int32_t>> PartitionsIn(const TopicsMetadata& metadata, const std::string& topic,
                                          const std::string& brokers);
// The topic's partitions, sorted, from the metadata of all topics (KafkaSource::Partitions).
Result<std::vector<int32_t>> TopicPartitions(rd_kafka_t* rk, const std::string& topic, const std::string& brokers,
                                             std::chrono::milliseconds timeout);
}  // namespace internal

}  // namespace sluice::source
