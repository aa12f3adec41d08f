#pragma once
// KafkaSource: the only code in Sluice that talks to Kafka (through librdkafka).
//
// Sluice keeps its own progress (the next offset of every partition) in DuckDB, committed in the same
// transaction as the rows (DESIGN.md decision 2). So a source never joins a consumer group: a task assigns
// exactly its partitions at exactly its committed offsets, consumes a bounded batch, and the caller commits.
// Kafka's group offsets are written afterwards, best effort, only so that outside lag tools see progress.
//
// A KafkaSource is used by one thread at a time (one task). librdkafka types stay out of this header.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace sluice::source {

struct KafkaClientConfig {
  std::string brokers;    // "host:port,host:port"
  std::string topic;
  std::string group_id;   // only for the best-effort offset commit; empty -> "sluice_<topic>"
  std::string client_id;  // empty -> "sluice"
  // property.* from the job, without the prefix, passed to librdkafka as-is (they may override Sluice's
  // defaults). Sluice's own keys such as kafka_default_offsets are skipped: the caller handles them.
  std::vector<std::pair<std::string, std::string>> properties;
};

// One consumed message. The views point into librdkafka's buffers and are valid only during the callback.
enum class TimestampType { kNone, kCreateTime, kLogAppendTime };

struct KafkaMessage {
  int32_t partition = 0;
  int64_t offset = 0;
  int64_t timestamp_ms = -1;  // -1 when the broker sent none
  TimestampType timestamp_type = TimestampType::kNone;
  std::optional<std::string_view> key;  // nullopt: the message has no key (an empty key is "")
  std::string_view payload;             // a null payload (tombstone) is empty
  // Filled only when ConsumeLimits::want_headers. In wire order; a repeated name appears repeatedly.
  // A header with a null value has an empty value.
  std::vector<std::pair<std::string_view, std::string_view>> headers;
};

struct Watermarks {
  int64_t low;   // earliest offset still available
  int64_t high;  // next offset to be written
};

struct ConsumeLimits {
  std::chrono::steady_clock::time_point deadline;
  size_t max_messages = 0;  // 0: no limit
  size_t max_bytes = 0;     // payload bytes; 0: no limit. Checked before each message, so one message may cross it
  bool want_headers = false;
  // A partition whose next offset has reached the high watermark of the latest fetch answer counts as caught up,
  // without waiting for librdkafka's end-of-partition event: that event comes only with the answer to the fetch
  // after the one that brought the last message, which the broker holds for fetch.wait.max.ms when nothing new
  // arrives (every first task of a new job paid it, ~100 ms). Only for a source whose fetches all belong to the
  // current assignment (a client just created and assigned): the watermark of an earlier assignment's fetch could
  // lie below offsets assigned since. Data produced after that answer is read by the next call, as with the event.
  bool end_at_fetched_high = false;
};

struct ConsumeResult {
  std::map<int32_t, int64_t> next_offsets;  // every assigned partition: the next offset to read
  size_t messages = 0;
  size_t bytes = 0;        // payload bytes delivered
  // Every assigned partition reached its high watermark, as of librdkafka's latest fetch (data produced a moment
  // earlier may only show up in the next call). True when nothing is assigned.
  bool caught_up = false;
};

// Checks a configuration as KafkaSource::Create would, without creating a client (no threads, no sockets): the
// broker list (empty, or outside the egress allow list), and every property.* key and value through librdkafka's
// configuration table: an unknown key or a bad value is InvalidArgument naming "property.<key>" and librdkafka's
// reason, with secret values masked. What only librdkafka's client creation checks (settings that contradict each
// other, or need a feature this librdkafka lacks) surfaces when the job starts, pausing it with that message.
Status ValidateKafkaClientConfig(const KafkaClientConfig& config);

