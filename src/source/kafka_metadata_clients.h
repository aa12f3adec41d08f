#pragma once
// KafkaMetadataClients: librdkafka clients shared by every job that only needs metadata (a topic's partitions) or
// high watermarks, one per connection setup (brokers, client.id and property.* other than group.id).
//
// Every librdkafka client costs CPU while it exists, even with nothing to do: its threads wake for 1-second timers,
// and a consumer with assigned partitions long-polls the brokers. A task group that has found no new data for a
// while closes its consumer and asks here whether new data arrived, so 100 idle jobs on one cluster cost one
// client, not 100. Safe for concurrent use; librdkafka types stay out of this header.
//
// Answers are shared too. A caller that passes `asked_since` accepts an answer to a request sent at or after that
// time: 1,000 idle groups that check a topic for new data at the same interval boundary cost one ListOffsets
// request, and the partition checks of all jobs on the same brokers one metadata request. Concurrent callers wait
// for the request in flight instead of sending their own. Without `asked_since` a call asks the brokers itself.
#include <chrono>
#include <cstdint>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "source/kafka_source.h"

namespace sluice::source {

namespace internal {
struct ListOffsetsAnswer;
}

class KafkaMetadataClients {
 public:
  // A client unused for this long is closed on the next call.
  explicit KafkaMetadataClients(std::chrono::seconds unused_for = std::chrono::minutes(10)) : unused_for_(unused_for) {}
  ~KafkaMetadataClients();
  KafkaMetadataClients(const KafkaMetadataClients&) = delete;
  KafkaMetadataClients& operator=(const KafkaMetadataClients&) = delete;

  using TimePoint = std::chrono::steady_clock::time_point;
  // "Ask the brokers now": no earlier answer is reused.
  static constexpr TimePoint kAskNow = TimePoint::max();

  // config.topic's partitions, sorted, as KafkaSource::Partitions. With `asked_since`, from the last metadata
  // answer of this connection setup when its request was sent at or after that time and it names the topic (a
  // topic missing from it is asked again: it may have been created since).
  Result<std::vector<int32_t>> Partitions(const KafkaClientConfig& config, std::chrono::milliseconds timeout,
                                          TimePoint asked_since = kAskNow);

  // The high watermarks (next offset to be written; under read_committed the last stable offset) of these
  // partitions of config.topic, asked from their leaders now: one ListOffsets request per leader.
  // Unknown topic or partition -> NotFound; unreachable leaders or no answer within `timeout` -> Unavailable.
  // With `asked_since`, from the last answer for this topic when its request was sent at or after that time
  // (failures included, so that callers behind a broker that does not answer do not each wait out `timeout`);
  // such requests ask for every partition of the topic callers asked about, so groups that split a topic's
  // partitions share one request too.
  Result<std::map<int32_t, int64_t>> HighWatermarks(const KafkaClientConfig& config,
                                                    const std::vector<int32_t>& partitions,
                                                    std::chrono::milliseconds timeout,
                                                    TimePoint asked_since = kAskNow);

  // Requests sent to the brokers so far (metadata and ListOffsets), for tests and benchmarks.
  uint64_t requests_sent() const { return requests_sent_.load(); }

  // The low watermarks (earliest offset still kept) of these partitions, the same way.
  Result<std::map<int32_t, int64_t>> LowWatermarks(const KafkaClientConfig& config,
                                                   const std::vector<int32_t>& partitions,
                                                   std::chrono::milliseconds timeout);

  size_t size() const;  // clients open now

 private:
  struct Client;
  struct SharedHighs;
  // The client for config's connection setup, created on first use. Invalid properties -> InvalidArgument.
  Result<std::shared_ptr<Client>> Get(const KafkaClientConfig& config);
  // `query`: RD_KAFKA_OFFSET_END or RD_KAFKA_OFFSET_BEGINNING.
  Result<std::map<int32_t, int64_t>> Watermarks(const KafkaClientConfig& config, const std::vector<int32_t>& partitions,
                                                int64_t query, std::chrono::milliseconds timeout);
  // Each asked partition's offset from one ListOffsets answer, or the error that answer holds for it.
  static Result<std::map<int32_t, int64_t>> Evaluate(const KafkaClientConfig& config,
                                                     const internal::ListOffsetsAnswer& answer,
                                                     const std::vector<int32_t>& partitions,
                                                     std::chrono::milliseconds timeout);

  const std::chrono::seconds unused_for_;
  std::atomic<uint64_t> requests_sent_{0};
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Client>> clients_;  // keyed by the setup; keys hold secrets: never log them
};

}  // namespace sluice::source
