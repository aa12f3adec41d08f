// KafkaSource when things go wrong: offsets out of range, brokers down and back, injected request errors.
// The data must still arrive exactly once, and errors must carry the right code for the scheduler.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "mock_kafka.h"
#include "source/kafka_source.h"
#include "source_test_util.h"

namespace sluice::source {
namespace {

using namespace std::chrono_literals;
using namespace testing;
using ::testing::HasSubstr;

class KafkaSourceFaultTest : public testing::KafkaSourceFixture {};

TEST_F(KafkaSourceFaultTest, OffsetBeyondTheEndIsOutOfRange) {
  kafka_.CreateTopic("orders", 1);
  ProduceNumbered(kafka_, "orders", 1, 5);
  auto source = Source(Config("orders"));
  ASSERT_TRUE(source->Assign({{0, 15}}).ok());
  std::vector<Got> got;
  auto start = std::chrono::steady_clock::now();
  auto r = ConsumeInto(*source, Within(10s), got);
  ASSERT_FALSE(r.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);  // reported, not waited out
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
  EXPECT_FALSE(r.status().retriable());
  EXPECT_THAT(r.status().message(), HasSubstr("topic 'orders' partition 0"));
  EXPECT_THAT(r.status().message(), HasSubstr("offset 15 is beyond the end"));
  EXPECT_THAT(r.status().message(), HasSubstr("earliest available offset is 0"));
  EXPECT_TRUE(got.empty());
}

TEST_F(KafkaSourceFaultTest, OffsetDeletedByRetentionIsOutOfRange) {
  kafka_.CreateTopic("big", 1);
  // The mock keeps ~5 MB per partition and drops the oldest message sets beyond that, as retention would.
  std::string payload(64 * 1024, 'x');
  for (int i = 0; i < 120; ++i) {
    kafka_.Produce("big", 0, payload);
    if (i % 8 == 7) kafka_.Flush();
  }
  kafka_.Flush();
  auto source = Source(Config("big"));
  auto wm = source->QueryWatermarks(0, 5s);
  ASSERT_TRUE(wm.ok()) << wm.status().ToString();
  ASSERT_GT(wm->low, 0) << "the mock cluster kept everything; produce more";
  EXPECT_EQ(wm->high, 120);

  ASSERT_TRUE(source->Assign({{0, 0}}).ok());
  std::vector<Got> got;
  auto r = ConsumeInto(*source, Within(10s), got);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
  EXPECT_THAT(r.status().message(), HasSubstr("topic 'big' partition 0: offset 0 is no longer available"));
  EXPECT_THAT(r.status().message(), HasSubstr("earliest available offset is " + std::to_string(wm->low)));
  EXPECT_TRUE(got.empty());

  // Continuing from the earliest available offset works.
  ASSERT_TRUE(source->Assign({{0, wm->low}}).ok());
  ConsumeResult last = Drain(*source, got, 10s);
  EXPECT_EQ(got.size(), static_cast<size_t>(120 - wm->low));
  EXPECT_EQ(last.next_offsets.at(0), 120);
}

TEST_F(KafkaSourceFaultTest, AfterAFailureWithDeliveredMessagesAssignIsRequired) {
  kafka_.CreateTopic("orders", 2);
  ProduceNumbered(kafka_, "orders", 1, 50);
  auto source = Source(Config("orders"));
  ASSERT_TRUE(source->Assign({{0, 0}, {1, 99}}).ok());  // partition 1 is out of range
  std::vector<Got> got;
  Result<ConsumeResult> r = ConsumeResult{};
  auto end = std::chrono::steady_clock::now() + 10s;
  while (r.ok() && std::chrono::steady_clock::now() < end) r = ConsumeInto(*source, Within(1s), got);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
  auto again = ConsumeInto(*source, Within(1s), got);
  if (!got.empty()) {  // messages of partition 0 came before the error: the source insists on a fresh start
    ASSERT_FALSE(again.ok());
    EXPECT_THAT(again.status().message(), HasSubstr("call Assign()"));
  }
  got.clear();
  ASSERT_TRUE(source->Assign({{0, 0}}).ok());
  Drain(*source, got, 10s);
  ExpectExactlyOnce(got, 1, 50);
}

TEST_F(KafkaSourceFaultTest, BrokerDownAndUpDuringConsumptionKeepsExactlyOnce) {
  kafka_.CreateTopic("orders", 3);
  for (int32_t p = 0; p < 3; ++p)
    ASSERT_EQ(rd_kafka_mock_partition_set_leader(kafka_.cluster(), "orders", p, p + 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  auto produce = [&](int from, int to) {
    for (int i = from; i < to; ++i)
      for (int32_t p = 0; p < 3; ++p) kafka_.Produce("orders", p, Payload(p, i));
  };
  produce(0, 150);
  kafka_.Flush();

  auto source = Source(Config("orders"));
  ASSERT_TRUE(source->Assign({{0, 0}, {1, 0}, {2, 0}}).ok());
  std::vector<Got> got;
  ASSERT_TRUE(ConsumeInto(*source, Within(5s, 100), got).ok());

  // Partition 0's leader goes down while data keeps arriving; its share waits in the producer until it is back.
  ASSERT_EQ(rd_kafka_mock_broker_set_down(kafka_.cluster(), 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  produce(150, 300);
  // Partitions 1 and 2 keep flowing; once only partition 0 is left, a call without progress is Unavailable.
  bool saw_unavailable = false;
  auto end = std::chrono::steady_clock::now() + 8s;
  while (!saw_unavailable && std::chrono::steady_clock::now() < end) {
    auto r = ConsumeInto(*source, Within(700ms), got);
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kUnavailable) << r.status().ToString();
      EXPECT_TRUE(r.status().retriable());
      EXPECT_THAT(r.status().message(), HasSubstr("partition 0"));
      saw_unavailable = true;
    } else {
      EXPECT_FALSE(r->caught_up);
    }
  }
  EXPECT_TRUE(saw_unavailable);
  size_t p0 = 0;
  for (const Got& g : got) p0 += g.partition == 0;
  EXPECT_LE(p0, 150u);

  ASSERT_EQ(rd_kafka_mock_broker_set_up(kafka_.cluster(), 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  kafka_.Flush();
  // An end-of-partition seen just before the delayed messages landed may say "caught up" early: wait for all.
  // The client may need a moment to reconnect to the restarted broker; until then a call is Unavailable.
  ConsumeResult last = Drain(*source, got, 12s, 100, 900, /*retry_unavailable=*/true);
  EXPECT_TRUE(last.caught_up);
  EXPECT_EQ(last.next_offsets, (std::map<int32_t, int64_t>{{0, 300}, {1, 300}, {2, 300}}));
  ExpectExactlyOnce(got, 3, 300);
}

TEST_F(KafkaSourceFaultTest, AllBrokersDownIsUnavailableAfterTheDeadline) {
  kafka_.CreateTopic("orders", 2);
  ProduceNumbered(kafka_, "orders", 2, 10);
  auto source = Source(Config("orders"));
  for (int32_t b = 1; b <= 3; ++b) ASSERT_EQ(rd_kafka_mock_broker_set_down(kafka_.cluster(), b), RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_TRUE(source->Assign({{0, 0}, {1, 0}}).ok());
  std::vector<Got> got;
  auto start = std::chrono::steady_clock::now();
  auto r = ConsumeInto(*source, Within(1s), got);
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable) << r.status().ToString();
  EXPECT_GE(took, 900ms);  // librdkafka retried until the deadline
  EXPECT_LT(took, 3s);
  auto partitions = source->Partitions(300ms);
  ASSERT_FALSE(partitions.ok());
  EXPECT_EQ(partitions.status().code(), StatusCode::kUnavailable);

  for (int32_t b = 1; b <= 3; ++b) ASSERT_EQ(rd_kafka_mock_broker_set_up(kafka_.cluster(), b), RD_KAFKA_RESP_ERR_NO_ERROR);
  Drain(*source, got, 12s, 0, 20, /*retry_unavailable=*/true);
  ExpectExactlyOnce(got, 2, 10);
}

TEST_F(KafkaSourceFaultTest, InjectedFetchErrorsAreRetriedInternally) {
  kafka_.CreateTopic("orders", 2);
  ProduceNumbered(kafka_, "orders", 2, 200, 20);
  auto source = Source(Config("orders", {{"fetch.message.max.bytes", "1024"}}));
  ASSERT_TRUE(source->Assign({{0, 0}, {1, 0}}).ok());
  std::vector<Got> got;
  auto r = ConsumeInto(*source, Within(5s, 20), got);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  rd_kafka_mock_push_request_errors(kafka_.cluster(), kApiFetch, 6, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
                                    RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE,
                                    RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
                                    RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR);
  auto end = std::chrono::steady_clock::now() + 15s;
  bool caught_up = false;
  while (!caught_up && std::chrono::steady_clock::now() < end) {
    auto next = ConsumeInto(*source, Within(1s, 50), got);
    if (!next.ok()) {
      // A call that hit only errors may say so; it must be retriable, and the source carries on.
      EXPECT_TRUE(next.status().retriable()) << next.status().ToString();
      continue;
    }
    caught_up = next->caught_up;
  }
  EXPECT_TRUE(caught_up);
  ExpectExactlyOnce(got, 2, 200);
}

TEST_F(KafkaSourceFaultTest, ClosesQuicklyWhileBrokersAreDown) {
  kafka_.CreateTopic("orders", 3);
  ProduceNumbered(kafka_, "orders", 3, 20);
  auto source = Source(Config("orders"));
  ASSERT_TRUE(source->Assign({{0, 0}, {1, 0}, {2, 0}}).ok());
  std::vector<Got> got;
  ASSERT_TRUE(ConsumeInto(*source, Within(5s, 5), got).ok());
  ASSERT_TRUE(source->CommitGroupOffsets({{0, 1}}, 2s).ok());
  for (int32_t b = 1; b <= 3; ++b) rd_kafka_mock_broker_set_down(kafka_.cluster(), b);
  auto start = std::chrono::steady_clock::now();
  source.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST_F(KafkaSourceFaultTest, CommitWithBrokersDownTimesOut) {
  kafka_.CreateTopic("orders", 1);
  auto source = Source(Config("orders"));
  for (int32_t b = 1; b <= 3; ++b) rd_kafka_mock_broker_set_down(kafka_.cluster(), b);
  auto start = std::chrono::steady_clock::now();
  Status st = source->CommitGroupOffsets({{0, 1}}, 500ms);
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(st.retriable()) << st.ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

}  // namespace
}  // namespace sluice::source
