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
