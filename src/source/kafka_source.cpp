// KafkaSource: creation, metadata, watermarks, assignment and the group-offset commit.
// Consume() lives in kafka_consume.cpp, OffsetForTimestamp() in offset_search.cpp.
#include "source/kafka_source.h"

#include <algorithm>
#include <climits>

#include "common/log.h"
#include "source/kafka_config.h"
#include "source/kafka_source_state.h"
#include "source/kafka_status.h"
#include "source/list_offsets.h"

namespace sluice::source {

namespace internal {
int TimeoutMs(std::chrono::milliseconds timeout) {
  return static_cast<int>(std::clamp<std::chrono::milliseconds::rep>(timeout.count(), 0, INT_MAX));
}
int RemainingMs(std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  return TimeoutMs(left);
}
}  // namespace internal

using namespace internal;

KafkaSource::KafkaSource(std::unique_ptr<State> state) : state_(std::move(state)) {}
KafkaSource::~KafkaSource() = default;

const std::string& KafkaSource::topic() const { return state_->config.topic; }

Result<std::unique_ptr<KafkaSource>> KafkaSource::Create(const KafkaClientConfig& config) {
  auto state = std::make_unique<State>();
  state->config = config;
  ASSIGN_OR_RETURN(state->rk, NewKafkaClient(config, ClientRole::kConsumer, state->errors.get()));
  state->queue.reset(rd_kafka_queue_get_consumer(state->rk.get()));
  if (!state->queue) return Status::Internal("librdkafka gave no consumer queue although group.id is set");
  return std::unique_ptr<KafkaSource>(new KafkaSource(std::move(state)));
}

namespace internal {
Result<TopicsMetadata> ReadTopicsMetadata(rd_kafka_t* rk, const std::string& topic, const std::string& brokers,
                                          std::chrono::milliseconds timeout) {
  // Metadata of all topics rather than of this one: asking for one topic by name makes brokers that allow
  // auto-creation (and the mock cluster, always) create it, and a typo in kafka_topic must be an error.
  // Asked in slices of a second: when the brokers refuse connections, the answer says so within about a second
  // ("Connection refused") instead of "Broker transport failure" once the whole timeout has passed.
  auto* errors = static_cast<ClientErrors*>(rd_kafka_opaque(rk));
  const uint64_t failures_before = errors ? errors->LastConnectionFailure().seq : 0;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const rd_kafka_metadata_t* raw = nullptr;
  rd_kafka_resp_err_t err;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    err = rd_kafka_metadata(rk, 1, nullptr, &raw, TimeoutMs(std::min(left, std::chrono::milliseconds(1000))));
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR || std::chrono::steady_clock::now() >= deadline) break;
    if (errors != nullptr) {
      ClientErrors::Entry failure = errors->LastConnectionFailure();
      if (failure.seq > failures_before)
        return Status::Unavailable(fmt::format("cannot reach the brokers '{}' for topic '{}': {}", brokers, topic,
                                               failure.reason));
    }
  }
  MetadataPtr md(raw);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return KafkaStatus(err, fmt::format("cannot read the metadata of topic '{}' from brokers '{}' within {} ms",
                                        topic, brokers, timeout.count()));
  }
  TopicsMetadata out;
  for (int i = 0; i < md->topic_cnt; ++i) {
    const rd_kafka_metadata_topic_t& t = md->topics[i];
    TopicsMetadata::Topic& topic_out = out.topics[t.topic];
    topic_out.err = t.err;
    topic_out.partitions.reserve(t.partition_cnt);
    for (int p = 0; p < t.partition_cnt; ++p) topic_out.partitions.push_back(t.partitions[p].id);
    std::sort(topic_out.partitions.begin(), topic_out.partitions.end());
  }
  return out;
}

Result<std::vector<int32_t>> PartitionsIn(const TopicsMetadata& metadata, const std::string& topic,
                                          const std::string& brokers) {
  auto t = metadata.topics.find(topic);
  if (t == metadata.topics.end() || KafkaErrorCode(t->second.err) == StatusCode::kNotFound ||
      (t->second.err == RD_KAFKA_RESP_ERR_NO_ERROR && t->second.partitions.empty()))
    return Status::NotFound(fmt::format("topic '{}' does not exist on brokers '{}'", topic, brokers));
  if (t->second.err != RD_KAFKA_RESP_ERR_NO_ERROR)
    return KafkaStatus(t->second.err, fmt::format("cannot list the partitions of topic '{}'", topic));
  return t->second.partitions;
}

Result<std::vector<int32_t>> TopicPartitions(rd_kafka_t* rk, const std::string& topic, const std::string& brokers,
                                             std::chrono::milliseconds timeout) {
  ASSIGN_OR_RETURN(TopicsMetadata metadata, ReadTopicsMetadata(rk, topic, brokers, timeout));
  return PartitionsIn(metadata, topic, brokers);
}
}  // namespace internal

Result<std::vector<int32_t>> KafkaSource::Partitions(std::chrono::milliseconds timeout) {
  return TopicPartitions(state_->rk.get(), state_->config.topic, state_->config.brokers, timeout);
}

