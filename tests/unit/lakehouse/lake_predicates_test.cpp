// Which WHERE terms prune an Iceberg scan, read from DuckDB's own parse (json_serialize_sql on a real DuckDB):
// the shapes that count, and the ones that must not (OR, NOT, casts of the column, joins, other columns,
// constants DuckDB would compare differently).
#include <gtest/gtest.h>

#include "lakehouse/lake_predicates.h"

namespace sluice::lakehouse {
namespace {

using iceberg::PredicateOp;
using iceberg::TypeId;

class LakePredicates : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = storage::Database::Open("");
    ASSERT_TRUE(db.ok());
    db_ = std::move(*db);
    auto con = db_->Connect();
    ASSERT_TRUE(con.ok());
    con_ = std::move(*con);
    schema_.fields = {{1, "id", false, iceberg::MakeType(TypeId::kLong), ""},
                      {2, "name", false, iceberg::MakeType(TypeId::kString), ""},
                      {3, "ts", false, iceberg::MakeType(TypeId::kTimestamp), ""},
                      {4, "d", false, iceberg::MakeType(TypeId::kDate), ""},
                      {5, "amount", false, iceberg::DecimalType(10, 2), ""},
                      {6, "x", false, iceberg::MakeType(TypeId::kInt), ""}};
  }
  std::vector<iceberg::ColumnPredicate> Of(const std::string& sql) {
    auto tree = SerializeSql(*con_, sql);
    EXPECT_TRUE(tree.ok()) << tree.status().ToString();
    return PredicatesFor(tree.ok() ? *tree : "", "sluice_lake_scan_0", schema_);
  }
  std::unique_ptr<storage::Database> db_;
  std::unique_ptr<storage::Connection> con_;
  iceberg::Schema schema_;
};

TEST_F(LakePredicates, SimpleTermsCount) {
  auto p = Of("SELECT * FROM sluice_lake_scan_0 AS t WHERE id = 5 AND t.name >= 'b' AND ts BETWEEN '2024-05-01' "
              "AND TIMESTAMP '2024-05-02 10:00:00' AND d < DATE '2024-06-01' AND amount > 2.5 AND x IN (1, 2) "
              "AND name IS NULL AND 7 > id");
  ASSERT_EQ(p.size(), 9u);
  EXPECT_EQ(p[0].field_id, 1);
  EXPECT_EQ(p[0].op, PredicateOp::kEq);
  EXPECT_EQ(std::get<int64_t>(p[0].values[0].v), 5);
  EXPECT_EQ(p[1].op, PredicateOp::kGe);
  EXPECT_EQ(std::get<std::string>(p[1].values[0].v), "b");
  EXPECT_EQ(p[2].op, PredicateOp::kGe);
  EXPECT_EQ(std::get<int64_t>(p[2].values[0].v), 1714521600000000LL);  // 2024-05-01 00:00:00 UTC
  EXPECT_EQ(p[3].op, PredicateOp::kLe);
  EXPECT_EQ(p[4].field_id, 4);
  EXPECT_EQ(p[5].op, PredicateOp::kGt);
  EXPECT_TRUE(std::get<iceberg::Int128>(p[5].values[0].v) == 250);  // 2.5 at scale 2
  EXPECT_EQ(p[6].op, PredicateOp::kIn);
  EXPECT_EQ(p[6].values.size(), 2u);
  EXPECT_EQ(p[7].op, PredicateOp::kIsNull);
  EXPECT_EQ(p[8].op, PredicateOp::kLt);  // 7 > id is id < 7
}

