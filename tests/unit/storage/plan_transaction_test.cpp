// A client's statement outside a transaction is planned and run in one transaction of its own
// (storage/plan_transaction.h): rows another connection commits between the plan and the run cannot make a query
// fail ("Perfect hash aggregate ...") or answer wrong, and the statement's own changes are committed as before.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "common/test_points.h"
#include "storage/database.h"
#include "storage_test_helpers.h"

namespace sluice::storage {
namespace {

// 3,000 rows over k = 0, 1, 2: DuckDB's statistics say k lies in [0, 2].
void MakeSmallRangeTable(Connection& con) {
  ASSERT_TRUE(con.Execute("CREATE OR REPLACE TABLE t (k INTEGER, s VARCHAR)").ok());
  ASSERT_TRUE(con.Execute("INSERT INTO t SELECT i % 3, 'x' || i FROM range(3000) r(i)").ok());
}

// Runs `query` on `reader` with a pause after its plan, while `writer` commits 3,000 rows with k far outside the
// range the plan was made with.
template <typename Run>
void WithCommitAfterThePlan(Connection& writer, Run query) {
  ASSERT_TRUE(ArmTestPoints("storage.query.after_plan=sleep:400").ok());
  std::thread other([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_TRUE(writer.Execute("INSERT INTO t SELECT 100000 + i, 'y' || i FROM range(3000) r(i)").ok());
  });
  query();
  other.join();
  DisarmTestPoints();
}

std::vector<Row> Ks(std::initializer_list<const char*> ks) {
  std::vector<Row> rows;
  for (const char* k : ks) rows.push_back(Row{std::string(k)});
  return rows;
}

TEST(PlanTransactionTest, CommitsBetweenPlanAndRunDoNotChangeTheAnswer) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok());
  auto reader = Connect(**db);
  auto writer = Connect(**db);
  // Each of these, planned before the writer's commit and run after it in a transaction of its own, returned
  // wrong rows or failed: DISTINCT packed k into one byte (256 rows), the GROUP BY's perfect hash table had room for
  // k in [0, 2], the filter's sort dropped every row.
  struct Case {
    const char* sql;
    std::vector<Row> snapshot;  // what the table held when the statement's transaction began
  };
  const Case cases[] = {
      {"SELECT DISTINCT k FROM t ORDER BY k", Ks({"0", "1", "2"})},
      {"SELECT k FROM t GROUP BY k ORDER BY k", Ks({"0", "1", "2"})},
      {"SELECT count(*) FROM (SELECT k FROM t WHERE k >= 0 ORDER BY k, s)", Ks({"3000"})},
  };
  for (const Case& c : cases) {
    MakeSmallRangeTable(*reader);
    WithCommitAfterThePlan(*writer, [&] {
      auto r = reader->Query(c.sql);
      ASSERT_TRUE(r.ok()) << c.sql << ": " << r.status().ToString();
      EXPECT_EQ(r->result_set->rows, c.snapshot) << c.sql;
    });
    auto after = reader->Query("SELECT count(DISTINCT k) FROM t");
    ASSERT_TRUE(after.ok());
    EXPECT_EQ(after->result_set->rows, Ks({"3003"}));  // the next statement sees the writer's rows
  }
}

TEST(PlanTransactionTest, AStreamingQueryIsPlannedAndRunInOneTransaction) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok());
  auto reader = Connect(**db);
  auto writer = Connect(**db);
  MakeSmallRangeTable(*reader);
  WithCommitAfterThePlan(*writer, [&] {
    auto r = reader->QueryStreaming("SELECT DISTINCT k FROM t ORDER BY k");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(r->stream);
    EXPECT_EQ(Drain(*r->stream), Ks({"0", "1", "2"}));
  });
  // The stream's transaction ended with it: the connection's next statement sees the writer's rows, and an
  // explicit transaction can begin.
  auto count = reader->Query("SELECT count(*) FROM t");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(count->result_set->rows, Ks({"6000"}));
  EXPECT_TRUE(reader->Execute("BEGIN TRANSACTION").ok());
  EXPECT_TRUE(reader->Execute("COMMIT").ok());
}

TEST(PlanTransactionTest, AnAbandonedStreamEndsItsTransactionAtTheNextStatement) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok());
  auto con = Connect(**db);
  auto other = Connect(**db);
  MakeSmallRangeTable(*con);
  auto r = con->QueryStreaming("SELECT k FROM t");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<Row> rows;
  ASSERT_TRUE(r->stream->Next(&rows).ok());  // read some, keep the stream
  ASSERT_TRUE(other->Execute("INSERT INTO t VALUES (7, 'z')").ok());
  auto count = con->Query("SELECT count(*) FROM t");  // not inside the stream's old snapshot
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_EQ(count->result_set->rows, Ks({"3001"}));
  r->stream.reset();
  EXPECT_TRUE(con->Execute("BEGIN TRANSACTION").ok());
  EXPECT_TRUE(con->Execute("ROLLBACK").ok());
}

TEST(PlanTransactionTest, WritesOutsideATransactionAreCommittedAndFailuresLeaveNoneOpen) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok());
  auto con = Connect(**db);
  auto other = Connect(**db);
  MakeSmallRangeTable(*con);
  auto inserted = con->Query("INSERT INTO t SELECT k + 10, s FROM t WHERE k = 1");
  ASSERT_TRUE(inserted.ok()) << inserted.status().ToString();
  EXPECT_EQ(inserted->affected_rows, 1000u);
  ASSERT_TRUE(con->Query("UPDATE t SET s = 'u' WHERE k = 11").ok());
  ASSERT_TRUE(con->Query("DELETE FROM t WHERE k = 2").ok());
  auto seen = other->Query("SELECT count(*), count(*) FILTER (WHERE s = 'u') FROM t");
  ASSERT_TRUE(seen.ok());
  EXPECT_EQ(seen->result_set->rows, (std::vector<Row>{Row{std::string("3000"), std::string("1000")}}));
  // A statement that fails while it runs leaves no transaction behind it.
  EXPECT_FALSE(con->Query("SELECT CAST(s AS INTEGER) FROM t").ok());
  EXPECT_TRUE(con->Execute("BEGIN TRANSACTION").ok());
  ASSERT_TRUE(con->Query("INSERT INTO t VALUES (99, 'r')").ok());  // inside the client's own: not committed alone
  EXPECT_TRUE(con->Execute("ROLLBACK").ok());
  auto count = other->Query("SELECT count(*) FROM t WHERE k = 99");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(count->result_set->rows, Ks({"0"}));
}

}  // namespace
}  // namespace sluice::storage
