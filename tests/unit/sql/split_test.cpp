#include <gtest/gtest.h>

#include "sql/parser.h"

namespace sluice::sql {
namespace {

using Pieces = std::vector<std::string>;

TEST(SplitStatementsTest, SplitsAtTopLevelSemicolons) {
  EXPECT_EQ(SplitStatements("SELECT 1; SELECT 2;"), (Pieces{"SELECT 1", "SELECT 2"}));
  EXPECT_EQ(SplitStatements("SELECT 1"), (Pieces{"SELECT 1"}));
  EXPECT_EQ(SplitStatements("  USE d ;\n\n CREATE TABLE t (a INT) ;  "), (Pieces{"USE d", "CREATE TABLE t (a INT)"}));
}

TEST(SplitStatementsTest, DropsEmptyPieces) {
  EXPECT_EQ(SplitStatements(""), Pieces{});
  EXPECT_EQ(SplitStatements(";;; ;"), Pieces{});
  EXPECT_EQ(SplitStatements("SELECT 1;;SELECT 2"), (Pieces{"SELECT 1", "SELECT 2"}));
  EXPECT_EQ(SplitStatements("SELECT 1; -- bye"), (Pieces{"SELECT 1"}));
  // an executable comment for a version Sluice reaches is a statement; one for a later version is a comment
  EXPECT_EQ(SplitStatements("/*!40101 SET NAMES utf8 */;\nSELECT 1;"),
            (Pieces{"/*!40101 SET NAMES utf8 */", "SELECT 1"}));
  EXPECT_EQ(SplitStatements("/*!99999 SET NAMES utf8 */;\nSELECT 1;"), (Pieces{"SELECT 1"}));
  EXPECT_EQ(SplitStatements("/*M!100100 SET x = 1 */; /* plain */ ;SELECT 1"), (Pieces{"SELECT 1"}));
}

TEST(SplitStatementsTest, QuotesAndCommentsHideSemicolons) {
  EXPECT_EQ(SplitStatements("SELECT ';' ; SELECT \";\""), (Pieces{"SELECT ';'", "SELECT \";\""}));
  EXPECT_EQ(SplitStatements("SELECT 'it\\';s'; SELECT 2"), (Pieces{"SELECT 'it\\';s'", "SELECT 2"}));
  EXPECT_EQ(SplitStatements("SELECT 'a'';b'; SELECT 2"), (Pieces{"SELECT 'a'';b'", "SELECT 2"}));
  EXPECT_EQ(SplitStatements("SELECT `a;b` FROM t; SELECT 2"), (Pieces{"SELECT `a;b` FROM t", "SELECT 2"}));
  EXPECT_EQ(SplitStatements("SELECT 1 -- a;b\n; SELECT 2"), (Pieces{"SELECT 1 -- a;b", "SELECT 2"}));
  EXPECT_EQ(SplitStatements("SELECT 1 # a;b\n; SELECT 2"), (Pieces{"SELECT 1 # a;b", "SELECT 2"}));
  EXPECT_EQ(SplitStatements("SELECT /* ; */ 1; SELECT 2"), (Pieces{"SELECT /* ; */ 1", "SELECT 2"}));
  EXPECT_EQ(SplitStatements("SELECT $$a;b$$; SELECT 2"), (Pieces{"SELECT $$a;b$$", "SELECT 2"}));
}

TEST(SplitStatementsTest, KeepsLeadingComments) {
  EXPECT_EQ(SplitStatements("-- first\nSELECT 1; /* second */ SELECT 2"),
            (Pieces{"-- first\nSELECT 1", "/* second */ SELECT 2"}));
}

TEST(SplitStatementsTest, UnterminatedQuoteRunsToTheEnd) {
  // The parser then reports the unterminated string; nothing after it is run by mistake.
  EXPECT_EQ(SplitStatements("SELECT 1; SELECT 'a; DROP TABLE t"), (Pieces{"SELECT 1", "SELECT 'a; DROP TABLE t"}));
}

}  // namespace
}  // namespace sluice::sql
