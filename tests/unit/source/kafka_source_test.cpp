// KafkaSource against librdkafka's in-process mock cluster: metadata, watermarks, exactly-once consumption
// across calls and sources, limits, caught-up detection, message fields, group offsets.
#include "source/kafka_source.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "mock_kafka.h"
#include "source_test_util.h"

namespace sluice::source {
namespace {

using namespace std::chrono_literals;
using namespace testing;
using ::testing::HasSubstr;

class KafkaSourceTest : public testing::KafkaSourceFixture {};

TEST_F(KafkaSourceTest, ListsPartitionsSorted) {
  kafka_.CreateTopic("orders", 4);
  auto source = Source(Config("orders"));
  auto partitions = source->Partitions(5s);
  ASSERT_TRUE(partitions.ok()) << partitions.status().ToString();
  EXPECT_EQ(*partitions, (std::vector<int32_t>{0, 1, 2, 3}));
}

TEST_F(KafkaSourceTest, UnknownTopicIsNotFound) {
  kafka_.CreateTopic("orders", 1);
  auto source = Source(Config("nope"));
  auto partitions = source->Partitions(5s);
  ASSERT_FALSE(partitions.ok());
  EXPECT_EQ(partitions.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(partitions.status().message(), HasSubstr("topic 'nope' does not exist on brokers"));
}

TEST_F(KafkaSourceTest, UnreachableBrokersAreUnavailable) {
  KafkaClientConfig config = Config("orders");
  config.brokers = "127.0.0.1:1";  // nothing listens on port 1
  auto source = Source(config);
  auto start = std::chrono::steady_clock::now();
  auto partitions = source->Partitions(300ms);
  ASSERT_FALSE(partitions.ok());
  EXPECT_EQ(partitions.status().code(), StatusCode::kUnavailable) << partitions.status().ToString();
  EXPECT_TRUE(partitions.status().retriable());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  auto wm = source->QueryWatermarks(0, 300ms);
  ASSERT_FALSE(wm.ok());
  EXPECT_TRUE(wm.status().retriable()) << wm.status().ToString();
}

TEST_F(KafkaSourceTest, QueriesWatermarks) {
  kafka_.CreateTopic("orders", 2);
  ProduceNumbered(kafka_, "orders", 1, 10);
  auto source = Source(Config("orders"));
  auto wm0 = source->QueryWatermarks(0, 5s);
  ASSERT_TRUE(wm0.ok()) << wm0.status().ToString();
  EXPECT_EQ(wm0->low, 0);
  EXPECT_EQ(wm0->high, 10);
  auto wm1 = source->QueryWatermarks(1, 5s);
  ASSERT_TRUE(wm1.ok()) << wm1.status().ToString();
  EXPECT_EQ(wm1->low, 0);
  EXPECT_EQ(wm1->high, 0);
}

TEST_F(KafkaSourceTest, ConsumesEverythingExactlyOnceAcrossCallsAndSources) {
  kafka_.CreateTopic("orders", 3);
  ProduceNumbered(kafka_, "orders", 3, 200, 50);
  std::vector<Got> got;
  std::map<int32_t, int64_t> progress{{0, 0}, {1, 0}, {2, 0}};

  // A few small batches from one source, as consecutive tasks sharing it would take them.
  {
    auto source = Source(Config("orders"));
    ASSERT_TRUE(source->Assign(progress).ok());
    for (int call = 0; call < 4; ++call) {
      auto r = ConsumeInto(*source, Within(5s, 37), got);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(r->messages, 37u);
      EXPECT_FALSE(r->caught_up);
      progress = r->next_offsets;
    }
    EXPECT_EQ(got.size(), 4u * 37u);
  }
  // A new source resumes from the committed next offsets, as a task after a restart would.
  auto source = Source(Config("orders"));
  ASSERT_TRUE(source->Assign(progress).ok());
  ConsumeResult last = Drain(*source, got, 10s, 50);
  EXPECT_TRUE(last.caught_up);
  EXPECT_EQ(last.next_offsets, (std::map<int32_t, int64_t>{{0, 200}, {1, 200}, {2, 200}}));
  ExpectExactlyOnce(got, 3, 200);
}

TEST_F(KafkaSourceTest, OneMessageAtATimeKeepsOrder) {
  kafka_.CreateTopic("orders", 1);
  ProduceNumbered(kafka_, "orders", 1, 20);
  auto source = Source(Config("orders"));
  ASSERT_TRUE(source->Assign({{0, 0}}).ok());
  std::vector<Got> got;
  for (int i = 0; i < 20; ++i) {
    auto r = ConsumeInto(*source, Within(5s, 1), got);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(got.size(), static_cast<size_t>(i + 1));
    EXPECT_EQ(got.back().offset, i);
    EXPECT_EQ(r->next_offsets.at(0), i + 1);
  }
  ExpectExactlyOnce(got, 1, 20);
}

TEST_F(KafkaSourceTest, StopsAtMaxMessagesAndMaxBytes) {
  kafka_.CreateTopic("orders", 1);
  for (int i = 0; i < 50; ++i) kafka_.Produce("orders", 0, std::string(100, static_cast<char>('a' + i % 26)));
  kafka_.Flush();
  auto source = Source(Config("orders"));
  ASSERT_TRUE(source->Assign({{0, 0}}).ok());
  std::vector<Got> got;

  auto r = ConsumeInto(*source, Within(5s, 10), got);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->messages, 10u);
  EXPECT_EQ(r->bytes, 1000u);
  EXPECT_EQ(r->next_offsets.at(0), 10);

  // Checked before each message: 250 bytes allow a third 100-byte message, not a fourth.
  r = ConsumeInto(*source, Within(5s, 0, 250), got);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->messages, 3u);
  EXPECT_EQ(r->bytes, 300u);
  EXPECT_EQ(r->next_offsets.at(0), 13);
  EXPECT_EQ(got.back().offset, 12);
}

TEST_F(KafkaSourceTest, StopsAtTheDeadline) {
  kafka_.CreateTopic("orders", 1);
  ProduceNumbered(kafka_, "orders", 1, 100);
  auto source = Source(Config("orders"));
  ASSERT_TRUE(source->Assign({{0, 0}}).ok());
  size_t seen = 0;
  auto start = std::chrono::steady_clock::now();
  auto r = source->Consume(Within(300ms), [&](const KafkaMessage&) {
    ++seen;
    std::this_thread::sleep_for(50ms);  // a slow consumer
    return true;
  });
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_GE(seen, 1u);
  EXPECT_LE(seen, 10u);
  EXPECT_EQ(r->messages, seen);
  EXPECT_FALSE(r->caught_up);
  EXPECT_LT(took, 1s);
  EXPECT_EQ(r->next_offsets.at(0), static_cast<int64_t>(seen));
}

TEST_F(KafkaSourceTest, CallbackCanStopEarly) {
  kafka_.CreateTopic("orders", 1);
  ProduceNumbered(kafka_, "orders", 1, 10);
  auto source = Source(Config("orders"));
  ASSERT_TRUE(source->Assign({{0, 0}}).ok());
  std::vector<int64_t> offsets;
  auto r = source->Consume(Within(5s), [&](const KafkaMessage& m) {
    offsets.push_back(m.offset);
    return offsets.size() < 3;  // the third message is taken, then stop
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->messages, 3u);
  EXPECT_EQ(r->next_offsets.at(0), 3);
  std::vector<Got> rest;
  auto more = ConsumeInto(*source, Within(5s), rest);
  ASSERT_TRUE(more.ok()) << more.status().ToString();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.front().offset, 3);
}

TEST_F(KafkaSourceTest, CaughtUpRightAwayAtHighWatermarkAndAgainLater) {
  kafka_.CreateTopic("orders", 2);
  ProduceNumbered(kafka_, "orders", 1, 5);
  auto source = Source(Config("orders"));
  ASSERT_TRUE(source->Assign({{0, 5}, {1, 0}}).ok());  // p0 at its end, p1 empty
  std::vector<Got> got;
  auto start = std::chrono::steady_clock::now();
  auto r = ConsumeInto(*source, Within(10s), got);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->caught_up);
  EXPECT_EQ(r->messages, 0u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);

