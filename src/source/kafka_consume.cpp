// KafkaSource::Consume(): one bounded batch of messages from the assigned partitions.
#include <algorithm>
#include <string>

#include "common/log.h"
#include "source/kafka_source.h"
#include "source/kafka_source_state.h"
#include "source/kafka_status.h"
#include "source/list_offsets.h"
#include "source/offset_out_of_range.h"

namespace sluice::source {

using namespace internal;
using Clock = std::chrono::steady_clock;

namespace {

// When a call delivered nothing, we ask the leaders of the partitions that are not caught up for their
// watermarks, to tell "no new data" from "cannot reach the data". This bounds how far past the deadline that
// check may run.
constexpr std::chrono::milliseconds kDiagnosisBudget{500};

// librdkafka 2.0 stops fetching a partition while the consumer queue is over queued.min.messages or
// queued.max.messages.kbytes, and nothing wakes its broker thread when the application drains the queue: with
// no fetch in flight it sleeps up to a second before deciding again. A group that is behind fills its queue
// while its task commits, so every next task drained it and then waited, up to a second per task. Any request
// to a leader wakes its thread, which then fetches at once: when the queue stays empty for kFetchGrace while some
// partition is behind (a fetch in flight would have answered by then), Consume() sends one ListOffsets per
// leader without waiting for the answer. That is at most one request per time the queue ran dry.
constexpr std::chrono::milliseconds kFetchGrace{10};
constexpr std::chrono::milliseconds kFetcherWakeWait{1};

class ConsumeRun {
 public:
  ConsumeRun(KafkaSource& source, KafkaSource::State& state, const ConsumeLimits& limits,
             const std::function<bool(const KafkaMessage&)>& on_message)
      : source_(source), state_(state), limits_(limits), on_message_(on_message) {}

  Result<ConsumeResult> Run() {
    uint64_t errors_before = state_.errors->Last().seq;
    while (!LimitsReached()) {
      if (Clock::now() >= limits_.deadline) break;
      if (state_.batch.empty()) {
        bool caught_up = AllCaughtUp();
        // Caught up: take what is already queued (new data clears at_eof), but do not wait for more.
        bool got = state_.batch.Fill(state_.queue.get(),
                                     caught_up ? std::chrono::milliseconds(0) : std::min(kFetchGrace, Remaining()));
        if (!got && !caught_up) {
          WakeStalledFetchers();
          got = state_.batch.Fill(state_.queue.get(), Remaining());
        }
        RETURN_IF_ERROR(Fail(CheckFatal()));
        if (!got) {
          if (caught_up) break;
          continue;
        }
      }
      const rd_kafka_message_t* next = state_.batch.Peek();
      if (next->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        MessagePtr event = state_.batch.Take();
        RETURN_IF_ERROR(Fail(HandleEvent(*event)));
        continue;
      }
      MessagePtr message = state_.batch.Take();
      if (!Deliver(*message)) break;
    }

    ClientErrors::Entry last_error = state_.errors->Last();
    if (last_error.seq > errors_before)
      Note(KafkaStatus(last_error.err, fmt::format("Kafka client for brokers '{}'", state_.config.brokers),
                       last_error.reason));
    if (result_.messages == 0 && !AllCaughtUp()) RETURN_IF_ERROR(Fail(Diagnose()));
    if (!problem_.ok() && !AllCaughtUp())
      log::Debug("kafka", "topic '{}': consumed {} messages despite: {}", source_.topic(), result_.messages,
                 problem_.message());
    for (const auto& [partition, progress] : state_.assigned) result_.next_offsets[partition] = progress.next_offset;
    result_.caught_up = AllCaughtUp();
    return std::move(result_);
  }

 private:
  bool LimitsReached() const {
    return (limits_.max_messages > 0 && result_.messages >= limits_.max_messages) ||
           (limits_.max_bytes > 0 && result_.bytes >= limits_.max_bytes);
  }

  bool AllCaughtUp() const {
    return std::all_of(state_.assigned.begin(), state_.assigned.end(),
                       [&](const auto& entry) { return CaughtUp(entry.first, entry.second); });
  }

  // librdkafka reported the end, or (ConsumeLimits::end_at_fetched_high) the partition's next offset reached the
  // high watermark its latest fetch answer carried: librdkafka records that watermark before it queues the answer's
  // messages, so every message below it has been delivered or is ahead in the queue, and none is when next_offset
  // reached it.
  bool CaughtUp(int32_t partition, const PartitionProgress& progress) const {
    if (progress.at_eof) return true;
    if (!limits_.end_at_fetched_high) return false;
    std::optional<int64_t> high = source_.CachedHighWatermark(partition);
    return high && progress.next_offset >= *high;
  }

