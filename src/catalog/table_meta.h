#pragma once
// What Sluice remembers about a table beyond what DuckDB keeps: the StarRocks key model, key columns,
// aggregate functions, types as written, comments, distribution and properties. Later loads read the key model
// to upsert, delete and aggregate.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/table_partitions.h"

namespace sluice::catalog {

struct ColumnMeta {
  std::string name;
  std::string type_text;     // as shown by DESC: "varchar(26)", "bigint", "array<int>"
  std::string duckdb_type;   // as created in DuckDB: "VARCHAR", "BIGINT", "INTEGER[]"
  bool nullable = true;
  bool is_key = false;
  std::string aggregate;     // "SUM", "MAX", "MIN", "REPLACE", "REPLACE_IF_NOT_NULL" or empty
  std::optional<std::string> default_sql;
  std::string comment;
};

struct TableMeta {
  std::string db;
  std::string name;
  std::string engine;                   // "OLAP" for StarRocks-form tables, empty for Lakehouse-form ones
  std::string key_model;                // "DUPLICATE", "AGGREGATE", "UNIQUE", "PRIMARY" or empty
  std::vector<std::string> key_columns;
  std::vector<ColumnMeta> columns;
  std::string partition_desc;           // PARTITION BY as written, for the kinds Sluice does not enforce
  PartitionScheme partitioning;         // RANGE / LIST partitions, which every write path enforces
  std::vector<std::string> distribution_columns;
  bool distributed_random = false;
  std::optional<int64_t> buckets;
  std::vector<std::pair<std::string, std::string>> properties;
  std::string comment;
  bool is_view = false;                 // views are DuckDB's; Sluice keeps no metadata for them
  std::string view_sql;

  const ColumnMeta* FindColumn(const std::string& column) const;
  std::optional<std::string> Property(const std::string& key) const;
};

struct DroppedTable {
  int64_t id = 0;
  std::string db;
  std::string name;
  std::string stored_as;      // the name the table's data is kept under until the deadline
  std::string dropped_at;     // "YYYY-MM-DD HH:MM:SS" UTC
  std::string deadline;
};

std::string TableMetaToJson(const TableMeta& meta);
TableMeta TableMetaFromJson(const std::string& json);

}  // namespace sluice::catalog