  // librdkafka reports the end only once per position; a second call must still know it is caught up.
  start = std::chrono::steady_clock::now();
  r = ConsumeInto(*source, Within(10s), got);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->caught_up);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);

  // New data ends the caught-up state until it has been read.
  for (int i = 5; i < 8; ++i) kafka_.Produce("orders", 0, Payload(0, i));
  kafka_.Flush();
  auto end = std::chrono::steady_clock::now() + 10s;
  while (got.size() < 3 && std::chrono::steady_clock::now() < end) {
    r = ConsumeInto(*source, Within(1s), got);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    if (got.size() < 3) std::this_thread::sleep_for(20ms);
  }
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].offset, 5);
  EXPECT_EQ(got[2].offset, 7);
  EXPECT_EQ(r->next_offsets.at(0), 8);
  r = ConsumeInto(*source, Within(5s), got);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->caught_up);
}

// librdkafka reports a partition's end only with the answer to the fetch after the one that brought its last
// message, and the broker holds that fetch for fetch.wait.max.ms. A new consumer that has read up to the high
// watermark its fetch answer carried is caught up without that wait (ConsumeLimits::end_at_fetched_high); without
// the flag it waits for the event.
TEST_F(KafkaSourceTest, ANewConsumerEndsAtTheFetchedHighWatermark) {
  for (bool flag : {true, false}) {
    const std::string topic = flag ? "with_flag" : "without_flag";
    kafka_.CreateTopic(topic, 1);
    ProduceNumbered(kafka_, topic, 1, 10);
    auto source = Source(Config(topic, {{"fetch.wait.max.ms", "3000"}}));
    ASSERT_TRUE(source->Assign({{0, 0}}).ok());
    std::vector<Got> got;
    ConsumeLimits limits = Within(10s);
    limits.end_at_fetched_high = flag;
    auto start = std::chrono::steady_clock::now();
    auto r = ConsumeInto(*source, limits, got);
    const auto took = std::chrono::steady_clock::now() - start;
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->messages, 10u);
    EXPECT_EQ(r->next_offsets.at(0), 10);
    EXPECT_TRUE(r->caught_up);
    if (flag) EXPECT_LT(took, 2s) << "waited for the end-of-partition event";
    else EXPECT_GE(took, 2s) << "the event came without the held fetch (the test shows nothing)";
    // Data produced later is read by the next call, as with the event (the mock broker answers the fetch in flight
    // only at the end of its 3 s wait, so the call is given longer than that).
    for (int i = 10; i < 13; ++i) kafka_.Produce(topic, 0, Payload(0, i));
    kafka_.Flush();
    std::vector<Got> more;
    auto end = std::chrono::steady_clock::now() + 20s;
    while (more.size() < 3 && std::chrono::steady_clock::now() < end) {
      auto m = ConsumeInto(*source, Within(8s, 3), more);
      ASSERT_TRUE(m.ok()) << m.status().ToString();
    }
    ASSERT_EQ(more.size(), 3u);
    EXPECT_EQ(more.front().offset, 10);
  }
}

