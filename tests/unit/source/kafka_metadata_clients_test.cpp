// KafkaMetadataClients against librdkafka's in-process mock cluster: one client per Kafka setup shared across
// jobs and topics, partitions, high watermarks of several partitions at once, errors, and closing unused clients.
#include "source/kafka_metadata_clients.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "mock_kafka.h"
#include "source_test_util.h"

namespace sluice::source {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

class KafkaMetadataClientsTest : public testing::KafkaSourceFixture {};

TEST_F(KafkaMetadataClientsTest, HighWatermarksOfSeveralPartitionsFollowNewData) {
  kafka_.CreateTopic("orders", 3);
  testing::ProduceNumbered(kafka_, "orders", 2, 10);  // partitions 0 and 1: 10 messages each; 2: none
  KafkaMetadataClients clients;
  auto highs = clients.HighWatermarks(Config("orders"), {0, 1, 2}, 5s);
  ASSERT_TRUE(highs.ok()) << highs.status().ToString();
  EXPECT_EQ(*highs, (std::map<int32_t, int64_t>{{0, 10}, {1, 10}, {2, 0}}));

  kafka_.Produce("orders", 2, "late");
  kafka_.Flush();
  highs = clients.HighWatermarks(Config("orders"), {2}, 5s);
  ASSERT_TRUE(highs.ok()) << highs.status().ToString();
  EXPECT_EQ(*highs, (std::map<int32_t, int64_t>{{2, 1}}));
}

// Idle groups of many jobs on one topic check for new data against one answer per interval boundary: callers
// passing the same `asked_since` share one ListOffsets request, and an answer sent before new data arrived is not
// reused by a caller whose boundary comes after it, so each job still sees the new data at its next check.
TEST_F(KafkaMetadataClientsTest, HighWatermarksSharedByCallersOfOneBoundary) {
  kafka_.CreateTopic("orders", 2);
  testing::ProduceNumbered(kafka_, "orders", 2, 5);
  KafkaMetadataClients clients;
  KafkaClientConfig job_a = Config("orders", {{"group.id", "job_a"}});
  KafkaClientConfig job_b = Config("orders", {{"group.id", "job_b"}});
  auto boundary = std::chrono::steady_clock::now();
  auto a = clients.HighWatermarks(job_a, {0}, 5s, boundary);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const uint64_t after_first = clients.requests_sent();
  auto b = clients.HighWatermarks(job_b, {0}, 5s, boundary);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(*a, (std::map<int32_t, int64_t>{{0, 5}}));
  EXPECT_EQ(*b, *a);
  EXPECT_EQ(clients.requests_sent(), after_first) << "the second job reused the first one's answer";

  // A group over the other partition: one more request, which asks for both; later callers share it.
  auto c = clients.HighWatermarks(job_b, {1}, 5s, boundary);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(*c, (std::map<int32_t, int64_t>{{1, 5}}));
  EXPECT_EQ(clients.requests_sent(), after_first + 1);

  // New data, then the next boundary: both jobs see it, from one request.
  kafka_.Produce("orders", 0, "late");
  kafka_.Flush();
  auto same_boundary = clients.HighWatermarks(job_a, {0}, 5s, boundary);
  ASSERT_TRUE(same_boundary.ok());
  EXPECT_EQ(same_boundary->at(0), 5) << "an answer of this boundary is reused even though it is older than the data";
  auto next = std::chrono::steady_clock::now();
  a = clients.HighWatermarks(job_a, {0}, 5s, next);
  b = clients.HighWatermarks(job_b, {0, 1}, 5s, next);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, (std::map<int32_t, int64_t>{{0, 6}}));
  EXPECT_EQ(*b, (std::map<int32_t, int64_t>{{0, 6}, {1, 5}}));
  EXPECT_EQ(clients.requests_sent(), after_first + 2) << "one request for both jobs and both partitions";

  // Without asked_since every call asks the brokers.
  ASSERT_TRUE(clients.HighWatermarks(job_a, {0}, 5s).ok());
  EXPECT_EQ(clients.requests_sent(), after_first + 3);
}

