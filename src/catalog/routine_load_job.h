#pragma once
// A routine load job's definition as Sluice keeps it: validated, with defaults resolved, and with everything
// needed to print it back (SHOW ROUTINE LOAD, SHOW CREATE ROUTINE LOAD) or change it (ALTER).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/property_table.h"
#include "common/status.h"
#include "sql/routine_load_ast.h"

namespace sluice::catalog {

enum class JobState { kNeedSchedule, kRunning, kPaused, kStopped, kCancelled };
const char* JobStateName(JobState s);
std::optional<JobState> ParseJobState(const std::string& name);

// How a partition's first offset is given: a number, OFFSET_BEGINNING, OFFSET_END, or a datetime.
struct OffsetSpec {
  enum class Kind { kOffset, kBeginning, kEnd, kTime };
  Kind kind = Kind::kEnd;
  int64_t value = 0;      // the offset (kOffset only)
  std::string text = "OFFSET_END";  // as written, for SHOW (the default is OFFSET_END)
};
// A datetime is kept as text and turned into a time in the job's timezone when the job is scheduled.
Result<OffsetSpec> ParseOffsetSpec(const std::string& text);

const std::vector<PropertySpec>& JobPropertyTable();
const std::vector<PropertySpec>& KafkaPropertyTable();

// What a volume pipe (CREATE PIPE ... AS COPY INTO t FROM VOLUME vol ...) loads and how.
struct VolumePipeSpec {
  std::string volume;                                             // the volume's name, resolved at each listing
  std::vector<std::pair<std::string, std::string>> file_columns;  // (name, DuckDB type); empty: the table's
  std::string format = "CSV";                                     // CSV, JSON or PARQUET
  std::vector<std::pair<std::string, std::string>> options;       // OPTIONS (...) as written
  std::string select_list;  // the transform form's SELECT list and WHERE, as DuckDB SQL; empty: none
  std::string where;
  bool continue_on_error = false;       // ON_ERROR = CONTINUE
  std::string ingest_mode = "LIST_PURGE";  // LIST_PURGE (delete each file after its load committed) or LIST
  std::string subdirectory;             // SUBDIRECTORY '...' (empty: the whole volume)
  std::string regexp;                   // REGEXP '...' (empty: every file)
};

// A pipe (CREATE PIPE ... AS COPY INTO t FROM (SELECT ... FROM READ_KAFKA(...)), or ... FROM VOLUME vol ...) is a
// routine load job of kind pipe: the same scheduler, with these settings on top (catalog/pipe_definition.h).
struct PipeSettings {
  std::string virtual_cluster = "default";
  std::string comment;
  std::string copy_statement;  // as written, secrets masked
  // Explicit properties as written (upper-case names, normalized values), for SHOW / DESC.
  std::vector<std::pair<std::string, std::string>> properties;
  // The SELECT list resolved against the target table: (target column, expression over the READ_KAFKA columns).
  std::vector<std::pair<std::string, std::string>> select;
  int64_t max_errors = 0;        // READ_KAFKA argument 11: error rows a batch may skip
  std::string value_format = "raw";  // READ_KAFKA argument 10: "raw" or "avro" (registry: schema_registry_url)
  int64_t batch_size_per_partition = 500000;
  int64_t max_skip_batches = 30;  // MAX_SKIP_BATCH_COUNT_ON_ERROR
  int64_t initial_delay_seconds = 0;
  std::string reset_offsets = "none";
  int64_t modified_time_ms = 0;
  std::string creator;  // the user who created it
  std::optional<VolumePipeSpec> volume;  // set for a volume pipe (no topic, no partitions)
};

struct RoutineLoadDefinition {
  std::string db;
  std::string name;
  std::string table;
  // ON catalog.db.table: the target is an Iceberg table of external catalog `lake_catalog`, namespace `lake_db`
  // (its rows and offsets commit in one snapshot, DESIGN.md decision 9); both empty for a table of database `db`.
  std::string lake_catalog;
  std::string lake_db;
  sql::LoadProperties load;
  std::map<std::string, std::string> job_properties;     // explicit ones, validated and normalized
  // FROM KAFKA
  std::string broker_list;
  std::string topic;
  std::vector<int32_t> partitions;                        // empty: all, including partitions added later
  std::map<int32_t, OffsetSpec> offsets;                  // explicit starting offsets
  OffsetSpec default_offset;                              // property.kafka_default_offsets (OFFSET_END)
  std::vector<std::pair<std::string, std::string>> custom_properties;  // property.* without the prefix
  std::optional<std::string> schema_registry_url;
  std::optional<PipeSettings> pipe;  // set for a pipe

  // The value of a job property, or its default.
  std::string Property(const std::string& name) const;
  int64_t IntProperty(const std::string& name) const;
  double DoubleProperty(const std::string& name) const;
  bool BoolProperty(const std::string& name) const;
  std::string group_id() const;
  bool iceberg_target() const { return !lake_catalog.empty(); }
  // The target as users name it: "catalog.db.table" for an Iceberg table, else the table's name.
  std::string TargetName() const { return iceberg_target() ? lake_catalog + "." + lake_db + "." + table : table; }
};

// Builds and validates a definition from CREATE ROUTINE LOAD. `job_id` seeds the default group id.
Result<RoutineLoadDefinition> BuildRoutineLoad(const sql::CreateRoutineLoad& stmt, const std::string& db);
// Applies ALTER ROUTINE LOAD to a definition (validated the same way; only alterable properties).
Result<RoutineLoadDefinition> AlterRoutineLoadDefinition(const RoutineLoadDefinition& current,
                                                         const sql::AlterRoutineLoad& stmt);

std::string DefinitionToJson(const RoutineLoadDefinition& def);
Result<RoutineLoadDefinition> DefinitionFromJson(const std::string& json);

// CREATE ROUTINE LOAD text that recreates the job (secrets masked).
std::string RenderCreateRoutineLoad(const RoutineLoadDefinition& def);

}  // namespace sluice::catalog
