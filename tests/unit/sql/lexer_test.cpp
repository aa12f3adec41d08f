#include "sql/lexer.h"

#include <gtest/gtest.h>

namespace sluice::sql {
namespace {

std::vector<TokenKind> Kinds(const std::vector<Token>& tokens) {
  std::vector<TokenKind> out;
  for (const Token& t : tokens) out.push_back(t.kind);
  return out;
}

TEST(LexerTest, WordsNumbersSymbolsAndPositions) {
  auto t = Tokenize("SELECT a1,\n  42 FROM t;");
  ASSERT_EQ(t.size(), 8u);
  EXPECT_EQ(Kinds(t), (std::vector<TokenKind>{TokenKind::kWord, TokenKind::kWord, TokenKind::kSymbol,
                                              TokenKind::kNumber, TokenKind::kWord, TokenKind::kWord,
                                              TokenKind::kSymbol, TokenKind::kEnd}));
  EXPECT_EQ(t[1].raw, "a1");
  EXPECT_EQ(t[1].offset, 7u);
  EXPECT_EQ(t[1].line, 1u);
  EXPECT_EQ(t[1].column, 8u);
  EXPECT_EQ(t[3].raw, "42");
  EXPECT_EQ(t[3].line, 2u);
  EXPECT_EQ(t[3].column, 3u);
  EXPECT_EQ(t[7].offset, 23u);
  EXPECT_TRUE(t[0].IsWord("select"));
  EXPECT_FALSE(t[1].IsWord("select"));
}

TEST(LexerTest, ColumnsCountUtf8Characters) {
  auto t = Tokenize("'größe' x");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].text, "größe");
  EXPECT_EQ(t[1].column, 9u);  // 7 characters of string + space, though 9 bytes
  EXPECT_EQ(t[1].offset, 10u);
}

TEST(LexerTest, NonAsciiIdentifiers) {
  auto t = Tokenize("SELECT prénom FROM 表");
  EXPECT_EQ(t[1].kind, TokenKind::kWord);
  EXPECT_EQ(t[1].raw, "prénom");
  EXPECT_EQ(t[3].raw, "表");
}

TEST(LexerTest, BacktickIdentifiers) {
  auto t = Tokenize("`order id` `a``b` ``");
  EXPECT_EQ(t[0].kind, TokenKind::kQuotedIdent);
  EXPECT_EQ(t[0].text, "order id");
  EXPECT_EQ(t[1].text, "a`b");
  EXPECT_EQ(t[1].raw, "`a``b`");
  EXPECT_EQ(t[2].text, "");
  EXPECT_FALSE(t[0].IsWord("order id"));
}

TEST(LexerTest, SingleQuotedStringsWithEscapesAndDoubling) {
  auto t = Tokenize(R"('it''s' 'it\'s' 'a\nb\tc\\d' '\0\Z' '\%\_' 'q\"x\y')");
  EXPECT_EQ(t[0].kind, TokenKind::kString);
  EXPECT_EQ(t[0].text, "it's");
  EXPECT_EQ(t[1].text, "it's");
  EXPECT_EQ(t[2].text, "a\nb\tc\\d");
  EXPECT_EQ(t[3].text, std::string("\0\x1A", 2));
  EXPECT_EQ(t[4].text, "\\%\\_");  // kept for LIKE patterns
  EXPECT_EQ(t[5].text, "q\"xy");
}

