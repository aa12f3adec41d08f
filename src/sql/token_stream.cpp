#include "sql/token_stream.h"

#include <charconv>

#include "common/ascii.h"

namespace sluice::sql {

namespace {

// Long tokens (a whole unterminated string, say) are cut in messages, on a UTF-8 character boundary.
constexpr size_t kMaxQuotedToken = 40;

std::string Excerpt(std::string_view raw) {
  if (raw.size() <= kMaxQuotedToken) return std::string(raw);
  size_t cut = kMaxQuotedToken;
  while (cut > 0 && (static_cast<unsigned char>(raw[cut]) & 0xC0) == 0x80) --cut;
  return std::string(raw.substr(0, cut)) + "...";
}

}  // namespace

std::string ListAlternatives(const std::vector<std::string>& alternatives) {
  if (alternatives.empty()) return "something else";
  if (alternatives.size() == 1) return alternatives[0];
  std::string out = alternatives.size() > 2 ? "one of " : "";
  for (size_t i = 0; i < alternatives.size(); ++i) {
    if (i > 0) out += i + 1 == alternatives.size() ? " or " : ", ";
    out += alternatives[i];
  }
  return out;
}

std::string DescribePosition(const Token& t) {
  return "line " + std::to_string(t.line) + ", column " + std::to_string(t.column);
}

TokenStream::TokenStream(std::string_view sql, std::vector<Token> tokens) : sql_(sql), tokens_(std::move(tokens)) {
  if (tokens_.empty() || tokens_.back().kind != TokenKind::kEnd) {
    Token end;
    end.offset = sql_.size();
    tokens_.push_back(end);
  }
}

const Token& TokenStream::Peek(size_t ahead) const {
  size_t i = pos_ + ahead;
  return i < tokens_.size() ? tokens_[i] : tokens_.back();
}

const Token& TokenStream::Next() {
  const Token& t = Peek();
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return t;
}

bool TokenStream::AcceptWord(std::string_view keyword) {
  if (!PeekWord(keyword)) return false;
  Next();
  return true;
}

bool TokenStream::AcceptSymbol(std::string_view symbol) {
  if (!PeekSymbol(symbol)) return false;
  Next();
  return true;
}

bool TokenStream::AcceptWords(std::initializer_list<std::string_view> keywords) {
  size_t i = 0;
  for (std::string_view k : keywords) {
    if (!PeekWord(k, i++)) return false;
  }
  for (size_t j = 0; j < keywords.size(); ++j) Next();
  return true;
}

Status TokenStream::ExpectWord(std::string_view keyword) {
  if (AcceptWord(keyword)) return Status::Ok();
  return Error(keyword);
}

Status TokenStream::ExpectSymbol(std::string_view symbol) {
  if (AcceptSymbol(symbol)) return Status::Ok();
  return Error("'" + std::string(symbol) + "'");
}

Status TokenStream::ExpectEnd() {
  if (AtEnd()) return Status::Ok();
  return Error("end of statement");
}

Result<std::string> TokenStream::ExpectIdentifier(std::string_view what) {
  const Token& t = Peek();
  if (!t.IsIdentifier()) return Error(what);
  if (t.text.empty()) return ErrorAt(t, std::string(what) + " (names cannot be empty)");
  Next();
  return t.text;
}

Result<QualifiedName> TokenStream::ExpectQualifiedName(std::string_view what) {
  QualifiedName name;
  ASSIGN_OR_RETURN(name.name, ExpectIdentifier(what));
  if (AcceptSymbol(".")) {
    name.db = std::move(name.name);
    ASSIGN_OR_RETURN(name.name, ExpectIdentifier(what));
  }
  return name;
}

Result<QualifiedName> TokenStream::ExpectTableName(std::string_view what) {
  ASSIGN_OR_RETURN(QualifiedName name, ExpectQualifiedName(what));
  if (!name.db.empty() && AcceptSymbol(".")) {
    name.catalog = std::move(name.db);
    name.db = std::move(name.name);
    ASSIGN_OR_RETURN(name.name, ExpectIdentifier(what));
    // default_catalog.db.t is db.t: StarRocks' name for the catalog of the server's own tables.
    if (AsciiLower(name.catalog) == "default_catalog") name.catalog.clear();
  }
  return name;
}

Result<std::string> TokenStream::ExpectString(std::string_view what) {
  const Token& t = Peek();
  if (!t.IsString()) return Error(what);
  Next();
  return t.text;
}

Result<int64_t> TokenStream::ExpectInteger(std::string_view what) {
  const Token& t = Peek();
  int64_t value = 0;
  if (t.kind == TokenKind::kNumber) {
    auto [end, ec] = std::from_chars(t.raw.data(), t.raw.data() + t.raw.size(), value);
    if (ec == std::errc::result_out_of_range) return ErrorAt(t, std::string(what) + " (this number is too large)");
    if (ec == std::errc() && end == t.raw.data() + t.raw.size()) {
      Next();
      return value;
    }
  }
  return Error(what);
}

Result<std::vector<std::string>> TokenStream::ExpectNameList(std::string_view what) {
  RETURN_IF_ERROR(ExpectSymbol("("));
  std::vector<std::string> names;
  do {
    ASSIGN_OR_RETURN(std::string name, ExpectIdentifier(what));
    names.push_back(std::move(name));
  } while (AcceptSymbol(","));
  if (!AcceptSymbol(")")) return ErrorExpecting({"','", "')'"});
  return names;
}

Result<const Token*> TokenStream::SkipParenthesized() {
  const Token& open = Peek();
  if (!open.IsSymbol("(")) return Error("'('");
  Next();
  size_t depth = 1;
  while (true) {
    const Token& t = Peek();
    if (t.kind == TokenKind::kEnd) return ErrorAt(t, "')' to close the '(' at " + DescribePosition(open));
    if (t.kind == TokenKind::kInvalid) return ErrorAt(t, "");
    Next();
    if (t.IsSymbol("(")) {
      ++depth;
    } else if (t.IsSymbol(")") && --depth == 0) {
      return &t;
    }
  }
}

std::string_view TokenStream::SourceText(const Token& first, const Token& last) const {
  if (last.end() < first.offset) return {};
  return sql_.substr(first.offset, last.end() - first.offset);
}

Status TokenStream::Error(std::string_view expected) const { return ErrorAt(Peek(), expected); }

Status TokenStream::ErrorAt(const Token& at, std::string_view expected) const {
  return Complain(at, expected.empty() ? std::string() : "expected " + std::string(expected));
}

Status TokenStream::Complain(const Token& at, std::string_view problem) const {
  std::string msg = "Syntax error at " + DescribePosition(at);
  // A malformed token (say, a string without its closing quote) explains itself better than any expectation.
  if (at.kind == TokenKind::kInvalid) {
    // A NUL is shown escaped: the client would see nothing between the quotes.
    if (!at.raw.empty() && at.raw[0] == '\0') return Status::SyntaxError(msg + " near '\\0': " + at.text);
    return Status::SyntaxError(msg + ": " + at.text);
  }
  if (at.kind == TokenKind::kEnd) {
    msg += " near end of input";
  } else {
    msg += " near '" + Excerpt(at.raw) + "'";
  }
  if (!problem.empty()) msg += ": " + std::string(problem);
  return Status::SyntaxError(std::move(msg));
}

Status TokenStream::ErrorExpecting(std::initializer_list<std::string_view> alternatives) const {
  std::vector<std::string> list(alternatives.begin(), alternatives.end());
  return Error(ListAlternatives(list));
}

Status TokenStream::NotSupportedAt(const Token& at, std::string_view message) const {
  return Status::NotSupported(std::string(message) + " (at " + DescribePosition(at) + ")");
}

}  // namespace sluice::sql