TEST_F(LakePredicates, WhatMustNotPrune) {
  const char* none[] = {
      "SELECT * FROM sluice_lake_scan_0 AS t WHERE id = 1 OR id = 2",
      "SELECT * FROM sluice_lake_scan_0 AS t WHERE NOT (id = 1)",
      "SELECT * FROM sluice_lake_scan_0 AS t WHERE id + 1 = 2",
      "SELECT * FROM sluice_lake_scan_0 AS t WHERE CAST(ts AS VARCHAR) = '2024-05-01'",
      "SELECT * FROM sluice_lake_scan_0 AS t WHERE other = 1",
      "SELECT * FROM sluice_lake_scan_0 AS t WHERE u.id = 1",
      "SELECT * FROM sluice_lake_scan_0 AS t JOIN u ON u.id = t.id WHERE id = 1",        // unqualified in a join
      "SELECT * FROM u LEFT JOIN sluice_lake_scan_0 AS t ON u.id = t.id WHERE t.id = 1",  // null-extended side
      "SELECT * FROM sluice_lake_scan_0 AS t RIGHT JOIN u ON u.id = t.id WHERE t.id = 1",
      "SELECT * FROM sluice_lake_scan_0 AS t FULL JOIN u ON u.id = t.id WHERE t.id = 1",
      "SELECT * FROM sluice_lake_scan_0 AS t POSITIONAL JOIN u WHERE t.id = 1",
      "SELECT * FROM sluice_lake_scan_0 AS t ASOF JOIN u ON u.id >= t.id WHERE t.id = 1",
      "SELECT * FROM sluice_lake_scan_0 AS t WHERE id = 1.5",          // DuckDB compares as a decimal
      "SELECT * FROM sluice_lake_scan_0 AS t WHERE x = '5'",           // DuckDB casts the string; left alone
      "SELECT * FROM sluice_lake_scan_0 AS t WHERE x = 3000000000",    // beyond int
      "SELECT * FROM sluice_lake_scan_0 AS t WHERE name = 5",
      "SELECT * FROM sluice_lake_scan_0 AS t WHERE d = '2024-05-01 10:00:00'",
      "SELECT * FROM sluice_lake_scan_0 AS t WHERE d = '2024-2-1'",
      "SELECT * FROM sluice_lake_scan_0 AS t WHERE amount = 2.555",     // not a value of decimal(10, 2)
      "SELECT * FROM sluice_lake_scan_0 AS t WHERE id = (SELECT 1)",
      "SELECT * FROM sluice_lake_scan_0 AS t WHERE id <> 1",
      "SELECT * FROM sluice_lake_scan_0 AS t WHERE id IN (1, id)",
      "SELECT * FROM other AS t WHERE id = 1",
  };
  for (const char* sql : none) EXPECT_TRUE(Of(sql).empty()) << sql;
  // a subquery's own WHERE belongs to its own table
  EXPECT_EQ(Of("SELECT * FROM u WHERE u.k IN (SELECT id FROM sluice_lake_scan_0 AS t WHERE t.id < 3)").size(), 1u);
  EXPECT_TRUE(PredicatesFor("not json", "sluice_lake_scan_0", schema_).empty());
}

TEST_F(LakePredicates, PreservedSidesOfJoinsWithQualifiedColumns) {
  const char* one[] = {
      "SELECT * FROM sluice_lake_scan_0 AS t JOIN u ON u.id = t.id WHERE t.id = 1",
      "SELECT * FROM u JOIN sluice_lake_scan_0 AS t ON u.id = t.id WHERE t.id = 1 AND u.x = 2",
      "SELECT * FROM sluice_lake_scan_0 AS t LEFT JOIN u ON u.id = t.id WHERE t.id = 1 AND u.id IS NULL",
      "SELECT * FROM u RIGHT JOIN sluice_lake_scan_0 AS t ON u.id = t.id WHERE t.id = 1",
      "SELECT * FROM sluice_lake_scan_0 AS t, u, v WHERE t.id = 1",
      "SELECT * FROM sluice_lake_scan_0 AS t SEMI JOIN u ON u.id = t.id WHERE t.id = 1",
  };
  for (const char* sql : one) EXPECT_EQ(Of(sql).size(), 1u) << sql;
}

}  // namespace
}  // namespace sluice::lakehouse
