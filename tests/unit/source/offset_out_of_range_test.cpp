// The OutOfRange statuses a source returns say which side of the partition's data an offset is on; the test broker
// cannot delete records, so the retention side is checked here.
#include "source/offset_out_of_range.h"

#include <gtest/gtest.h>

namespace sluice::source {
namespace {

TEST(OffsetOutOfRange, BelowTheEarliestIsRetention) {
  Status st = OffsetBelowEarliest("orders", 3, 10, 500, 900);
  EXPECT_EQ(st.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(st.message(), "topic 'orders' partition 3: offset 10 is no longer available (deleted by retention); the "
                          "earliest available offset is 500 and the next offset to be written is 900");
  OutOfRangeDetail d = DescribeOutOfRange(st);
  EXPECT_EQ(d.side, OutOfRangeSide::kBelowEarliest);
  ASSERT_TRUE(d.partition.has_value());
  EXPECT_EQ(*d.partition, 3);
}

TEST(OffsetOutOfRange, PastTheEndIsNotRetention) {
  Status st = OffsetBeyondEnd("orders", 12, 1000000, 0, 100);
  EXPECT_EQ(st.message(), "topic 'orders' partition 12: offset 1000000 is beyond the end of the partition; the "
                          "earliest available offset is 0 and the next offset to be written is 100");
  OutOfRangeDetail d = DescribeOutOfRange(st);
  EXPECT_EQ(d.side, OutOfRangeSide::kBeyondEnd);
  EXPECT_EQ(d.partition.value_or(-1), 12);
}

TEST(OffsetOutOfRange, UnknownSideStillNamesThePartition) {
  OutOfRangeDetail d = DescribeOutOfRange(OffsetOutOfRangeUnknown("a 'quoted' partition 7: topic", 0, 5, "timed out"));
  EXPECT_EQ(d.side, OutOfRangeSide::kUnknown);
  EXPECT_EQ(d.partition.value_or(-1), 0);
}

TEST(OffsetOutOfRange, OtherStatusesSayNothing) {
  OutOfRangeDetail d = DescribeOutOfRange(Status::NotFound("topic 't' partition 1: offset 3 is beyond the end"));
  EXPECT_EQ(d.side, OutOfRangeSide::kUnknown);
  EXPECT_FALSE(d.partition.has_value());
  d = DescribeOutOfRange(Status::OutOfRange("topic 't' partition 4: offset 1 went out of range during a search"));
  EXPECT_EQ(d.side, OutOfRangeSide::kUnknown);
  EXPECT_EQ(d.partition.value_or(-1), 4);
}

}  // namespace
}  // namespace sluice::source
