// KafkaSource::OffsetForTimestamp(): ask the broker, and binary-search fetched timestamps when it cannot say.
#include "source/offset_search.h"

#include "common/log.h"
#include "source/kafka_config.h"
#include "source/kafka_source_state.h"
#include "source/kafka_status.h"
#include "source/list_offsets.h"

namespace sluice::source {
namespace internal {

using Clock = std::chrono::steady_clock;

Result<int64_t> SearchOffsetForTimestamp(Watermarks wm, int64_t ts_ms, const ProbeFn& probe) {
  if (wm.low >= wm.high) return wm.high;
  // Invariants: every message before `lo` is older than ts_ms; reading from `hi` yields the same first message
  // as reading from `found` (a message with timestamp >= ts_ms), or no message at all while found == high.
  int64_t lo = wm.low;
  int64_t hi = wm.high;
  bool found = false;
  // The newest message first: when even it is older (a real broker's -1 answer), one fetch settles it.
  ASSIGN_OR_RETURN(std::optional<ProbedMessage> newest, probe(wm.high - 1));
  if (newest && newest->offset < wm.high) {
    if (newest->timestamp_ms < ts_ms) return wm.high;
    hi = newest->offset;
    found = true;
  }
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    ASSIGN_OR_RETURN(std::optional<ProbedMessage> m, probe(mid));
    if (!m || m->offset >= hi) {
      hi = mid;  // no message in [mid, hi): reading from mid is reading from hi
    } else if (m->timestamp_ms >= ts_ms) {
      hi = mid;  // reading from mid yields m, which qualifies
      found = true;
    } else {
      lo = m->offset + 1;
    }
  }
  // Only gaps after the last older message (e.g. a transaction marker): say high rather than a gap offset.
  return found ? lo : wm.high;
}

Result<std::unique_ptr<OffsetProbe>> OffsetProbe::Create(const KafkaClientConfig& config) {
  ASSIGN_OR_RETURN(KafkaHandle rk, NewKafkaClient(config, ClientRole::kProbe, nullptr));
  QueueHandle queue(rd_kafka_queue_get_consumer(rk.get()));
  if (!queue) return Status::Internal("librdkafka gave no consumer queue although group.id is set");
  return std::unique_ptr<OffsetProbe>(new OffsetProbe(std::move(rk), std::move(queue), config.topic));
}

Result<std::optional<ProbedMessage>> OffsetProbe::FirstAtOrAfter(int32_t partition, int64_t offset,
                                                                  Clock::time_point deadline) {
  PartitionList list(rd_kafka_topic_partition_list_new(1));
  rd_kafka_topic_partition_list_add(list.get(), topic_.c_str(), partition)->offset = offset;
  rd_kafka_resp_err_t err = rd_kafka_assign(rk_.get(), list.get());
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
    return KafkaStatus(err, fmt::format("cannot assign topic '{}' partition {} for a timestamp search", topic_,
                                        partition));
  auto result = Await(partition, offset, deadline);
  // Stop fetching between probes; the next probe assigns again.
  rd_kafka_assign(rk_.get(), nullptr);
  return result;
}

Result<std::optional<ProbedMessage>> OffsetProbe::Await(int32_t partition, int64_t offset,
                                                        Clock::time_point deadline) {
  Status problem;
  while (true) {
    int wait_ms = RemainingMs(deadline);
    rd_kafka_message_t* raw = nullptr;
    MessagePtr m(rd_kafka_consume_batch_queue(queue_.get(), wait_ms, &raw, 1) == 1 ? raw : nullptr);
    if (!m) {
      if (wait_ms > 0 && Clock::now() < deadline) continue;
      std::string cause = problem.ok() ? "" : ": " + problem.message();
      return Status::Unavailable(fmt::format("timed out reading topic '{}' partition {} at offset {} while "
                                             "searching by timestamp{}", topic_, partition, offset, cause));
    }
    bool ours = m->rkt != nullptr && m->partition == partition && topic_ == rd_kafka_topic_name(m->rkt);
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      if (!ours || m->offset < offset) continue;  // left over from the previous probe
      rd_kafka_timestamp_type_t type;
      return std::optional<ProbedMessage>(ProbedMessage{m->offset, rd_kafka_message_timestamp(m.get(), &type)});
    }
    switch (m->err) {
      case RD_KAFKA_RESP_ERR__PARTITION_EOF:
        if (ours && m->offset >= offset) return std::optional<ProbedMessage>();
        break;
      case RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET:
      case RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE:
        if (ours)
          return Status::OutOfRange(fmt::format("topic '{}' partition {}: offset {} went out of range during a "
                                                "timestamp search (retention deleted it?); try again",
                                                topic_, partition, offset));
        break;
      case RD_KAFKA_RESP_ERR__FATAL:
        return Status::Internal(fmt::format("the Kafka client searching topic '{}' failed: {}", topic_,
                                            rd_kafka_message_errstr(m.get())));
      default:
        problem = KafkaStatus(m->err, "Kafka client", rd_kafka_message_errstr(m.get()));
        break;
    }
  }
}

}  // namespace internal

using namespace internal;

Result<int64_t> KafkaSource::OffsetForTimestamp(int32_t partition, int64_t ts_ms, std::chrono::milliseconds timeout) {
  const std::string& topic = state_->config.topic;
  if (ts_ms < 0) return Status::InvalidArgument(fmt::format("invalid timestamp {} ms: must be >= 0", ts_ms));
  auto deadline = Clock::now() + timeout;

  ListOffsetAnswer answer = ListOffset(state_->rk.get(), topic, partition, ts_ms, deadline);
  rd_kafka_resp_err_t err = answer.err;
  std::string what = fmt::format("cannot look up topic '{}' partition {} by time", topic, partition);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    StatusCode code = KafkaErrorCode(err);
    if (code == StatusCode::kNotFound)
      return Status::NotFound(fmt::format("topic '{}' has no partition {} on brokers '{}'", topic, partition,
                                          state_->config.brokers));
    if (code != StatusCode::kNotSupported && err != RD_KAFKA_RESP_ERR_INVALID_REQUEST) return KafkaStatus(err, what);
  } else if (answer.offset >= 0) {
    return answer.offset;
  }

  // -1 (none, or not implemented) or not supported: search ourselves.
  log::Debug("kafka", "topic '{}' partition {}: the broker did not resolve time {}; searching fetched timestamps",
             topic, partition, ts_ms);
  auto left = std::max(std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()),
                       std::chrono::milliseconds(1));
  ASSIGN_OR_RETURN(Watermarks wm, QueryWatermarks(partition, left));
  if (!state_->probe) {
    ASSIGN_OR_RETURN(state_->probe, OffsetProbe::Create(state_->config));
  }
  OffsetProbe& probe = *state_->probe;
  return SearchOffsetForTimestamp(wm, ts_ms, [&](int64_t offset) {
    return probe.FirstAtOrAfter(partition, offset, deadline);
  });
}

}  // namespace sluice::source
