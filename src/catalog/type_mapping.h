#pragma once
// StarRocks and Lakehouse column types, as parsed, to DuckDB types and to the text DESC shows.
#include <cstdint>
#include <optional>
#include <string>

#include "common/status.h"
#include "sql/ast.h"

namespace sluice::catalog {

// "VARCHAR", "DECIMAL(10,2)", "INTEGER[]", "MAP(VARCHAR, INTEGER)", "STRUCT(\"a\" INTEGER)".
// Unknown or unsupported types fail with a message naming the type and the supported ones.
Result<std::string> ToDuckDBType(const sql::TypeSpec& type);
// "varchar(26)", "bigint", "decimal(10,2)", "array<int>", "map<varchar,int>", "struct<a int>".
std::string DisplayType(const sql::TypeSpec& type);
// The byte limit of a "varchar(n)" / "char(n)" column as DisplayType shows it; nullopt for other types.
std::optional<int64_t> VarcharByteLimit(const std::string& type_text);
// For tables Sluice did not create (pass-through DDL): DuckDB's type name shown the StarRocks way.
std::string DisplayDuckDBType(const std::string& duckdb_type);

}  // namespace sluice::catalog
