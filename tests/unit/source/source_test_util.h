#pragma once
// Shared helpers for the KafkaSource tests: consuming into a vector and checking exactly-once delivery.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "mock_kafka.h"
#include "source/kafka_source.h"

namespace sluice::source::testing {

using namespace std::chrono_literals;

// A mock cluster of 3 brokers, and sources configured for it.
class KafkaSourceFixture : public ::testing::Test {
 protected:
  KafkaClientConfig Config(const std::string& topic, std::vector<std::pair<std::string, std::string>> props = {}) {
    KafkaClientConfig config;
    config.brokers = kafka_.bootstraps();
    config.topic = topic;
    config.group_id = "group-" + topic;
    config.client_id = "test";
    config.properties = std::move(props);
    return config;
  }
  std::unique_ptr<KafkaSource> Source(const KafkaClientConfig& config) {
    auto r = KafkaSource::Create(config);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  }

  MockKafka kafka_{3};
};

struct Got {
  int32_t partition;
  int64_t offset;
  std::string payload;
};

inline ConsumeLimits Within(std::chrono::milliseconds time, size_t max_messages = 0, size_t max_bytes = 0) {
  ConsumeLimits limits;
  limits.deadline = std::chrono::steady_clock::now() + time;
  limits.max_messages = max_messages;
  limits.max_bytes = max_bytes;
  return limits;
}

inline Result<ConsumeResult> ConsumeInto(KafkaSource& source, const ConsumeLimits& limits, std::vector<Got>& out) {
  return source.Consume(limits, [&](const KafkaMessage& m) {
    out.push_back({m.partition, m.offset, std::string(m.payload)});
    return true;
  });
}

// Calls Consume until every partition is caught up (and `out` holds at least `total` messages) or `budget` runs
// out; fails the test on errors. With `retry_unavailable`, a retriable error on a call that delivered nothing is
// retried, as the scheduler does, for a broker that is still reconnecting after it came back.
inline ConsumeResult Drain(KafkaSource& source, std::vector<Got>& out, std::chrono::milliseconds budget,
                           size_t per_call = 0, size_t total = 0, bool retry_unavailable = false) {
  auto end = std::chrono::steady_clock::now() + budget;
  ConsumeResult last;
  while (std::chrono::steady_clock::now() < end) {
    size_t before = out.size();
    auto r = ConsumeInto(source, Within(1000ms, per_call), out);
    if (!r.ok() && retry_unavailable && r.status().retriable() && out.size() == before) continue;
    if (!r.ok()) {
      ADD_FAILURE() << r.status().ToString();
      return last;
    }
    last = *r;
    if (last.caught_up && out.size() >= total) return last;
  }
  ADD_FAILURE() << "not caught up within " << budget.count() << " ms";
  return last;
}

inline std::string Payload(int32_t partition, int i) { return "p" + std::to_string(partition) + "-" + std::to_string(i); }

// `count` messages "p<partition>-<i>" into each of `partitions`, in several produce batches.
inline void ProduceNumbered(MockKafka& kafka, const std::string& topic, int partitions, int count, int batch = 0) {
  for (int i = 0; i < count; ++i) {
    for (int p = 0; p < partitions; ++p) kafka.Produce(topic, p, Payload(p, i));
    if (batch > 0 && (i + 1) % batch == 0) kafka.Flush();
  }
  kafka.Flush();
}

// Every numbered message exactly once, and offsets increasing within each partition.
inline void ExpectExactlyOnce(const std::vector<Got>& got, int partitions, int count) {
  std::map<std::string, int> seen;
  std::map<int32_t, int64_t> last_offset;
  for (const Got& g : got) {
    seen[g.payload]++;
    auto it = last_offset.find(g.partition);
    if (it != last_offset.end()) {
      EXPECT_GT(g.offset, it->second) << "partition " << g.partition;
    }
    last_offset[g.partition] = g.offset;
  }
  EXPECT_EQ(got.size(), static_cast<size_t>(partitions * count));
  for (int p = 0; p < partitions; ++p) {
    for (int i = 0; i < count; ++i) {
      EXPECT_EQ(seen[Payload(p, i)], 1) << Payload(p, i);
    }
  }
}

}  // namespace sluice::source::testing
