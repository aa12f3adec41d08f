// Starting at a point in time: the binary search on its own (gaps, missing timestamps) and
// KafkaSource::OffsetForTimestamp against the mock cluster, which cannot look offsets up by time.
#include "source/offset_search.h"

#include <gtest/gtest.h>

#include <map>

#include "mock_kafka.h"
#include "source/kafka_source.h"
#include "source_test_util.h"

namespace sluice::source {
namespace {

using namespace std::chrono_literals;
using internal::ProbedMessage;
using internal::SearchOffsetForTimestamp;

// A partition as offset -> timestamp; missing offsets are gaps (compaction, transaction markers).
struct FakeLog {
  std::map<int64_t, int64_t> messages;
  int probes = 0;
  Result<std::optional<ProbedMessage>> operator()(int64_t offset) {
    ++probes;
    auto it = messages.lower_bound(offset);
    if (it == messages.end()) return std::optional<ProbedMessage>();
    return std::optional<ProbedMessage>(ProbedMessage{it->first, it->second});
  }
};

int64_t Search(FakeLog& log, Watermarks wm, int64_t ts) {
  auto r = SearchOffsetForTimestamp(wm, ts, std::ref(log));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : -100;
}

TEST(SearchOffsetForTimestamp, FindsTheFirstMessageAtOrAfterTheTime) {
  FakeLog log;
  for (int64_t o = 10; o < 110; ++o) log.messages[o] = 1000 + (o - 10) * 10;  // 1000, 1010, ... 1990
  Watermarks wm{10, 110};
  EXPECT_EQ(Search(log, wm, 0), 10);
  EXPECT_EQ(Search(log, wm, 1000), 10);
  EXPECT_EQ(Search(log, wm, 1001), 11);
  EXPECT_EQ(Search(log, wm, 1500), 60);
  EXPECT_EQ(Search(log, wm, 1990), 109);
  EXPECT_EQ(Search(log, wm, 1991), 110);  // none that new: the high watermark
  log.probes = 0;
  EXPECT_EQ(Search(log, wm, 5000), 110);
  EXPECT_EQ(log.probes, 1);  // the newest message settles it
  log.probes = 0;
  Search(log, wm, 1234);
  EXPECT_LE(log.probes, 9);  // 1 + log2(100)
}

TEST(SearchOffsetForTimestamp, HandlesEqualTimestampsGapsAndMissingTimestamps) {
  FakeLog log;
  log.messages = {{0, -1}, {1, 100}, {2, 100}, {5, 100}, {6, 200}, {9, 300}};  // 3,4,7,8 are gaps; 10 a marker
  Watermarks wm{0, 11};
  EXPECT_EQ(Search(log, wm, 50), 1);  // no timestamp counts as older
  EXPECT_EQ(Search(log, wm, 100), 1);
  int64_t at = Search(log, wm, 150);  // reading from `at` must yield offset 6 first
  EXPECT_GT(at, 5);
  EXPECT_LE(at, 6);
  at = Search(log, wm, 250);
  EXPECT_GT(at, 6);
  EXPECT_LE(at, 9);
  EXPECT_EQ(Search(log, wm, 301), 11);  // not the marker at 10: the high watermark
  EXPECT_EQ(Search(log, Watermarks{7, 7}, 0), 7);  // empty partition
}

TEST(SearchOffsetForTimestamp, PassesProbeErrorsOn) {
  auto r = SearchOffsetForTimestamp(Watermarks{0, 10}, 5, [](int64_t) -> Result<std::optional<ProbedMessage>> {
    return Status::Unavailable("broker down");
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
}

TEST(OffsetForTimestamp, FallsBackToSearchingOnTheMockCluster) {
  testing::MockKafka kafka(1);
  kafka.CreateTopic("events", 2);
  for (int i = 0; i < 50; ++i) {
    testing::TestRecord r;
    r.payload = "e" + std::to_string(i);
    r.timestamp_ms = 1'000'000 + i * 1000;  // one per second
    kafka.Produce("events", r);
    if (i % 10 == 9) kafka.Flush();
  }
  kafka.Flush();
  KafkaClientConfig config;
  config.brokers = kafka.bootstraps();
  config.topic = "events";
  auto created = KafkaSource::Create(config);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  KafkaSource& source = **created;

  auto at = [&](int32_t partition, int64_t ts) {
    auto r = source.OffsetForTimestamp(partition, ts, 5s);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : -100;
  };
  EXPECT_EQ(at(0, 0), 0);
  EXPECT_EQ(at(0, 1'000'000), 0);
  EXPECT_EQ(at(0, 1'000'001), 1);
  EXPECT_EQ(at(0, 1'024'500), 25);
  EXPECT_EQ(at(0, 1'049'000), 49);
  EXPECT_EQ(at(0, 1'049'001), 50);
  EXPECT_EQ(at(1, 1'000'000), 0);  // empty partition: its high watermark

  // Consuming from the answer starts at the right message.
  ASSERT_TRUE(source.Assign({{0, at(0, 1'030'000)}}).ok());
  std::vector<testing::Got> got;
  auto r = testing::ConsumeInto(source, testing::Within(5s, 1), got);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].payload, "e30");

  EXPECT_EQ(source.OffsetForTimestamp(0, -5, 1s).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(source.OffsetForTimestamp(7, 0, 2s).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace sluice::source
