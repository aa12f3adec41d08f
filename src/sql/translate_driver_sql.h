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

// STR_TO_DATE(s, 'format') with a literal format: MySQL's result type follows the format, DATE without a time of
// day and TIME without a date (`CAST(str_to_date(s, 'format') AS DATE)` / `AS TIME` around the session's macro, which
// yields a DATETIME). nullopt for a DATETIME format, or a format that is not a literal (which the macro refuses).
std::optional<std::string> RewriteStrToDate(const Token& name, std::string_view args, const SessionContext& session);

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
