// The translator's MySQL syntax rules of issue 13: executable comments, group_concat, DIV, <=>, cast targets and
// SELECT hints.
#include <gtest/gtest.h>

#include "parse_helpers.h"
#include "sql/lexer.h"

namespace sluice::sql {
namespace {

std::string T(std::string_view sql) { return TranslateForDuckDB(sql, testing::TestSession()); }

TEST(TranslateMysqlTest, ExecutableCommentsRunUpToTheAnnouncedVersion) {
  EXPECT_EQ(ExecutableCommentVersion(), 50799u);
  EXPECT_EQ(T("/*!40101 SELECT 1 */"), "  SELECT 1  ");
  EXPECT_EQ(T("SELECT 1 /*!40001 + 10 */ AS x"), "SELECT 1   + 10   AS x");
  EXPECT_EQ(T("/*! SELECT 2 */"), "  SELECT 2  ");
  EXPECT_EQ(T("/*!50799 SELECT 3 */"), "  SELECT 3  ");
  // later versions, MariaDB's own ten-series numbers and plain comments stay comments
  EXPECT_EQ(T("/*!50800 SELECT 4 */ SELECT 5"), "/*!50800 SELECT 4 */ SELECT 5");
  EXPECT_EQ(T("/*M!100100 SET x = 1 */ SELECT 5"), "/*M!100100 SET x = 1 */ SELECT 5");
  EXPECT_EQ(T("/* SELECT 4 */ SELECT 5"), "/* SELECT 4 */ SELECT 5");
  // the content is lexed as SQL: its strings are strings, its `*/` inside a string does not close it
  std::vector<Token> tokens = Tokenize("/*!40101 SET @a = '*/' */");
  ASSERT_EQ(tokens.size(), 5u);
  EXPECT_TRUE(tokens[0].IsWord("SET"));
  EXPECT_EQ(tokens[3].text, "*/");
}

TEST(TranslateMysqlTest, SelectHintsAreDropped) {
  EXPECT_EQ(T("SELECT /*!40001 SQL_NO_CACHE */ * FROM t"), "SELECT      * FROM t");
  EXPECT_EQ(T("SELECT SQL_NO_CACHE a FROM t"), "SELECT  a FROM t");
  EXPECT_EQ(T("SELECT sql_no_cache FROM t"), "SELECT sql_no_cache FROM t") << "a column of that name after SELECT";
}

TEST(TranslateMysqlTest, GroupConcat) {
  EXPECT_EQ(T("SELECT group_concat(v) FROM t"),
            "SELECT string_agg(CAST((v) AS VARCHAR), ',') AS \"group_concat(v)\" FROM t");
  EXPECT_EQ(T("SELECT group_concat(DISTINCT v ORDER BY id DESC SEPARATOR '|') AS g FROM t"),
            "SELECT string_agg(DISTINCT CAST((v) AS VARCHAR), '|' ORDER BY id DESC) AS g FROM t");
  EXPECT_EQ(T("SELECT group_concat(a, `b` SEPARATOR ';') x FROM t"),
            "SELECT string_agg(concat(CAST((a) AS VARCHAR), CAST((\"b\") AS VARCHAR)), ';') x FROM t");
  // shapes it does not know pass through as written
  EXPECT_EQ(T("SELECT group_concat() FROM t"), "SELECT group_concat() FROM t");
  EXPECT_EQ(T("SELECT group_concat(v SEPARATOR x) FROM t"), "SELECT group_concat(v SEPARATOR x) FROM t");
}

TEST(TranslateMysqlTest, DivNullSafeEqualAndCasts) {
  EXPECT_EQ(T("SELECT 7 DIV 2, a DIV b FROM t"), "SELECT 7 // 2, a // b FROM t");
  EXPECT_EQ(T("SELECT div FROM t"), "SELECT div FROM t");
  EXPECT_EQ(T("SELECT a div, b FROM t"), "SELECT a div, b FROM t") << "an alias named div";
  EXPECT_EQ(T("SELECT (a + 1) DIV -2"), "SELECT (a + 1) // -2");
  EXPECT_EQ(T("SELECT a <=> b"), "SELECT a  IS NOT DISTINCT FROM  b");
  EXPECT_EQ(T("SELECT CAST(x AS DECIMAL), CAST(x AS DECIMAL(5,2)), CAST(x AS BINARY)"),
            "SELECT CAST(x AS DECIMAL(10,0)), CAST(x AS DECIMAL(5,2)), CAST(x AS BLOB)");
  EXPECT_EQ(T("SELECT CAST(x AS SIGNED), CAST(x AS UNSIGNED INTEGER)"), "SELECT CAST(x AS BIGINT), CAST(x AS UBIGINT)");
}

}  // namespace
}  // namespace sluice::sql
