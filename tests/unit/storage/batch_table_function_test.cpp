#include "storage/batch_table_function.h"

#include <gtest/gtest.h>

namespace sluice::storage {
namespace {

TEST(BatchTableFunctionTest, TransformRunsOverTheBatchInPlace) {
  auto db = Database::Open("");
  ASSERT_TRUE(db.ok());
  auto con = (*db)->Connect();
  ASSERT_TRUE(con.ok());
  ASSERT_TRUE(RegisterBatchTableFunction(**con).ok());
  ASSERT_TRUE(RegisterBatchTableFunction(**con).ok());  // idempotent

  TextBatch batch({"id", "name", "price"});
  for (int i = 0; i < 5000; i++) {  // more than one DuckDB vector
    batch.BeginRow();
    batch.SetField(0, std::to_string(i));
    if (i % 10 == 0) batch.SetNull(1); else batch.SetField(1, "n" + std::to_string(i));
    batch.SetField(2, i == 7 ? "oops" : "1.5");
    batch.FinishRow({0, 100 + i});
  }
  BatchHandle handle(batch);
  ASSERT_TRUE((*con)->Execute("CREATE TABLE t (id BIGINT, name VARCHAR, price DOUBLE)").ok());
  auto ins = (*con)->Query("INSERT INTO t SELECT id::BIGINT, name, TRY_CAST(price AS DOUBLE) FROM sluice_batch(" +
                           std::to_string(handle.id()) + ")");
  ASSERT_TRUE(ins.ok()) << ins.status().ToString();
  EXPECT_EQ(ins->affected_rows, 5000u);
  auto res = (*con)->Query("SELECT count(*), count(name), sum(id), count(price) FROM t");
  ASSERT_TRUE(res.ok());
  const Row& row = res->result_set->rows[0];
  EXPECT_EQ(*row[0], "5000");
  EXPECT_EQ(*row[1], "4500");
  EXPECT_EQ(*row[2], "12497500");
  EXPECT_EQ(*row[3], "4999");

  // Projection: only the row id, to find the origin of a bad value.
  auto bad = (*con)->Query("SELECT __sluice_row FROM sluice_batch(" + std::to_string(handle.id()) +
                           ") WHERE TRY_CAST(price AS DOUBLE) IS NULL");
  ASSERT_TRUE(bad.ok()) << bad.status().ToString();
  ASSERT_EQ(bad->result_set->rows.size(), 1u);
  EXPECT_EQ(*bad->result_set->rows[0][0], "7");
  EXPECT_EQ(batch.origin(7).offset, 107);
}

// Strings of up to 12 bytes are written into DuckDB's vectors directly (inlined), longer ones through the C API:
// both must compare, group, measure and store like strings DuckDB made itself, whatever bytes came before them in
// the vector.
TEST(BatchTableFunctionTest, ShortAndLongStringsAreDuckDbsOwn) {
  auto db = Database::Open("");
  auto con = (*db)->Connect();
  ASSERT_TRUE(RegisterBatchTableFunction(**con).ok());
  const std::vector<std::string> values = {"", "a", "abcdefghijkl", "abcdefghijklm", "héllo wörld!", "0123456789"};
  TextBatch batch({"v"});
  for (int i = 0; i < 3000; i++) {  // several vectors: each row slot is written again by later chunks
    batch.BeginRow();
    if (i % 7 == 6) batch.SetNull(0); else batch.SetField(0, values[i % values.size()]);
    batch.FinishRow({0, i});
  }
  BatchHandle handle(batch);
  const std::string from = " FROM sluice_batch(" + std::to_string(handle.id()) + ")";
  ASSERT_TRUE((*con)->Execute("CREATE TABLE s AS SELECT v, __sluice_row AS r" + from).ok());
  for (const std::string& v : values) {
    size_t expected = 0;
    for (int i = 0; i < 3000; i++) expected += (i % 7 != 6 && values[i % values.size()] == v);
    // Equality against a literal, on the scan and on the stored table, and the byte length.
    for (const std::string& table : {from, std::string(" FROM s")}) {
      auto res = (*con)->Query("SELECT count(*), min(strlen(v)), max(strlen(v)) " + table + " WHERE v = '" + v + "'");
      ASSERT_TRUE(res.ok()) << res.status().ToString();
      EXPECT_EQ(*res->result_set->rows[0][0], std::to_string(expected)) << v << table;
      EXPECT_EQ(*res->result_set->rows[0][1], std::to_string(v.size())) << v << table;
    }
  }
  auto groups = (*con)->Query("SELECT count(DISTINCT v), count(v), count(*) FROM s");
  ASSERT_TRUE(groups.ok());
  EXPECT_EQ(*groups->result_set->rows[0][0], std::to_string(values.size()));
  EXPECT_EQ(*groups->result_set->rows[0][2], "3000");
  auto order = (*con)->Query("SELECT string_agg(DISTINCT v, '|' ORDER BY v) FROM s");
  ASSERT_TRUE(order.ok());
  EXPECT_EQ(*order->result_set->rows[0][0], "|0123456789|a|abcdefghijkl|abcdefghijklm|héllo wörld!");
  auto text = (*con)->Query("SELECT v FROM s WHERE r = 3");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text->result_set->rows[0][0], "abcdefghijklm");
}

TEST(BatchTableFunctionTest, UnknownBatchIsAnError) {
  auto db = Database::Open("");
  auto con = (*db)->Connect();
  ASSERT_TRUE(RegisterBatchTableFunction(**con).ok());
  auto res = (*con)->Query("SELECT * FROM sluice_batch(123456789)");
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.status().message().find("no batch"), std::string::npos);
}

