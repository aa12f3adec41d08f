#pragma once
// A cursor over one statement's tokens for the recursive-descent parsers, and the one place syntax errors are
// worded, so every error names the line, the column, the token found and what would have been accepted.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sql/ast.h"
#include "sql/lexer.h"

namespace sluice::sql {

// Deepest nesting of types (array<array<...>>) the parser follows before giving up with an error.
inline constexpr int kMaxNestingDepth = 200;

class TokenStream {
 public:
  // `tokens` hold no comments and end with a kEnd token; `sql` is the text they were lexed from.
  TokenStream(std::string_view sql, std::vector<Token> tokens);

  const Token& Peek(size_t ahead = 0) const;
  const Token& Next();
  size_t position() const { return pos_; }
  bool AtEnd() const { return Peek().kind == TokenKind::kEnd; }

  bool PeekWord(std::string_view keyword, size_t ahead = 0) const { return Peek(ahead).IsWord(keyword); }
  bool PeekSymbol(std::string_view symbol, size_t ahead = 0) const { return Peek(ahead).IsSymbol(symbol); }
  // Consumes the next token when it is that keyword / symbol.
  bool AcceptWord(std::string_view keyword);
  bool AcceptSymbol(std::string_view symbol);
  // Consumes the keyword(s) in order when all of them come next.
  bool AcceptWords(std::initializer_list<std::string_view> keywords);

  Status ExpectWord(std::string_view keyword);
  Status ExpectSymbol(std::string_view symbol);
  Status ExpectEnd();

  // A name: bare word, `backticked` or "double quoted". `what` names it in errors ("a table name").
  Result<std::string> ExpectIdentifier(std::string_view what);
  Result<QualifiedName> ExpectQualifiedName(std::string_view what);
  // A table name that may also name its catalog: t, db.t or catalog.db.t.
  Result<QualifiedName> ExpectTableName(std::string_view what);
  // '...' or "...".
  Result<std::string> ExpectString(std::string_view what);
  // A non-negative integer that fits in int64.
  Result<int64_t> ExpectInteger(std::string_view what);
  // `( name [, name ...] )`.
  Result<std::vector<std::string>> ExpectNameList(std::string_view what);
  // Skips a parenthesized group starting at the current '(' through its matching ')'; returns the ')' token.
  Result<const Token*> SkipParenthesized();

  // The statement text from the start of `first` to the end of `last`, as written.
  std::string_view SourceText(const Token& first, const Token& last) const;
  std::string_view sql() const { return sql_; }

  // "Syntax error at line L, column C near 'X': expected E" at the current token (or `at`).
  Status Error(std::string_view expected) const;
  Status ErrorAt(const Token& at, std::string_view expected) const;
  // The same, listing alternatives: "expected one of A, B or C".
  Status ErrorExpecting(std::initializer_list<std::string_view> alternatives) const;
  // "Syntax error at line L, column C near 'X': <problem>", for errors that are not about what was expected.
  Status Complain(const Token& at, std::string_view problem) const;
  // A well-formed request Sluice does not support, pointing at `at`.
  Status NotSupportedAt(const Token& at, std::string_view message) const;

 private:
  std::string_view sql_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

// Renders alternatives as "A", "A or B", "one of A, B or C".
std::string ListAlternatives(const std::vector<std::string>& alternatives);
// Where a token is, for messages: "line 1, column 7".
std::string DescribePosition(const Token& t);

}  // namespace sluice::sql
