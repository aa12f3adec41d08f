#pragma once
// `table` or `db.table` read from a TokenReader, for the rewrites that look at a statement's target before DuckDB
// runs it (keyed INSERT, partition checks of UPDATE).
#include <optional>
#include <string>

#include "sql/ast.h"
#include "sql/lexer.h"

namespace sluice::sql {

// Reads the name starting at the reader's next token; `after` gets the token that follows it. Nothing for a
// token that is not a name, or for catalog.db.table.
std::optional<QualifiedName> ReadQualifiedName(TokenReader& reader, Token& after);

}  // namespace sluice::sql
