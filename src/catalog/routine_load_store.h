#pragma once
// Where routine load jobs live between restarts: their definitions and states (__sluice.routine_loads), each
// partition's progress and statistics (__sluice.routine_load_progress), and rejected rows
// (__sluice.rejected_rows). Progress rows are only ever advanced by AdvanceProgress inside the transaction that
// inserts the rows they account for — that is the exactly-once promise.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "catalog/job_store.h"
#include "catalog/routine_load_job.h"
#include "catalog/secret_box.h"
#include "common/text_batch.h"
#include "storage/database.h"

namespace sluice::catalog {

// Per partition: where the next task starts, and what loading it so far produced.
struct PartitionProgress {
  int64_t next_offset = 0;
  int64_t loaded_rows = 0;
  int64_t error_rows = 0;
  int64_t unselected_rows = 0;
  int64_t received_bytes = 0;
  int64_t committed_tasks = 0;
  int64_t task_execute_ms = 0;
};

// What one committed task adds to its job's statistics.
struct TaskCounts {
  int64_t loaded_rows = 0;
  int64_t error_rows = 0;
  int64_t unselected_rows = 0;
  int64_t received_bytes = 0;
  int64_t execute_ms = 0;
};

class RoutineLoadStore final : public JobStore {
 public:
  // `secrets_key_file`: where the key that seals secret job properties lives (SecretBox::Open; empty: a key in
  // memory, for in-memory databases). Secret property values and registry credentials are stored sealed, so
  // SELECTing __sluice.routine_loads shows no usable secret; LoadJobs() unseals them.
  static Result<std::unique_ptr<RoutineLoadStore>> Open(storage::Database& db, const std::string& secrets_key_file);

  // Fails with AlreadyExists when a job of that name is not yet STOPPED or CANCELLED in the database.
  Result<int64_t> CreateJob(const RoutineLoadDefinition& def, int64_t now_ms) override;
  Status UpdateJob(const StoredJob& job) override;
  Result<std::vector<StoredJob>> LoadJobs() override;

  Result<std::map<int32_t, PartitionProgress>> ReadProgress(int64_t job_id);
  // Sets where partitions start that have no position yet: no row (a new job, a partition added to the topic)
  // or a row reset by ResetProgress.
  Status InitProgress(int64_t job_id, const std::map<int32_t, int64_t>& next_offsets);
  // Sets the partitions' positions to `next_offsets`, whatever they held: for a load into an Iceberg table the
  // table's snapshots hold the truth, and these rows are their cache (synced when a task starts from the table).
  Status SyncProgress(int64_t job_id, const std::map<int32_t, int64_t>& next_offsets);
  // ALTER ROUTINE LOAD (only while the job is paused): stores the job's new definition and forgets the positions of
  // `reset_partitions` (new kafka_offsets), keeping their statistics, so the next scheduling resolves them from
  // the new definition; their next_offset reads as -1. One transaction: a crash leaves either the old job with its
  // progress or the new one, never new offsets forgotten under the old definition (which would load them again).
  Status AlterJob(const StoredJob& job, const std::vector<int32_t>& reset_partitions) override;

  // Inside the caller's transaction on `con`: moves each partition from `from` to `to`, failing with Conflict if
  // any partition is no longer at `from` (the task was replaced), and adds `counts` to the first partition.
  static Status AdvanceProgress(storage::Connection& con, int64_t job_id, const std::map<int32_t, int64_t>& from,
                                const std::map<int32_t, int64_t>& to, const TaskCounts& counts);
  // Inside the caller's transaction: records rejected rows.
  static Status RecordRejectedRows(storage::Connection& con, int64_t job_id, int64_t task_id,
                                   const std::vector<RejectedRow>& rows, int64_t now_ms);
  // Keeps at most `keep` rejected rows per job (the newest); -1 keeps all.
  Status TrimRejectedRows(int64_t job_id, int64_t keep);
  Result<ResultSet> RejectedRows(int64_t job_id, int64_t limit);

 private:
  RoutineLoadStore(std::unique_ptr<storage::Connection> con, std::unique_ptr<SecretBox> secrets)
      : con_(std::move(con)), secrets_(std::move(secrets)) {}
  std::string StoredDefinition(const RoutineLoadDefinition& def) const { return SealDefinition(*secrets_, def); }
  Result<RoutineLoadDefinition> LoadedDefinition(const std::string& stored) const {
    return UnsealDefinition(*secrets_, stored);
  }
  std::string UpdateJobSql(const StoredJob& job) const;
  Status ResetProgressLocked(int64_t job_id, const std::vector<int32_t>& partitions);
  std::mutex mu_;
  std::unique_ptr<storage::Connection> con_;
  std::unique_ptr<SecretBox> secrets_;
};

}  // namespace sluice::catalog
