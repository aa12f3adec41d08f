#pragma once
// The front door's parser: Sluice's own statements become an AST; everything else becomes a PassThrough
// whose text is translated for DuckDB.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sql/ast.h"

namespace sluice::sql {

// What the translation of MySQL-isms needs to know about the session.
struct SessionContext {
  // Value of @@name (name lower case, without scope prefix); nullopt: unknown variable -> SQL NULL.
  std::function<std::optional<std::string>(std::string_view)> variable;
  // Value of the user variable @name (name lower case) as SQL literal text; nullopt: never set -> NULL.
  std::function<std::optional<std::string>(std::string_view)> user_variable;
  std::string current_database;  // empty: DATABASE() is NULL
  std::string user = "root@localhost";
  uint32_t connection_id = 0;
  std::string version = "5.7.99-Sluice";
  // information_schema.<name> (and, after USE information_schema, a bare <name> where a table goes) -> the
  // relation that stands for it, e.g. a table function call. Unset: such names are left as written.
  std::function<std::string(std::string_view name)> information_schema;
};

// Parses exactly one statement (a trailing ';' is allowed). Syntax errors (StatusCode::kSyntaxError) name the
// line and column, the token found and what was expected.
Result<Statement> ParseStatement(std::string_view sql, const SessionContext& session);

// Splits a COM_QUERY text holding several statements at top-level ';' (quotes, backticks and comments respected).
// Empty statements are dropped.
std::vector<std::string> SplitStatements(std::string_view sql);

// The table function DIRECTORY(volume) becomes (registered by the executor).
inline constexpr const char* kDirectoryFunction = "sluice_directory";

// Rewrites MySQL-isms DuckDB does not understand: `ident` -> "ident", LIMIT a, b -> LIMIT b OFFSET a,
// @@[session.|global.|local.]name -> literal, DATABASE()/SCHEMA() -> literal, USER()/CURRENT_USER() ->
// literal, VERSION() -> literal, CONNECTION_ID() -> literal, FROM DIRECTORY(vol) -> FROM sluice_directory('vol').
// Strings and comments are left alone.
std::string TranslateForDuckDB(std::string_view sql, const SessionContext& session);

// Quotes an identifier for DuckDB: "na""me".
std::string QuoteIdentifier(std::string_view name);
// Quotes a string literal for DuckDB: 'it''s'.
std::string QuoteLiteral(std::string_view value);
// Quotes an identifier the MySQL way, for statements Sluice prints back (SHOW CREATE ...): `na``me`.
std::string BacktickIdentifier(std::string_view name);

}  // namespace sluice::sql
