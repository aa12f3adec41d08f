// The small statements: databases, USE, DESC, DROP/UNDROP TABLE, and the PassThrough dispatch.
#include <gtest/gtest.h>

#include "parse_helpers.h"

namespace sluice::sql {
namespace {

using testing::ParseAs;
using testing::ParseError;
using testing::PassThroughSql;

TEST(CreateDatabaseTest, Forms) {
  auto st = ParseAs<CreateDatabase>("CREATE DATABASE example_db");
  EXPECT_EQ(st.name, "example_db");
  EXPECT_FALSE(st.if_not_exists);
  st = ParseAs<CreateDatabase>("create schema if not exists `my db`;");
  EXPECT_EQ(st.name, "my db");
  EXPECT_TRUE(st.if_not_exists);
  EXPECT_EQ(ParseAs<CreateDatabase>("CREATE DATABASE \"d\" ;;").name, "d");
}

TEST(CreateDatabaseTest, Errors) {
  EXPECT_EQ(ParseError("CREATE DATABASE").message(),
            "Syntax error at line 1, column 16 near end of input: expected a database name");
  EXPECT_EQ(ParseError("CREATE DATABASE d PROPERTIES ('a'='b')").message(),
            "Syntax error at line 1, column 19 near 'PROPERTIES': expected end of statement");
  EXPECT_EQ(ParseError("CREATE DATABASE ``").message(),
            "Syntax error at line 1, column 17 near '``': expected a database name (names cannot be empty)");
  EXPECT_EQ(ParseError("CREATE DATABASE IF NOT d").code(), StatusCode::kSyntaxError);
}

TEST(DropDatabaseTest, Forms) {
  auto st = ParseAs<DropDatabase>("DROP DATABASE d");
  EXPECT_EQ(st.name, "d");
  EXPECT_FALSE(st.if_exists);
  EXPECT_FALSE(st.force);
  st = ParseAs<DropDatabase>("DROP SCHEMA IF EXISTS d FORCE");
  EXPECT_TRUE(st.if_exists);
  EXPECT_TRUE(st.force);
  EXPECT_EQ(ParseError("DROP DATABASE d CASCADE").message(),
            "Syntax error at line 1, column 17 near 'CASCADE': expected FORCE or end of statement");
}

TEST(UseTest, Forms) {
  EXPECT_EQ(ParseAs<UseDatabase>("USE example_db").name, "example_db");
  EXPECT_EQ(ParseAs<UseDatabase>("use `Example-DB`;").name, "Example-DB");
  EXPECT_EQ(ParseError("USE db.x").message(), "Syntax error at line 1, column 7 near '.': expected end of statement");
  EXPECT_EQ(ParseError("USE").message(), "Syntax error at line 1, column 4 near end of input: expected a database name");
}

TEST(DescribeTest, Forms) {
  auto st = ParseAs<DescribeTable>("DESC example_tbl1");
  EXPECT_EQ(st.table.db, "");
  EXPECT_EQ(st.table.name, "example_tbl1");
  st = ParseAs<DescribeTable>("DESCRIBE example_db.`example_tbl1`");
  EXPECT_EQ(st.table.db, "example_db");
  EXPECT_EQ(st.table.name, "example_tbl1");
  EXPECT_EQ(st.table.ToString(), "example_db.example_tbl1");
  st = ParseAs<DescribeTable>("SHOW COLUMNS FROM t FROM d");
  EXPECT_EQ(st.table.db, "d");
  EXPECT_EQ(st.table.name, "t");
  st = ParseAs<DescribeTable>("SHOW FULL COLUMNS FROM d.t");
  EXPECT_EQ(st.table.ToString(), "d.t");
  st = ParseAs<DescribeTable>("show fields in t");
  EXPECT_EQ(st.table.name, "t");
  EXPECT_EQ(ParseError("DESC t extra").code(), StatusCode::kSyntaxError);
  EXPECT_EQ(ParseError("DESC d.").message(), "Syntax error at line 1, column 8 near end of input: expected a table name");
}

TEST(DescribeTest, QueriesPassThrough) {
  EXPECT_EQ(PassThroughSql("DESCRIBE SELECT 1"), "DESCRIBE SELECT 1");
  EXPECT_EQ(PassThroughSql("DESC (SELECT 1)"), "DESC (SELECT 1)");
}

TEST(ShowCreateTableTest, Forms) {
  EXPECT_EQ(ParseAs<ShowCreateTable>("SHOW CREATE TABLE example_tbl1").table.name, "example_tbl1");
  EXPECT_EQ(ParseAs<ShowCreateTable>("show create table d.t").table.db, "d");
  EXPECT_EQ(ParseError("SHOW CREATE VIEW v").message(),
            "Syntax error at line 1, column 13 near 'VIEW': expected one of TABLE, DATABASE or ROUTINE LOAD");
}

TEST(DropTableTest, Forms) {
  auto st = ParseAs<DropTable>("DROP TABLE t");
  EXPECT_EQ(st.table.name, "t");
  EXPECT_FALSE(st.if_exists);
  EXPECT_FALSE(st.force);
  st = ParseAs<DropTable>("drop table if exists d.t force;");
  EXPECT_TRUE(st.if_exists);
  EXPECT_TRUE(st.force);
  EXPECT_EQ(st.table.ToString(), "d.t");
  EXPECT_EQ(ParseError("DROP TABLE a, b").message(),
            "Syntax error at line 1, column 13 near ',': expected FORCE or end of statement");
}

TEST(UndropTableTest, Forms) {
  EXPECT_EQ(ParseAs<UndropTable>("UNDROP TABLE t").table.name, "t");
  EXPECT_EQ(ParseAs<UndropTable>("undrop table d.t;").table.ToString(), "d.t");
  EXPECT_EQ(ParseAs<UndropTable>("RECOVER TABLE d.t").table.ToString(), "d.t");
  EXPECT_EQ(ParseError("UNDROP DATABASE d").message(),
            "Syntax error at line 1, column 8 near 'DATABASE': expected TABLE");
}

TEST(PassThroughTest, EverythingElseGoesToDuckDB) {
  for (const char* sql : {"SELECT 1", "WITH x AS (SELECT 1) SELECT * FROM x", "INSERT INTO t VALUES (1)",
                          "UPDATE t SET a = 1", "DELETE FROM t", "MERGE INTO t USING s ON t.id = s.id",
                          "CREATE VIEW v AS SELECT 1", "CREATE TEMP TABLE x (a INT)",
                          "CREATE OR REPLACE TABLE x (a INT)", "CREATE TEMPORARY TABLE x AS SELECT 1",
                          "CREATE TABLE x AS SELECT 1", "CREATE TABLE IF NOT EXISTS d.x AS (SELECT 1)",
                          "CREATE TABLE x LIKE y", "CREATE TABLE x (a) AS SELECT 1", "COPY t TO 'x.csv'",
                          "EXPLAIN SELECT 1", "PRAGMA version", "BEGIN", "COMMIT", "ROLLBACK",
                          "TRUNCATE t", "DROP VIEW v", "CREATE MACRO m(a) AS a",
                          "DROP MACRO m", "CALL f()", "SUMMARIZE t"}) {
    EXPECT_EQ(PassThroughSql(sql), sql);
  }
}

TEST(PassThroughTest, TranslatesAndDropsTheSemicolon) {
  EXPECT_EQ(PassThroughSql("SELECT * FROM `t` LIMIT 1, 2;"), "SELECT * FROM \"t\" LIMIT 2 OFFSET 1");
  EXPECT_EQ(PassThroughSql("CREATE TABLE `x` LIKE `y`"), "CREATE TABLE \"x\" LIKE \"y\"");
  EXPECT_EQ(PassThroughSql("  SELECT 1 ;  "), "SELECT 1");
}

TEST(ParseStatementTest, EmptyQueries) {
  for (const char* sql : {"", "   ", ";", " ; ;", "-- nothing", "/* nothing */", "# nothing\n"}) {
    Status st = ParseError(sql);
    EXPECT_EQ(st.code(), StatusCode::kSyntaxError) << sql;
    EXPECT_EQ(st.message(), "Query was empty") << sql;
  }
}

TEST(ParseStatementTest, OneStatementOnly) {
  EXPECT_EQ(ParseError("SELECT 1; SELECT 2").message(),
            "Syntax error at line 1, column 11 near 'SELECT': expected end of statement: send one statement at a "
            "time");
  EXPECT_EQ(ParseError("USE a; USE b").code(), StatusCode::kSyntaxError);
  EXPECT_EQ(ParseAs<UseDatabase>("USE a;;; -- done").name, "a");
}

TEST(ParseStatementTest, UnterminatedTokens) {
  EXPECT_EQ(ParseError("SELECT 'abc").message(),
            "Syntax error at line 1, column 8: unterminated string: missing closing \"'\"");
  EXPECT_EQ(ParseError("CREATE TABLE `t (a INT)").message(),
            "Syntax error at line 1, column 14: unterminated quoted identifier: missing closing '`'");
  EXPECT_EQ(ParseError("SELECT 1 /* x").message(),
            "Syntax error at line 1, column 10: unterminated comment: '/*' without a closing '*/'");
}

TEST(ParseStatementTest, KeywordsAreCaseInsensitive) {
  EXPECT_EQ(ParseAs<CreateDatabase>("CrEaTe DaTaBaSe If NoT eXiStS x").if_not_exists, true);
  EXPECT_EQ(ParseAs<DropTable>("DrOp TaBlE iF eXiStS x").if_exists, true);
}

TEST(ParseStatementTest, CommentsAnywhere) {
  auto st = ParseAs<CreateDatabase>("/* hello */ CREATE -- x\n DATABASE # y\n d /* z */;");
  EXPECT_EQ(st.name, "d");
}

}  // namespace
}  // namespace sluice::sql
