#pragma once
// Where a task's rows and the progress they advance are committed, atomically and fenced (DESIGN.md decisions 2
// and 9). Two sinks exist:
// - DuckDbSink (this module): rows, rejected rows, progress and load history in one DuckDB transaction; the
//   progress update is fenced on where the task started.
// - the Iceberg sink (src/lakehouse/iceberg_sink.*, handed in by the scheduler through `LoadTargets`): rows as
//   Parquet files and the job's offsets in the summary of one snapshot, committed by compare-and-swap in the
//   table's catalog and fenced on the offsets the table held when the task started; the local progress row,
//   rejected rows and load history are written after that commit (a cache, and records for SHOW).
// load/ does not know Iceberg: lower layers never include higher ones.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "catalog/routine_load_job.h"
#include "catalog/routine_load_store.h"
#include "catalog/table_meta.h"
#include "common/commit_guard.h"
#include "common/status.h"
#include "storage/database.h"

namespace sluice::load {

struct TaskPlan;
class VolumeFilesSink;  // load/volume_pipe_task.h

// What the task, not the sink, decides about a batch: how many rows were good, whether the batch may commit at all
// (max_filter_ratio, a pipe's max errors), and what it records beside the rows. The sink calls these at the moment
// its commit allows.
class TaskBookkeeping {
 public:
  virtual ~TaskBookkeeping() = default;
  // Counts the batch's error and filtered rows on `con` (`written`: the rows the write changed when the sink wrote
  // them already, -1 when it has not) and returns Conflict("abort") when the batch must not commit; then nothing
  // may be committed.
  virtual Status Account(storage::Connection& con, int64_t written) = 0;
  // Rejected rows and the load_history row of a committed batch.
  virtual Status RecordLocal(storage::Connection& con) = 0;
  // False once the job moved on (paused, altered, the task timed out and was replaced): nothing may be committed.
  virtual bool StillCurrent() = 0;
  virtual const catalog::TaskCounts& counts() const = 0;
  // Asked right before the commit, after StillCurrent: Conflict when the node may no longer commit the task's
  // partitions (a cluster job whose lease was taken over); otherwise summary entries the commit records beside the
  // offsets (the leases' epochs), and the same checks as guards for the commit's own swap when its store can run
  // them there (common/commit_guard.h). A task of a server on its own has no fence.
  virtual Result<FencedCommit> Fence() { return FencedCommit{}; }
};

// What RoutineLoadTask::set_commit_fence takes (see TaskBookkeeping::Fence).
using CommitFence = std::function<Result<FencedCommit>()>;

// One task's commit: the transform over the batch and the progress it advances.
struct SinkCommit {
  int64_t job_id = 0;
  // A FROM item with the transform's output over the batch: the loaded columns under the table's names,
  // __sluice_error, __sluice_selected, __sluice_row. Good rows: __sluice_error IS NULL AND __sluice_selected.
  std::string transform;
  int64_t decoded_rows = 0;
  const std::map<int32_t, int64_t>* from = nullptr;  // where the task started, per partition
  const std::map<int32_t, int64_t>* to = nullptr;    // the next offsets after the batch
};

// What a sink holds of a job when it is their truth (Iceberg: the newest snapshot summaries carrying them): the
// offsets, and the job's statistics committed with its rows (lakehouse/job_statistics.h). nullopt: none kept.
struct CommittedJobState {
  std::optional<std::map<int32_t, int64_t>> offsets;
  std::optional<catalog::PartitionProgress> totals;
};

class CommitSink {
 public:
  virtual ~CommitSink() = default;
  // For log lines and errors: "DuckDB table db.t", "Iceberg table lake.db.t".
  virtual std::string Describe() const = 0;
  // The offsets the sink itself holds for the job, when it is their truth (Iceberg: the newest snapshot summary
  // carrying them); nullopt when the sink keeps none apart from the progress rows (DuckDB). A task starts from
  // these.
  virtual Result<std::optional<std::map<int32_t, int64_t>>> CommittedOffsets(int64_t job_id) = 0;
  // The offsets and the statistics in one look at the sink (SHOW ROUTINE LOAD of a cluster job).
  virtual Result<CommittedJobState> CommittedState(int64_t job_id) {
    ASSIGN_OR_RETURN(auto offsets, CommittedOffsets(job_id));
    return CommittedJobState{std::move(offsets), std::nullopt};
  }
  // Commits the batch's good rows and `to` atomically, fenced on `from`: Conflict when the progress is no longer
  // where the task started (a newer task, or an earlier life of the server, committed it) or the job moved on,
  // and nothing is committed. Sets `committed` when the rows and offsets are committed, even when a later local
  // record failed (the error is returned then).
  virtual Status Commit(storage::Connection& con, const TaskPlan& plan, const SinkCommit& commit,
                        TaskBookkeeping& book, bool* committed) = 0;
  // Whether no-data tasks should check that the DuckDB table still exists (the Iceberg sink learns of a dropped
  // table at its next commit).
  virtual bool duckdb_table() const { return false; }
};

// The default sink: the task's DuckDB transaction (DESIGN.md decision 2).
class DuckDbSink final : public CommitSink {
 public:
  std::string Describe() const override;
  Result<std::optional<std::map<int32_t, int64_t>>> CommittedOffsets(int64_t) override {
    return std::optional<std::map<int32_t, int64_t>>();
  }
  Status Commit(storage::Connection& con, const TaskPlan& plan, const SinkCommit& commit, TaskBookkeeping& book,
                bool* committed) override;
  bool duckdb_table() const override { return true; }
};

// Targets outside DuckDB (a table of an external catalog): the table's columns, for planning the transform, and
// the sink that commits into it. The scheduler is handed one (SchedulerOptions::load_targets); null: such jobs
// cannot be created.
struct LoadTarget {
  catalog::TableMeta table;
  std::shared_ptr<CommitSink> sink;
};
class LoadTargets {
 public:
  virtual ~LoadTargets() = default;
  // The target of `def` (def.iceberg_target()); UnknownTable when it does not exist, NotFound for an unknown
  // catalog.
  virtual Result<LoadTarget> Open(const catalog::RoutineLoadDefinition& def) = 0;
  // Where the tasks of volume pipe `job_id` (def.pipe->volume) commit their files: one commit per task, the files'
  // identities in it. Does not look the table up (each task does).
  virtual std::shared_ptr<VolumeFilesSink> OpenVolumeFiles(const catalog::RoutineLoadDefinition& def,
                                                           int64_t job_id) = 0;
};

}  // namespace sluice::load