  std::chrono::milliseconds Remaining() const {
    return std::max(std::chrono::ceil<std::chrono::milliseconds>(limits_.deadline - Clock::now()),
                    std::chrono::milliseconds(0));
  }

  // The queue is empty and some partition is behind: make sure its leader's fetcher is not asleep.
  void WakeStalledFetchers() {
    std::vector<int32_t> behind;
    for (const auto& [partition, progress] : state_.assigned)
      if (!CaughtUp(partition, progress)) behind.push_back(partition);
    // The answer does not matter (the fetches tell the high watermarks); sending the request is what wakes.
    ListOffsets(state_.rk.get(), source_.topic(), behind, RD_KAFKA_OFFSET_END, Clock::now() + kFetcherWakeWait);
  }

  // Our partition, or nullptr for events about other topics, partitions no longer assigned, or the client.
  // Messages come in runs from one partition, so the last answer is remembered (the map cannot change during
  // a call: Assign() is not called from inside on_message).
  PartitionProgress* Assigned(const rd_kafka_message_t& m) {
    if (m.rkt == nullptr || m.partition < 0) return nullptr;
    if (m.rkt == last_rkt_ && m.partition == last_partition_) return last_progress_;
    PartitionProgress* progress = nullptr;
    if (source_.topic() == rd_kafka_topic_name(m.rkt)) {
      auto it = state_.assigned.find(m.partition);
      if (it != state_.assigned.end()) progress = &it->second;
    }
    last_rkt_ = m.rkt;
    last_partition_ = m.partition;
    last_progress_ = progress;
    return progress;
  }

  // Returns false when the caller asked to stop.
  bool Deliver(const rd_kafka_message_t& m) {
    PartitionProgress* progress = Assigned(m);
    if (progress == nullptr) return true;  // stale: from an assignment that was replaced
    message_.partition = m.partition;
    message_.offset = m.offset;
    rd_kafka_timestamp_type_t type;
    message_.timestamp_ms = rd_kafka_message_timestamp(&m, &type);
    message_.timestamp_type = type == RD_KAFKA_TIMESTAMP_CREATE_TIME       ? TimestampType::kCreateTime
                              : type == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? TimestampType::kLogAppendTime
                                                                           : TimestampType::kNone;
    if (m.key != nullptr)
      message_.key.emplace(static_cast<const char*>(m.key), m.key_len);
    else
      message_.key.reset();
    message_.payload = m.payload != nullptr ? std::string_view(static_cast<const char*>(m.payload), m.len)
                                            : std::string_view();
    message_.headers.clear();  // keeps its capacity: no allocation per message
    if (limits_.want_headers) ReadHeaders(m);

    progress->next_offset = m.offset + 1;
    progress->at_eof = false;
    ++result_.messages;
    result_.bytes += message_.payload.size();
    return on_message_(message_);
  }

  void ReadHeaders(const rd_kafka_message_t& m) {
    rd_kafka_headers_t* headers = nullptr;
    if (rd_kafka_message_headers(&m, &headers) != RD_KAFKA_RESP_ERR_NO_ERROR || headers == nullptr) return;
    const char* name;
    const void* value;
    size_t size;
    for (size_t i = 0; rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR; ++i) {
      message_.headers.emplace_back(std::string_view(name),
                                    value != nullptr ? std::string_view(static_cast<const char*>(value), size)
                                                     : std::string_view());
    }
  }

  // An event in the message stream: end of partition, an error about one partition, or a client-wide error.
  Status HandleEvent(const rd_kafka_message_t& event) {
    PartitionProgress* progress = Assigned(event);
    switch (event.err) {
      case RD_KAFKA_RESP_ERR__PARTITION_EOF:
        if (progress != nullptr) {
          progress->at_eof = true;
          // The end may lie past the last message (a transaction marker takes an offset): resume from there.
          progress->next_offset = std::max(progress->next_offset, event.offset);
        }
        return Status::Ok();
      case RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET:
      case RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE:
        if (progress == nullptr) return Status::Ok();
        return OutOfRange(event.partition, progress->next_offset);
      case RD_KAFKA_RESP_ERR__FATAL:
        return CheckFatal();
      default:
        break;
    }
    if (event.rkt != nullptr && progress == nullptr) return Status::Ok();  // about a partition not ours (any more)
    std::string context = progress != nullptr
                              ? fmt::format("topic '{}' partition {}", source_.topic(), event.partition)
                              : fmt::format("Kafka client for brokers '{}'", state_.config.brokers);
    Note(KafkaStatus(event.err, context, rd_kafka_message_errstr(&event)));
    return Status::Ok();
  }

