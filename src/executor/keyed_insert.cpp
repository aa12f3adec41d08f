#include "executor/keyed_insert.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "catalog/routine_load_job.h"
#include "load/table_write.h"
#include "sql/lexer.h"
#include "sql/qualified_name.h"
#include "sql/parser.h"

namespace sluice {

namespace {

struct PlainInsert {
  std::string db;
  std::string table;
  std::vector<std::string> columns;  // empty: all, in table order
  size_t source_offset = 0;          // where VALUES / SELECT / WITH / ( starts
};

std::optional<PlainInsert> ParsePlainInsert(std::string_view sql) {
  sql::TokenReader reader(sql);
  if (!reader.Next().IsWord("INSERT") || !reader.Next().IsWord("INTO")) return std::nullopt;
  PlainInsert out;
  sql::Token t;
  auto name = sql::ReadQualifiedName(reader, t);
  if (!name) return std::nullopt;
  out.db = name->db;
  out.table = name->name;
  if (t.IsSymbol("(")) {
    while (true) {
      t = reader.Next();
      if (!t.IsIdentifier()) return std::nullopt;
      out.columns.push_back(t.text);
      t = reader.Next();
      if (t.IsSymbol(")")) break;
      if (!t.IsSymbol(",")) return std::nullopt;
    }
    t = reader.Next();
  }
  if (!(t.IsWord("VALUES") || t.IsWord("SELECT") || t.IsWord("WITH") || t.IsWord("FROM") || t.IsSymbol("(")))
    return std::nullopt;
  out.source_offset = t.offset;
  return out;
}

// Clauses that give an INSERT its own meaning at the top level (read only for key tables: a bulk INSERT into any
// other table is not lexed twice).
bool HasInsertClauses(std::string_view source) {
  sql::TokenReader reader(source);
  int depth = 0;
  for (sql::Token u = reader.Next(); u.kind != sql::TokenKind::kEnd; u = reader.Next()) {
    if (u.kind == sql::TokenKind::kInvalid) return true;
    if (u.IsSymbol("(")) depth++;
    if (u.IsSymbol(")")) depth--;
    if (depth == 0 && (u.IsWord("RETURNING") || u.IsWord("CONFLICT"))) return true;
  }
  return false;
}

// A row in none of the table's partitions fails the whole INSERT, as StarRocks' does: DuckDB's error() in a CASE
// (evaluated only for such rows) whose message names the values, so it is never a constant the planner could fold.
std::string PartitionGuard(const catalog::TableMeta& table, const std::vector<std::string>& columns) {
  const catalog::PartitionScheme& s = table.partitioning;
  std::vector<std::string> values;
  for (const auto& name : s.columns) {
    const catalog::ColumnMeta* c = table.FindColumn(name);
    const std::string type = c ? c->duckdb_type : "VARCHAR";
    bool listed = std::any_of(columns.begin(), columns.end(), [&](const std::string& n) { return n == name; });
    if (listed) values.push_back("CAST(__sluice_src." + sql::QuoteIdentifier(name) + " AS " + type + ")");
    else if (c && c->default_sql) values.push_back("CAST(" + *c->default_sql + " AS " + type + ")");
    else values.push_back("CAST(NULL AS " + type + ")");
  }
  return "CASE WHEN " + catalog::PartitionMembershipSql(s, values) + " THEN true ELSE error(" +
         sql::QuoteLiteral("no partition for this row: ") + " || " + catalog::PartitionValuesReasonSql(s, values) +
         " || " + sql::QuoteLiteral(" is in no partition of table '" + table.name + "'") + ") END";
}

}  // namespace

Result<std::optional<KeyedInsert>> RewriteKeyedInsert(catalog::Catalog& catalog, const std::string& current_db,
                                                      std::string_view sql) {
  std::optional<PlainInsert> insert = ParsePlainInsert(sql);
  if (!insert) return std::optional<KeyedInsert>();
  const std::string db = insert->db.empty() ? current_db : insert->db;
  if (db.empty()) return std::optional<KeyedInsert>();
  auto stored = catalog.StoredMeta(db, insert->table);
  if (!stored.ok() || !*stored) return std::optional<KeyedInsert>();
  const std::string& model = (*stored)->key_model;
  const bool keyed = model == "PRIMARY" || model == "UNIQUE" || model == "AGGREGATE";
  const bool partitioned = (*stored)->partitioning.partitioned();
  if (!keyed && !partitioned) return std::optional<KeyedInsert>();
  if (HasInsertClauses(sql.substr(insert->source_offset))) return std::optional<KeyedInsert>();
  auto table = catalog.DescribeTable(db, insert->table);
  if (!table.ok() || table->is_view || (keyed && table->key_columns.empty())) return std::optional<KeyedInsert>();

  std::vector<std::string> columns;
  std::string select, aliases;
  if (insert->columns.empty()) {
    for (const auto& c : table->columns) columns.push_back(c.name);
  } else {
    for (const auto& name : insert->columns) {
      const catalog::ColumnMeta* c = table->FindColumn(name);
      if (!c) return std::optional<KeyedInsert>();  // DuckDB says what is wrong
      columns.push_back(c->name);
    }
  }
  for (const auto& name : columns) {
    const catalog::ColumnMeta* c = table->FindColumn(name);
    aliases += (aliases.empty() ? "" : ", ") + sql::QuoteIdentifier(name);
    select += "CAST(__sluice_src." + sql::QuoteIdentifier(name) + " AS " + c->duckdb_type + ") AS " +
              sql::QuoteIdentifier(name) + ", ";
  }
  KeyedInsert out;
  out.target_table = sql::QuoteIdentifier(db) + "." + sql::QuoteIdentifier(table->name);
  std::string source(sql.substr(insert->source_offset));
  while (!source.empty() && (source.back() == ';' || std::isspace(static_cast<unsigned char>(source.back()))))
    source.pop_back();
  const std::string guard = partitioned ? " WHERE " + PartitionGuard(*table, columns) : std::string();
  if (!keyed) {
    std::string names;
    for (const auto& name : columns) names += (names.empty() ? "" : ", ") + sql::QuoteIdentifier(name);
    select.resize(select.size() - 2);  // the last ", "
    out.sql = "INSERT INTO " + out.target_table + " (" + names + ") SELECT " + select + " FROM (" + source +
              ") AS __sluice_src(" + aliases + ")" + guard;
    return std::optional<KeyedInsert>(std::move(out));
  }
  catalog::RoutineLoadDefinition defaults;  // no partial_update, no merge_condition
  ASSIGN_OR_RETURN(load::TableWrite write, load::PlanTableWrite(defaults, *table, out.target_table, columns, false));
  const std::string rows = "(SELECT " + select +
                           "row_number() OVER () AS __sluice_row, CAST(NULL AS VARCHAR) AS __sluice_error, true AS "
                           "__sluice_selected FROM (" + source + ") AS __sluice_src(" + aliases + ")" + guard +
                           ") AS __sluice_insert";
  out.sql = load::BindTableWrite(write, rows);
  return std::optional<KeyedInsert>(std::move(out));
}

Status ExplainKeyedInsertError(const Status& st) {
  static const std::regex kColumnCount("table \"__sluice_src\" has ([0-9]+) columns available but ([0-9]+) columns specified");
  std::smatch m;
  const std::string& msg = st.message();
  if (std::regex_search(msg, m, kColumnCount))
    return Status(st.code(), "INSERT has " + m[1].str() + " values per row but " + m[2].str() +
                                 " target columns; give a value for each column, or list the columns");
  return st;
}

}  // namespace sluice
