// From a parsed CREATE TABLE to the metadata Sluice keeps and the DDL DuckDB runs.
#include <algorithm>
#include <set>

#include "catalog/catalog.h"
#include "catalog/type_mapping.h"
#include "common/ascii.h"
#include "sql/parser.h"

namespace sluice::catalog {

namespace {

const char* KeyModelName(sql::KeyModel m) {
  switch (m) {
    case sql::KeyModel::kDuplicate: return "DUPLICATE";
    case sql::KeyModel::kAggregate: return "AGGREGATE";
    case sql::KeyModel::kUnique: return "UNIQUE";
    case sql::KeyModel::kPrimary: return "PRIMARY";
    case sql::KeyModel::kNone: return "";
  }
  return "";
}

std::string DoubleQuotedString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string BacktickedList(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); i++) out += (i ? ", " : "") + sql::BacktickIdentifier(names[i]);
  return out;
}

}  // namespace

Result<TableMeta> BuildTableMeta(const std::string& db, const sql::CreateTable& stmt) {
  TableMeta meta;
  meta.db = db;
  meta.name = stmt.table.name;
  meta.engine = stmt.engine;
  meta.partition_desc = stmt.partition_desc;
  meta.distribution_columns = stmt.distribution_columns;
  meta.distributed_random = stmt.distributed_random;
  meta.buckets = stmt.buckets;
  meta.properties = stmt.properties;
  meta.comment = stmt.comment;
  if (stmt.columns.empty()) return Status::InvalidArgument("table '" + meta.name + "' needs at least one column");

  std::set<std::string> seen;
  std::vector<std::string> inline_pk;
  for (const auto& c : stmt.columns) {
    if (!seen.insert(AsciiLower(c.name)).second)
      return Status::AlreadyExists("Duplicate column name '" + c.name + "'");  // MySQL's 1060
    if (c.auto_increment)
      return Status::NotSupported("AUTO_INCREMENT (column '" + c.name + "') is not supported yet; load the ids from the source");
    if (c.primary_key_inline) inline_pk.push_back(c.name);
  }

  sql::KeyModel model = stmt.key_model;
  meta.key_columns = stmt.key_columns;
  if (!inline_pk.empty()) {
    if (model != sql::KeyModel::kNone && model != sql::KeyModel::kPrimary)
      return Status::InvalidArgument("a column PRIMARY KEY cannot be combined with a " + std::string(KeyModelName(model)) + " KEY clause");
    if (!meta.key_columns.empty() && meta.key_columns != inline_pk)
      return Status::InvalidArgument("the table declares two different primary keys");
    model = sql::KeyModel::kPrimary;
    meta.key_columns = inline_pk;
  }
  // StarRocks picks a duplicate key when an OLAP table names none; Lakehouse tables simply have no key.
  if (model == sql::KeyModel::kNone && !meta.engine.empty()) {
    model = sql::KeyModel::kDuplicate;
    for (size_t i = 0; i < stmt.columns.size() && i < 3; i++) meta.key_columns.push_back(stmt.columns[i].name);
  }
  meta.key_model = KeyModelName(model);

  // Key columns must be the leading columns, in order: StarRocks sorts by them and users rely on it.
  std::set<std::string> key_set;
  for (size_t i = 0; i < meta.key_columns.size(); i++) {
    const std::string& k = meta.key_columns[i];
    auto it = std::find_if(stmt.columns.begin(), stmt.columns.end(), [&](const auto& c) { return c.name == k; });
    if (it == stmt.columns.end()) return Status::InvalidArgument("key column '" + k + "' is not a column of the table");
    if (!key_set.insert(k).second) return Status::InvalidArgument("key column '" + k + "' is listed twice");
    if (!meta.engine.empty() && (i >= stmt.columns.size() || stmt.columns[i].name != k))
      return Status::InvalidArgument("key columns must be the first columns of the table, in the same order; '" + k +
                                     "' is not column " + std::to_string(i + 1));
  }
  for (const auto& d : meta.distribution_columns) {
    if (std::none_of(stmt.columns.begin(), stmt.columns.end(), [&](const auto& c) { return c.name == d; }))
      return Status::InvalidArgument("distribution column '" + d + "' is not a column of the table");
  }
  if (meta.buckets && *meta.buckets <= 0) return Status::InvalidArgument("BUCKETS must be a positive number");
  if (auto r = meta.Property(kUndropRetentionProperty)) {
    char* end = nullptr;
    long long v = std::strtoll(r->c_str(), &end, 10);
    if (r->empty() || *end != '\0' || v < 0)
      return Status::InvalidArgument(std::string("property ") + kUndropRetentionProperty +
                                     " must be a number of seconds >= 0, got '" + *r + "'");
  }

  for (const auto& c : stmt.columns) {
    ColumnMeta col;
    col.name = c.name;
    col.is_key = key_set.count(c.name) > 0;
    ASSIGN_OR_RETURN(col.duckdb_type, ToDuckDBType(c.type));
    col.type_text = DisplayType(c.type);
    col.aggregate = sql::AggregateFunctionName(c.aggregate);
    col.default_sql = c.default_sql;
    col.comment = c.comment;
    // Keys of primary-key and unique tables identify rows, so they cannot be NULL.
    bool key_not_null = col.is_key && (model == sql::KeyModel::kPrimary || model == sql::KeyModel::kUnique);
    if (key_not_null && c.nullable == std::optional<bool>(true))
      return Status::InvalidArgument("key column '" + c.name + "' of a " + meta.key_model + " KEY table cannot be NULL");
    col.nullable = key_not_null ? false : c.nullable.value_or(true);
    if (model == sql::KeyModel::kAggregate) {
      if (col.is_key && !col.aggregate.empty())
        return Status::InvalidArgument("key column '" + c.name + "' cannot have an aggregate function");
      if (!col.is_key && col.aggregate.empty())
        return Status::InvalidArgument("value column '" + c.name +
                                       "' of an AGGREGATE KEY table needs an aggregate function: SUM, MAX, MIN, "
                                       "REPLACE or REPLACE_IF_NOT_NULL");
    } else if (!col.aggregate.empty()) {
      return Status::InvalidArgument("column '" + c.name + "' has aggregate function " + col.aggregate +
                                     ", which only AGGREGATE KEY tables allow");
    }
    meta.columns.push_back(std::move(col));
  }
  if (stmt.partitioning) {
    ASSIGN_OR_RETURN(meta.partitioning, BuildPartitionScheme(*stmt.partitioning, meta.columns, meta.key_model));
    meta.partition_desc.clear();  // rendered from the partitions, which ALTER TABLE changes
  }
  return meta;
}