// The partition checks of all jobs on the same brokers read one metadata answer; a topic it does not name (created
// after it) is asked for again.
TEST_F(KafkaMetadataClientsTest, PartitionsSharedFromOneMetadataAnswer) {
  kafka_.CreateTopic("orders", 2);
  kafka_.CreateTopic("payments", 3);
  KafkaMetadataClients clients;
  auto boundary = std::chrono::steady_clock::now();
  auto pa = clients.Partitions(Config("orders", {{"group.id", "a"}}), 5s, boundary);
  ASSERT_TRUE(pa.ok()) << pa.status().ToString();
  const uint64_t after_first = clients.requests_sent();
  auto pb = clients.Partitions(Config("payments", {{"group.id", "b"}}), 5s, boundary);
  ASSERT_TRUE(pb.ok()) << pb.status().ToString();
  EXPECT_EQ(*pa, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(*pb, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(clients.requests_sent(), after_first) << "both jobs answered from one metadata request";

  kafka_.CreateTopic("refunds", 1);
  auto pc = clients.Partitions(Config("refunds"), 5s, boundary);
  ASSERT_TRUE(pc.ok()) << pc.status().ToString();
  EXPECT_EQ(*pc, (std::vector<int32_t>{0}));
  EXPECT_EQ(clients.requests_sent(), after_first + 1);
  auto missing = clients.Partitions(Config("nope"), 5s, boundary);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST_F(KafkaMetadataClientsTest, OneClientPerSetupSharedAcrossGroupsAndTopics) {
  kafka_.CreateTopic("orders", 2);
  kafka_.CreateTopic("payments", 4);
  KafkaMetadataClients clients;
  KafkaClientConfig a = Config("orders", {{"group.id", "job_a_1234"}});
  KafkaClientConfig b = Config("payments", {{"group.id", "job_b_5678"}});
  b.group_id = "job_b_5678";
  auto pa = clients.Partitions(a, 5s);
  auto pb = clients.Partitions(b, 5s);
  ASSERT_TRUE(pa.ok()) << pa.status().ToString();
  ASSERT_TRUE(pb.ok()) << pb.status().ToString();
  EXPECT_EQ(*pa, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(*pb, (std::vector<int32_t>{0, 1, 2, 3}));
  ASSERT_TRUE(clients.HighWatermarks(b, {3}, 5s).ok());
  EXPECT_EQ(clients.size(), 1u) << "jobs differing only in topic and consumer group share one client";

  // Different client settings (credentials, timeouts, ...) get a client of their own.
  auto pc = clients.Partitions(Config("orders", {{"socket.timeout.ms", "20000"}}), 5s);
  ASSERT_TRUE(pc.ok()) << pc.status().ToString();
  EXPECT_EQ(clients.size(), 2u);
}

TEST_F(KafkaMetadataClientsTest, ClosesClientsUnusedForAWhile) {
  kafka_.CreateTopic("orders", 1);
  KafkaMetadataClients clients(std::chrono::seconds(1));
  ASSERT_TRUE(clients.Partitions(Config("orders", {{"socket.timeout.ms", "20000"}}), 5s).ok());
  ASSERT_TRUE(clients.Partitions(Config("orders"), 5s).ok());
  EXPECT_EQ(clients.size(), 2u);
  std::this_thread::sleep_for(1500ms);
  ASSERT_TRUE(clients.Partitions(Config("orders"), 5s).ok());
  EXPECT_EQ(clients.size(), 1u) << "the client unused for over a second is closed on the next call";
}

TEST_F(KafkaMetadataClientsTest, UnknownTopicOrPartitionIsNotFound) {
  kafka_.CreateTopic("orders", 1);
  KafkaMetadataClients clients;
  auto parts = clients.Partitions(Config("nope"), 5s);
  ASSERT_FALSE(parts.ok());
  EXPECT_EQ(parts.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(parts.status().message(), HasSubstr("topic 'nope' does not exist"));
  auto highs = clients.HighWatermarks(Config("orders"), {0, 7}, 5s);
  ASSERT_FALSE(highs.ok());
  EXPECT_EQ(highs.status().code(), StatusCode::kNotFound) << highs.status().ToString();
  EXPECT_THAT(highs.status().message(), HasSubstr("partition 7"));
}

TEST_F(KafkaMetadataClientsTest, UnreachableBrokersAreUnavailableWithinTheTimeout) {
  KafkaClientConfig config = Config("orders");
  config.brokers = "127.0.0.1:1";  // nothing listens on port 1
  KafkaMetadataClients clients;
  auto start = std::chrono::steady_clock::now();
  auto highs = clients.HighWatermarks(config, {0}, 300ms);
  ASSERT_FALSE(highs.ok());
  EXPECT_TRUE(highs.status().retriable()) << highs.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

TEST_F(KafkaMetadataClientsTest, InvalidPropertyIsInvalidArgumentWithoutTheSecret) {
  KafkaMetadataClients clients;
  auto r = clients.Partitions(Config("orders", {{"sasl.password", "hunter2"}, {"fetch.wait.max.ms", "soon"}}), 1s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("property.fetch.wait.max.ms"));
  EXPECT_THAT(r.status().message(), ::testing::Not(HasSubstr("hunter2")));
  EXPECT_EQ(clients.size(), 0u);
}

}  // namespace
}  // namespace sluice::source
