// FormatTimeMs: the one rendering of times that SHOW statements and the information_schema job views share.
#include <gtest/gtest.h>

#include "scheduler/routine_load_manager.h"

namespace sluice::scheduler {
namespace {

TEST(FormatTimeMsTest, PrintsUtcToTheSecond) {
  EXPECT_EQ(FormatTimeMs(1764646800999), "2025-12-02 03:40:00");
  EXPECT_EQ(FormatTimeMs(1000), "1970-01-01 00:00:01");
}

TEST(FormatTimeMsTest, NeverIsEmpty) {
  EXPECT_EQ(FormatTimeMs(0), "");
  EXPECT_EQ(FormatTimeMs(-5), "");
}

}  // namespace
}  // namespace sluice::scheduler