std::string DuckDBCreateTableSql(const TableMeta& meta) {
  std::string out = "CREATE TABLE " + sql::QuoteIdentifier(meta.db) + "." + sql::QuoteIdentifier(meta.name) + " (";
  for (size_t i = 0; i < meta.columns.size(); i++) {
    const auto& c = meta.columns[i];
    out += (i ? ", " : "") + sql::QuoteIdentifier(c.name) + " " + c.duckdb_type;
    if (!c.nullable) out += " NOT NULL";
    if (c.default_sql) out += " DEFAULT " + *c.default_sql;
    // DuckDB keeps no VARCHAR length, so the limit is a CHECK on the bytes (StarRocks counts bytes); an INSERT or
    // UPDATE that breaks it fails with DuckDB's constraint error, which the front door answers as MySQL's 1406
    // (storage/result_conversion.cpp). Loads find long values first and make them error rows.
    if (auto limit = VarcharByteLimit(c.type_text); limit && c.duckdb_type == "VARCHAR")
      out += " CHECK (strlen(" + sql::QuoteIdentifier(c.name) + ") <= " + std::to_string(*limit) + ")";
  }
  // Primary-key and unique tables replace rows by key, which DuckDB's key constraint enforces.
  if ((meta.key_model == "PRIMARY" || meta.key_model == "UNIQUE") && !meta.key_columns.empty()) {
    out += ", PRIMARY KEY (";
    for (size_t i = 0; i < meta.key_columns.size(); i++) out += (i ? ", " : "") + sql::QuoteIdentifier(meta.key_columns[i]);
    out += ")";
  }
  return out + ")";
}

std::string RenderCreateTable(const TableMeta& meta) {
  std::string out = "CREATE TABLE " + sql::BacktickIdentifier(meta.name) + " (\n";
  for (size_t i = 0; i < meta.columns.size(); i++) {
    const auto& c = meta.columns[i];
    out += "  " + sql::BacktickIdentifier(c.name) + " " + c.type_text;
    if (!c.aggregate.empty()) out += " " + c.aggregate;
    out += c.nullable ? " NULL" : " NOT NULL";
    if (c.default_sql) out += " DEFAULT " + *c.default_sql;
    if (!c.comment.empty()) out += " COMMENT " + DoubleQuotedString(c.comment);
    out += i + 1 < meta.columns.size() ? ",\n" : "\n";
  }
  out += ")";
  if (!meta.engine.empty()) out += " ENGINE=" + meta.engine;
  if (!meta.key_model.empty()) out += "\n" + meta.key_model + " KEY(" + BacktickedList(meta.key_columns) + ")";
  if (!meta.comment.empty()) out += "\nCOMMENT " + DoubleQuotedString(meta.comment);
  if (meta.partitioning.partitioned()) out += "\n" + RenderPartitionClause(meta.partitioning);
  else if (!meta.partition_desc.empty()) out += "\n" + meta.partition_desc;
  if (!meta.distribution_columns.empty()) out += "\nDISTRIBUTED BY HASH(" + BacktickedList(meta.distribution_columns) + ")";
  else if (meta.distributed_random) out += "\nDISTRIBUTED BY RANDOM";
  if (meta.buckets) out += " BUCKETS " + std::to_string(*meta.buckets);
  if (!meta.properties.empty()) {
    out += "\nPROPERTIES (\n";
    for (size_t i = 0; i < meta.properties.size(); i++)
      out += DoubleQuotedString(meta.properties[i].first) + " = " + DoubleQuotedString(meta.properties[i].second) +
             (i + 1 < meta.properties.size() ? ",\n" : "\n");
    out += ")";
  }
  return out + ";";
}

}  // namespace sluice::catalog
