// Catalog tables users read keep their shape across versions: a catalog written before a change is brought up to
// date when it is opened, with its rows kept.
#include <gtest/gtest.h>

#include "catalog/load_history.h"
#include "catalog/volume_store.h"
#include "storage/database.h"

namespace sluice::catalog {
namespace {

std::string One(storage::Connection& con, const std::string& sql) {
  auto r = con.Query(sql);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok() || r->result_set->rows.empty()) return "";
  return r->result_set->rows[0][0].value_or("NULL");
}

TEST(CatalogMigrationTest, VolumeRejectedRowsCreatedAtBecomesATimestamp) {
  auto db = storage::Database::Open("");
  ASSERT_TRUE(db.ok());
  auto con = (*db)->Connect();
  ASSERT_TRUE(con.ok());
  // The table as catalogs made before this change have it: created_at in epoch milliseconds.
  ASSERT_TRUE((*con)->Execute("CREATE SCHEMA __sluice; CREATE TABLE __sluice.volume_rejected_rows (target VARCHAR NOT "
                              "NULL, file_url VARCHAR NOT NULL, line BIGINT NOT NULL, column_name VARCHAR NOT NULL, "
                              "reason VARCHAR NOT NULL, raw VARCHAR NOT NULL, created_at BIGINT NOT NULL); INSERT INTO "
                              "__sluice.volume_rejected_rows VALUES ('d.t', 'file:///in/a.csv', 3, 'c', 'bad', '2,y', "
                              "1714557600123)").ok());
  auto store = VolumeStore::Open(**db, "");
  ASSERT_TRUE(store.ok()) << store.status().message();
  EXPECT_EQ(One(**con, "SELECT data_type FROM information_schema.columns WHERE table_schema = '__sluice' AND "
                       "table_name = 'volume_rejected_rows' AND column_name = 'created_at'"),
            "TIMESTAMP");
  EXPECT_EQ(One(**con, "SELECT CAST(created_at AS VARCHAR) FROM __sluice.volume_rejected_rows"),
            "2024-05-01 10:00:00.123");
  // Opening it again leaves it as it is.
  auto again = VolumeStore::Open(**db, "");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(One(**con, "SELECT count(*) FROM __sluice.volume_rejected_rows"), "1");
}

TEST(CatalogMigrationTest, LoadHistoryGainsAttemptsAndAFailingSourceKeepsOneFailedRow) {
  auto db = storage::Database::Open("");
  ASSERT_TRUE(db.ok());
  auto con = (*db)->Connect();
  ASSERT_TRUE(con.ok());
  // A catalog from before attempts existed, with one row.
  ASSERT_TRUE((*con)->Execute("CREATE SCHEMA __sluice; CREATE TABLE __sluice.load_history (db VARCHAR NOT NULL, "
                              "table_name VARCHAR NOT NULL, job_name VARCHAR NOT NULL, job_kind VARCHAR NOT NULL, source "
                              "VARCHAR NOT NULL, loaded_rows BIGINT NOT NULL, error_rows BIGINT NOT NULL, filtered_rows "
                              "BIGINT NOT NULL, first_error VARCHAR, status VARCHAR NOT NULL, start_time BIGINT NOT NULL, "
                              "end_time BIGINT NOT NULL); INSERT INTO __sluice.load_history VALUES ('d', 't', 'p', "
                              "'PIPE', 'file:///in/old.csv', 5, 0, 0, NULL, 'LOADED', 1, 2)").ok());
  ASSERT_TRUE(EnsureLoadHistoryTable(**con).ok());
  EXPECT_EQ(One(**con, "SELECT attempts FROM __sluice.load_history"), "1");

  LoadHistoryEntry e;
  e.db = "d";
  e.table = "t";
  e.job = "p";
  e.job_kind = "PIPE";
  e.file_url = "file:///in/bad.csv";
  e.status = "FAILED";
  for (int attempt = 1; attempt <= 3; attempt++) {
    e.first_error = "line 3: try " + std::to_string(attempt);
    e.start_ms = e.end_ms = 100 * attempt;
    ASSERT_TRUE(RecordFailedAttempt(**con, e).ok());
  }
  const std::string bad = "FROM __sluice.load_history WHERE source = 'file:///in/bad.csv'";
  EXPECT_EQ(One(**con, "SELECT count(*) " + bad), "1");
  EXPECT_EQ(One(**con, "SELECT attempts || ' ' || first_error || ' ' || start_time || '-' || end_time " + bad),
            "3 line 3: try 3 100-300");
  // Loaded at last, then failing again: the failure after the load is a new row.
  e.status = "LOADED";
  e.first_error.clear();
  e.start_ms = e.end_ms = 400;
  ASSERT_TRUE(RecordLoadHistory(**con, e).ok());
  e.status = "FAILED";
  e.first_error = "line 9: again";
  e.start_ms = e.end_ms = 500;
  ASSERT_TRUE(RecordFailedAttempt(**con, e).ok());
  EXPECT_EQ(One(**con, "SELECT string_agg(status || ':' || attempts, ',' ORDER BY end_time) " + bad),
            "FAILED:3,LOADED:1,FAILED:1");
}

}  // namespace
}  // namespace sluice::catalog
