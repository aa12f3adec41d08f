// The automatic care policy's table properties: which procedures a table asks for, with which arguments, and
// what is refused (logged by the runner, the procedure skipped).
#include "lakehouse/lake_care_policy.h"

#include <gtest/gtest.h>

namespace sluice::lakehouse {
namespace {

TEST(LakeCarePolicy, NoCarePropertiesNoPolicy) {
  std::vector<std::string> problems;
  EXPECT_FALSE(CarePolicyOf({{"write.target-file-size-bytes", "1000"}}, &problems));
  EXPECT_FALSE(CarePolicyOf({{"sluice.care.interval_seconds", "5"}}, &problems)) << "an interval alone asks nothing";
  EXPECT_TRUE(problems.empty());
}

TEST(LakeCarePolicy, PropertiesBecomeTheStatementsInOrder) {
  std::vector<std::string> problems;
  auto p = CarePolicyOf({{"sluice.care.remove_orphan_files.older_than_seconds", "7200"},
                         {"sluice.care.expire_snapshots.older_than_seconds", "60"},
                         {"sluice.care.expire_snapshots.retain_last", "3"},
                         {"sluice.care.rewrite_data_files.min_input_files", "8"},
                         {"sluice.care.interval_seconds", "30"}},
                        &problems);
  ASSERT_TRUE(p);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(p->interval_seconds, 30);
  const int64_t now = 1714564800000;  // 2024-05-01 12:00:00 UTC
  auto run = PolicyRun(LakeTableRef{"lake", "db", "t"}, *p, now);
  ASSERT_EQ(run.size(), 3u);
  EXPECT_EQ(run[0].procedure, "rewrite_data_files");
  EXPECT_EQ(run[0].arguments[0].name, "min_input_files");
  EXPECT_EQ(run[0].arguments[0].value, "8");
  EXPECT_EQ(run[1].procedure, "expire_snapshots");
  EXPECT_EQ(run[1].arguments[0].value, "2024-05-01 11:59:00.000");
  EXPECT_TRUE(run[1].arguments[0].is_string);
  EXPECT_EQ(run[1].arguments[1].value, "3");
  EXPECT_EQ(run[2].procedure, "remove_orphan_files");
  EXPECT_EQ(run[2].arguments[0].value, "2024-05-01 10:00:00.000");
  for (const auto& c : run) EXPECT_EQ(c.trigger, "policy");
}

TEST(LakeCarePolicy, MalformedPropertiesAreSkippedWithAReason) {
  std::vector<std::string> problems;
  auto p = CarePolicyOf({{"sluice.care.rewrite_data_files.min_input_files", "many"},
                         {"sluice.care.remove_orphan_files.older_than_seconds", "60"},
                         {"sluice.care.expire_snapshots.older_than_seconds", "0"},
                         {"sluice.care.expire_snapshot.older_than_seconds", "1"}},
                        &problems);
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->rewrite_min_input_files);
  EXPECT_FALSE(p->orphan_older_than_seconds) << "orphan removal has the statement's one-hour floor";
  EXPECT_EQ(p->expire_older_than_seconds, 0);
  ASSERT_EQ(problems.size(), 3u);
  std::string all;
  for (const auto& line : problems) all += line + "\n";
  EXPECT_NE(all.find("unknown table property sluice.care.expire_snapshot.older_than_seconds"), std::string::npos);
  EXPECT_NE(all.find("min_input_files = 'many' is not a whole number of at least 2"), std::string::npos);
  EXPECT_NE(all.find("older_than_seconds = '60' is not a whole number of at least 3600"), std::string::npos);
  EXPECT_EQ(PolicyRun(LakeTableRef{"lake", "db", "t"}, *p, 0).size(), 1u);
}

}  // namespace
}  // namespace sluice::lakehouse
