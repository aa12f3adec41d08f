#include "catalog/table_partitions.h"

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "sql/parser.h"
#include "storage/database.h"

namespace sluice::catalog {
namespace {

TableMeta Build(const std::string& ddl) {
  auto stmt = sql::ParseStatement(ddl, sql::SessionContext{});
  EXPECT_TRUE(stmt.ok()) << stmt.status().message();
  auto meta = BuildTableMeta("d", std::get<sql::CreateTable>(*stmt));
  EXPECT_TRUE(meta.ok()) << meta.status().message();
  return *meta;
}

Status BuildError(const std::string& ddl) {
  auto stmt = sql::ParseStatement(ddl, sql::SessionContext{});
  if (!stmt.ok()) return stmt.status();
  auto meta = BuildTableMeta("d", std::get<sql::CreateTable>(*stmt));
  return meta.ok() ? Status::Ok() : meta.status();
}

// Evaluates the membership SQL of `names` for one row of literal values.
bool Member(const TableMeta& meta, const std::vector<std::string>& values, const std::vector<std::string>& names = {}) {
  static auto db = storage::Database::Open("");
  auto con = (*db)->Connect();
  auto r = (*con)->Query("SELECT " + PartitionMembershipSql(meta.partitioning, values, names));
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() && r->result_set->rows[0][0] == std::optional<std::string>("true");
}

TEST(TablePartitions, AdjacentRangesAreOneComparisonPair) {
  TableMeta m = Build(
      "CREATE TABLE t (dt date, v int) DUPLICATE KEY(dt) PARTITION BY RANGE(dt) ("
      "PARTITION p1 VALUES [(\"2024-01-01\"), (\"2024-01-02\")), PARTITION p2 VALUES LESS THAN (\"2024-01-03\"), "
      "PARTITION p3 VALUES LESS THAN (\"2024-01-04\"))");
  ASSERT_EQ(m.partitioning.partitions.size(), 3u);
  EXPECT_EQ(m.partitioning.partitions[1].lower, std::vector<std::string>{"2024-01-02"});  // LESS THAN follows p1
  // one range from p1's lower to p3's upper bound: two comparisons per row, whatever the number of partitions
  EXPECT_EQ(PartitionMembershipSql(m.partitioning, {"x"}),
            "(NOT (x IS NULL OR x < CAST('2024-01-01' AS DATE)) AND (x IS NULL OR x < CAST('2024-01-04' AS DATE)))");
  EXPECT_TRUE(Member(m, {"DATE '2024-01-01'"}));
  EXPECT_TRUE(Member(m, {"DATE '2024-01-03'"}));
  EXPECT_FALSE(Member(m, {"DATE '2024-01-04'"}));
  EXPECT_FALSE(Member(m, {"DATE '2023-12-31'"}));
  EXPECT_FALSE(Member(m, {"CAST(NULL AS DATE)"}));  // no partition starts at MINVALUE
  EXPECT_TRUE(Member(m, {"DATE '2024-01-02'"}, {"P2"}));
  EXPECT_FALSE(Member(m, {"DATE '2024-01-02'"}, {"p1", "p3"}));
}

TEST(TablePartitions, NullIsTheSmallestRangeValue) {
  TableMeta m = Build(
      "CREATE TABLE t (a int, b varchar(5), v int) DUPLICATE KEY(a, b) PARTITION BY RANGE(a, b) ("
      "PARTITION lo VALUES LESS THAN (\"10\", \"m\"), PARTITION hi VALUES [(\"10\", \"m\"), (MAXVALUE)))");
  EXPECT_TRUE(Member(m, {"NULL::INTEGER", "'zzz'"}, {"lo"}));
  EXPECT_TRUE(Member(m, {"10", "NULL::VARCHAR"}, {"lo"}));
  EXPECT_TRUE(Member(m, {"10", "'m'"}, {"hi"}));
  EXPECT_TRUE(Member(m, {"9", "'zzz'"}, {"lo"}));
  EXPECT_TRUE(Member(m, {"2147483647", "'zzz'"}, {"hi"}));
}

TEST(TablePartitions, ListValuesAndNull) {
  TableMeta m = Build(
      "CREATE TABLE t (id int, c varchar(9)) DUPLICATE KEY(id) PARTITION BY LIST(c) ("
      "PARTITION a VALUES IN (\"x\", \"y\"), PARTITION b VALUES IN (NULL))");
  EXPECT_TRUE(Member(m, {"'y'"}, {"a"}));
  EXPECT_FALSE(Member(m, {"NULL::VARCHAR"}, {"a"}));
  EXPECT_TRUE(Member(m, {"NULL::VARCHAR"}, {"b"}));
  EXPECT_FALSE(Member(m, {"'z'"}));
}

TEST(TablePartitions, RefusedDefinitions) {
  EXPECT_NE(BuildError("CREATE TABLE t (dt datetime) DUPLICATE KEY(dt) PARTITION BY RANGE(dt) (PARTITION p VALUES "
                       "LESS THAN (\"2024-01-01 25:00:00\"))").message().find("is not a valid value"),
            std::string::npos);
  EXPECT_NE(BuildError("CREATE TABLE t (id bigint) DUPLICATE KEY(id) PARTITION BY RANGE(id) (PARTITION p VALUES "
                       "LESS THAN MAXVALUE, PARTITION q VALUES LESS THAN (\"5\"))").message().find("overlaps"),
            std::string::npos);
  EXPECT_NE(BuildError("CREATE TABLE t (id bigint) DUPLICATE KEY(id) PARTITION BY LIST(id) (PARTITION p VALUES "
                       "IN (\"1\", \"01\"))").message().find("twice"),
            std::string::npos);
}

TEST(TablePartitions, RenderedClauseParsesBack) {
  TableMeta m = Build(
      "CREATE TABLE t (dt date, v int) DUPLICATE KEY(dt) PARTITION BY RANGE(dt) ("
      "PARTITION p1 VALUES LESS THAN (\"2024-01-01\"), PARTITION p2 VALUES [(\"2024-02-01\"), (MAXVALUE)))");
  std::string again = "CREATE TABLE t (dt date, v int) DUPLICATE KEY(dt) " + RenderPartitionClause(m.partitioning);
  TableMeta m2 = Build(again);
  EXPECT_EQ(RenderPartitionClause(m2.partitioning), RenderPartitionClause(m.partitioning));
  EXPECT_EQ(m2.partitioning.partitions.size(), 2u);
  EXPECT_EQ(TableMetaFromJson(TableMetaToJson(m)).partitioning.partitions[1].lower,
            std::vector<std::string>{"2024-02-01"});
}

}  // namespace
}  // namespace sluice::catalog
