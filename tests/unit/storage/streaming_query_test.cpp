// Connection::QueryStreaming: a SELECT's rows come chunk by chunk from DuckDB's streaming result, with the same
// values and client-visible types as Query; interrupts stop it mid-way; other statements run as Query does.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "storage/database.h"
#include "storage_test_helpers.h"

namespace sluice::storage {
namespace {

TEST(StreamingQueryTest, RowsComeInChunksWithTheMaterializedValues) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok());
  auto con = Connect(**db);
  const char* sql =
      "SELECT i, i * 0.5 AS half, i::DOUBLE AS whole, i % 2 = 0 AS even, CASE WHEN i % 3 = 0 THEN NULL ELSE 'v' || i "
      "END AS s, DATE '2024-01-01' + i::INTEGER AS d, [i, i] AS l FROM range(5000) t(i) ORDER BY i";
  auto streamed = con->QueryStreaming(sql);
  ASSERT_TRUE(streamed.ok()) << streamed.status().ToString();
  ASSERT_TRUE(streamed->stream);
  size_t chunks = 0;
  std::vector<Row> rows = Drain(*streamed->stream, &chunks);
  streamed->stream.reset();  // one query at a time on a connection
  auto materialized = con->Query(sql);
  ASSERT_TRUE(materialized.ok()) << materialized.status().ToString();
  EXPECT_GT(chunks, 1u);
  ASSERT_EQ(rows.size(), 5000u);
  EXPECT_EQ(rows, materialized->result_set->rows);
  ASSERT_EQ(streamed->result_set->columns.size(), materialized->result_set->columns.size());
  for (size_t c = 0; c < streamed->result_set->columns.size(); c++) {
    EXPECT_EQ(streamed->result_set->columns[c].name, materialized->result_set->columns[c].name);
    EXPECT_EQ(streamed->result_set->columns[c].type, materialized->result_set->columns[c].type) << c;
  }
  EXPECT_EQ(rows[2][2], "2");  // a whole double as MySQL prints it
}

TEST(StreamingQueryTest, OtherStatementsAndBlobsAreMaterialized) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok());
  auto con = Connect(**db);
  auto created = con->QueryStreaming("CREATE TABLE t (a INT)");
  ASSERT_TRUE(created.ok());
  EXPECT_FALSE(created->stream);
  auto inserted = con->QueryStreaming("INSERT INTO t VALUES (1), (2)");
  ASSERT_TRUE(inserted.ok());
  EXPECT_FALSE(inserted->stream);
  EXPECT_EQ(inserted->affected_rows, 2u);
  auto blob = con->QueryStreaming("SELECT '\\xAA'::BLOB AS b");
  ASSERT_TRUE(blob.ok());
  EXPECT_FALSE(blob->stream);
  ASSERT_EQ(blob->result_set->rows.size(), 1u);
  EXPECT_EQ(blob->result_set->rows[0][0], std::string("\xAA"));
  auto bad = con->QueryStreaming("SELECT * FROM missing_table");
  EXPECT_FALSE(bad.ok());
}

TEST(StreamingQueryTest, AnInterruptEndsTheStreamWithAnError) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok());
  auto con = Connect(**db);
  auto streamed = con->QueryStreaming("SELECT i FROM range(1000000000) t(i)");
  ASSERT_TRUE(streamed.ok()) << streamed.status().ToString();
  ASSERT_TRUE(streamed->stream);
  std::vector<Row> rows;
  ASSERT_TRUE(*streamed->stream->Next(&rows));
  con->Interrupt();
  Result<bool> more = true;
  for (int i = 0; i < 1000 && more.ok() && *more; i++) more = streamed->stream->Next(&rows);
  ASSERT_FALSE(more.ok());
  EXPECT_EQ(more.status().code(), StatusCode::kTimeout) << more.status().ToString();
  streamed->stream.reset();
  auto again = con->Query("SELECT 2");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
}

TEST(StreamingQueryTest, AnInterruptWhileIdleDoesNotStopTheNextQuery) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok());
  auto con = Connect(**db);
  con->Interrupt();
  auto res = con->Query("SELECT 42");
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  con->Interrupt();
  auto streamed = con->QueryStreaming("SELECT 43");
  ASSERT_TRUE(streamed.ok()) << streamed.status().ToString();
  ASSERT_TRUE(streamed->stream);
  std::vector<Row> rows = Drain(*streamed->stream);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "43");
}

}  // namespace
}  // namespace sluice::storage
