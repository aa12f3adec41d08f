#include "sql/lexer.h"

#include <array>

#include "common/version.h"

namespace sluice::sql {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'a' && x <= 'z') x = static_cast<char>(x - 'a' + 'A');
    if (y >= 'a' && y <= 'z') y = static_cast<char>(y - 'a' + 'A');
    if (x != y) return false;
  }
  return true;
}

bool IsIdentifierChar(char c) {
  auto u = static_cast<unsigned char>(c);
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         u >= 0x80;
}

bool Token::IsWord(std::string_view keyword) const {
  return kind == TokenKind::kWord && EqualsIgnoreCase(raw, keyword);
}

uint32_t ExecutableCommentVersion() {
  static const uint32_t version = [] {
    uint32_t parts[3] = {0, 0, 0};
    int i = 0;
    for (const char* p = kMysqlServerVersion; *p && i < 3; ++p) {
      if (*p >= '0' && *p <= '9') {
        parts[i] = parts[i] * 10 + static_cast<uint32_t>(*p - '0');
      } else if (*p == '.') {
        ++i;
      } else {
        break;
      }
    }
    return parts[0] * 10000 + parts[1] * 100 + parts[2];
  }();
  return version;
}

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Multi-character operators, longest first. '>' never joins a following '>' so that `array<array<int>>` closes
// twice; the translator copies raw text, so splitting a shift operator in two loses nothing.
constexpr const char* kNulOutsideString =
    "a NUL byte (0x00) may not appear in a statement; remove it";
constexpr const char* kNulInString =
    "a NUL byte (0x00) inside a quoted string or name is not supported; remove it";

constexpr std::array<std::string_view, 13> kOperators = {"<=>", "->>", "<=", ">=", "<>", "!=", ":=",
                                                         "::",  "||",  "&&", "->", "<<", "=>"};

void AppendEscape(char e, std::string* value) {
  switch (e) {
    case '0': value->push_back('\0'); break;
    case 'b': value->push_back('\b'); break;
    case 'n': value->push_back('\n'); break;
    case 'r': value->push_back('\r'); break;
    case 't': value->push_back('\t'); break;
    case 'Z': value->push_back('\x1A'); break;
    // MySQL keeps the backslash of \% and \_ so LIKE patterns can still escape their wildcards.
    case '%': value->append("\\%"); break;
    case '_': value->append("\\_"); break;
    default: value->push_back(e); break;
  }
}

}  // namespace

Token TokenReader::Next() {
  while (!ready_) {
    if (pos_ >= s_.size()) {
      Emit(TokenKind::kEnd, s_.size());
      break;
    }
    char c = s_[pos_];
    if (c == '\0') {
      // DuckDB reads SQL as a C string: whatever followed a NUL would be dropped without a word (a DELETE's
      // `\0 AND id < 0` would vanish). A NUL is never part of a statement.
      Invalid(pos_, kNulOutsideString);
    } else if (IsSpace(c)) {
      ++pos_;
    } else if ((c == '-' && Peek(1) == '-') || c == '#') {
      LineComment();
    } else if (in_executable_comment_ && c == '*' && Peek(1) == '/') {
      in_executable_comment_ = false;
      pos_ += 2;
      if (keep_comments_) Emit(TokenKind::kComment, pos_ - 2);
    } else if (c == '/' && Peek(1) == '*') {
      if (!ExecutableComment(pos_)) BlockComment();
    } else if (c == '`' || c == '\'' || c == '"') {
      Quoted(c);
    } else if (c == '$' && Peek(1) == '$') {
      DollarString();
    } else if (c == '@') {
      Variable();
    } else if (IsDigit(c) || (c == '.' && IsDigit(Peek(1)) && !FollowsName())) {
      Number();
    } else if (IsIdentifierChar(c)) {
      size_t start = pos_;
      while (pos_ < s_.size() && IsIdentifierChar(s_[pos_])) ++pos_;
      Emit(TokenKind::kWord, start);
    } else {
      Symbol();
    }
  }
  Token t = std::move(*ready_);
  ready_.reset();
  return t;
}

// `.5` is a number, but in `t.5col` or `x).5` the dot belongs to a qualified name.
bool TokenReader::FollowsName() const { return last_is_name_ && last_end_ == pos_; }

