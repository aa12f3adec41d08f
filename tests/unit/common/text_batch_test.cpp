#include "common/text_batch.h"

#include <gtest/gtest.h>

#include <string>

namespace sluice {
namespace {

TEST(TextBatchTest, RowsKeepTheirFieldsAndNulls) {
  TextBatch batch({"a", "b", "c"});
  for (int i = 0; i < 1000; i++) {
    batch.BeginRow();
    batch.SetField(0, std::to_string(i));
    if (i % 3 != 0) batch.SetField(1, "x" + std::to_string(i));  // every third row leaves b NULL
    if (i % 5 == 0) batch.SetNull(2); else batch.SetField(2, "");
    batch.FinishRow({i % 4, 100 + i});
  }
  ASSERT_EQ(batch.num_rows(), 1000u);
  for (size_t r = 0; r < batch.num_rows(); r++) {
    EXPECT_EQ(batch.Field(0, r), std::to_string(r));
    EXPECT_EQ(batch.IsNull(1, r), r % 3 == 0);
    if (r % 3 != 0) {
      EXPECT_EQ(batch.Field(1, r), "x" + std::to_string(r));
    }
    EXPECT_EQ(batch.IsNull(2, r), r % 5 == 0);
    if (r % 5 != 0) {
      EXPECT_EQ(batch.Field(2, r), "");
    }
    EXPECT_EQ(batch.origin(r).partition, static_cast<int32_t>(r % 4));
    EXPECT_EQ(batch.origin(r).offset, static_cast<int64_t>(100 + r));
  }
}

TEST(TextBatchTest, UnfinishedRowsLeaveNoTrace) {
  TextBatch batch({"a", "b"});
  batch.BeginRow();
  batch.SetField(0, "1");
  batch.SetField(1, "one");
  batch.FinishRow({0, 1});
  batch.BeginRow();  // begun, never finished: the next BeginRow drops it
  batch.SetField(0, "dropped");
  batch.SetField(1, "dropped");
  batch.BeginRow();
  batch.SetField(0, "2");  // column b stays NULL, not "dropped"
  batch.FinishRow({0, 2});
  batch.BeginRow();
  batch.SetField(1, "abandoned");
  batch.AbandonRow();
  EXPECT_EQ(batch.num_rows(), 2u);
  batch.BeginRow();
  batch.SetField(0, "3");
  batch.FinishRow({0, 3});
  ASSERT_EQ(batch.num_rows(), 3u);
  EXPECT_EQ(batch.Field(0, 0), "1");
  EXPECT_EQ(batch.Field(1, 0), "one");
  EXPECT_EQ(batch.Field(0, 1), "2");
  EXPECT_TRUE(batch.IsNull(1, 1));
  EXPECT_EQ(batch.Field(0, 2), "3");
  EXPECT_TRUE(batch.IsNull(1, 2));
}

TEST(TextBatchTest, SetFieldOfRowsReservesAndClear) {
  TextBatch batch({"v", "meta"});
  batch.Reserve(10, 64);
  for (int i = 0; i < 3; i++) {
    batch.BeginRow();
    batch.SetField(0, std::to_string(i));
    batch.FinishRow({0, i});
  }
  batch.SetFieldOfRows(1, 1, "m");  // rows 1 and 2
  batch.Reserve(100000, 1 << 20);   // growing keeps what is there
  EXPECT_TRUE(batch.IsNull(1, 0));
  EXPECT_EQ(batch.Field(1, 1), "m");
  EXPECT_EQ(batch.Field(1, 2), "m");
  EXPECT_EQ(batch.Field(0, 2), "2");
  batch.Clear();
  EXPECT_EQ(batch.num_rows(), 0u);
  EXPECT_EQ(batch.arena_bytes(), 0u);
  batch.BeginRow();
  batch.SetField(1, "after");
  batch.FinishRow({1, 7});
  ASSERT_EQ(batch.num_rows(), 1u);
  EXPECT_TRUE(batch.IsNull(0, 0));
  EXPECT_EQ(batch.Field(1, 0), "after");
}

}  // namespace
}  // namespace sluice
