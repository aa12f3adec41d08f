#pragma once
// KafkaMetadataClients: librdkafka clients shared by every job that only needs metadata (a topic's partitions) or
// high watermarks, one per connection setup (brokers, client.id and property.* other than group.id).
//
// Every librdkafka client costs CPU while it exists, even with nothing to do: its threads wake for 1-second timers,
// and a consumer with assigned partitions long-polls the brokers. A task group that has found no new data for a
// while closes its consumer and asks here whether new data arrived, so 100 idle jobs on one cluster cost one
// client, not 100. Safe for concurrent use; librdkafka types stay out of this header.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "source/kafka_source.h"

namespace sluice::source {

class KafkaMetadataClients {
 public:
  // A client unused for this long is closed on the next call.
  explicit KafkaMetadataClients(std::chrono::seconds unused_for = std::chrono::minutes(10)) : unused_for_(unused_for) {}
  ~KafkaMetadataClients();
  KafkaMetadataClients(const KafkaMetadataClients&) = delete;
  KafkaMetadataClients& operator=(const KafkaMetadataClients&) = delete;

  // config.topic's partitions, sorted, as KafkaSource::Partitions.
  Result<std::vector<int32_t>> Partitions(const KafkaClientConfig& config, std::chrono::milliseconds timeout);

  // The high watermarks (next offset to be written; under read_committed the last stable offset) of these
  // partitions of config.topic, asked from their leaders now: one ListOffsets request per leader.
  // Unknown topic or partition -> NotFound; unreachable leaders or no answer within `timeout` -> Unavailable.
  Result<std::map<int32_t, int64_t>> HighWatermarks(const KafkaClientConfig& config,
                                                    const std::vector<int32_t>& partitions,
                                                    std::chrono::milliseconds timeout);

  // The low watermarks (earliest offset still kept) of these partitions, the same way.
  Result<std::map<int32_t, int64_t>> LowWatermarks(const KafkaClientConfig& config,
                                                   const std::vector<int32_t>& partitions,
                                                   std::chrono::milliseconds timeout);

  size_t size() const;  // clients open now

 private:
  struct Client;
  // The client for config's connection setup, created on first use. Invalid properties -> InvalidArgument.
  Result<std::shared_ptr<Client>> Get(const KafkaClientConfig& config);
  // `query`: RD_KAFKA_OFFSET_END or RD_KAFKA_OFFSET_BEGINNING.
  Result<std::map<int32_t, int64_t>> Watermarks(const KafkaClientConfig& config, const std::vector<int32_t>& partitions,
                                                int64_t query, std::chrono::milliseconds timeout);

  const std::chrono::seconds unused_for_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Client>> clients_;  // keyed by the setup; keys hold secrets: never log them
};

}  // namespace sluice::source
