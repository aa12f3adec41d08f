// The split of whole jobs (volume pipes) over the nodes able to run them: even, deterministic, within eligibility.
#include "cluster/whole_job_split.h"

#include <gtest/gtest.h>

namespace sluice::cluster {
namespace {

std::map<std::string, int> Counts(const std::map<int64_t, std::string>& split) {
  std::map<std::string, int> out;
  for (const auto& [job, node] : split) out[node]++;
  return out;
}

TEST(WholeJobSplitTest, FourJobsOnTwoNodesThenThree) {
  std::map<int64_t, std::vector<std::string>> eligible;
  for (int64_t id : {3, 5, 8, 13}) eligible[id] = {"n2", "n1"};
  auto two = SplitWholeJobs(eligible);
  EXPECT_EQ(Counts(two), (std::map<std::string, int>{{"n1", 2}, {"n2", 2}}));
  EXPECT_EQ(two.at(3), "n1");
  EXPECT_EQ(two.at(5), "n2");

  for (auto& [id, nodes] : eligible) nodes.push_back("n3");
  auto three = SplitWholeJobs(eligible);
  EXPECT_EQ(Counts(three), (std::map<std::string, int>{{"n1", 2}, {"n2", 1}, {"n3", 1}}));
}

TEST(WholeJobSplitTest, AJoiningNodeTakesOnlyWhatIsAboveTheShares) {
  std::map<int64_t, std::vector<std::string>> eligible;
  for (int64_t id : {3, 5, 8, 13}) eligible[id] = {"n1", "n2", "n3"};
  // Running 2/2 on n1 and n2 when n3 joins: one job moves to n3, the others stay.
  std::map<int64_t, std::string> running = {{3, "n2"}, {5, "n2"}, {8, "n1"}, {13, "n1"}};
  auto split = SplitWholeJobs(eligible, running);
  // In id order n2 keeps 3 and 5 (its share and the one extra), n1 keeps 8, and 13 goes to n3.
  EXPECT_EQ(Counts(split), (std::map<std::string, int>{{"n1", 1}, {"n2", 2}, {"n3", 1}}));
  EXPECT_EQ(split.at(13), "n3");
  int moved = 0;
  for (const auto& [job, node] : split) moved += node != running.at(job);
  EXPECT_EQ(moved, 1);
  EXPECT_EQ(split.at(3), "n2");
  EXPECT_EQ(split.at(8), "n1");
}

TEST(WholeJobSplitTest, OneJobStaysOnTheNodeRunningIt) {
  // Whichever node took it first keeps it: nodes joining later (smaller names too) leave it there.
  EXPECT_EQ(SplitWholeJobs({{7, {"n1", "n2", "n3"}}}, {{7, "n2"}}).at(7), "n2");
  // Unless that node may no longer run it (a virtual cluster that no longer names it, a node that died).
  EXPECT_EQ(SplitWholeJobs({{7, {"n1", "n3"}}}, {{7, "n2"}}).at(7), "n1");
}

TEST(WholeJobSplitTest, SameAnswerWhateverTheOrderOfNodes) {
  std::map<int64_t, std::vector<std::string>> a, b;
  for (int64_t id = 1; id <= 7; id++) {
    a[id] = {"n1", "n2", "n3"};
    b[id] = {"n3", "n1", "n2", "n1"};
  }
  EXPECT_EQ(SplitWholeJobs(a), SplitWholeJobs(b));
  EXPECT_EQ(Counts(SplitWholeJobs(a)), (std::map<std::string, int>{{"n1", 3}, {"n2", 2}, {"n3", 2}}));
}

TEST(WholeJobSplitTest, JobsStayOnTheirEligibleNodes) {
  // Jobs 1 and 2 may run only on n3 (a virtual cluster naming it); the others anywhere: n3's load counts both.
  std::map<int64_t, std::vector<std::string>> eligible = {
      {1, {"n3"}}, {2, {"n3"}}, {3, {"n1", "n2", "n3"}}, {4, {"n1", "n2", "n3"}}, {5, {}}};
  auto split = SplitWholeJobs(eligible);
  EXPECT_EQ(split.at(1), "n3");
  EXPECT_EQ(split.at(2), "n3");
  EXPECT_EQ(split.at(3), "n1");
  EXPECT_EQ(split.at(4), "n2");
  EXPECT_EQ(split.count(5), 0u);
}

}  // namespace
}  // namespace sluice::cluster
