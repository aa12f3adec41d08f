// load_history keeps rows for load_history_retention_days: PurgeLoadHistory drops what ended before the cut and
// load_history('t') shows the rest. (SQL cannot write the catalog, so the aged rows are written here.)
#include <gtest/gtest.h>

#include "catalog/load_history.h"
#include "storage/database.h"

namespace sluice::catalog {
namespace {

constexpr int64_t kDay = 86400000;

TEST(LoadHistoryPurgeTest, DropsRowsPastTheRetentionOnly) {
  auto db = storage::Database::Open("");
  ASSERT_TRUE(db.ok());
  auto con = (*db)->Connect();
  ASSERT_TRUE(con.ok());
  ASSERT_TRUE(EnsureLoadHistoryTable(**con).ok());
  const int64_t now = 100 * kDay;
  for (int days : {1, 3, 5}) {
    auto st = (*con)->Execute("INSERT INTO __sluice.load_history (db, table_name, job_name, job_kind, source, loaded_rows, "
                              "error_rows, filtered_rows, first_error, status, start_time, end_time) VALUES ('hist', 't', 'job_a', 'PIPE', 'file:///in/" +
                              std::to_string(days) + ".csv', " + std::to_string(days * 10) + ", 0, 0, NULL, 'LOADED', " +
                              std::to_string(now - days * kDay - 5) + ", " + std::to_string(now - days * kDay) + ")");
    ASSERT_TRUE(st.ok()) << st.message();
  }
  ASSERT_TRUE((*con)->Execute(LoadHistoryMacroSql()).ok());
  auto purged = PurgeLoadHistory(**con, now, 4 * kDay);
  ASSERT_TRUE(purged.ok());
  EXPECT_EQ(*purged, 1);
  auto rows = (*con)->Query("SELECT source, loaded_rows FROM load_history('hist.t') ORDER BY source");
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->result_set->rows.size(), 2u);
  EXPECT_EQ(*rows->result_set->rows[0][0], "file:///in/1.csv");
  EXPECT_EQ(*rows->result_set->rows[1][0], "file:///in/3.csv");
  purged = PurgeLoadHistory(**con, now, 2 * kDay);
  ASSERT_TRUE(purged.ok());
  EXPECT_EQ(*purged, 1);
}

}  // namespace
}  // namespace sluice::catalog
