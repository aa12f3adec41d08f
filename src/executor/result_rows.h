#pragma once
// Small pieces the statements that answer with rows share: wrapping a ResultSet, and a column default as MySQL
// and StarRocks show it in DESC, SHOW COLUMNS and information_schema.
#include <optional>
#include <string>
#include <utility>

#include "executor/session.h"

namespace sluice {

inline StatementResult Rows(ResultSet rs) {
  StatementResult r;
  r.result_set = std::move(rs);
  return r;
}

// A quoted default as its value ('0' -> 0, 'it''s' -> it's); expressions stay as written.
inline std::optional<std::string> DefaultForDisplay(const std::optional<std::string>& sql) {
  if (!sql || sql->size() < 2) return sql;
  char q = sql->front();
  if ((q != '\'' && q != '"') || sql->back() != q) return sql;
  std::string out;
  for (size_t i = 1; i + 1 < sql->size(); i++) {
    out += (*sql)[i];
    if ((*sql)[i] == q && i + 2 < sql->size() && (*sql)[i + 1] == q) i++;
  }
  return out;
}

}  // namespace sluice
