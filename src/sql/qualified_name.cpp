#include "sql/qualified_name.h"

namespace sluice::sql {

std::optional<QualifiedName> ReadQualifiedName(TokenReader& reader, Token& after) {
  Token t = reader.Next();
  if (!t.IsIdentifier()) return std::nullopt;
  QualifiedName out;
  out.name = t.text;
  t = reader.Next();
  if (t.IsSymbol(".")) {
    t = reader.Next();
    if (!t.IsIdentifier()) return std::nullopt;
    out.db = std::move(out.name);
    out.name = t.text;
    t = reader.Next();
    if (t.IsSymbol(".")) return std::nullopt;
  }
  after = std::move(t);
  return out;
}

}  // namespace sluice::sql
