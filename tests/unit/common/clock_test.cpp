#include "common/clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace sluice {
namespace {

int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST(WallClockTest, ReadsTheSystemClockByDefault) {
  int64_t before = SystemNowMs();
  int64_t now = WallClockMs();
  int64_t after = SystemNowMs();
  EXPECT_LE(before, now);
  EXPECT_LE(now, after);
}

TEST(WallClockTest, AnOverrideIsReadUntilItEnds) {
  ManualWallClock manual(1'700'000'000'000);
  {
    ScopedWallClockOverride use(manual);
    EXPECT_EQ(WallClockMs(), 1'700'000'000'000);
    manual.AdvanceMs(61'000);
    EXPECT_EQ(WallClockMs(), 1'700'000'061'000);
    manual.SetMs(5);
    EXPECT_EQ(WallClockMs(), 5);
  }
  // The system clock is back: far from the manual clock's 5 ms after the epoch.
  EXPECT_GT(WallClockMs(), 1'600'000'000'000);
}

TEST(WallClockTest, OverridesNest) {
  ManualWallClock outer(1000), inner(2000);
  ScopedWallClockOverride use_outer(outer);
  {
    ScopedWallClockOverride use_inner(inner);
    EXPECT_EQ(WallClockMs(), 2000);
  }
  EXPECT_EQ(WallClockMs(), 1000);
}

TEST(WallClockTest, OtherThreadsSeeTheOverride) {
  ManualWallClock manual(42);
  ScopedWallClockOverride use(manual);
  int64_t seen = 0;
  std::thread reader([&] { seen = WallClockMs(); });
  reader.join();
  EXPECT_EQ(seen, 42);
}

}  // namespace
}  // namespace sluice
