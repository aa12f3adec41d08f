#include "load/volume_copy.h"

#include <gtest/gtest.h>

namespace sluice::load {
namespace {

TEST(VolumeCopyTest, ConciseLoadErrorKeepsTheHeadOfDuckDBsMessage) {
  EXPECT_EQ(ConciseLoadError("CSV Error on Line: 3\nOriginal Line: yy,2.0\nError when converting column \"id\".\n\n"
                             "Column id is being converted as type INTEGER\n  file = /tmp/a.csv\n"),
            "CSV Error on Line: 3; Original Line: yy,2.0; Error when converting column \"id\".");
  EXPECT_EQ(ConciseLoadError("IO Error: No files found"), "IO Error: No files found");
  EXPECT_EQ(ConciseLoadError("\n\nonly after"), "\n\nonly after");
}

}  // namespace
}  // namespace sluice::load
