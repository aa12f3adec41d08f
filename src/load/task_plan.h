#pragma once
// What every task of one version of a job shares: the compiled transform and the target's shape. Built when a
// job is scheduled (or altered), so a task only reads, decodes and commits.
#include <memory>
#include <string>
#include <vector>

#include "catalog/routine_load_job.h"
#include "catalog/table_meta.h"
#include "common/status.h"
#include "transform/compiler.h"

namespace sluice::load {

struct TaskPlan {
  int64_t job_id = 0;
  catalog::RoutineLoadDefinition def;
  std::vector<std::string> source_columns;      // the batch's columns (COLUMNS without `=`, else the table's)
  transform::CompiledTransform transform;
  std::string target_table_sql;                 // "db"."table"
};

// Checks the job against its table (every COLUMNS name and expression, jsonpaths count) and compiles the transform.
Result<std::shared_ptr<const TaskPlan>> MakeTaskPlan(int64_t job_id, const catalog::RoutineLoadDefinition& def,
                                                     const catalog::TableMeta& table);

}  // namespace sluice::load
