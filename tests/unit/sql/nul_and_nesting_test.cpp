// A NUL byte is never part of a statement (DuckDB reads SQL as a C string and would drop what follows it), and
// brackets nest at most 1000 levels (DuckDB's parser recurses per level).
#include <gtest/gtest.h>

#include <string>

#include "parse_helpers.h"

namespace sluice::sql {
namespace {

using testing::ParseError;

std::string WithNul(std::string before, std::string after) { return before + std::string(1, '\0') + after; }

TEST(NulByteTest, OutsideAStringIsASyntaxError) {
  Status st = ParseError(WithNul("DELETE FROM t WHERE id < 50 ", " AND id < 0"));
  EXPECT_EQ(st.code(), StatusCode::kSyntaxError);
  EXPECT_EQ(st.message(),
            "Syntax error at line 1, column 29 near '\\0': a NUL byte (0x00) may not appear in a statement; remove it");
  // Sluice's own statements and a later line.
  EXPECT_EQ(ParseError(WithNul("SHOW DATABASES", "")).code(), StatusCode::kSyntaxError);
  EXPECT_NE(ParseError(WithNul("SELECT 1\n  ", "")).message().find("line 2, column 3 near '\\0'"), std::string::npos);
}

TEST(NulByteTest, InsideStringsNamesAndCommentsIsRefused) {
  for (const std::string& sql :
       {WithNul("SELECT 'a", "b'"), WithNul("SELECT \"a", "b\""), WithNul("SELECT `a", "b`"),
        WithNul("SELECT $$a", "b$$"), WithNul("SELECT 1 /* a", " */"), WithNul("SELECT 1 -- a", "\n")}) {
    Status st = ParseError(sql);
    EXPECT_EQ(st.code(), StatusCode::kSyntaxError) << st.message();
    EXPECT_NE(st.message().find("near '\\0'"), std::string::npos) << st.message();
  }
}

TEST(NulByteTest, SplittingKeepsTheNulInItsStatement) {
  // The statement after a ';' still carries the NUL, so it is refused rather than run cut short.
  std::vector<std::string> parts = SplitStatements(WithNul("SELECT 1; DELETE FROM t WHERE a < 5 ", " AND a < 0"));
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(ParseError(parts[1]).code(), StatusCode::kSyntaxError);
}

TEST(NestingTest, MoreThanAThousandLevelsIsRefused) {
  for (auto [open, close] : {std::pair{'(', ')'}, std::pair{'[', ']'}, std::pair{'{', '}'}}) {
    std::string deep = "SELECT " + std::string(100000, open) + "1" + std::string(100000, close);
    Status st = ParseError(deep);
    EXPECT_EQ(st.code(), StatusCode::kSyntaxError);
    EXPECT_NE(st.message().find("brackets nest more than 1000 levels deep"), std::string::npos) << st.message();
  }
  Result<Statement> ok = ParseStatement("SELECT " + std::string(1000, '(') + "1" + std::string(1000, ')'),
                                        testing::TestSession());
  EXPECT_TRUE(ok.ok()) << ok.status().message();
  // Brackets inside strings do not count.
  Result<Statement> text = ParseStatement("SELECT '" + std::string(5000, '[') + "'", testing::TestSession());
  EXPECT_TRUE(text.ok()) << text.status().message();
}

}  // namespace
}  // namespace sluice::sql
