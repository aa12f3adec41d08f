// SHOW INDEX, SHOW TABLE STATUS, SHOW CREATE DATABASE and SHOW FULL COLUMNS, in MySQL 8's columns and order. The
// rows come from the session's information_schema (STATISTICS, TABLES, COLUMNS), so SHOW and information_schema
// agree and see what the privileges let them see.
#include "common/ascii.h"
#include "common/like.h"
#include "executor/result_rows.h"
#include "executor/sql_session.h"
#include "sql/lexer.h"

namespace sluice {

namespace {

// Column positions in the information_schema views (information_schema_*.cpp).
constexpr size_t kSchemaAt = 1, kTableAt = 2;

bool Names(const Row& row, const std::string& db, const std::string& table) {
  return row[kSchemaAt] && sql::EqualsIgnoreCase(*row[kSchemaAt], db) &&
         (table.empty() || (row[kTableAt] && sql::EqualsIgnoreCase(*row[kTableAt], table)));
}

}  // namespace

Result<StatementResult> SqlSession::ShowCatalogStatement(const sql::ShowCatalog& s) {
  ResultSet rs;
  switch (s.what) {
    case sql::ShowCatalog::What::kIndex: {
      ASSIGN_OR_RETURN(std::string db, ResolveDb(s.table.db));
      ASSIGN_OR_RETURN(auto meta, catalog_.DescribeTable(db, s.table.name));  // Unknown table, as MySQL says
      ASSIGN_OR_RETURN(auto stats, information_schema_->Rows("statistics"));
      rs.AddColumn("Table");
      rs.AddColumn("Non_unique", ValueType::kInteger);
      rs.AddColumn("Key_name");
      rs.AddColumn("Seq_in_index", ValueType::kInteger);
      for (const char* c : {"Column_name", "Collation"}) rs.AddColumn(c);
      rs.AddColumn("Cardinality", ValueType::kInteger);
      rs.AddColumn("Sub_part", ValueType::kInteger);
      for (const char* c : {"Packed", "Null", "Index_type", "Comment", "Index_comment", "Visible", "Expression"})
        rs.AddColumn(c);
      // STATISTICS: catalog, schema, table, non_unique, index_schema, index_name, seq, column, collation,
      // cardinality, sub_part, packed, nullable, index_type, comment, index_comment, is_visible, expression
      for (const auto& r : stats) {
        if (!Names(r, db, meta.name)) continue;
        rs.rows.push_back({r[2], r[3], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15],
                           r[16], r[17]});
      }
      return Rows(std::move(rs));
    }
    case sql::ShowCatalog::What::kTableStatus: {
      ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
      if (!sql::EqualsIgnoreCase(db, kInformationSchema) && !catalog_.DatabaseExists(db))
        return Status::UnknownDatabase("Unknown database '" + db + "'");
      ASSIGN_OR_RETURN(auto tables, information_schema_->Rows("tables"));
      rs.AddColumn("Name");
      for (const char* c : {"Engine"}) rs.AddColumn(c);
      rs.AddColumn("Version", ValueType::kInteger);
      rs.AddColumn("Row_format");
      for (const char* c : {"Rows", "Avg_row_length", "Data_length", "Max_data_length", "Index_length", "Data_free",
                            "Auto_increment"})
        rs.AddColumn(c, ValueType::kInteger);
      for (const char* c : {"Create_time", "Update_time", "Check_time"}) rs.AddColumn(c, ValueType::kTimestamp);
      rs.AddColumn("Collation");
      rs.AddColumn("Checksum", ValueType::kInteger);
      rs.AddColumn("Create_options");
      rs.AddColumn("Comment");
      // TABLES: catalog, schema, name, type, engine, version, row_format, rows, avg_row_length, data_length,
      // max_data_length, index_length, data_free, auto_increment, create, update, check, collation, checksum,
      // create_options, comment. Timestamps are NULL in Sluice's TABLES, so they pass through as they are.
      for (const auto& r : tables) {
        if (!Names(r, db, "") || !r[kTableAt] || (s.like && !LikeMatch(*r[kTableAt], *s.like))) continue;
        rs.rows.push_back(Row(r.begin() + 2, r.begin() + 3));
        rs.rows.back().insert(rs.rows.back().end(), r.begin() + 4, r.end());
      }
      return Rows(std::move(rs));
    }
    case sql::ShowCatalog::What::kCreateDatabase: {
      if (!catalog_.DatabaseExists(s.db)) return Status::UnknownDatabase("Unknown database '" + s.db + "'");
      rs.AddColumn("Database");
      rs.AddColumn("Create Database");
      rs.rows.push_back({s.db, "CREATE DATABASE `" + s.db + "`"});
      return Rows(std::move(rs));
    }
  }
  return Status::Internal("unhandled SHOW");
}

// SHOW FULL COLUMNS: MySQL's Field, Type, Collation, Null, Key, Default, Extra, Privileges, Comment.
Result<StatementResult> SqlSession::ShowFullColumns(const sql::QualifiedName& name) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(name.db));
  ASSIGN_OR_RETURN(auto meta, catalog_.DescribeTable(db, name.name));
  ASSIGN_OR_RETURN(auto columns, information_schema_->Rows("columns"));
  ResultSet rs;
  for (const char* c : {"Field", "Type", "Collation", "Null", "Key", "Default", "Extra", "Privileges", "Comment"})
    rs.AddColumn(c);
  // COLUMNS: catalog, schema, table, column, ordinal, default, is_nullable, data_type, max_len, octets, precision,
  // scale, datetime_precision, charset, collation, column_type, column_key, extra, privileges, comment, ...
  for (const auto& r : columns) {
    if (!Names(r, db, meta.name)) continue;
    rs.rows.push_back({r[3], r[15], r[14], r[6], r[16], r[5], r[17], r[18], r[19]});
  }
  return Rows(std::move(rs));
}

}  // namespace sluice
