#pragma once
// A piece of generated DuckDB SQL together with what the compiler knows about its value. The type drives the
// StarRocks-style implicit conversions DuckDB would not do (or would do by failing the whole query).
#include <optional>
#include <string>
#include <utility>

#include "transform/sql_type.h"

namespace sluice::transform {

// Generated SQL larger than this is refused: a few nested conversions repeat their operand, and a hostile
// expression could otherwise grow the SQL exponentially.
inline constexpr size_t kMaxGeneratedSqlBytes = 256 * 1024;

struct TypedSql {
  std::string sql;
  SqlType type;
  bool simple = false;                  // a column reference or a literal: cheap to repeat in the SQL
  bool literal = false;                 // a literal written in the expression (sql is its text)
  std::optional<std::string> constant;  // the value of a string literal (format strings, JSON paths)
  std::string interval_unit;            // TypeClass::kInterval: YEAR, DAY, ... (sql is the amount)
  // TypeClass::kJson: SQL giving what json_extract_string(sql, '$') gives (string scalars unquoted), without
  // parsing the JSON again (json_access.h). Only set where both are known to agree.
  std::optional<std::string> json_text;
};

inline TypedSql MakeTyped(std::string sql, TypeClass cls, std::string duckdb = "") {
  TypedSql t;
  t.sql = std::move(sql);
  t.type.cls = cls;
  t.type.duckdb = std::move(duckdb);
  return t;
}

}  // namespace sluice::transform
