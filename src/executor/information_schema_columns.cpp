// information_schema.COLUMNS, STATISTICS, KEY_COLUMN_USAGE and TABLE_CONSTRAINTS: the columns of the tables the
// session sees, with the types as written and the key model's key.
#include <algorithm>

#include "common/ascii.h"
#include "sql/lexer.h"
#include "executor/information_schema_views.h"
#include "executor/result_rows.h"

namespace sluice::information_schema {

namespace {

// The numbers in a type's parentheses: "decimal(10, 2)" -> {10, 2}; "varchar" -> {}.
std::vector<int64_t> TypeArguments(const std::string& type) {
  std::vector<int64_t> out;
  size_t open = type.find('(');
  if (open == std::string::npos) return out;
  size_t i = open + 1;
  while (i < type.size() && type[i] != ')') {
    while (i < type.size() && (type[i] == ' ' || type[i] == ',')) i++;
    size_t start = i;
    while (i < type.size() && type[i] >= '0' && type[i] <= '9') i++;
    if (i == start) break;
    out.push_back(std::stoll(type.substr(start, i - start)));
  }
  return out;
}

bool IsString(const std::string& data_type) {
  return data_type == "varchar" || data_type == "char" || data_type == "json";
}

// The key columns of a table as (column, position in the key, 1-based).
std::vector<std::pair<std::string, int64_t>> KeyPositions(const catalog::TableMeta& t) {
  std::vector<std::pair<std::string, int64_t>> out;
  int64_t seq = 0;
  for (const auto& k : KeyColumns(t)) out.emplace_back(k, ++seq);
  return out;
}

bool IsKeyColumn(const catalog::TableMeta& t, const std::string& column) {
  for (const auto& k : KeyColumns(t))
    if (sql::EqualsIgnoreCase(k, column)) return true;
  return false;
}

}  // namespace

InformationSchemaView Columns() {
  return {"columns",
          {Varchar("TABLE_CATALOG"), Varchar("TABLE_SCHEMA"), Varchar("TABLE_NAME"), Varchar("COLUMN_NAME"),
           BigInt("ORDINAL_POSITION"), Varchar("COLUMN_DEFAULT"), Varchar("IS_NULLABLE"), Varchar("DATA_TYPE"),
           BigInt("CHARACTER_MAXIMUM_LENGTH"), BigInt("CHARACTER_OCTET_LENGTH"), BigInt("NUMERIC_PRECISION"),
           BigInt("NUMERIC_SCALE"), BigInt("DATETIME_PRECISION"), Varchar("CHARACTER_SET_NAME"),
           Varchar("COLLATION_NAME"), Varchar("COLUMN_TYPE"), Varchar("COLUMN_KEY"), Varchar("EXTRA"),
           Varchar("PRIVILEGES"), Varchar("COLUMN_COMMENT"), Varchar("GENERATION_EXPRESSION"), BigInt("SRS_ID")},
          [](InformationSchemaReader& r) -> Result<std::vector<Row>> {
            ASSIGN_OR_RETURN(auto tables, r.Tables());
            std::vector<Row> rows;
            for (const auto& t : *tables) {
              int64_t position = 0;
              for (const auto& c : t.columns) {
                std::string data_type = MysqlDataType(c);
                std::string column_type = MysqlColumnType(c);
                std::vector<int64_t> args = TypeArguments(column_type);
                std::optional<std::string> max_length, octets, precision, scale, datetime_precision;
                std::optional<std::string> charset, collation;
                if (IsString(data_type)) {
                  int64_t n = data_type == "json" ? 1048576 : !args.empty() ? args[0] : 65533;
                  max_length = std::to_string(n);
                  octets = std::to_string(n * 4);
                  charset = "utf8mb4";
                  collation = "utf8mb4_general_ci";
                } else if (data_type == "decimal") {
                  precision = std::to_string(!args.empty() ? args[0] : 10);
                  scale = std::to_string(args.size() > 1 ? args[1] : 0);
                } else if (data_type == "tinyint" || data_type == "smallint" || data_type == "int" ||
                           data_type == "bigint") {
                  int64_t digits = data_type == "tinyint" ? 3 : data_type == "smallint" ? 5
                                   : data_type == "int"   ? 10 : 19;
                  if (AsciiLower(c.type_text) == "largeint") digits = 39;
                  precision = std::to_string(digits);
                  scale = "0";
                } else if (data_type == "float") {
                  precision = "12";
                } else if (data_type == "double") {
                  precision = "22";
                } else if (data_type == "datetime") {
                  datetime_precision = std::to_string(!args.empty() ? args[0] : 0);
                }
                bool key = IsKeyColumn(t, c.name);
                rows.push_back({Text("def"), t.db, t.name, c.name, Number(++position), DefaultForDisplay(c.default_sql),
                                Text(c.nullable ? "YES" : "NO"), data_type, max_length, octets, precision, scale,
                                datetime_precision, charset, collation, column_type, Text(key ? "PRI" : ""),
                                c.aggregate, Text("select,insert,update,references"), c.comment, Text(""), kNull});
              }
            }
            return rows;
          }};
}

InformationSchemaView Statistics() {
  return {"statistics",
          {Varchar("TABLE_CATALOG"), Varchar("TABLE_SCHEMA"), Varchar("TABLE_NAME"), BigInt("NON_UNIQUE"),
           Varchar("INDEX_SCHEMA"), Varchar("INDEX_NAME"), BigInt("SEQ_IN_INDEX"), Varchar("COLUMN_NAME"),
           Varchar("COLLATION"), BigInt("CARDINALITY"), BigInt("SUB_PART"), Varchar("PACKED"), Varchar("NULLABLE"),
           Varchar("INDEX_TYPE"), Varchar("COMMENT"), Varchar("INDEX_COMMENT"), Varchar("IS_VISIBLE"),
           Varchar("EXPRESSION")},
          [](InformationSchemaReader& r) -> Result<std::vector<Row>> {
            ASSIGN_OR_RETURN(auto tables, r.Tables());
            std::vector<Row> rows;
            for (const auto& t : *tables) {
              for (const auto& [column, seq] : KeyPositions(t)) {
                const catalog::ColumnMeta* c = t.FindColumn(column);
                rows.push_back({Text("def"), t.db, t.name, Number(KeyIsUnique(t) ? 0 : 1), t.db, Text(kKeyIndexName),
                                Number(seq), column, Text("A"), kNull, kNull, kNull,
                                Text(c && c->nullable ? "YES" : ""), Text("BTREE"), Text(""),
                                Text(AsciiUpper(t.key_model) + " KEY"), Text("YES"), kNull});
              }
            }
            return rows;
          }};
}

InformationSchemaView KeyColumnUsage() {
  return {"key_column_usage",
          {Varchar("CONSTRAINT_CATALOG"), Varchar("CONSTRAINT_SCHEMA"), Varchar("CONSTRAINT_NAME"),
           Varchar("TABLE_CATALOG"), Varchar("TABLE_SCHEMA"), Varchar("TABLE_NAME"), Varchar("COLUMN_NAME"),
           BigInt("ORDINAL_POSITION"), BigInt("POSITION_IN_UNIQUE_CONSTRAINT"), Varchar("REFERENCED_TABLE_SCHEMA"),
           Varchar("REFERENCED_TABLE_NAME"), Varchar("REFERENCED_COLUMN_NAME")},
          [](InformationSchemaReader& r) -> Result<std::vector<Row>> {
            ASSIGN_OR_RETURN(auto tables, r.Tables());
            std::vector<Row> rows;
            for (const auto& t : *tables) {
              if (!KeyIsUnique(t)) continue;  // only a unique key is a constraint
              for (const auto& [column, seq] : KeyPositions(t)) {
                rows.push_back({Text("def"), t.db, Text(kKeyIndexName), Text("def"), t.db, t.name, column,
                                Number(seq), kNull, kNull, kNull, kNull});
              }
            }
            return rows;
          }};
}

InformationSchemaView TableConstraints() {
  return {"table_constraints",
          {Varchar("CONSTRAINT_CATALOG"), Varchar("CONSTRAINT_SCHEMA"), Varchar("CONSTRAINT_NAME"),
           Varchar("TABLE_SCHEMA"), Varchar("TABLE_NAME"), Varchar("CONSTRAINT_TYPE"), Varchar("ENFORCED")},
          [](InformationSchemaReader& r) -> Result<std::vector<Row>> {
            ASSIGN_OR_RETURN(auto tables, r.Tables());
            std::vector<Row> rows;
            for (const auto& t : *tables) {
              if (!KeyIsUnique(t) || KeyColumns(t).empty()) continue;
              rows.push_back({Text("def"), t.db, Text(kKeyIndexName), t.db, t.name, Text("PRIMARY KEY"),
                              Text("YES")});
            }
            return rows;
          }};
}

}  // namespace sluice::information_schema
