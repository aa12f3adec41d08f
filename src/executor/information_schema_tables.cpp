// information_schema.SCHEMATA, TABLES and VIEWS: the user databases and tables the session sees.
#include "common/ascii.h"
#include "executor/information_schema_views.h"

namespace sluice::information_schema {

namespace {

// Bytes a value of the column takes, roughly: TABLE_ROWS x this is DATA_LENGTH (DuckDB compresses; MySQL tools only
// compare sizes).
int64_t NominalWidth(const catalog::ColumnMeta& c) {
  std::string t = MysqlDataType(c);
  if (t == "tinyint") return 1;
  if (t == "smallint") return 2;
  if (t == "int" || t == "date" || t == "float") return 4;
  if (t == "bigint" || t == "double" || t == "datetime") return 8;
  return 16;
}

}  // namespace

InformationSchemaView Schemata() {
  return {"schemata",
          {Varchar("CATALOG_NAME"), Varchar("SCHEMA_NAME"), Varchar("DEFAULT_CHARACTER_SET_NAME"),
           Varchar("DEFAULT_COLLATION_NAME"), Varchar("SQL_PATH"), Varchar("DEFAULT_ENCRYPTION")},
          [](InformationSchemaReader& r) -> Result<std::vector<Row>> {
            ASSIGN_OR_RETURN(auto dbs, r.Databases());
            std::vector<Row> rows;
            for (const auto& d : dbs)
              rows.push_back({Text("def"), d, Text("utf8mb4"), Text("utf8mb4_general_ci"), kNull, Text("NO")});
            return rows;
          }};
}

InformationSchemaView Tables() {
  return {"tables",
          {Varchar("TABLE_CATALOG"), Varchar("TABLE_SCHEMA"), Varchar("TABLE_NAME"), Varchar("TABLE_TYPE"),
           Varchar("ENGINE"), BigInt("VERSION"), Varchar("ROW_FORMAT"), BigInt("TABLE_ROWS"),
           BigInt("AVG_ROW_LENGTH"), BigInt("DATA_LENGTH"), BigInt("MAX_DATA_LENGTH"), BigInt("INDEX_LENGTH"),
           BigInt("DATA_FREE"), BigInt("AUTO_INCREMENT"), Timestamp("CREATE_TIME"), Timestamp("UPDATE_TIME"),
           Timestamp("CHECK_TIME"), Varchar("TABLE_COLLATION"), BigInt("CHECKSUM"), Varchar("CREATE_OPTIONS"),
           Varchar("TABLE_COMMENT")},
          [](InformationSchemaReader& r) -> Result<std::vector<Row>> {
            ASSIGN_OR_RETURN(auto tables, r.Tables());
            ASSIGN_OR_RETURN(auto estimates, r.RowEstimates());
            std::vector<Row> rows;
            for (const auto& t : *tables) {
              if (t.is_view) {
                rows.push_back({Text("def"), t.db, t.name, Text("VIEW"), kNull, kNull, kNull, kNull, kNull, kNull,
                                kNull, kNull, kNull, kNull, kNull, kNull, kNull, kNull, kNull, kNull, Text("VIEW")});
                continue;
              }
              auto it = estimates->find({t.db, t.name});
              int64_t count = it == estimates->end() ? 0 : it->second;
              int64_t width = 0;
              for (const auto& c : t.columns) width += NominalWidth(c);
              rows.push_back({Text("def"), t.db, t.name, Text("BASE TABLE"), Text("OLAP"), Number(10),
                              Text("Fixed"), Number(count), Number(width), Number(count * width), kNull, kNull,
                              kNull, kNull, kNull, kNull, kNull, Text("utf8mb4_general_ci"), kNull, Text(""),
                              t.comment});
            }
            return rows;
          }};
}

InformationSchemaView Views() {
  return {"views",
          {Varchar("TABLE_CATALOG"), Varchar("TABLE_SCHEMA"), Varchar("TABLE_NAME"), Varchar("VIEW_DEFINITION"),
           Varchar("CHECK_OPTION"), Varchar("IS_UPDATABLE"), Varchar("DEFINER"), Varchar("SECURITY_TYPE"),
           Varchar("CHARACTER_SET_CLIENT"), Varchar("COLLATION_CONNECTION")},
          [](InformationSchemaReader& r) -> Result<std::vector<Row>> {
            ASSIGN_OR_RETURN(auto tables, r.Tables());
            std::vector<Row> rows;
            for (const auto& t : *tables) {
              if (!t.is_view) continue;
              rows.push_back({Text("def"), t.db, t.name, t.view_sql, Text("NONE"), Text("NO"), kNull,
                              Text("INVOKER"), Text("utf8mb4"), Text("utf8mb4_general_ci")});
            }
            return rows;
          }};
}

}  // namespace sluice::information_schema
