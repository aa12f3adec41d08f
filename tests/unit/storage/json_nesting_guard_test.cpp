// The nesting count of sluice_json_nesting_guard (storage/json_nesting_guard.h): arrays and objects count, brackets
// inside strings (escaped quotes included) do not, and the limit follows the thread stack.
#include "storage/json_nesting_guard.h"

#include <gtest/gtest.h>

#include <string>

namespace sluice::storage {
namespace {

TEST(JsonNestingGuardTest, CountsArraysAndObjectsOutsideStrings) {
  EXPECT_FALSE(JsonNestingBeyond("[[1]]", 2));
  EXPECT_EQ(JsonNestingBeyond("[[[1]]]", 2), 3u);
  EXPECT_EQ(JsonNestingBeyond(R"({"a": {"b": [1]}})", 2), 3u);
  EXPECT_FALSE(JsonNestingBeyond(R"(["[[[[", "{{{{"])", 1)) << "brackets in strings";
  EXPECT_FALSE(JsonNestingBeyond(R"(["\"[[[[", 1])", 1)) << "an escaped quote does not end the string";
  EXPECT_FALSE(JsonNestingBeyond("[1], [2], [3]", 1)) << "depth, not count";
  EXPECT_FALSE(JsonNestingBeyond("]]]][", 1)) << "stray closers do not go below zero";
  EXPECT_FALSE(JsonNestingBeyond("", 0));
}

TEST(JsonNestingGuardTest, DeepInputIsCaughtAtTheLimit) {
  const size_t limit = 1000;
  std::string deep = std::string(limit, '[') + "1" + std::string(limit, ']');
  EXPECT_FALSE(JsonNestingBeyond(deep, limit));
  EXPECT_EQ(JsonNestingBeyond("[" + deep + "]", limit), limit + 1);
}

TEST(JsonNestingGuardTest, LimitFollowsTheThreadStack) {
  // 1 level per KiB of the default stack; at least what an 8 MiB stack gives.
  EXPECT_GE(MaxJsonNesting(), 8192u);
}

}  // namespace
}  // namespace sluice::storage
