#pragma once
// Kafka pipes (shared/reference/pipe.md) as routine load definitions: CREATE PIPE's properties, READ_KAFKA's
// arguments and the SELECT list become a RoutineLoadDefinition whose `pipe` is set, so the routine load scheduler,
// tasks and commit path run it. Validation errors name the property or argument and what is allowed.
#include <string>
#include <utility>
#include <vector>

#include "catalog/routine_load_job.h"
#include "common/status.h"
#include "sql/pipe_ast.h"

namespace sluice::catalog {

// The columns READ_KAFKA returns, in order, with the DuckDB type pipe expressions see each as (key and value are
// the message bytes as text; headers a JSON object of name -> value).
const std::vector<std::pair<std::string, std::string>>& ReadKafkaColumns();

// The reason a pipe paused by ALTER PIPE ... SET PIPE_EXECUTION_PAUSED = true carries: SUSPENDED, not FAILED.
inline constexpr const char* kPipeSuspendedReason = "suspended by ALTER PIPE ... SET PIPE_EXECUTION_PAUSED = true";

std::string PipeSettingsToJson(const PipeSettings& p);
PipeSettings PipeSettingsFromJson(const std::string& json);

// CREATE PIPE -> definition. `table_columns` are the target table's columns in order: the SELECT list maps onto
// them by position, or by name when every item has an alias.
Result<RoutineLoadDefinition> BuildPipe(const sql::CreatePipe& stmt, const std::string& db,
                                        const std::vector<std::string>& table_columns);

// ALTER PIPE name SET property = 'value' (not PIPE_EXECUTION_PAUSED, which the scheduler handles).
Status AlterPipeProperty(RoutineLoadDefinition& def, const std::string& property, const std::string& value);

}  // namespace sluice::catalog
