#pragma once
// Shared by the sql/ unit tests: parse a statement and unwrap the expected AST node or error.
#include <gtest/gtest.h>

#include <string_view>
#include <variant>

#include "sql/parser.h"

namespace sluice::sql::testing {

inline SessionContext TestSession() {
  SessionContext s;
  s.variable = [](std::string_view name) -> std::optional<std::string> {
    if (name == "version_comment") return "Sluice (MySQL protocol)";
    if (name == "autocommit") return "1";
    if (name == "auto_increment_increment") return "1";
    if (name == "sql_mode") return "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES";
    if (name == "negative") return "-5";
    if (name == "quoted") return "it's";
    return std::nullopt;
  };
  s.current_database = "example_db";
  s.user = "root@localhost";
  s.connection_id = 42;
  s.version = "5.7.99-Sluice";
  return s;
}

// Parses `sql` and returns the statement as T; fails the test (and returns T{}) otherwise.
template <typename T>
T ParseAs(std::string_view sql) {
  Result<Statement> r = ParseStatement(sql, TestSession());
  EXPECT_TRUE(r.ok()) << sql << "\n  -> " << r.status().ToString();
  if (!r.ok()) return T{};
  EXPECT_TRUE(std::holds_alternative<T>(*r)) << sql << "\n  -> parsed as alternative " << r->index();
  if (!std::holds_alternative<T>(*r)) return T{};
  return std::get<T>(r.value());
}

// Parses `sql`, expecting an error; returns it (or OK, which fails the test).
inline Status ParseError(std::string_view sql) {
  Result<Statement> r = ParseStatement(sql, TestSession());
  EXPECT_FALSE(r.ok()) << sql << "\n  -> parsed as alternative " << (r.ok() ? r->index() : 0);
  return r.status();
}

// The SQL a statement passes through to DuckDB.
inline std::string PassThroughSql(std::string_view sql) { return ParseAs<PassThrough>(sql).sql; }

}  // namespace sluice::sql::testing
