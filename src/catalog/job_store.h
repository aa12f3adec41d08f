#pragma once
// JobStore: where the scheduler keeps routine load definitions and states (not their progress). Two kinds exist:
// - RoutineLoadStore (routine_load_store.h): the node's own DuckDB catalog, __sluice.routine_loads. Every job of a
//   server on its own, and jobs into DuckDB tables on a cluster node (their rows live in that node's file).
// - ClusterJobStore (cluster_job_store.h): the cluster's PostgreSQL database, sluice_routine_loads. Routine loads
//   into Iceberg tables on a node started with --cluster, which every node of the cluster sees and runs.
// Both store a definition the same way: JSON with secret properties sealed (SealDefinition below).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "catalog/routine_load_job.h"
#include "catalog/secret_box.h"
#include "common/status.h"

namespace sluice::catalog {

struct StoredJob {
  int64_t id = 0;
  RoutineLoadDefinition def;
  JobState state = JobState::kNeedSchedule;
  std::string reason;          // ReasonOfStateChanged
  int64_t create_time_ms = 0;
  int64_t pause_time_ms = 0;   // 0 = never
  int64_t end_time_ms = 0;
  // ALTER PIPE ... EXECUTE statements so far on any node (ClusterJobStore only; 0 elsewhere): a node that sees the
  // count grow runs the pipe's next batch now.
  int64_t wakes = 0;
};

class JobStore {
 public:
  virtual ~JobStore() = default;
  // Fails with AlreadyExists when a job of that name is not yet STOPPED or CANCELLED in the store.
  virtual Result<int64_t> CreateJob(const RoutineLoadDefinition& def, int64_t now_ms) = 0;
  virtual Status UpdateJob(const StoredJob& job) = 0;
  // ALTER ROUTINE LOAD: the new definition, and the positions of `reset_partitions` forgotten where the store keeps
  // them, in one transaction.
  virtual Status AlterJob(const StoredJob& job, const std::vector<int32_t>& reset_partitions) = 0;
  virtual Result<std::vector<StoredJob>> LoadJobs() = 0;
};

// The stored text of a definition: JSON, with secret property values and a schema registry URL carrying
// credentials sealed by `secrets`, and a pipe's COPY text masked.
std::string SealDefinition(const SecretBox& secrets, const RoutineLoadDefinition& def);
// Back from SealDefinition's text; fails when a sealed value was sealed under another key.
Result<RoutineLoadDefinition> UnsealDefinition(const SecretBox& secrets, const std::string& stored);

// A job from a stored row (id, definition, state, reason, create_time, pause_time, end_time), as both stores select
// it; `definition` reads the stored definition text back.
Result<StoredJob> StoredJobFromRow(const std::vector<std::optional<std::string>>& row,
                                   const std::function<Result<RoutineLoadDefinition>(const std::string&)>& definition);

}  // namespace sluice::catalog