  // Fatal errors (idempotence/transaction violations, mostly) arrive through error_cb; the client is unusable.
  Status CheckFatal() {
    char reason[512] = "";
    rd_kafka_resp_err_t err = rd_kafka_fatal_error(state_.rk.get(), reason, sizeof reason);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) return Status::Ok();
    return Status::Internal(fmt::format("the Kafka client for topic '{}' failed and must be recreated: {}: {}",
                                        source_.topic(), rd_kafka_err2str(err), reason));
  }

  // Keeps the most telling problem: one a user must fix wins over a transient one.
  void Note(Status problem) {
    log::Debug("kafka", "{}", problem.message());
    if (problem_.ok() || (problem_.retriable() && !problem.retriable())) problem_ = std::move(problem);
  }

  Status OutOfRange(int32_t partition, int64_t requested) {
    auto wm = source_.QueryWatermarks(partition, std::chrono::seconds(1));
    if (!wm.ok()) return OffsetOutOfRangeUnknown(source_.topic(), partition, requested, wm.status().message());
    if (requested >= wm->high) return OffsetBeyondEnd(source_.topic(), partition, requested, wm->low, wm->high);
    return OffsetBelowEarliest(source_.topic(), partition, requested, wm->low, wm->high);
  }

  // Nothing was delivered before the deadline and some partition is not caught up: find out why.
  Status Diagnose() {
    if (!problem_.ok() && !problem_.retriable()) return problem_;
    auto budget_end = Clock::now() + kDiagnosisBudget;
    bool behind = false;
    for (auto& [partition, progress] : state_.assigned) {
      if (CaughtUp(partition, progress)) continue;
      auto left = std::max(std::chrono::ceil<std::chrono::milliseconds>(budget_end - Clock::now()),
                           std::chrono::milliseconds(1));
      auto wm = source_.QueryWatermarks(partition, left);
      if (!wm.ok()) {
        std::string cause = problem_.ok() ? "" : fmt::format("; last client error: {}", problem_.message());
        return Status(wm.status().code() == StatusCode::kTimeout ? StatusCode::kUnavailable : wm.status().code(),
                      fmt::format("no messages could be fetched from topic '{}' partition {}: {}{}", source_.topic(),
                                  partition, wm.status().message(), cause));
      }
      if (wm->high <= progress.next_offset)
        progress.at_eof = true;  // nothing to read; librdkafka reports EOF only once per position
      else
        behind = true;
    }
    if (behind && !problem_.ok())
      return Status(problem_.code(), fmt::format("no messages could be fetched from topic '{}' before the deadline: {}",
                                                 source_.topic(), problem_.message()));
    return Status::Ok();  // data is there and nothing looks wrong: just slow; the caller tries again
  }

  // After an error, positions are past what was delivered; if anything was, the caller discards it and must
  // assign again, which we enforce.
  Status Fail(Status status) {
    if (!status.ok() && result_.messages > 0) state_.needs_assign = true;
    return status;
  }

  KafkaSource& source_;
  KafkaSource::State& state_;
  const ConsumeLimits& limits_;
  const std::function<bool(const KafkaMessage&)>& on_message_;
  ConsumeResult result_;
  const rd_kafka_topic_t* last_rkt_ = nullptr;
  int32_t last_partition_ = -1;
  PartitionProgress* last_progress_ = nullptr;
  KafkaMessage message_;  // reused: its header vector keeps its capacity across messages
  Status problem_;
};

}  // namespace

Result<ConsumeResult> KafkaSource::Consume(const ConsumeLimits& limits,
                                           const std::function<bool(const KafkaMessage&)>& on_message) {
  if (state_->needs_assign)
    return Status::InvalidArgument(fmt::format(
        "topic '{}': a previous Consume() failed after delivering messages; call Assign() with the committed "
        "offsets first", state_->config.topic));
  return ConsumeRun(*this, *state_, limits, on_message).Run();
}

}  // namespace sluice::source
