#include "load/table_write.h"

#include <algorithm>
#include <map>
#include <memory>

#include "common/ascii.h"
#include "sql/lexer.h"
#include "sql/parser.h"

namespace sluice::load {

namespace {

using sql::QuoteIdentifier;

constexpr const char* kGoodRows = " WHERE __sluice_error IS NULL AND __sluice_selected";

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return sql::EqualsIgnoreCase(n, name); });
}

std::string Join(const std::vector<std::string>& items, const std::string& sep = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); i++) out += (i ? sep : "") + items[i];
  return out;
}

std::string T(const std::string& column) { return "__sluice_t." + QuoteIdentifier(column); }
std::string S(const std::string& column) { return "__sluice_s." + QuoteIdentifier(column); }

// The key match; AGGREGATE keys may be NULL, and NULL keys group together as in GROUP BY.
std::string KeyMatch(const catalog::TableMeta& table, bool null_safe) {
  std::vector<std::string> parts;
  for (const auto& k : table.key_columns)
    parts.push_back(T(k) + (null_safe ? " IS NOT DISTINCT FROM " : " = ") + S(k));
  return Join(parts, " AND ");
}

std::string InsertClause(const std::vector<std::string>& loaded, const std::string& condition) {
  std::vector<std::string> cols, vals;
  for (const auto& c : loaded) {
    cols.push_back(QuoteIdentifier(c));
    vals.push_back(S(c));
  }
  return "\nWHEN NOT MATCHED" + condition + " THEN INSERT (" + Join(cols) + ") VALUES (" + Join(vals) + ")";
}

// PRIMARY KEY and UNIQUE KEY: the last row of each key in the batch (see the header for merge_condition and
// deletes), then one MERGE.
std::string UpsertSql(const catalog::RoutineLoadDefinition& def, const catalog::TableMeta& table,
                      const std::string& target, const std::vector<std::string>& loaded, bool has_op) {
  const bool partial = def.BoolProperty("partial_update");
  const std::string condition_column = def.Property("merge_condition");
  std::vector<std::string> keys;
  for (const auto& k : table.key_columns) keys.push_back(QuoteIdentifier(k));
  const std::string partition = "PARTITION BY " + Join(keys);
  std::vector<std::string> select;
  for (const auto& c : loaded) select.push_back(QuoteIdentifier(c));
  select.push_back(has_op ? "__op" : "CAST(0 AS TINYINT) AS __op");
  select.push_back("__sluice_row");
  // The batch's last delete of each key: rows before it do not matter.
  select.push_back("max(CASE WHEN " + std::string(has_op ? "__op" : "0") + " = 1 THEN __sluice_row END) OVER (" +
                   partition + ") AS __sluice_last_delete");
  std::string order = "__op, ";
  if (!condition_column.empty()) order += QuoteIdentifier(condition_column) + " DESC NULLS LAST, ";
  order += "__sluice_row DESC";
  std::string rows = "SELECT * FROM (SELECT " + Join(select) + " FROM " + kWriteRowsPlaceholder + kGoodRows +
                     ") WHERE __sluice_last_delete IS NULL OR __sluice_row >= __sluice_last_delete\n  QUALIFY "
                     "row_number() OVER (" + partition + " ORDER BY " + order + ") = 1";

  std::vector<std::string> sets;
  for (const auto& c : table.columns) {
    if (c.is_key) continue;
    if (Contains(loaded, c.name)) sets.push_back(QuoteIdentifier(c.name) + " = " + S(c.name));
    else if (!partial) sets.push_back(QuoteIdentifier(c.name) + " = " + (c.default_sql ? *c.default_sql : "NULL"));
  }
  std::string out = "MERGE INTO " + target + " AS __sluice_t\nUSING (" + rows + ") AS __sluice_s\nON (" +
                    KeyMatch(table, false) + ")";
  if (has_op) out += "\nWHEN MATCHED AND __sluice_s.__op = 1 THEN DELETE";
  if (!sets.empty()) {
    std::string when = "\nWHEN MATCHED";
    if (!condition_column.empty())
      when += " AND (__sluice_s.__sluice_last_delete IS NOT NULL OR " + T(condition_column) + " IS NULL OR " +
              S(condition_column) + " >= " + T(condition_column) + ")";
    out += when + " THEN UPDATE SET " + Join(sets);
  }
  out += InsertClause(loaded, has_op ? " AND __sluice_s.__op = 0" : "");
  return out;
}

