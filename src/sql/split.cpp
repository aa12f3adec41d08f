// SplitStatements cuts at the ';' tokens the lexer finds, so a ';' inside a string, a `quoted name` or a comment
// never splits. Pieces holding nothing but comments are dropped, like mysqldump's trailing /*!...*/ remarks.
#include "sql/lexer.h"
#include "sql/parser.h"

namespace sluice::sql {

namespace {

std::string_view Trim(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<std::string> SplitStatements(std::string_view sql) {
  std::vector<std::string> out;
  size_t start = 0;
  bool has_content = false;  // a token other than a comment since `start`
  TokenReader reader(sql, /*keep_comments=*/true);
  while (true) {
    Token t = reader.Next();
    if (t.kind == TokenKind::kEnd || t.IsSymbol(";")) {
      if (has_content) out.emplace_back(Trim(sql.substr(start, t.offset - start)));
      if (t.kind == TokenKind::kEnd) return out;
      start = t.end();
      has_content = false;
    } else if (t.kind != TokenKind::kComment) {
      has_content = true;
    }
  }
}

}  // namespace sluice::sql
