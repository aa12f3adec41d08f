// ALTER TABLE in the catalog: what DuckDB keeps of a table (column order, types, NOT NULL, defaults, the CHECKs
// that enforce VARCHAR lengths, the PRIMARY KEY) is rebuilt from the altered metadata, so that DESC, SHOW CREATE
// TABLE and SELECT * agree, and the length checks of INSERT follow the new types. DuckDB's own ALTER cannot place a
// column (FIRST / AFTER), nor alter a column a CHECK or the key's index depends on.
#include "catalog/catalog.h"
#include "catalog/type_mapping.h"
#include "common/ascii.h"
#include "common/test_points.h"
#include "sql/parser.h"

namespace sluice::catalog {

namespace {

using sql::QuoteIdentifier;
using sql::QuoteLiteral;

constexpr const char* kRebuildPrefix = "__sluice_alter_";

std::string Qualified(const std::string& db, const std::string& name) {
  return QuoteIdentifier(db) + "." + QuoteIdentifier(name);
}

std::string Shown(const std::optional<std::string>& v) {
  if (!v) return "NULL";
  std::string s = *v;
  if (s.size() > 40) s = s.substr(0, 40) + "...";
  return "'" + s + "'";
}

}  // namespace

// Finds a stored row the altered table could not hold, and names it by its key (or first) columns.
Status Catalog::CheckValuesFit(const TableMeta& current, const AlteredTable& altered) {
  std::vector<std::string> ids = current.key_columns;
  if (ids.empty() && !current.columns.empty()) ids.push_back(current.columns[0].name);
  std::string id_select;
  for (const auto& k : ids) id_select += "CAST(" + QuoteIdentifier(k) + " AS VARCHAR), ";
  const std::string table = Qualified(current.db, current.name);
  auto first_bad = [&](const std::string& column, const std::string& where) -> Result<std::optional<std::string>> {
    ASSIGN_OR_RETURN(auto r, con_->Query("SELECT " + id_select + "CAST(" + QuoteIdentifier(column) +
                                         " AS VARCHAR) FROM " + table + " WHERE " + where + " LIMIT 1"));
    if (!r.result_set || r.result_set->rows.empty()) return std::optional<std::string>();
    const Row& row = r.result_set->rows[0];
    std::string who = "the row with ";
    for (size_t i = 0; i < ids.size(); i++) who += (i ? ", " : "") + ids[i] + " = " + Shown(row[i]);
    return std::optional<std::string>(who + " holds " + Shown(row[ids.size()]));
  };
  for (size_t i = 0; i < altered.meta.columns.size(); i++) {
    const ColumnMeta& now = altered.meta.columns[i];
    if (!altered.sources[i]) {
      if (!now.nullable && !now.default_sql) {
        ASSIGN_OR_RETURN(auto r, con_->Query("SELECT count(*) FROM " + table));
        if (r.result_set && !r.result_set->rows.empty() && r.result_set->rows[0][0].value_or("0") != "0")
          return Status::InvalidArgument("new column '" + now.name + "' is NOT NULL without a DEFAULT, and table '" +
                                         current.name + "' has rows that would need a value: give it a DEFAULT, "
                                         "or add it as NULL");
      }
      continue;
    }
    const std::string& src = *altered.sources[i];
    const ColumnMeta* old = current.FindColumn(src);
    if (!old) continue;
    const std::string q = QuoteIdentifier(src);
    if (old->duckdb_type != now.duckdb_type) {
      ASSIGN_OR_RETURN(auto bad, first_bad(src, q + " IS NOT NULL AND TRY_CAST(" + q + " AS " + now.duckdb_type +
                                                    ") IS NULL"));
      if (bad)
        return Status::InvalidArgument("cannot change column '" + src + "' from " + old->type_text + " to " +
                                       now.type_text + ": " + *bad + ", which is not a " + now.type_text +
                                       "; change or delete such rows first, or choose another type");
    }
    auto limit = VarcharByteLimit(now.type_text);
    auto old_limit = VarcharByteLimit(old->type_text);
    if (limit && now.duckdb_type == "VARCHAR" && (!old_limit || *old_limit > *limit)) {
      ASSIGN_OR_RETURN(auto bad, first_bad(src, "strlen(CAST(" + q + " AS VARCHAR)) > " + std::to_string(*limit)));
      if (bad)
        return Status::InvalidArgument("cannot change column '" + src + "' to " + now.type_text + ": " + *bad +
                                       ", longer than " + std::to_string(*limit) +
                                       " bytes; shorten or delete such rows first, or choose a longer type");
    }
    if (old->nullable && !now.nullable) {
      ASSIGN_OR_RETURN(auto bad, first_bad(src, q + " IS NULL"));
      if (bad)
        return Status::InvalidArgument("cannot make column '" + src + "' NOT NULL: " + *bad +
                                       "; set a value in such rows first (UPDATE), or keep the column NULL");
    }
  }
  return Status::Ok();
}

Result<AlteredTable> Catalog::AlterTable(const std::string& db, const sql::AlterTable& stmt) {
  Changing change(*this);
  const std::string& name = stmt.table.name;
  ASSIGN_OR_RETURN(TableMeta current, DescribeTableLocked(db, name));
  ASSIGN_OR_RETURN(AlteredTable altered, ApplyAlterClauses(current, stmt.clauses));
  const std::string final_name = altered.renamed_to.empty() ? current.name : altered.renamed_to;
  if (!altered.renamed_to.empty()) {
    if (final_name.rfind("__sluice", 0) == 0)
      return Status::InvalidArgument("table names starting with __sluice are reserved");
    if (AsciiLower(final_name) != AsciiLower(current.name) && TableExistsLocked(db, final_name))
      return Status::TableExists("Table '" + final_name + "' already exists");
  }
  if (altered.rebuild) RETURN_IF_ERROR(CheckValuesFit(current, altered));
  ASSIGN_OR_RETURN(auto stored, LoadMetaLocked(db, name));
  RETURN_IF_ERROR(storage::InTransaction(*con_, [&]() -> Status {
    TableMeta& meta = altered.meta;
    if (altered.rebuild) {
      const std::string temp = kRebuildPrefix + current.name;
      meta.name = temp;
      RETURN_IF_ERROR(con_->Execute("DROP TABLE IF EXISTS " + Qualified(db, temp)));
      RETURN_IF_ERROR(con_->Execute(DuckDBCreateTableSql(meta)));
      std::string targets, values;
      for (size_t i = 0; i < meta.columns.size(); i++) {
        if (!altered.sources[i]) continue;  // a new column: its default
        const ColumnMeta* old = current.FindColumn(*altered.sources[i]);
        std::string value = QuoteIdentifier(*altered.sources[i]);
        if (old && old->duckdb_type != meta.columns[i].duckdb_type)
          value = "CAST(" + value + " AS " + meta.columns[i].duckdb_type + ")";
        targets += (targets.empty() ? "" : ", ") + QuoteIdentifier(meta.columns[i].name);
        values += (values.empty() ? "" : ", ") + value;
      }
      if (!targets.empty())
        RETURN_IF_ERROR(con_->Execute("INSERT INTO " + Qualified(db, temp) + " (" + targets + ") SELECT " + values +
                                      " FROM " + Qualified(db, current.name)));
      RETURN_IF_ERROR(TestPoint("alter_table.inside"));  // one transaction: a crash here leaves the table as it was
      RETURN_IF_ERROR(con_->Execute("DROP TABLE " + Qualified(db, current.name)));
      RETURN_IF_ERROR(con_->Execute("ALTER TABLE " + Qualified(db, temp) + " RENAME TO " + QuoteIdentifier(final_name)));
    } else if (final_name != current.name) {
      RETURN_IF_ERROR(con_->Execute("ALTER TABLE " + Qualified(db, current.name) + " RENAME TO " +
                                    QuoteIdentifier(final_name)));
    }
    meta.db = db;
    meta.name = final_name;
    // DuckDB's own spelling of each type, which DESC compares with to tell the column is still as Sluice made it.
    ASSIGN_OR_RETURN(auto types, con_->Query("SELECT data_type FROM duckdb_columns() WHERE database_name = "
                                             "current_database() AND schema_name = " + QuoteLiteral(db) +
                                             " AND table_name = " + QuoteLiteral(final_name) + " ORDER BY column_index"));
    if (types.result_set) {
      for (size_t i = 0; i < meta.columns.size() && i < types.result_set->rows.size(); i++)
        meta.columns[i].duckdb_type = types.result_set->rows[i][0].value_or(meta.columns[i].duckdb_type);
    }
    if (stored)  // kept as an update: the table keeps its creation time
      return con_->Execute("UPDATE __sluice.tables SET name = " + QuoteLiteral(final_name) + ", meta = " +
                           QuoteLiteral(TableMetaToJson(meta)) + " WHERE db = " + QuoteLiteral(db) + " AND name = " +
                           QuoteLiteral(current.name));
    return con_->Execute("INSERT INTO __sluice.tables VALUES (" + QuoteLiteral(db) + ", " + QuoteLiteral(final_name) +
                         ", " + QuoteLiteral(TableMetaToJson(meta)) + ", " + std::to_string(clock_()) + ")");
  }));
  altered.meta.name = final_name;
  return altered;
}

}  // namespace sluice::catalog
