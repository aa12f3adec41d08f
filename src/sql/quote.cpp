// Quoting for the SQL Sluice generates for DuckDB. DuckDB strings know no backslash escapes, so doubling the quote
// character is all either form needs.
#include "sql/parser.h"

namespace sluice::sql {

namespace {

std::string Quote(std::string_view s, char q) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back(q);
  for (char c : s) {
    if (c == q) out.push_back(q);
    out.push_back(c);
  }
  out.push_back(q);
  return out;
}

}  // namespace

std::string QuoteIdentifier(std::string_view name) { return Quote(name, '"'); }

std::string QuoteLiteral(std::string_view value) { return Quote(value, '\''); }

std::string BacktickIdentifier(std::string_view name) { return Quote(name, '`'); }

}  // namespace sluice::sql