// AGGREGATE KEY: the batch's rows combined per key, then combined with the stored row.
std::string AggregateSql(const catalog::TableMeta& table, const std::string& target,
                         const std::vector<std::string>& loaded) {
  std::vector<std::string> keys, select, sets;
  for (const auto& k : table.key_columns) {
    keys.push_back(QuoteIdentifier(k));
    select.push_back(QuoteIdentifier(k));
  }
  for (const auto& c : table.columns) {
    if (c.is_key || !Contains(loaded, c.name)) continue;
    const std::string v = QuoteIdentifier(c.name), s = S(c.name), t = T(c.name);
    std::string in_batch, combined;
    if (c.aggregate == "SUM") {
      in_batch = "sum(" + v + ")";
      combined = "CASE WHEN " + s + " IS NULL THEN " + t + " WHEN " + t + " IS NULL THEN " + s + " ELSE " + t +
                 " + " + s + " END";
    } else if (c.aggregate == "MAX" || c.aggregate == "MIN") {
      const char* op = c.aggregate == "MAX" ? " > " : " < ";
      in_batch = (c.aggregate == "MAX" ? "max(" : "min(") + v + ")";
      combined = "CASE WHEN " + s + " IS NULL THEN " + t + " WHEN " + t + " IS NULL OR " + s + op + t + " THEN " +
                 s + " ELSE " + t + " END";
    } else if (c.aggregate == "REPLACE_IF_NOT_NULL") {
      in_batch = "last(" + v + " ORDER BY __sluice_row) FILTER (WHERE " + v + " IS NOT NULL)";
      combined = "COALESCE(" + s + ", " + t + ")";
    } else {  // REPLACE
      in_batch = "last(" + v + " ORDER BY __sluice_row)";
      combined = s;
    }
    select.push_back(in_batch + " AS " + v);
    sets.push_back(v + " = " + combined);
  }
  std::vector<std::string> inserted;
  for (const auto& c : table.columns)
    if (c.is_key || Contains(loaded, c.name)) inserted.push_back(c.name);
  std::string rows = "SELECT " + Join(select) + " FROM " + kWriteRowsPlaceholder + kGoodRows + " GROUP BY " +
                     Join(keys);
  std::string out = "MERGE INTO " + target + " AS __sluice_t\nUSING (" + rows + ") AS __sluice_s\nON (" +
                    KeyMatch(table, true) + ")";
  if (!sets.empty()) out += "\nWHEN MATCHED THEN UPDATE SET " + Join(sets);
  return out + InsertClause(inserted, "");
}

}  // namespace

Result<TableWrite> PlanTableWrite(const catalog::RoutineLoadDefinition& def, const catalog::TableMeta& table,
                                  const std::string& target, const std::vector<std::string>& loaded, bool has_op) {
  const std::string& model = table.key_model;
  const bool primary = model == "PRIMARY" && !table.key_columns.empty();
  const std::string what = "table '" + table.name + "' is " + (model.empty() ? "not a StarRocks key table" : (model == "AGGREGATE" ? "an " : "a ") + model + " KEY table");
  if (has_op && !primary)
    return Status::InvalidArgument("COLUMNS sets __op (delete by key), which needs a PRIMARY KEY table; " + what);
  if (def.BoolProperty("partial_update") && !primary)
    return Status::InvalidArgument("property \"partial_update\" needs a PRIMARY KEY table; " + what);
  const std::string condition = def.Property("merge_condition");
  if (!condition.empty()) {
    if (!primary) return Status::InvalidArgument("property \"merge_condition\" needs a PRIMARY KEY table; " + what);
    const catalog::ColumnMeta* c = table.FindColumn(condition);
    if (!c)
      return Status::InvalidArgument("property \"merge_condition\" names column '" + condition + "', which table '" +
                                     table.name + "' does not have");
    if (c->is_key)
      return Status::InvalidArgument("property \"merge_condition\" names key column '" + condition +
                                     "'; it must be a value column");
    if (!Contains(loaded, condition))
      return Status::InvalidArgument("property \"merge_condition\" names column '" + condition +
                                     "', which the load does not fill; add it to COLUMNS");
  }
  TableWrite w;
  const bool keyed = (model == "PRIMARY" || model == "UNIQUE" || model == "AGGREGATE") && !table.key_columns.empty();
  if (keyed) {
    for (const auto& k : table.key_columns)
      if (!Contains(loaded, k))
        return Status::InvalidArgument("key column '" + k + "' of " + model + " KEY table '" + table.name +
                                       "' must be loaded: rows are matched by key; add it to COLUMNS");
  }
  if (keyed && model != "AGGREGATE") {
    w.append = false;
    w.sql = UpsertSql(def, table, target, loaded, has_op);
    return w;
  }
  if (keyed) {  // AGGREGATE
    w.append = false;
    w.sql = AggregateSql(table, target, loaded);
    return w;
  }
  std::vector<std::string> cols;
  for (const auto& c : loaded) cols.push_back(QuoteIdentifier(c));
  w.sql = "INSERT INTO " + target + " (" + Join(cols) + ") SELECT " + Join(cols) + " FROM " + kWriteRowsPlaceholder +
          kGoodRows;
  return w;
}

std::mutex& KeyedWriteMutex(const std::string& target_table_sql) {
  static std::mutex registry_mu;
  static std::map<std::string, std::unique_ptr<std::mutex>> by_table;
  std::lock_guard<std::mutex> lock(registry_mu);
  auto& m = by_table[target_table_sql];
  if (!m) m = std::make_unique<std::mutex>();
  return *m;
}

std::shared_mutex& TableSchemaMutex(const std::string& target_table_sql) {
  static std::mutex registry_mu;
  static std::map<std::string, std::unique_ptr<std::shared_mutex>> by_table;
  std::lock_guard<std::mutex> lock(registry_mu);
  auto& m = by_table[AsciiLower(target_table_sql)];
  if (!m) m = std::make_unique<std::shared_mutex>();
  return *m;
}

bool IsTransientKeyConflict(const Status& st) {
  const std::string& m = st.message();
  // storage/duckdb_error_table.cpp words DuckDB's "Duplicate key ... violates primary key constraint" as MySQL's
  // ER_DUP_ENTRY; the raw form is still recognised for messages that bypass the table.
  if (st.code() == StatusCode::kAlreadyExists && m.rfind("Duplicate entry '", 0) == 0) return true;
  return m.find("Duplicate key") != std::string::npos && m.find("constraint") != std::string::npos;
}

std::string BindTableWrite(const TableWrite& write, const std::string& rows) {
  std::string out = write.sql;
  size_t at = out.find(kWriteRowsPlaceholder);
  if (at != std::string::npos) out.replace(at, std::string(kWriteRowsPlaceholder).size(), rows);
  return out;
}

}  // namespace sluice::load
