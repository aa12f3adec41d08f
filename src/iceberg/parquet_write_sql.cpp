#include "iceberg/parquet_write_sql.h"

#include <fmt/format.h>

namespace sluice::iceberg {
namespace {

std::string Ident(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

std::string Literal(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

}  // namespace

std::string ParquetCopySql(const Schema& schema, const std::string& select_sql, const std::string& local_path) {
  std::string select, ids;
  for (const auto& f : schema.fields) {
    if (!select.empty()) select += ", ";
    if (!ids.empty()) ids += ", ";
    select += fmt::format("CAST({} AS {}) AS {}", Ident(f.name), DuckDbTypeName(f.type), Ident(f.name));
    ids += fmt::format("{}: {}", Ident(f.name), f.id);
  }
  return fmt::format("COPY (SELECT {} FROM ({})) TO {} (FORMAT parquet, FIELD_IDS {{{}}})", select, select_sql,
                     Literal(local_path), ids);
}

}  // namespace sluice::iceberg
