#pragma once
// Splits SQL text into tokens the MySQL way: backtick identifiers, '...' and "..." strings with backslash escapes,
// and --, # and /* */ comments. Every token keeps its byte offset, line and column so errors can point at it, and
// its raw text so the translator can copy what it does not rewrite.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::sql {

enum class TokenKind {
  kWord,          // bare identifier or keyword: order_id, SELECT, 1abc
  kQuotedIdent,   // `name`
  kString,        // 'text'
  kDoubleQuoted,  // "text": a string in MySQL, an identifier where the grammar wants a name
  kDollarString,  // $$text$$ (DuckDB)
  kNumber,        // 42, 1.5, 1e-3, 0x1F
  kSymbol,        // ( ) , ; . = <> := ... (one or more characters of punctuation)
  kVariable,      // @@[scope.]name or @name
  kComment,       // only when asked for: -- x, # x, /* x */
  kInvalid,       // unterminated string, identifier or comment: text holds the reason
  kEnd,           // end of input; always the last token
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view raw;  // the token exactly as written (a view into the lexed text)
  std::string text;      // identifier or string value with quotes and escapes resolved; raw text otherwise
  size_t offset = 0;     // byte offset of the first character
  uint32_t line = 1;     // 1-based
  uint32_t column = 1;   // 1-based, in UTF-8 characters

  size_t end() const { return offset + raw.size(); }
  bool IsSymbol(std::string_view s) const { return kind == TokenKind::kSymbol && raw == s; }
  // Case-insensitive keyword test on a bare word; quoted identifiers are never keywords.
  bool IsWord(std::string_view keyword) const;
  // A name: bare word, `backticked` or "double quoted".
  bool IsIdentifier() const {
    return kind == TokenKind::kWord || kind == TokenKind::kQuotedIdent || kind == TokenKind::kDoubleQuoted;
  }
  bool IsString() const { return kind == TokenKind::kString || kind == TokenKind::kDoubleQuoted; }
};

// Tokenizes `sql` (which must outlive the tokens). Never fails: a malformed token becomes kInvalid and the rest of
// the input follows it. Comments are dropped unless `keep_comments`.
std::vector<Token> Tokenize(std::string_view sql, bool keep_comments = false);

bool EqualsIgnoreCase(std::string_view a, std::string_view b);
std::string ToUpper(std::string_view s);
std::string ToLower(std::string_view s);
// Letters, digits, '_', '$' and every byte of a multi-byte UTF-8 character may appear in a bare identifier.
bool IsIdentifierChar(char c);

}  // namespace sluice::sql
