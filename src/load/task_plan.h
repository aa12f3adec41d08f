#pragma once
// What every task of one version of a job shares: the compiled transform and the target's shape. Built when a
// job is scheduled (or altered), so a task only reads, decodes and commits.
#include <memory>
#include <string>
#include <vector>

#include "catalog/kafka_metadata.h"
#include "catalog/routine_load_job.h"
#include "catalog/table_meta.h"
#include "common/status.h"
#include "load/commit_sink.h"
#include "load/table_write.h"
#include "transform/compiler.h"

namespace sluice::load {

struct TaskPlan {
  int64_t job_id = 0;
  catalog::RoutineLoadDefinition def;
  std::vector<std::string> source_columns;      // the payload's columns (COLUMNS without `=`, else the table's)
  std::vector<catalog::MetadataColumn> metadata; // INCLUDE METADATA, in the batch after the payload's columns
  std::vector<std::string> batch_columns;       // source_columns, then the metadata aliases
  // Per source column: it loads into a JSON column, so the JSON decoder keeps a string's JSON text ("5" stays
  // the string "5"; unescaped, the text 5 would be read as a number).
  std::vector<bool> json_text_columns;
  transform::CompiledTransform transform;
  std::string target_table_sql;                 // "db"."table"
  TableWrite write;                             // how the rows change the table (by its key model)
  // Where the rows and progress commit: the DuckDB transaction, or an Iceberg snapshot (commit_sink.h).
  // Shared by the job's concurrent tasks.
  std::shared_ptr<CommitSink> sink;
};

// Checks the job against its table (every COLUMNS name and expression, jsonpaths count) and compiles the transform.
// `sink` null: the DuckDB table def.db.def.table (DuckDbSink).
Result<std::shared_ptr<const TaskPlan>> MakeTaskPlan(int64_t job_id, const catalog::RoutineLoadDefinition& def,
                                                     const catalog::TableMeta& table,
                                                     std::shared_ptr<CommitSink> sink = nullptr);

}  // namespace sluice::load
