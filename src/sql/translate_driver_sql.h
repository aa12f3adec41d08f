#pragma once
// MySQL forms that drivers' metadata queries use (MariaDB Connector/J's DatabaseMetaData above all), rewritten for
// DuckDB by TranslateForDuckDB: CONVERT(expr, type) -> CAST(expr AS type), LOCATE(sub, s[, pos]) -> strpos
// (DuckDB has no LOCATE), and the MySQL cast types SIGNED [INTEGER] / UNSIGNED [INTEGER] -> BIGINT / UBIGINT.
#include <optional>
#include <string>
#include <string_view>

#include "sql/lexer.h"
#include "sql/parser.h"

namespace sluice::sql {

// Whether `t` names one of the calls RewriteDriverCall knows (CONVERT, LOCATE).
bool IsDriverCall(const Token& t);

// `args` is the text between the call's parentheses. The rewritten call, its arguments translated themselves;
// nullopt when the call has another shape (it then passes through as written).
std::optional<std::string> RewriteDriverCall(const Token& name, std::string_view args, const SessionContext& session);

// MySQL's cast type words as DuckDB's: SIGNED -> BIGINT, UNSIGNED -> UBIGINT; nullopt for other words.
std::optional<std::string> CastTypeFor(const Token& t);

// Words DuckDB's grammar will not take as an alias without AS (`SELECT 3 TYPE`), though MySQL does.
bool NeedsExplicitAlias(const Token& t);

}  // namespace sluice::sql
