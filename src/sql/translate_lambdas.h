#pragma once
// StarRocks' higher-order functions in passed-through SQL (array_map, array_filter, transform, map_filter,
// transform_values, transform_keys), rewritten onto DuckDB's vectorised list functions with DuckDB lambdas:
// `array_filter(x -> x > 1, arr)` becomes `list_filter(arr, lambda x: x > 1)`. Used by TranslateForDuckDB.
#include <optional>
#include <string>
#include <string_view>

#include "sql/lexer.h"
#include "sql/parser.h"

namespace sluice::sql {

// Whether `t` names one of the functions RewriteHigherOrderCall knows.
bool IsHigherOrderFunction(const Token& t);

// `args` is the text between the call's parentheses. The rewritten call, its pieces translated for DuckDB
// themselves; nullopt when the arguments have no StarRocks shape (the call then passes through as written).
std::optional<std::string> RewriteHigherOrderCall(const Token& name, std::string_view args,
                                                  const SessionContext& session);

}  // namespace sluice::sql
