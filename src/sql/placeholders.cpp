#include "sql/placeholders.h"

#include "sql/lexer.h"

namespace sluice::sql {

std::vector<size_t> FindPlaceholders(std::string_view statement) {
  std::vector<size_t> markers;
  TokenReader reader(statement);
  for (Token t = reader.Next(); t.kind != TokenKind::kEnd && t.kind != TokenKind::kInvalid; t = reader.Next()) {
    if (t.IsSymbol("?")) markers.push_back(t.offset);
  }
  return markers;
}

Result<std::string> BindPlaceholders(std::string_view statement, const std::vector<size_t>& markers,
                                     const std::vector<std::string>& literals) {
  if (markers.size() != literals.size())
    return Status::InvalidArgument("the statement has " + std::to_string(markers.size()) + " parameter(s), " +
                                   std::to_string(literals.size()) + " value(s) were given");
  std::string out;
  size_t extra = 0;
  for (const std::string& l : literals) extra += l.size();
  out.reserve(statement.size() + extra);
  size_t from = 0;
  for (size_t i = 0; i < markers.size(); ++i) {
    out.append(statement.substr(from, markers[i] - from));
    out.append(literals[i]);
    from = markers[i] + 1;
  }
  out.append(statement.substr(from));
  return out;
}

std::string QuoteStringLiteral(std::string_view value) {
  std::string out;
  out.reserve(value.size() + 2);
  out.push_back('\'');
  for (char c : value) {
    switch (c) {
      case '\'': out += "''"; break;
      case '\\': out += "\\\\"; break;
      case '\0': out += "\\0"; break;
      default: out.push_back(c);
    }
  }
  out.push_back('\'');
  return out;
}

}  // namespace sluice::sql
