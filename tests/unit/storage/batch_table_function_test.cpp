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

}  // namespace
}  // namespace sluice::storage
