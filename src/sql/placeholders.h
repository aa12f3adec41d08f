#pragma once
// The `?` parameter markers of a statement prepared over the MySQL protocol (COM_STMT_PREPARE), and their
// replacement by literals at COM_STMT_EXECUTE. Markers are found with the lexer, so a `?` inside a string, a
// quoted identifier or a comment is not one.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice::sql {

// Byte offsets of every `?` marker in `statement`, in order.
std::vector<size_t> FindPlaceholders(std::string_view statement);

// `statement` with the marker at markers[i] replaced by literals[i] (already SQL text: `42`, `'it\'s'`, `NULL`).
// The two lists must be of the same length (checked: InvalidArgument otherwise).
Result<std::string> BindPlaceholders(std::string_view statement, const std::vector<size_t>& markers,
                                     const std::vector<std::string>& literals);

// A MySQL string literal holding `value` exactly: quotes and backslashes escaped, NUL as \0.
std::string QuoteStringLiteral(std::string_view value);

}  // namespace sluice::sql
