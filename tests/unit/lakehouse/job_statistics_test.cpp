// The statistics a Kafka job commits with its rows (sluice.stats.<id>) and the files a volume pipe's commits list
// (sluice.files.<id>): what every cluster node reads back from the table, so they must be exact — cumulative on the
// ancestry, each file once even when a compaction carries a list forward, other jobs' keys ignored.
#include "lakehouse/job_statistics.h"

#include <map>

#include <gtest/gtest.h>

#include "lakehouse/lake_volume_copy.h"

namespace sluice::lakehouse {
namespace {

// A chain of snapshots 1 <- 2 <- ... with the given summaries, the last one current.
iceberg::TableMetadata Chain(const std::vector<iceberg::Summary>& summaries) {
  iceberg::TableMetadata m;
  for (size_t i = 0; i < summaries.size(); i++) {
    iceberg::Snapshot s;
    s.snapshot_id = static_cast<int64_t>(i + 1);
    if (i > 0) s.parent_snapshot_id = static_cast<int64_t>(i);
    s.timestamp_ms = 1000 * static_cast<int64_t>(i + 1);
    s.summary = summaries[i];
    m.snapshots.push_back(s);
  }
  if (!summaries.empty()) m.current_snapshot_id = static_cast<int64_t>(summaries.size());
  return m;
}

catalog::TaskCounts Task(int64_t loaded, int64_t errors, int64_t unselected, int64_t bytes, int64_t ms) {
  catalog::TaskCounts t;
  t.loaded_rows = loaded;
  t.error_rows = errors;
  t.unselected_rows = unselected;
  t.received_bytes = bytes;
  t.execute_ms = ms;
  return t;
}

TEST(JobStatistics, TotalsRoundTripThroughTheSummaryText) {
  catalog::PartitionProgress t = AddTask(AddTask({}, Task(10, 1, 2, 300, 40)), Task(5, 0, 0, 100, 10));
  EXPECT_EQ(t.loaded_rows, 15);
  EXPECT_EQ(t.committed_tasks, 2);
  const std::string text = StatisticsJson(t);
  EXPECT_EQ(text, R"({"loadedRows":15,"errorRows":1,"unselectedRows":2,"receivedBytes":400,"committedTasks":2,)"
                  R"("taskExecuteTimeMs":50})");
  auto back = ParseStatistics(text);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->loaded_rows, 15);
  EXPECT_EQ(back->error_rows, 1);
  EXPECT_EQ(back->unselected_rows, 2);
  EXPECT_EQ(back->received_bytes, 400);
  EXPECT_EQ(back->committed_tasks, 2);
  EXPECT_EQ(back->task_execute_ms, 50);
}

TEST(JobStatistics, MissingKeysAreZeroAndMalformedTextIsAnError) {
  auto some = ParseStatistics(R"({"loadedRows":7,"futureCounter":3})");
  ASSERT_TRUE(some.ok());
  EXPECT_EQ(some->loaded_rows, 7);
  EXPECT_EQ(some->received_bytes, 0);
  for (const char* bad : {"[1,2]", "not json", R"({"loadedRows":"7"})", R"({"errorRows":1.5})"}) {
    auto r = ParseStatistics(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) { EXPECT_NE(r.status().message().find(bad), std::string::npos) << r.status().message(); }
  }
}

TEST(JobStatistics, TheNewestTotalsOnTheAncestryCountAndOtherJobsAreIgnored) {
  const std::string key = StatisticsSummaryKey(1000000001);
  EXPECT_EQ(key, "sluice.stats.1000000001");
  auto none = ReadJobStatistics(Chain({{{"sluice.stats.1000000002", R"({"loadedRows":9})"}}}), 1000000001);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(*none) << "another job's totals are not this job's";
  // Node A commits 10 rows, node B (after a takeover) 5 more, then another writer's INSERT without the key.
  auto m = Chain({{{key, StatisticsJson(AddTask({}, Task(10, 0, 0, 1, 1)))}},
                  {{key, StatisticsJson(AddTask(AddTask({}, Task(10, 0, 0, 1, 1)), Task(5, 2, 0, 1, 1)))}},
                  {{"operation", "append"}}});
  auto t = ReadJobStatistics(m, 1000000001);
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE(*t);
  EXPECT_EQ((*t)->loaded_rows, 15);
  EXPECT_EQ((*t)->error_rows, 2);
  EXPECT_EQ((*t)->committed_tasks, 2);
  // A snapshot off the current ancestry (a commit that lost its race, still in the metadata) does not count.
  iceberg::Snapshot orphan;
  orphan.snapshot_id = 99;
  orphan.parent_snapshot_id = 2;
  orphan.summary[key] = StatisticsJson(AddTask({}, Task(1000, 0, 0, 0, 0)));
  m.snapshots.push_back(orphan);
  t = ReadJobStatistics(m, 1000000001);
  ASSERT_TRUE(t.ok() && *t);
  EXPECT_EQ((*t)->loaded_rows, 15);
  auto broken = ReadJobStatistics(Chain({{{key, "{"}}}), 1000000001);
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("snapshot 1 holds sluice.stats.1000000001"), std::string::npos)
      << broken.status().message();
}

std::string FilesJson(const std::vector<std::pair<std::string, int64_t>>& files) {
  std::string out;
  for (const auto& [url, rows] : files)
    out += std::string(out.empty() ? "[" : ",") + R"({"url":")" + url + R"(","size":10,"etag":"e-)" + url +
           R"(","mtime":5,"rows":)" + std::to_string(rows) + (rows == 3 ? R"(,"errors":1)" : "") + "}";
  return out + "]";
}

TEST(CommittedFiles, EachFileOnceAtItsFirstCommitOldestFirst) {
  const std::string key = "sluice.files.1000000007";
  // Commits by two nodes, another pipe's commit, and a compaction that carries the last list forward.
  auto m = Chain({{{key, FilesJson({{"s3://b/a.csv", 2}, {"s3://b/b.csv", 3}})}},
                  {{"sluice.files.1000000008", FilesJson({{"s3://b/other.csv", 9}})}},
                  {{key, FilesJson({{"s3://b/c.csv", 4}})}},
                  {{key, FilesJson({{"s3://b/c.csv", 4}})}, {"operation", "replace"}}});
  auto files = CommittedFilesOf(m, key);
  ASSERT_TRUE(files.ok()) << files.status().message();
  ASSERT_EQ(files->size(), 3u);
  int64_t rows = 0, errors = 0;
  std::map<std::string, int64_t> at;
  for (const auto& f : *files) {
    rows += f.record.rows_loaded;
    errors += f.record.error_rows;
    at[f.record.file_url] = f.committed_ms;
  }
  EXPECT_EQ(rows, 9);
  EXPECT_EQ(errors, 1);
  EXPECT_EQ(at["s3://b/a.csv"], 1000);
  EXPECT_EQ(at["s3://b/c.csv"], 3000) << "the compaction's copy of the list keeps the first commit's time";
  EXPECT_EQ(files->back().record.file_url, "s3://b/c.csv");
  EXPECT_EQ((*files)[1].record.file_url, "s3://b/b.csv") << "a commit's files in its list's order";
  EXPECT_EQ(files->front().committed_ms, 1000);
  EXPECT_EQ((*files)[0].record.etag.rfind("e-", 0), 0u);
  auto none = CommittedFilesOf(Chain({}), key);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

}  // namespace
}  // namespace sluice::lakehouse