TextBatch NumberedBatch(int first, int rows) {
  TextBatch batch({"id", "v"});
  for (int i = first; i < first + rows; i++) {
    batch.BeginRow();
    batch.SetField(0, std::to_string(i));
    batch.SetField(1, "v" + std::to_string(i));
    batch.FinishRow({0, i});
  }
  return batch;
}

// A load task's statements are prepared once per connection over its batch slot (QueryPrepared): each run reads
// the batch published under the slot at that run, parameters take new values, and a catalog change made on another
// connection (ALTER TABLE ADD COLUMN with a default) is seen by the next run of the same SQL.
TEST(BatchTableFunctionTest, PreparedStatementsReadEachNewBatchAndSeeCatalogChanges) {
  auto db = Database::Open("");
  auto con = (*db)->Connect();
  auto other = (*db)->Connect();
  ASSERT_TRUE(RegisterBatchTableFunction(**con).ok());
  ASSERT_TRUE((*con)->Execute("CREATE TABLE t (id BIGINT, v VARCHAR, tag BIGINT)").ok());
  const int64_t slot = (*con)->BatchSlot({"id", "v"});
  EXPECT_EQ((*con)->BatchSlot({"id", "v"}), slot);
  EXPECT_NE((*con)->BatchSlot({"id", "w"}), slot);
  const std::string insert =
      "INSERT INTO t (id, v, tag) SELECT id::BIGINT, v, $1::BIGINT FROM sluice_batch(" + std::to_string(slot) + ")";
  for (int task = 0; task < 3; task++) {
    TextBatch batch = NumberedBatch(task * 100, 10 + task);
    BatchHandle handle(batch, slot);
    auto r = (*con)->QueryPrepared(insert, {int64_t{task}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->affected_rows, static_cast<uint64_t>(10 + task));
  }
  auto sums = (*con)->Query("SELECT tag, count(*), min(id), max(v) FROM t GROUP BY tag ORDER BY tag");
  ASSERT_TRUE(sums.ok());
  ASSERT_EQ(sums->result_set->rows.size(), 3u);
  EXPECT_EQ(*sums->result_set->rows[2][1], "12");
  EXPECT_EQ(*sums->result_set->rows[2][2], "200");
  EXPECT_EQ(*sums->result_set->rows[2][3], "v211");  // rows 200..211

  ASSERT_TRUE((*other)->Execute("ALTER TABLE t ADD COLUMN added BIGINT DEFAULT 7").ok());
  {
    TextBatch batch = NumberedBatch(1000, 4);
    BatchHandle handle(batch, slot);
    auto r = (*con)->QueryPrepared(insert, {int64_t{9}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->affected_rows, 4u);
  }
  auto added = (*con)->Query("SELECT count(*) FROM t WHERE tag = 9 AND added = 7");
  ASSERT_TRUE(added.ok());
  EXPECT_EQ(*added->result_set->rows[0][0], "4");

  // No batch under the slot: an error, and the statement is prepared afresh at the next run.
  auto none = (*con)->QueryPrepared(insert, {int64_t{1}});
  EXPECT_FALSE(none.ok());
  TextBatch batch = NumberedBatch(5000, 1);
  BatchHandle handle(batch, slot);
  EXPECT_TRUE((*con)->QueryPrepared(insert, {int64_t{1}}).ok());
  // A parameter count that does not match the SQL is a bug of the caller, reported.
  EXPECT_FALSE((*con)->QueryPrepared(insert, {}).ok());
}

// VARCHAR and NULL parameters, and a result read back.
TEST(BatchTableFunctionTest, PreparedStatementParametersAndResults) {
  auto db = Database::Open("");
  auto con = (*db)->Connect();
  for (int i = 0; i < 2; i++) {
    auto r = (*con)->QueryPrepared("SELECT $1::VARCHAR || '!', $2::BIGINT IS NULL, $3::BIGINT + 1",
                                   {std::string("x") + std::to_string(i), StatementParam{}, int64_t{41}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const Row& row = r->result_set->rows[0];
    EXPECT_EQ(*row[0], "x" + std::to_string(i) + "!");
    EXPECT_EQ(*row[1], "true");
    EXPECT_EQ(*row[2], "42");
  }
  // More statements than the connection keeps: the oldest are dropped and prepared again when used.
  for (size_t i = 0; i < Connection::kPreparedStatements + 5; i++) {
    auto r = (*con)->QueryPrepared("SELECT " + std::to_string(i) + " + $1::BIGINT", {int64_t{1}});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r->result_set->rows[0][0], std::to_string(i + 1));
  }
  auto again = (*con)->QueryPrepared("SELECT 0 + $1::BIGINT", {int64_t{5}});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again->result_set->rows[0][0], "5");
}

}  // namespace
}  // namespace sluice::storage
