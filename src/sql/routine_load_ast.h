#pragma once
// Routine Load statements (StarRocks grammar, see shared/reference/routine-load.md). The parser keeps property
// values as written and expressions as source text: validation against the property tables happens in
// catalog/, and expressions are compiled to DuckDB SQL by transform/.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sluice::sql {

struct QualifiedName;

using PropertyList = std::vector<std::pair<std::string, std::string>>;  // in the order written, keys as written

// One entry of COLUMNS (...): a source column `name`, or a derived column `name = expr`.
struct ColumnMapping {
  std::string name;
  std::optional<std::string> expr;  // the expression's source text, e.g. "from_unixtime(pay_time, '%Y%m%d')"
};

struct MetadataKey {
  std::string key;                  // upper case: TOPIC, PARTITION, OFFSET, TIMESTAMP_MS, KEY, HEADERS
  std::optional<std::string> alias;
};

// The load properties between ON table and PROPERTIES; each kind at most once ("repeat setting of ..." otherwise).
struct LoadProperties {
  // COLUMNS / ROWS TERMINATED BY: the string's content exactly as written between the quotes, escapes NOT
  // resolved ('\t', '\x01', '||'), because StarRocks gives \xHH its own meaning; catalog/ resolves them.
  std::optional<std::string> column_separator;
  std::optional<std::string> row_delimiter;
  std::optional<std::vector<ColumnMapping>> columns;
  std::optional<std::string> where;              // source text of the WHERE expression
  std::optional<std::vector<std::string>> partitions;  // [TEMPORARY] PARTITION (...) or PARTITIONS (...)
  bool temporary_partitions = false;
  std::optional<std::vector<MetadataKey>> include_metadata;
};

struct CreateRoutineLoad {
  std::string db;                   // from db.job_name; empty = current database
  std::string job_name;
  std::string table;                // ON table_name
  // ON catalog.db.table: a table of an external (Iceberg) catalog; both empty for a table of the job's database.
  std::string table_catalog;
  std::string table_db;
  LoadProperties load;
  PropertyList job_properties;      // PROPERTIES (...)
  std::string source_type;          // "KAFKA" (upper case)
  PropertyList source_properties;   // FROM KAFKA (...)
};

// ALTER ROUTINE LOAD FOR [db.]job [load properties] [PROPERTIES (...)] [FROM KAFKA (...)]
struct AlterRoutineLoad {
  std::string db;
  std::string job_name;
  LoadProperties load;
  PropertyList job_properties;
  std::string source_type;          // empty when no FROM clause
  PropertyList source_properties;
};

// PAUSE / RESUME / STOP ROUTINE LOAD FOR [db.]job
struct ControlRoutineLoad {
  enum class Action { kPause, kResume, kStop };
  Action action = Action::kPause;
  std::string db;
  std::string job_name;
};

// SHOW [ALL] ROUTINE LOAD [FOR [db.]job | FROM db] [WHERE State = "..."] [ORDER BY col [ASC|DESC]]
//      [LIMIT [offset,] count | LIMIT count OFFSET offset]
struct ShowRoutineLoad {
  bool all = false;
  std::string db;
  std::string job_name;             // empty = every job of the database
  std::optional<std::string> state; // WHERE State = "RUNNING" (upper case)
  std::string order_by;             // column name, empty = by Id
  bool order_desc = false;
  std::optional<int64_t> limit;
  int64_t offset = 0;               // LIMIT offset, count / LIMIT count OFFSET offset: rows skipped first
};

// SHOW ROUTINE LOAD TASK [FROM db] WHERE JobName = "job"
struct ShowRoutineLoadTask {
  std::string db;
  std::string job_name;
};

// SHOW CREATE ROUTINE LOAD [db.]job
struct ShowCreateRoutineLoad {
  std::string db;
  std::string job_name;
};

}  // namespace sluice::sql
