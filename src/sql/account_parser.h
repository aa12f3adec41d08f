#pragma once
// Account statements (sql/account_ast.h): recognised by their first keywords, parsed in account_parser.cpp.
#include "common/status.h"
#include "sql/ast.h"
#include "sql/token_stream.h"

namespace sluice::sql {

bool IsAccountStatement(const TokenStream& ts);
Result<Statement> ParseAccountStatement(TokenStream& ts);

}  // namespace sluice::sql