Result<Watermarks> KafkaSource::QueryWatermarks(int32_t partition, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  Watermarks wm{-1, -1};
  for (auto [query, out] : {std::pair{RD_KAFKA_OFFSET_BEGINNING, &wm.low}, std::pair{RD_KAFKA_OFFSET_END, &wm.high}}) {
    ListOffsetAnswer answer = ListOffset(state_->rk.get(), state_->config.topic, partition, query, deadline);
    if (answer.err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      *out = answer.offset;
      continue;
    }
    if (KafkaErrorCode(answer.err) == StatusCode::kNotFound)
      return Status::NotFound(fmt::format("topic '{}' has no partition {} on brokers '{}'", state_->config.topic,
                                          partition, state_->config.brokers));
    // No answer in time usually means the brokers went away; say which and why, as a new job's metadata does.
    auto* errors = static_cast<ClientErrors*>(rd_kafka_opaque(state_->rk.get()));
    if (errors != nullptr && KafkaErrorCode(answer.err) == StatusCode::kUnavailable) {
      if (auto failure = errors->RecentConnectionFailure(std::chrono::seconds(15)))
        return Status::Unavailable(fmt::format("cannot reach the brokers '{}' for topic '{}' partition {}: {}",
                                               state_->config.brokers, state_->config.topic, partition, *failure));
    }
    return KafkaStatus(answer.err, fmt::format("cannot read the offsets of topic '{}' partition {} within {} ms",
                                               state_->config.topic, partition, timeout.count()));
  }
  return wm;
}

std::optional<int64_t> KafkaSource::CachedHighWatermark(int32_t partition) const {
  int64_t low = RD_KAFKA_OFFSET_INVALID;
  int64_t high = RD_KAFKA_OFFSET_INVALID;
  if (rd_kafka_get_watermark_offsets(state_->rk.get(), state_->config.topic.c_str(), partition, &low, &high) !=
          RD_KAFKA_RESP_ERR_NO_ERROR ||
      high < 0)
    return std::nullopt;
  return high;
}

Status KafkaSource::Assign(const std::map<int32_t, int64_t>& start_offsets) {
  for (const auto& [partition, offset] : start_offsets) {
    if (partition < 0) return Status::InvalidArgument(fmt::format("invalid Kafka partition {}", partition));
    if (offset < 0)
      return Status::InvalidArgument(fmt::format(
          "invalid start offset {} for topic '{}' partition {}: resolve logical offsets to numbers first", offset,
          state_->config.topic, partition));
  }
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(start_offsets.size())));
  for (const auto& [partition, offset] : start_offsets)
    rd_kafka_topic_partition_list_add(list.get(), state_->config.topic.c_str(), partition)->offset = offset;

  // Messages fetched for the old assignment must not leak into the new one: librdkafka purges its queue by
  // version, and we drop what we had already taken from it.
  state_->batch.Clear();
  state_->assigned.clear();
  rd_kafka_resp_err_t err = rd_kafka_assign(state_->rk.get(), list.get());
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    state_->needs_assign = true;
    return KafkaStatus(err, fmt::format("cannot assign partitions of topic '{}'", state_->config.topic));
  }
  for (const auto& [partition, offset] : start_offsets) state_->assigned[partition] = PartitionProgress{offset, false};
  state_->needs_assign = false;
  return Status::Ok();
}

Status KafkaSource::CommitGroupOffsets(const std::map<int32_t, int64_t>& next_offsets,
                                       std::chrono::milliseconds timeout) {
  if (next_offsets.empty()) return Status::Ok();
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(next_offsets.size())));
  for (const auto& [partition, offset] : next_offsets)
    rd_kafka_topic_partition_list_add(list.get(), state_->config.topic.c_str(), partition)->offset = offset;

  // rd_kafka_commit() has no timeout and would wait for the group coordinator indefinitely. With a queue of our
  // own the result arrives as an event we can stop waiting for; a late result is dropped with the queue.
  QueueHandle result_queue(rd_kafka_queue_new(state_->rk.get()));
  rd_kafka_resp_err_t err = rd_kafka_commit_queue(state_->rk.get(), list.get(), result_queue.get(), nullptr, nullptr);
  std::string what = fmt::format("cannot commit offsets of topic '{}' for the consumer group", state_->config.topic);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return KafkaStatus(err, what);

  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    EventPtr ev(rd_kafka_queue_poll(result_queue.get(), RemainingMs(deadline)));
    if (!ev)
      return Status::Timeout(fmt::format("{}: no answer from the group coordinator within {} ms", what,
                                         timeout.count()));
    if (rd_kafka_event_type(ev.get()) != RD_KAFKA_EVENT_OFFSET_COMMIT) continue;
    if (rd_kafka_event_error(ev.get()) != RD_KAFKA_RESP_ERR_NO_ERROR)
      return KafkaStatus(rd_kafka_event_error(ev.get()), what, rd_kafka_event_error_string(ev.get()));
    if (const rd_kafka_topic_partition_list_t* done = rd_kafka_event_topic_partition_list(ev.get())) {
      for (int i = 0; i < done->cnt; ++i)
        if (done->elems[i].err != RD_KAFKA_RESP_ERR_NO_ERROR)
          return KafkaStatus(done->elems[i].err, fmt::format("{} (partition {})", what, done->elems[i].partition));
    }
    return Status::Ok();
  }
}

}  // namespace sluice::source