TEST_F(KafkaSourceTest, NothingAssignedIsCaughtUp) {
  kafka_.CreateTopic("orders", 1);
  auto source = Source(Config("orders"));
  std::vector<Got> got;
  auto r = ConsumeInto(*source, Within(5s), got);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->caught_up);
  EXPECT_TRUE(r->next_offsets.empty());
}

TEST_F(KafkaSourceTest, DeliversKeysHeadersAndTimestamps) {
  kafka_.CreateTopic("orders", 1);
  TestRecord with_all;
  with_all.payload = "{\"id\":1}";
  with_all.key = "k1";
  with_all.timestamp_ms = 1'700'000'000'123;
  with_all.headers = {{"trace", "abc"}, {"dup", "first"}, {"dup", "second"}, {"nullvalue", std::nullopt}};
  kafka_.Produce("orders", with_all);
  TestRecord bare;
  bare.payload = "";
  bare.timestamp_ms = 1'700'000'000'456;
  kafka_.Produce("orders", bare);
  TestRecord empty_key;
  empty_key.payload = "x";
  empty_key.key = "";
  kafka_.Produce("orders", empty_key);
  kafka_.Flush();

  struct Seen {
    std::optional<std::string> key;
    std::string payload;
    int64_t ts;
    std::vector<std::pair<std::string, std::string>> headers;
  };
  auto read_all = [&](bool want_headers) {
    auto source = Source(Config("orders"));
    EXPECT_TRUE(source->Assign({{0, 0}}).ok());
    std::vector<Seen> seen;
    ConsumeLimits limits = Within(5s);
    limits.want_headers = want_headers;
    auto r = source->Consume(limits, [&](const KafkaMessage& m) {
      Seen s{m.key ? std::optional<std::string>(std::string(*m.key)) : std::nullopt, std::string(m.payload),
             m.timestamp_ms, {}};
      for (const auto& [name, value] : m.headers) s.headers.emplace_back(name, value);
      seen.push_back(std::move(s));
      return true;
    });
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->caught_up);
    return seen;
  };

  std::vector<Seen> seen = read_all(true);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].key, "k1");
  EXPECT_EQ(seen[0].payload, "{\"id\":1}");
  EXPECT_EQ(seen[0].ts, 1'700'000'000'123);
  EXPECT_EQ(seen[0].headers, (std::vector<std::pair<std::string, std::string>>{
                                 {"trace", "abc"}, {"dup", "first"}, {"dup", "second"}, {"nullvalue", ""}}));
  EXPECT_EQ(seen[1].key, std::nullopt);
  EXPECT_EQ(seen[1].payload, "");
  EXPECT_EQ(seen[1].ts, 1'700'000'000'456);
  EXPECT_TRUE(seen[1].headers.empty());
  EXPECT_EQ(seen[2].key, std::optional<std::string>(""));
  EXPECT_GT(seen[2].ts, 1'700'000'000'456);  // stamped by the producer: now

  seen = read_all(false);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_TRUE(seen[0].headers.empty());  // not asked for
}

