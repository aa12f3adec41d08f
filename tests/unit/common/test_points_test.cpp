#include "common/test_points.h"

#include <gtest/gtest.h>

#include <chrono>

namespace sluice {
namespace {

class TestPointsTest : public ::testing::Test {
 protected:
  void TearDown() override { DisarmTestPoints(); }
};

TEST_F(TestPointsTest, OffByDefault) {
  for (std::string_view p : KnownTestPoints()) EXPECT_TRUE(TestPoint(p).ok()) << p;
}

TEST_F(TestPointsTest, ErrorFiresOnceAtTheNthHit) {
  ASSERT_TRUE(ArmTestPoints("storage.commit.routine_load=error:2").ok());
  EXPECT_TRUE(TestPoint("storage.commit.routine_load").ok());
  Status st = TestPoint("storage.commit.routine_load");
  EXPECT_EQ(st.code(), StatusCode::kIoError);
  EXPECT_NE(st.message().find("storage.commit.routine_load"), std::string::npos) << st.message();
  EXPECT_TRUE(TestPoint("storage.commit.routine_load").ok());
}

TEST_F(TestPointsTest, ANameCoversThePointsBelowIt) {
  ASSERT_TRUE(ArmTestPoints("storage.commit=error:3").ok());
  EXPECT_TRUE(TestPoint("storage.commit").ok());
  EXPECT_TRUE(TestPoint("storage.commit.copy_into").ok());
  EXPECT_FALSE(TestPoint("storage.commit.volume_pipe").ok());
  // a point that only shares the first letters is another point
  ASSERT_TRUE(ArmTestPoints("routine_load.after_fetch=error").ok());
  EXPECT_TRUE(TestPoint("routine_load.after_decode").ok());
  EXPECT_FALSE(TestPoint("routine_load.after_fetch").ok());
}

TEST_F(TestPointsTest, SleepWaits) {
  ASSERT_TRUE(ArmTestPoints(" kafka_pipe.inside_commit = sleep:50 ; drop_table.inside=error").ok());
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(TestPoint("kafka_pipe.inside_commit").ok());
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(50));
  EXPECT_FALSE(TestPoint("drop_table.inside").ok());
}

TEST_F(TestPointsTest, MisspeltSpecsAreRefused) {
  for (const char* bad : {"routine_load.after_fetc=crash", "storage.commit=explode", "storage.commit",
                          "storage.commit=error:0", "storage.commit=sleep", "storage.commit=sleep:x",
                          "storage.commit=crash:1:2", "storage.com=crash", "=crash"}) {
    EXPECT_FALSE(ArmTestPoints(bad).ok()) << bad;
    EXPECT_TRUE(TestPoint("storage.commit").ok()) << bad;
  }
  EXPECT_TRUE(ArmTestPoints("").ok());
  EXPECT_TRUE(ArmTestPoints(" ; ").ok());
}

TEST_F(TestPointsTest, CrashKillsTheProcessWithSigkill) {
  EXPECT_EXIT(
      {
        (void)ArmTestPoints("volume_pipe.before_purge=crash");
        (void)TestPoint("volume_pipe.before_purge");
        std::exit(0);
      },
      ::testing::KilledBySignal(SIGKILL), "");
}

}  // namespace
}  // namespace sluice