void TokenReader::Locate(size_t offset, uint32_t* line, uint32_t* column) {
  while (loc_pos_ < offset && loc_pos_ < s_.size()) {
    char c = s_[loc_pos_++];
    if (c == '\n') {
      ++loc_line_;
      loc_col_ = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++loc_col_;
    }
  }
  *line = loc_line_;
  *column = loc_col_;
}

void TokenReader::Emit(TokenKind kind, size_t start) {
  Token t;
  t.kind = kind;
  t.offset = start;
  t.raw = s_.substr(start, pos_ - start);
  t.text = std::string(t.raw);
  Locate(start, &t.line, &t.column);
  last_end_ = t.end();
  last_is_name_ = t.IsIdentifier() || kind == TokenKind::kNumber || t.IsSymbol(")");
  ready_ = std::move(t);
}

// Consumes the rest of the input as one malformed token, which ends lexing.
void TokenReader::Invalid(size_t start, std::string reason) {
  pos_ = s_.size();
  Emit(TokenKind::kInvalid, start);
  ready_->text = std::move(reason);
}

void TokenReader::LineComment() {
  size_t start = pos_;
  while (pos_ < s_.size() && s_[pos_] != '\n' && s_[pos_] != '\0') ++pos_;  // a NUL is refused by Next()
  if (keep_comments_) Emit(TokenKind::kComment, start);
}

void TokenReader::BlockComment() {
  size_t start = pos_;
  size_t close = s_.find("*/", pos_ + 2);
  if (close == std::string_view::npos) return Invalid(start, "unterminated comment: '/*' without a closing '*/'");
  if (size_t nul = s_.substr(0, close).find('\0', start); nul != std::string_view::npos)
    return Invalid(nul, kNulOutsideString);
  pos_ = close + 2;
  if (keep_comments_) Emit(TokenKind::kComment, start);
}

// `/*!NNNNN ...*/` and `/*M!NNNNN ...*/` whose version Sluice reaches: the opener (with its number) is skipped
// like a comment and the content lexed as statement text up to the closing `*/`. False for any other comment
// (a version above Sluice's makes the whole thing a comment, as MySQL does).
bool TokenReader::ExecutableComment(size_t start) {
  size_t at = start + 2;
  if (Peek(2) == 'M' && Peek(3) == '!') {
    at += 2;
  } else if (Peek(2) == '!') {
    at += 1;
  } else {
    return false;
  }
  if (in_executable_comment_ || s_.find("*/", at) == std::string_view::npos) return false;
  uint32_t version = 0;
  size_t digits = 0;
  while (at < s_.size() && digits < 6 && IsDigit(s_[at])) {
    version = version * 10 + static_cast<uint32_t>(s_[at] - '0');
    ++at;
    ++digits;
  }
  if (digits > 0 && digits < 5) return false;  // not a version: MySQL reads 5 digits (MariaDB 5 or 6)
  if (digits > 0 && version > ExecutableCommentVersion()) return false;
  pos_ = at;
  in_executable_comment_ = true;
  if (keep_comments_) Emit(TokenKind::kComment, start);
  return true;
}

// Reads a quoted token starting at pos_ into `value`; false when the closing quote is missing.
bool TokenReader::ReadQuoted(char quote, std::string* value) {
  ++pos_;
  const bool escapes = quote != '`';
  while (pos_ < s_.size()) {
    char c = s_[pos_];
    if (c == '\0') return false;  // the caller reports the NUL at pos_
    if (escapes && c == '\\') {
      if (pos_ + 1 >= s_.size()) break;
      AppendEscape(s_[pos_ + 1], value);
      pos_ += 2;
    } else if (c == quote) {
      if (Peek(1) == quote) {  // doubled quote stands for itself
        value->push_back(quote);
        pos_ += 2;
      } else {
        ++pos_;
        return true;
      }
    } else {
      value->push_back(c);
      ++pos_;
    }
  }
  return false;
}

void TokenReader::Quoted(char quote) {
  size_t start = pos_;
  std::string value;
  if (!ReadQuoted(quote, &value)) {
    if (pos_ < s_.size() && s_[pos_] == '\0') return Invalid(pos_, kNulInString);
    return Invalid(start, quote == '`'   ? "unterminated quoted identifier: missing closing '`'"
                          : quote == '"' ? "unterminated string: missing closing '\"'"
                                         : "unterminated string: missing closing \"'\"");
  }
  TokenKind kind = quote == '`' ? TokenKind::kQuotedIdent : quote == '"' ? TokenKind::kDoubleQuoted : TokenKind::kString;
  Emit(kind, start);
  ready_->text = std::move(value);
}