TEST_F(KafkaSourceTest, AssignReplacesThePreviousAssignment) {
  kafka_.CreateTopic("orders", 2);
  ProduceNumbered(kafka_, "orders", 2, 50);
  auto source = Source(Config("orders"));
  ASSERT_TRUE(source->Assign({{0, 0}}).ok());
  std::vector<Got> got;
  auto r = ConsumeInto(*source, Within(5s, 5), got);  // more were fetched than delivered
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(got.size(), 5u);

  // Back to offset 2 of the same partition: nothing fetched for the old assignment may show up.
  ASSERT_TRUE(source->Assign({{0, 2}}).ok());
  got.clear();
  r = ConsumeInto(*source, Within(5s, 3), got);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].offset, 2);
  EXPECT_EQ(got[2].offset, 4);

  // Another partition only.
  ASSERT_TRUE(source->Assign({{1, 40}}).ok());
  got.clear();
  ConsumeResult last = Drain(*source, got, 5s);
  EXPECT_EQ(got.size(), 10u);
  for (const Got& g : got) EXPECT_EQ(g.partition, 1);
  EXPECT_EQ(last.next_offsets, (std::map<int32_t, int64_t>{{1, 50}}));

  EXPECT_EQ(source->Assign({{0, -2}}).code(), StatusCode::kInvalidArgument);
}

TEST_F(KafkaSourceTest, CommitsGroupOffsetsForLagTools) {
  kafka_.CreateTopic("orders", 2);
  ProduceNumbered(kafka_, "orders", 2, 10);
  auto source = Source(Config("orders"));
  ASSERT_TRUE(source->CommitGroupOffsets({{0, 3}, {1, 7}}, 5s).ok());
  ASSERT_TRUE(source->CommitGroupOffsets({}, 5s).ok());

  // What kafka-consumer-groups would read: the group's committed offsets.
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", kafka_.bootstraps().c_str(), errstr, sizeof errstr);
  rd_kafka_conf_set(conf, "group.id", "group-orders", errstr, sizeof errstr);
  rd_kafka_t* reader = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr);
  ASSERT_NE(reader, nullptr) << errstr;
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(2);
  rd_kafka_topic_partition_list_add(list, "orders", 0);
  rd_kafka_topic_partition_list_add(list, "orders", 1);
  EXPECT_EQ(rd_kafka_committed(reader, list, 5000), RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(list->elems[0].offset, 3);
  EXPECT_EQ(list->elems[1].offset, 7);
  rd_kafka_topic_partition_list_destroy(list);
  rd_kafka_destroy_flags(reader, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
}

TEST_F(KafkaSourceTest, SluiceOwnPropertiesAreNotPassedToLibrdkafka) {
  kafka_.CreateTopic("orders", 1);
  auto r = KafkaSource::Create(Config("orders", {{"kafka_default_offsets", "OFFSET_BEGINNING"},
                                                  {"fetch.wait.max.ms", "50"}}));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
}

// librdkafka stops fetching while the consumer queue is over queued.min.messages, and nothing wakes its broker
// thread when the queue is drained: without a wake, each refill would wait up to a second (see
// kafka_consume.cpp). Here every fetch fills the queue (one message makes it full), so 40 fetches take about
// 20 s unwoken; woken, they take well under the 10 s deadline.
TEST_F(KafkaSourceTest, ADrainedFullQueueIsRefilledWithoutWaiting) {
  kafka_.CreateTopic("orders", 1);
  ProduceNumbered(kafka_, "orders", 1, 400, 10);  // 40 producer batches: one per fetch with the limit below
  auto source = Source(Config("orders", {{"queued.min.messages", "1"}, {"max.partition.fetch.bytes", "64"}}));
  ASSERT_TRUE(source->Assign({{0, 0}}).ok());
  std::vector<Got> got;
  auto r = ConsumeInto(*source, Within(10s, 400), got);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->messages, 400u) << "the consumer waited for librdkafka to fetch again";
  ExpectExactlyOnce(got, 1, 400);
}

}  // namespace
}  // namespace sluice::source
