// information_schema.FILES, PARTITIONS, TRIGGERS and EVENTS, empty: Sluice has no tablespaces, triggers or events,
// and its partitions are shown by SHOW PARTITIONS. mariadb-dump reads all four on every dump (its tablespace
// section and each table's triggers); empty views keep those reads from being errors that stop the dump.
#include "executor/information_schema_views.h"

namespace sluice::information_schema {

namespace {

InformationSchemaView Empty(const char* name, std::vector<storage::RowsColumn> columns) {
  return {name, std::move(columns), [](InformationSchemaReader&) -> Result<std::vector<Row>> { return std::vector<Row>{}; }};
}

}  // namespace

InformationSchemaView Files() {
  return Empty("files", {BigInt("FILE_ID"), Varchar("FILE_NAME"), Varchar("FILE_TYPE"), Varchar("TABLESPACE_NAME"),
                         Varchar("TABLE_SCHEMA"), Varchar("TABLE_NAME"), Varchar("LOGFILE_GROUP_NAME"),
                         BigInt("LOGFILE_GROUP_NUMBER"), Varchar("ENGINE"), BigInt("TOTAL_EXTENTS"),
                         BigInt("EXTENT_SIZE"), BigInt("INITIAL_SIZE"), BigInt("MAXIMUM_SIZE"), Varchar("STATUS"),
                         Varchar("EXTRA")});
}

InformationSchemaView Partitions() {
  return Empty("partitions", {Varchar("TABLE_CATALOG"), Varchar("TABLE_SCHEMA"), Varchar("TABLE_NAME"),
                              Varchar("PARTITION_NAME"), Varchar("SUBPARTITION_NAME"), BigInt("PARTITION_ORDINAL_POSITION"),
                              Varchar("PARTITION_METHOD"), Varchar("PARTITION_EXPRESSION"),
                              Varchar("PARTITION_DESCRIPTION"), BigInt("TABLE_ROWS"), Varchar("TABLESPACE_NAME")});
}

InformationSchemaView Triggers() {
  return Empty("triggers", {Varchar("TRIGGER_CATALOG"), Varchar("TRIGGER_SCHEMA"), Varchar("TRIGGER_NAME"),
                            Varchar("EVENT_MANIPULATION"), Varchar("EVENT_OBJECT_CATALOG"),
                            Varchar("EVENT_OBJECT_SCHEMA"), Varchar("EVENT_OBJECT_TABLE"), BigInt("ACTION_ORDER"),
                            Varchar("ACTION_STATEMENT"), Varchar("ACTION_TIMING"), Varchar("DEFINER")});
}

InformationSchemaView Events() {
  return Empty("events", {Varchar("EVENT_CATALOG"), Varchar("EVENT_SCHEMA"), Varchar("EVENT_NAME"),
                          Varchar("DEFINER"), Varchar("EVENT_TYPE"), Varchar("STATUS")});
}

}  // namespace sluice::information_schema