TEST(LexerTest, DoubleQuotedStrings) {
  auto t = Tokenize(R"("Order ID" "say ""hi""" "a\"b")");
  EXPECT_EQ(t[0].kind, TokenKind::kDoubleQuoted);
  EXPECT_EQ(t[0].text, "Order ID");
  EXPECT_EQ(t[1].text, "say \"hi\"");
  EXPECT_EQ(t[2].text, "a\"b");
  EXPECT_TRUE(t[0].IsString());
  EXPECT_TRUE(t[0].IsIdentifier());
}

TEST(LexerTest, Comments) {
  auto t = Tokenize("a -- one\nb # two\nc /* three\n */ d");
  EXPECT_EQ(Kinds(t), (std::vector<TokenKind>{TokenKind::kWord, TokenKind::kWord, TokenKind::kWord, TokenKind::kWord,
                                              TokenKind::kEnd}));
  EXPECT_EQ(t[3].raw, "d");
  EXPECT_EQ(t[3].line, 4u);
  auto c = Tokenize("a -- one\nb # two\nc /* three */", true);
  ASSERT_EQ(c.size(), 7u);
  EXPECT_EQ(c[1].kind, TokenKind::kComment);
  EXPECT_EQ(c[1].raw, "-- one");
  EXPECT_EQ(c[3].raw, "# two");
  EXPECT_EQ(c[5].raw, "/* three */");
}

TEST(LexerTest, UnterminatedTokensBecomeInvalid) {
  for (const char* sql : {"SELECT 'abc", "SELECT \"abc", "SELECT `abc", "SELECT /* abc", "SELECT 'abc\\",
                          "SELECT $$abc", "SELECT @'x"}) {
    auto t = Tokenize(sql);
    ASSERT_EQ(t.size(), 3u) << sql;
    EXPECT_EQ(t[1].kind, TokenKind::kInvalid) << sql;
    EXPECT_EQ(t[1].offset, 7u) << sql;
    EXPECT_NE(t[1].text.find("unterminated"), std::string::npos) << sql;
    EXPECT_EQ(t[2].kind, TokenKind::kEnd);
  }
}

TEST(LexerTest, Numbers) {
  auto t = Tokenize("1 1.5 .5 1e10 2.5E-3 0x1F 0b101 1abc 12e");
  EXPECT_EQ(t[0].kind, TokenKind::kNumber);
  EXPECT_EQ(t[1].raw, "1.5");
  EXPECT_EQ(t[2].raw, ".5");
  EXPECT_EQ(t[2].kind, TokenKind::kNumber);
  EXPECT_EQ(t[3].raw, "1e10");
  EXPECT_EQ(t[4].raw, "2.5E-3");
  EXPECT_EQ(t[5].raw, "0x1F");
  EXPECT_EQ(t[6].raw, "0b101");
  EXPECT_EQ(t[7].kind, TokenKind::kWord);  // MySQL: an identifier
  EXPECT_EQ(t[7].raw, "1abc");
  EXPECT_EQ(t[8].kind, TokenKind::kWord);
}

TEST(LexerTest, DotAfterNameIsNotANumber) {
  auto t = Tokenize("db.t1 t.5x");
  EXPECT_EQ(t[0].raw, "db");
  EXPECT_TRUE(t[1].IsSymbol("."));
  EXPECT_EQ(t[2].raw, "t1");
  EXPECT_EQ(t[3].raw, "t");
  EXPECT_TRUE(t[4].IsSymbol("."));
  EXPECT_EQ(t[5].raw, "5x");
}

TEST(LexerTest, Operators) {
  auto t = Tokenize("a<=>b <= >= <> != := :: || -> ->> =>");
  std::vector<std::string_view> raws;
  for (const Token& x : t) raws.push_back(x.raw);
  EXPECT_EQ(raws, (std::vector<std::string_view>{"a", "<=>", "b", "<=", ">=", "<>", "!=", ":=", "::", "||", "->",
                                                 "->>", "=>", ""}));
}

TEST(LexerTest, ClosingAngleBracketsStaySeparate) {
  auto t = Tokenize("array<array<int>>");
  ASSERT_EQ(t.size(), 8u);
  EXPECT_TRUE(t[5].IsSymbol(">"));
  EXPECT_TRUE(t[6].IsSymbol(">"));
}

TEST(LexerTest, Variables) {
  auto t = Tokenize("@@version_comment @@session.sql_mode @@GLOBAL.x @user @'q v' @ @@");
  EXPECT_EQ(t[0].kind, TokenKind::kVariable);
  EXPECT_EQ(t[0].raw, "@@version_comment");
  EXPECT_EQ(t[1].raw, "@@session.sql_mode");
  EXPECT_EQ(t[2].raw, "@@GLOBAL.x");
  EXPECT_EQ(t[3].raw, "@user");
  EXPECT_EQ(t[4].raw, "@'q v'");
  EXPECT_EQ(t[4].kind, TokenKind::kVariable);
  EXPECT_EQ(t[5].kind, TokenKind::kSymbol);
  EXPECT_EQ(t[6].kind, TokenKind::kSymbol);
}

TEST(LexerTest, DollarQuotedStrings) {
  auto t = Tokenize("SELECT $$a;'b$$, $1");
  EXPECT_EQ(t[1].kind, TokenKind::kDollarString);
  EXPECT_EQ(t[1].text, "a;'b");
  EXPECT_EQ(t[3].kind, TokenKind::kWord);
  EXPECT_EQ(t[3].raw, "$1");
}

TEST(LexerTest, EmptyAndOddInput) {
  EXPECT_EQ(Tokenize("").size(), 1u);
  EXPECT_EQ(Tokenize("   \n\t ").size(), 1u);
  // A NUL ends lexing as a malformed token holding the rest: what follows it is never a statement's text.
  auto t = Tokenize(std::string_view("a\0b", 3));
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[1].kind, TokenKind::kInvalid);
  EXPECT_EQ(t[1].raw, std::string_view("\0b", 2));
  EXPECT_EQ(t[1].column, 2u);
}

TEST(LexerTest, ReaderStreamsAndKeepsReturningEnd) {
  TokenReader reader("a /* c */ ;", true);
  EXPECT_EQ(reader.Next().raw, "a");
  EXPECT_EQ(reader.Next().kind, TokenKind::kComment);
  EXPECT_TRUE(reader.Next().IsSymbol(";"));
  for (int i = 0; i < 3; ++i) {
    Token end = reader.Next();
    EXPECT_EQ(end.kind, TokenKind::kEnd);
    EXPECT_EQ(end.offset, 11u);
    EXPECT_EQ(end.column, 12u);
  }
}

TEST(LexerTest, EqualsIgnoreCase) {
  EXPECT_TRUE(EqualsIgnoreCase("Select", "SELECT"));
  EXPECT_FALSE(EqualsIgnoreCase("Selec", "SELECT"));
}

}  // namespace
}  // namespace sluice::sql
