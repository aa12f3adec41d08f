#pragma once
// The one table of DuckDB error messages -> the Status a MySQL client should see: the StatusCode and MySQL's own
// wording ("Table 'x' doesn't exist", "Unknown column 'c'", "You have an error in your SQL syntax; ... near '...'
// at line N", "Duplicate entry '1' for key 'PRIMARY'", "Out of range value for column 'n'" ...). The front door
// (server/error_mapping.cpp) gives each wording its MySQL number and SQLSTATE. DuckDB's decorations never reach
// a user: the `LINE 1:` context with its caret (which may quote Sluice's generated SQL), "Candidate bindings",
// "Did you mean" and candidate-function lists are cut.
#include <string>

#include "common/status.h"

namespace sluice::storage {

// The class DuckDB put the error in (its duckdb_error_type, as the caller read it).
enum class DuckDBErrorClass { kParser, kCatalog, kBinder, kConversion, kConstraint, kOutOfRange, kOther };

// `message` is DuckDB's, without its "Xxx Error: " prefix and stack trace. nullopt-free: a message no row matches
// comes back cleaned with `fallback` as its code.
Status MysqlStatusFromDuckDB(DuckDBErrorClass cls, const std::string& message, StatusCode fallback);

// The message without DuckDB's `LINE n:` block, candidate lists and "Did you mean" hints (exposed for tests).
std::string WithoutDuckDBDecorations(const std::string& message);

}  // namespace sluice::storage
