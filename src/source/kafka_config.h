#pragma once
// Building librdkafka clients from a KafkaClientConfig: Sluice's defaults, the job's property.* (validated by
// librdkafka itself, so every key and value it accepts works and nothing else does), and the few settings the
// source's correctness rests on.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "source/kafka_handles.h"
#include "source/kafka_source.h"

namespace sluice::source::internal {

enum class ClientRole {
  kConsumer,  // the source's data path
  kProbe,     // fetches single messages for the timestamp search: short fetch waits, tiny prefetch
  kMetadata,  // shared by many jobs for partitions and watermarks (KafkaMetadataClients); never consumes
};

// Client-wide errors (broker transport failures, all brokers down, fatal errors). librdkafka reports them
// through error_cb, not as messages, while the application serves the consumer queue; kept here so Consume()
// can tell "no new data" from "cannot reach the data". Must outlive the client it is given to.
class ClientErrors {
 public:
  struct Entry {
    uint64_t seq = 0;  // how many errors were recorded so far
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
    std::string reason;
    std::chrono::steady_clock::time_point at{};  // when it was recorded
  };
  void Record(rd_kafka_resp_err_t err, const char* reason);
  Entry Last() const;
  // Connections that failed (librdkafka's FAIL log lines, e.g. "Connect to ipv4#127.0.0.1:9092 failed: Connection
  // refused"): they come from librdkafka's threads at once, while error_cb waits for the queue to be served, so a
  // blocking metadata request can say why it gets no answer instead of waiting out its timeout.
  void RecordConnectionFailure(const char* reason);
  Entry LastConnectionFailure() const;
  // The last connection failure if it happened within `window`: while a broker is down, librdkafka logs a failure
  // at each reconnect attempt (at most every reconnect.backoff.max.ms), so a recent one means "still down".
  std::optional<std::string> RecentConnectionFailure(std::chrono::milliseconds window) const;

 private:
  mutable std::mutex mu_;
  Entry last_;
  Entry last_connection_failure_;
};

// The configuration every client of `role` is created from: the broker list checked against the egress allow list,
// Sluice's defaults, property.* (each key and value checked by librdkafka's rd_kafka_conf_set: unknown key or bad
// value -> InvalidArgument naming "property.<key>"; keys reaching the server's files -> AccessDenied) and the
// forced settings. Starts nothing.
Result<ConfHandle> BuildKafkaConf(const KafkaClientConfig& config, ClientRole role);

// A consumer handle (type RD_KAFKA_CONSUMER, group.id set because librdkafka needs it for assign and commit)
// whose messages and events all arrive on its consumer queue. Invalid settings -> InvalidArgument.
Result<KafkaHandle> NewKafkaClient(const KafkaClientConfig& config, ClientRole role, ClientErrors* errors);

// Replaces every secret property value occurring in `text` with ******, for text that came from librdkafka.
std::string MaskSecrets(std::string text, const KafkaClientConfig& config);

// Keys of Sluice's own that may sit among property.* but mean nothing to librdkafka.
bool IsSluiceOwnProperty(std::string_view key);

}  // namespace sluice::source::internal