class KafkaSource {
 public:
  // Validates every property with librdkafka: an unknown key or a bad value is InvalidArgument naming
  // "property.<key>" and librdkafka's reason. Secret values (common/secret_names.h's IsSecretName)
  // never appear in errors or logs. Does not contact the brokers.
  static Result<std::unique_ptr<KafkaSource>> Create(const KafkaClientConfig& config);
  ~KafkaSource();  // quick: no group to leave, nothing to commit
  KafkaSource(const KafkaSource&) = delete;
  KafkaSource& operator=(const KafkaSource&) = delete;

  // The topic's partitions, sorted. Unknown topic -> NotFound; unreachable brokers -> Unavailable.
  Result<std::vector<int32_t>> Partitions(std::chrono::milliseconds timeout);

  // Asks the partition's leader (ListOffsets; honors the timeout even when the leader is down). Under
  // isolation.level=read_committed, librdkafka's default, `high` is the last stable offset.
  // Unknown partition -> NotFound; unreachable -> Unavailable.
  Result<Watermarks> QueryWatermarks(int32_t partition, std::chrono::milliseconds timeout);

  // The partition's high watermark as of the latest fetch response, without asking the broker; nullopt before
  // the first fetch of the partition. Cheap enough to call after every task (lag figures, SHOW ROUTINE LOAD).
  std::optional<int64_t> CachedHighWatermark(int32_t partition) const;

  // The first offset whose message has a timestamp >= ts_ms, or the high watermark when there is none.
  // Asks the broker first (ListOffsets by time). When it answers -1 (no such message on a real broker; "not
  // implemented" on librdkafka's mock cluster) or does not support the request, it binary-searches [low, high)
  // by fetching single messages and reading their timestamps. That search assumes timestamps do not decrease
  // along the partition (CreateTime from one producer, or LogAppendTime); messages without a timestamp count as
  // older than any ts_ms. Each probe is one fetch, so the search costs O(log(high - low)) round trips.
  Result<int64_t> OffsetForTimestamp(int32_t partition, int64_t ts_ms, std::chrono::milliseconds timeout);

  // Assigns exactly these partitions at these offsets (>= 0; resolve OFFSET_BEGINNING/END with QueryWatermarks
  // first), replacing any previous assignment and dropping messages fetched for it. An empty map unassigns.
  Status Assign(const std::map<int32_t, int64_t>& start_offsets);

  // Delivers messages of the assigned partitions in offset order per partition until the deadline,
  // max_messages, max_bytes, every assigned partition has caught up, or on_message returns false (that message
  // counts as delivered; Consume returns right after it). Messages fetched but not delivered stay buffered for
  // the next call, so consecutive calls continue exactly where the last one stopped.
  //
  // Errors:
  //  - OutOfRange: an assigned offset is below the earliest available one (deleted by retention) or beyond the
  //    high watermark; names the topic, partition, requested offset and the earliest available offset. Never
  //    silently reset (auto.offset.reset=error unless property.auto.offset.reset says otherwise).
  //  - Unavailable (retriable): no message could be delivered before the deadline and a leader cannot be
  //    reached (brokers down, transport errors). librdkafka keeps retrying internally until then.
  //  - NotFound / AccessDenied: the topic or partition vanished, or authorization failed, with no progress.
  //  - Internal: librdkafka raised a fatal error.
  // After an error, messages delivered in the same call must be discarded, and when there were any, Assign()
  // must be called again before the next Consume() (the source refuses otherwise).
  // on_message must not call back into this source. A call that delivered nothing may overrun the deadline by up
  // to 500 ms while it asks the leaders whether the partitions are reachable.
  Result<ConsumeResult> Consume(const ConsumeLimits& limits,
                                const std::function<bool(const KafkaMessage&)>& on_message);

  // Best effort: commits these next offsets for the group, so kafka-consumer-groups and lag tools see progress.
  // Sluice's progress never depends on it; callers only log a failure. Waits at most `timeout`.
  Status CommitGroupOffsets(const std::map<int32_t, int64_t>& next_offsets,
                            std::chrono::milliseconds timeout = std::chrono::seconds(5));

  const std::string& topic() const;

  struct State;  // librdkafka handles and per-partition progress (kafka_source_state.h)

 private:
  explicit KafkaSource(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace sluice::source
