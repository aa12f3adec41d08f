// ALTER TABLE's column and table clauses: each form MySQL and StarRocks users type, and DuckDB's ALTER COLUMN TYPE.
#include "parse_helpers.h"

namespace sluice::sql {
namespace {

using testing::ParseAs;
using testing::ParseError;
using Kind = AlterTableClause::Kind;

TEST(AlterTableTest, AddColumnWithAttributesAndPosition) {
  auto a = ParseAs<AlterTable>("ALTER TABLE d.t ADD COLUMN c varchar(10) NOT NULL DEFAULT 'x' COMMENT 'c' AFTER b");
  EXPECT_EQ(a.table.db, "d");
  ASSERT_EQ(a.clauses.size(), 1u);
  const auto& c = a.clauses[0];
  EXPECT_EQ(c.kind, Kind::kAddColumns);
  ASSERT_EQ(c.columns.size(), 1u);
  EXPECT_EQ(c.columns[0].name, "c");
  EXPECT_EQ(c.columns[0].type.params, std::vector<int64_t>{10});
  EXPECT_EQ(c.columns[0].nullable, std::optional<bool>(false));
  EXPECT_EQ(c.columns[0].default_sql, std::optional<std::string>("'x'"));
  EXPECT_EQ(c.columns[0].comment, "c");
  EXPECT_EQ(c.after, "b");
  EXPECT_TRUE(ParseAs<AlterTable>("ALTER TABLE t ADD c int FIRST").clauses[0].first);
}

TEST(AlterTableTest, StarRocksColumnList) {
  auto a = ParseAs<AlterTable>("ALTER TABLE t ADD COLUMN (a int, b string COMMENT \"two\")");
  ASSERT_EQ(a.clauses.size(), 1u);
  ASSERT_EQ(a.clauses[0].columns.size(), 2u);
  EXPECT_EQ(a.clauses[0].columns[1].comment, "two");
}

TEST(AlterTableTest, SeveralClauses) {
  auto a = ParseAs<AlterTable>("ALTER TABLE t DROP COLUMN a, MODIFY COLUMN b bigint AFTER c, CHANGE d e int FIRST, "
                               "RENAME COLUMN f TO g, COMMENT = 'x', ALTER COLUMN h SET DEFAULT 0");
  ASSERT_EQ(a.clauses.size(), 6u);
  EXPECT_EQ(a.clauses[0].kind, Kind::kDropColumn);
  EXPECT_EQ(a.clauses[1].kind, Kind::kModifyColumn);
  EXPECT_EQ(a.clauses[1].after, "c");
  EXPECT_EQ(a.clauses[2].column, "d");
  EXPECT_EQ(a.clauses[2].new_name, "e");
  EXPECT_TRUE(a.clauses[2].first);
  EXPECT_EQ(a.clauses[3].new_name, "g");
  EXPECT_EQ(a.clauses[4].comment, "x");
  EXPECT_EQ(a.clauses[5].default_sql, std::optional<std::string>("0"));
}

TEST(AlterTableTest, CommentsRenameAndDuckDBForms) {
  EXPECT_EQ(ParseAs<AlterTable>("ALTER TABLE t MODIFY COMMENT 'x'").clauses[0].kind, Kind::kTableComment);
  EXPECT_EQ(ParseAs<AlterTable>("ALTER TABLE t COMMENT 'x'").clauses[0].kind, Kind::kTableComment);
  EXPECT_EQ(ParseAs<AlterTable>("ALTER TABLE t MODIFY COLUMN c COMMENT 'x'").clauses[0].kind, Kind::kColumnComment);
  EXPECT_EQ(ParseAs<AlterTable>("ALTER TABLE t RENAME u").clauses[0].new_name, "u");
  EXPECT_EQ(ParseAs<AlterTable>("ALTER TABLE t RENAME TO u").clauses[0].kind, Kind::kRenameTable);
  auto type = ParseAs<AlterTable>("ALTER TABLE t ALTER COLUMN c TYPE VARCHAR(10)").clauses[0];
  EXPECT_EQ(type.kind, Kind::kAlterType);
  EXPECT_EQ(type.type.params, std::vector<int64_t>{10});
  EXPECT_EQ(ParseAs<AlterTable>("ALTER TABLE t ALTER c SET DATA TYPE int").clauses[0].kind, Kind::kAlterType);
  EXPECT_FALSE(ParseAs<AlterTable>("ALTER TABLE t ALTER c SET NOT NULL").clauses[0].nullable);
  EXPECT_FALSE(ParseAs<AlterTable>("ALTER TABLE t ALTER c DROP DEFAULT").clauses[0].default_sql);
}

TEST(AlterTableTest, PartitionsStayTheirs) {
  EXPECT_TRUE(ParseAs<AlterTablePartition>("ALTER TABLE t DROP PARTITION p1").item.name == "p1");
}

TEST(AlterTableTest, Refusals) {
  EXPECT_NE(ParseError("ALTER TABLE t ADD INDEX i (c)").message().find("not supported"), std::string::npos);
  EXPECT_NE(ParseError("ALTER TABLE t ADD COLUMN k int KEY").message().find("key columns"), std::string::npos);
  EXPECT_NE(ParseError("ALTER TABLE t ALTER c TYPE int USING 1").message().find("USING"), std::string::npos);
  EXPECT_NE(ParseError("ALTER TABLE t FROB").message().find("ADD COLUMN"), std::string::npos);
  EXPECT_NE(ParseError("ALTER TABLE t ADD COLUMN c int AFTER").message().find("column"), std::string::npos);
}

}  // namespace
}  // namespace sluice::sql
