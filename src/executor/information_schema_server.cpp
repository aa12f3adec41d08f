// information_schema.ENGINES, CHARACTER_SETS, COLLATIONS and ROUTINES: what the server offers. Sluice has one
// engine (OLAP, StarRocks' name for its tables), one character set (utf8mb4) and no stored routines.
#include "executor/information_schema_views.h"

namespace sluice::information_schema {

InformationSchemaView Engines() {
  return {"engines",
          {Varchar("ENGINE"), Varchar("SUPPORT"), Varchar("COMMENT"), Varchar("TRANSACTIONS"), Varchar("XA"),
           Varchar("SAVEPOINTS")},
          [](InformationSchemaReader&) -> Result<std::vector<Row>> {
            return std::vector<Row>{{Text("OLAP"), Text("DEFAULT"), Text("Sluice tables, stored in DuckDB"),
                                     Text("YES"), Text("NO"), Text("NO")}};
          }};
}

InformationSchemaView CharacterSets() {
  return {"character_sets",
          {Varchar("CHARACTER_SET_NAME"), Varchar("DEFAULT_COLLATE_NAME"), Varchar("DESCRIPTION"), BigInt("MAXLEN")},
          [](InformationSchemaReader&) -> Result<std::vector<Row>> {
            return std::vector<Row>{{Text("utf8mb4"), Text("utf8mb4_general_ci"), Text("UTF-8 Unicode"), Number(4)}};
          }};
}

InformationSchemaView Collations() {
  return {"collations",
          {Varchar("COLLATION_NAME"), Varchar("CHARACTER_SET_NAME"), BigInt("ID"), Varchar("IS_DEFAULT"),
           Varchar("IS_COMPILED"), BigInt("SORTLEN"), Varchar("PAD_ATTRIBUTE")},
          [](InformationSchemaReader&) -> Result<std::vector<Row>> {
            return std::vector<Row>{{Text("utf8mb4_general_ci"), Text("utf8mb4"), Number(45), Text("Yes"),
                                     Text("Yes"), Number(1), Text("PAD SPACE")}};
          }};
}

InformationSchemaView Routines() {
  return {"routines",
          {Varchar("SPECIFIC_NAME"), Varchar("ROUTINE_CATALOG"), Varchar("ROUTINE_SCHEMA"), Varchar("ROUTINE_NAME"),
           Varchar("ROUTINE_TYPE"), Varchar("DATA_TYPE"), Varchar("ROUTINE_BODY"), Varchar("ROUTINE_DEFINITION"),
           Varchar("EXTERNAL_NAME"), Varchar("EXTERNAL_LANGUAGE"), Varchar("PARAMETER_STYLE"),
           Varchar("IS_DETERMINISTIC"), Varchar("SQL_DATA_ACCESS"), Varchar("SECURITY_TYPE"), Timestamp("CREATED"),
           Timestamp("LAST_ALTERED"), Varchar("SQL_MODE"), Varchar("ROUTINE_COMMENT"), Varchar("DEFINER")},
          [](InformationSchemaReader&) -> Result<std::vector<Row>> { return std::vector<Row>{}; }};
}

}  // namespace sluice::information_schema
