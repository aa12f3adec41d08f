#include "storage/database.h"
#include "storage/checkpointer.h"
#include "storage_test_helpers.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

namespace sluice::storage {
namespace {

TEST(DatabaseTest, QueryReturnsTypedColumnsAndTextValues) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto con = Connect(**db);
  auto res = con->Query("SELECT 42::BIGINT AS n, 'x' AS s, NULL::INT AS z, 1.50::DECIMAL(5,2) AS d, "
                        "[1,2] AS l, {'a': 1} AS st, DATE '2020-05-08' AS dt, '{\"a\":1}'::JSON AS j");
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  const ResultSet& rs = *res->result_set;
  ASSERT_EQ(rs.columns.size(), 8u);
  EXPECT_EQ(rs.columns[0].name, "n");
  EXPECT_EQ(rs.columns[0].type, ValueType::kBigInt);
  EXPECT_EQ(rs.columns[3].type, ValueType::kDecimal);
  EXPECT_EQ(rs.columns[3].decimal_width, 5);
  EXPECT_EQ(rs.columns[3].decimal_scale, 2);
  EXPECT_EQ(rs.columns[7].type, ValueType::kJson);
  ASSERT_EQ(rs.rows.size(), 1u);
  EXPECT_EQ(*rs.rows[0][0], "42");
  EXPECT_EQ(*rs.rows[0][1], "x");
  EXPECT_FALSE(rs.rows[0][2].has_value());
  EXPECT_EQ(*rs.rows[0][3], "1.50");
  EXPECT_EQ(*rs.rows[0][4], "[1, 2]");
  EXPECT_EQ(*rs.rows[0][5], "{'a': 1}");
  EXPECT_EQ(*rs.rows[0][6], "2020-05-08");
}

TEST(DatabaseTest, TableExistsLooksUpTablesOnly) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto con = Connect(**db);
  ASSERT_TRUE(con->Execute("CREATE SCHEMA shop; CREATE TABLE shop.orders (id INT); CREATE VIEW shop.v AS SELECT 1").ok());
  EXPECT_TRUE(con->TableExists("shop", "orders"));
  EXPECT_FALSE(con->TableExists("shop", "missing"));
  EXPECT_FALSE(con->TableExists("nowhere", "orders"));
  EXPECT_FALSE(con->TableExists("shop", "v"));
  ASSERT_TRUE(con->Execute("DROP TABLE shop.orders").ok());
  EXPECT_FALSE(con->TableExists("shop", "orders"));
}

TEST(DatabaseTest, ChangedRowsAreCounted) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok());
  auto con = Connect(**db);
  ASSERT_TRUE(con->Execute("CREATE TABLE t(a INT)").ok());
  auto res = con->Query("INSERT INTO t VALUES (1), (2), (3)");
  ASSERT_TRUE(res.ok());
  EXPECT_FALSE(res->result_set.has_value());
  EXPECT_EQ(res->affected_rows, 3u);
}

TEST(DatabaseTest, ErrorsAreClassified) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok());
  auto con = Connect(**db);
  EXPECT_EQ(con->Query("SELEC 1").status().code(), StatusCode::kSyntaxError);
  EXPECT_EQ(con->Query("SELECT * FROM nope").status().code(), StatusCode::kUnknownTable);
  EXPECT_EQ(con->Query("SELECT * FROM nodb.nope").status().code(), StatusCode::kUnknownTable);
}

TEST(DatabaseTest, TransactionRollsBackOnFailure) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok());
  auto con = Connect(**db);
  ASSERT_TRUE(con->Execute("CREATE TABLE t(a INT)").ok());
  Status st = InTransaction(*con, [&] {
    RETURN_IF_ERROR(con->Execute("INSERT INTO t VALUES (1)"));
    return Status::Conflict("progress moved");
  });
  EXPECT_EQ(st.code(), StatusCode::kConflict);
  auto res = con->Query("SELECT count(*) FROM t");
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(*res->result_set->rows[0][0], "0");
}

}  // namespace
// A WAL well below the size threshold is folded into the file once the interval has passed, so a crash leaves
// little to replay; without the interval it stays.
TEST(DatabaseTest, CheckpointsAfterTheIntervalWhateverTheWalSize) {
  const auto dir = std::filesystem::temp_directory_path() / ("sluice-checkpoint-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto wal_after = [&](int64_t interval_seconds, const std::string& name) {
    DatabaseOptions options;
    options.checkpoint_wal_bytes = 64ull << 20;
    options.checkpoint_interval_seconds = interval_seconds;
    const std::string path = (dir / name).string();
    auto db = Database::Open(path, options);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    auto con = Connect(**db);
    EXPECT_TRUE(con->Execute("CREATE TABLE t (i BIGINT, s VARCHAR)").ok());
    for (int i = 0; i < 20; i++)
      EXPECT_TRUE(con->Execute("INSERT INTO t SELECT range, repeat('x', 100) FROM range(1000)").ok());
    const uint64_t before = std::filesystem::file_size(path + ".wal");
    EXPECT_GT(before, kIntervalCheckpointMinWalBytes);
    uint64_t now = before;
    // A checkpoint under way first appends its marker to the WAL (it grows by a few bytes), then truncates it:
    // wait for it to shrink, not merely to change.
    for (int waited = 0; waited < 60 && now >= before; waited++) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::error_code ec;
      now = std::filesystem::file_size(path + ".wal", ec);
      if (ec) now = 0;
    }
    return std::pair(before, now);
  };
  auto [before, after] = wal_after(1, "interval.duckdb");
  EXPECT_LT(after, before) << "the WAL was checkpointed within 6 s of a 1 s interval";
  auto [kept_before, kept_after] = wal_after(0, "size-only.duckdb");
  EXPECT_EQ(kept_after, kept_before) << "by size only, a small WAL stays";
  std::filesystem::remove_all(dir);
}

}  // namespace sluice::storage
