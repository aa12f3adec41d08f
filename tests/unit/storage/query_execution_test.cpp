// Connection::Query runs a query's tasks itself and sleeps while DuckDB's worker threads hold the only runnable
// ones (instead of DuckDB's busy wait): results, errors and interrupts must be as with duckdb_execute_prepared.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "storage/database.h"
#include "storage_test_helpers.h"
#include "storage/result_conversion.h"

namespace sluice::storage {
namespace {

TEST(QueryExecutionTest, ParallelQueriesGiveTheirResults) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok());
  auto con = Connect(**db);
  ASSERT_TRUE(con->Execute("SET threads = 4").ok());  // worker threads take tasks even on a small machine
  auto sum = con->Query("SELECT sum(i), count(*) FROM range(20000000) t(i)");
  ASSERT_TRUE(sum.ok()) << sum.status().ToString();
  EXPECT_EQ(*sum->result_set->rows[0][0], "199999990000000");
  EXPECT_EQ(*sum->result_set->rows[0][1], "20000000");
  ASSERT_TRUE(con->Execute("CREATE TABLE t (i BIGINT, s VARCHAR)").ok());
  auto ins = con->Query("INSERT INTO t SELECT i, 'v' || (i % 1000) FROM range(1000000) r(i)");
  ASSERT_TRUE(ins.ok()) << ins.status().ToString();
  EXPECT_EQ(ins->affected_rows, 1000000u);
  auto grouped = con->Query("SELECT count(DISTINCT s) FROM t");
  ASSERT_TRUE(grouped.ok());
  EXPECT_EQ(*grouped->result_set->rows[0][0], "1000");
}

// Two transactions updating one row (two tasks' fenced progress updates): the later one's error keeps DuckDB's
// class, a Conflict (retried by the scheduler), not the invalid input of the pending-result wrapper (a pause).
TEST(QueryExecutionTest, AWriteConflictIsAConflict) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok());
  auto a = Connect(**db);
  auto b = Connect(**db);
  ASSERT_TRUE(a->Execute("CREATE TABLE progress (p INT, next BIGINT); INSERT INTO progress VALUES (0, 10)").ok());
  ASSERT_TRUE(a->Execute("BEGIN TRANSACTION").ok());
  ASSERT_TRUE(b->Execute("BEGIN TRANSACTION").ok());
  ASSERT_TRUE(a->Execute("UPDATE progress SET next = 20 WHERE p = 0 AND next = 10").ok());
  // Query: a prepared statement whose tasks Connection runs (the path of AdvanceProgress)
  auto r = b->Query("UPDATE progress SET next = 20 WHERE p = 0 AND next = 10");
  ASSERT_FALSE(r.ok());
  const Status& st = r.status();
  EXPECT_EQ(st.code(), StatusCode::kConflict) << st.ToString();
  EXPECT_EQ(st.message().find("Attempting to execute"), std::string::npos) << st.message();
  EXPECT_TRUE(a->Execute("COMMIT").ok());
  (void)b->Execute("ROLLBACK");
}

TEST(QueryExecutionTest, ErrorsDuringExecutionAreReported) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok());
  auto con = Connect(**db);
  auto bad = con->Query("SELECT CAST(CASE WHEN i = 123456 THEN 'x' ELSE i::VARCHAR END AS INTEGER) FROM range(1000000) t(i)");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("Truncated incorrect INTEGER value: 'x'"), std::string::npos) << bad.status().ToString();
  auto again = con->Query("SELECT 1");  // the connection is usable afterwards
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again->result_set->rows[0][0], "1");
}

TEST(QueryExecutionTest, FileErrorsKeepTheirClassInAndOutOfTransactions) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok());
  auto con = Connect(**db);
  for (bool in_transaction : {false, true}) {
    if (in_transaction) {
      ASSERT_TRUE(con->Execute("BEGIN TRANSACTION").ok());
    }
    auto bad = con->Query("SELECT * FROM read_csv('/nonexistent-sluice-dir/*.csv')");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status().code(), StatusCode::kIoError) << in_transaction << " " << bad.status().ToString();
    EXPECT_NE(bad.status().message().find("No files found"), std::string::npos) << bad.status().ToString();
    if (in_transaction) {
      ASSERT_TRUE(con->Execute("ROLLBACK").ok());
    }
  }
}

TEST(QueryExecutionTest, MessagesOfQueriesThatDidNotStartAreClassifiedByTheirPrefix) {
  // duckdb_pending_error gives only the message, with DuckDB's type prefix.
  EXPECT_EQ(ErrorFromMessage("IO Error: No files found that match the pattern \"x\"").code(), StatusCode::kIoError);
  EXPECT_EQ(ErrorFromMessage("IO Error: disk full").message(), "disk full");
  EXPECT_EQ(ErrorFromMessage("Catalog Error: Table with name t does not exist!").code(), StatusCode::kUnknownTable);
  EXPECT_EQ(ErrorFromMessage("TransactionContext Error: Conflict on update").code(), StatusCode::kConflict);
  EXPECT_EQ(ErrorFromMessage("INTERRUPT Error: Interrupted!").code(), StatusCode::kTimeout);
  EXPECT_EQ(ErrorFromMessage("Conversion Error: Could not convert").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ErrorFromMessage("something else").message(), "something else");
}

TEST(QueryExecutionTest, InterruptStopsARunningQuery) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok());
  auto con = Connect(**db);
  ASSERT_TRUE(con->Execute("SET threads = 2").ok());
  std::thread interrupter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    con->Interrupt();
  });
  const auto start = std::chrono::steady_clock::now();
  auto res = con->Query("SELECT count(*) FROM range(100000000000) a(i) WHERE hash(i) % 7 = 3");
  interrupter.join();
  EXPECT_FALSE(res.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  auto again = con->Query("SELECT 2");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
}

}  // namespace
}  // namespace sluice::storage