void TokenReader::DollarString() {
  size_t start = pos_;
  size_t close = s_.find("$$", pos_ + 2);
  if (close == std::string_view::npos) return Invalid(start, "unterminated string: '$$' without a closing '$$'");
  if (size_t nul = s_.substr(0, close).find('\0', start); nul != std::string_view::npos)
    return Invalid(nul, kNulInString);
  pos_ = close + 2;
  Emit(TokenKind::kDollarString, start);
  ready_->text = std::string(s_.substr(start + 2, close - start - 2));
}

// @@[session.|global.]name (system variable) or @name / @'name' (user variable).
void TokenReader::Variable() {
  size_t start = pos_;
  if (Peek(1) == '@') {
    pos_ += 2;
    while (pos_ < s_.size() && (IsIdentifierChar(s_[pos_]) || s_[pos_] == '.')) ++pos_;
    return Emit(pos_ - start > 2 ? TokenKind::kVariable : TokenKind::kSymbol, start);
  }
  char q = Peek(1);
  if (q == '`' || q == '\'' || q == '"') {
    ++pos_;
    std::string value;
    if (!ReadQuoted(q, &value)) {
      if (pos_ < s_.size() && s_[pos_] == '\0') return Invalid(pos_, kNulInString);
      return Invalid(start, "unterminated user variable name");
    }
    return Emit(TokenKind::kVariable, start);
  }
  ++pos_;
  while (pos_ < s_.size() && (IsIdentifierChar(s_[pos_]) || s_[pos_] == '.')) ++pos_;
  Emit(pos_ - start > 1 ? TokenKind::kVariable : TokenKind::kSymbol, start);
}

void TokenReader::Number() {
  size_t start = pos_;
  if (s_[pos_] == '0' && (Peek(1) == 'x' || Peek(1) == 'X') && IsHexDigit(Peek(2))) {
    pos_ += 2;
    while (pos_ < s_.size() && IsHexDigit(s_[pos_])) ++pos_;
  } else if (s_[pos_] == '0' && (Peek(1) == 'b' || Peek(1) == 'B') && (Peek(2) == '0' || Peek(2) == '1')) {
    pos_ += 2;
    while (pos_ < s_.size() && (s_[pos_] == '0' || s_[pos_] == '1')) ++pos_;
  } else {
    while (pos_ < s_.size() && IsDigit(s_[pos_])) ++pos_;
    if (Peek(0) == '.' && IsDigit(Peek(1))) {
      ++pos_;
      while (pos_ < s_.size() && IsDigit(s_[pos_])) ++pos_;
    }
    if ((Peek(0) == 'e' || Peek(0) == 'E') &&
        (IsDigit(Peek(1)) || ((Peek(1) == '+' || Peek(1) == '-') && IsDigit(Peek(2))))) {
      pos_ += 2;
      while (pos_ < s_.size() && IsDigit(s_[pos_])) ++pos_;
    }
  }
  // MySQL reads `1abc` as an identifier: a number running into letters is a word.
  if (pos_ < s_.size() && IsIdentifierChar(s_[pos_]) && s_[start] != '.') {
    while (pos_ < s_.size() && IsIdentifierChar(s_[pos_])) ++pos_;
    return Emit(TokenKind::kWord, start);
  }
  Emit(TokenKind::kNumber, start);
}

void TokenReader::Symbol() {
  size_t start = pos_;
  std::string_view rest = s_.substr(pos_);
  static constexpr std::string_view kOperatorStarts = "<>-!:|&=";
  if (kOperatorStarts.find(rest[0]) != std::string_view::npos) {
    for (std::string_view op : kOperators) {
      if (rest.substr(0, op.size()) == op) {
        pos_ += op.size();
        return Emit(TokenKind::kSymbol, start);
      }
    }
  }
  ++pos_;
  Emit(TokenKind::kSymbol, start);
}

std::vector<Token> Tokenize(std::string_view sql, bool keep_comments) {
  TokenReader reader(sql, keep_comments);
  std::vector<Token> tokens;
  do {
    tokens.push_back(reader.Next());
  } while (tokens.back().kind != TokenKind::kEnd);
  return tokens;
}

}  // namespace sluice::sql
