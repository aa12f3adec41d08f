#pragma once
// Splits SQL text into tokens the MySQL way: backtick identifiers, '...' and "..." strings with backslash escapes,
// and --, # and /* */ comments. Every token keeps its byte offset, line and column so errors can point at it, and
// its raw text so the translator can copy what it does not rewrite.
#include <cstddef>
#include <cstdint>
#include <optional>
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
  kComment,       // only when asked for: -- x, # x, /* x */; also the markers `/*!NNNNN` and `*/` of an executable
                  // comment whose content is lexed as statement text (IsExecutableCommentMarker)
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
  // The opening `/*!NNNNN` / `/*M!NNNNN` or the closing `*/` of an executable comment that runs: not a comment
  // for DuckDB (which would skip the content), so the translator drops it.
  bool IsExecutableCommentMarker() const {
    if (kind != TokenKind::kComment) return false;
    if (raw == "*/") return true;
    const bool opener = raw.substr(0, 3) == "/*!" || raw.substr(0, 4) == "/*M!";
    return opener && !(raw.size() >= 4 && raw.substr(raw.size() - 2) == "*/");  // not a whole comment
  }
};

// The version executable comments are compared with: MySQL's number for the version Sluice announces
// (5.7.99 -> 50799). `/*!NNNNN text */` and MariaDB's `/*M!NNNNN text */` run their text when NNNNN is at most
// this (or has no number), and are comments otherwise.
uint32_t ExecutableCommentVersion();

// Reads tokens one at a time, so a 50 MB INSERT can be split and translated without holding millions of tokens.
// Never fails: a malformed token becomes kInvalid and swallows the rest of the input. Comments are skipped unless
// `keep_comments`. After the end, Next() keeps returning the kEnd token.
class TokenReader {
 public:
  explicit TokenReader(std::string_view sql, bool keep_comments = false) : s_(sql), keep_comments_(keep_comments) {}

  Token Next();

 private:
  char Peek(size_t ahead) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }
  bool FollowsName() const;
  void Locate(size_t offset, uint32_t* line, uint32_t* column);
  void Emit(TokenKind kind, size_t start);
  void Invalid(size_t start, std::string reason);
  void LineComment();
  void BlockComment();
  bool ExecutableComment(size_t start);
  bool ReadQuoted(char quote, std::string* value);
  void Quoted(char quote);
  void DollarString();
  void Variable();
  void Number();
  void Symbol();

  std::string_view s_;
  bool keep_comments_;
  size_t pos_ = 0;
  // Where the lexer stands for Locate(); offsets only grow, so locating every token costs one pass in total.
  size_t loc_pos_ = 0;
  uint32_t loc_line_ = 1;
  uint32_t loc_col_ = 1;
  // The last token produced (comments included), for FollowsName().
  size_t last_end_ = 0;
  bool last_is_name_ = false;
  bool in_executable_comment_ = false;  // inside a running /*! ... */: its `*/` ends it
  std::optional<Token> ready_;  // set by Emit, taken by Next
};

// All tokens of `sql` (which must outlive them), ending with kEnd.
std::vector<Token> Tokenize(std::string_view sql, bool keep_comments = false);

bool EqualsIgnoreCase(std::string_view a, std::string_view b);
// Letters, digits, '_', '$' and every byte of a multi-byte UTF-8 character may appear in a bare identifier.
bool IsIdentifierChar(char c);

}  // namespace sluice::sql
