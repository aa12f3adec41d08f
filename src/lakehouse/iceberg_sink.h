#pragma once
// Loads into Iceberg tables (CREATE ROUTINE LOAD ... ON catalog.db.table, and Kafka pipes: CREATE PIPE ... AS COPY
// INTO catalog.db.table FROM (SELECT ... FROM READ_KAFKA(...))): the sink that commits a task's rows and
// its job's offsets in ONE snapshot, and the LoadTargets the scheduler is handed to plan such jobs.
//
// Exactly once, with the table as the truth (DESIGN.md decision 9, as Iceberg's Kafka Connect sink does with
// kafka.connect.offsets.*): the snapshot summary of every commit a job makes carries
//   sluice.offsets.<job id> = {"<partition>":<next offset>,...}   (compact JSON, every partition of the job)
//   sluice.stats.<job id>   = the job's totals up to this commit    (job_statistics.h)
// A task starts from the newest snapshot in the table's history that carries the key (ReadSummaryChain); before
// every attempt to commit (the first and each rebase after a CAS conflict) the sink checks that the table's
// offsets of the task's partitions are still those the task started from. If not, another task or an earlier life
// of the server committed them: the task is stale, its files are deleted and it commits nothing. The local
// progress row, rejected rows and load history are written after the commit (a crash in between loses only those
// records; the next task reads its offsets from the table).
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "iceberg/table_model.h"
#include "lakehouse/lake_catalogs.h"
#include "load/commit_sink.h"

namespace sluice::lakehouse {

// "sluice.offsets.<job id>"
std::string OffsetsSummaryKey(int64_t job_id);
// The job's offsets in the table's current snapshot history; nullopt when no snapshot carries them.
Result<std::optional<std::map<int32_t, int64_t>>> ReadJobOffsets(const iceberg::TableMetadata& metadata,
                                                                 int64_t job_id);
std::string OffsetsJson(const std::map<int32_t, int64_t>& offsets);

class IcebergSink final : public load::CommitSink {
 public:
  IcebergSink(LakeCatalogs& lakes, LakeTableRef target, std::string work_dir)
      : lakes_(lakes), target_(std::move(target)), work_dir_(std::move(work_dir)) {}
  std::string Describe() const override { return "Iceberg table " + target_.ToString(); }
  Result<std::optional<std::map<int32_t, int64_t>>> CommittedOffsets(int64_t job_id) override;
  Result<load::CommittedJobState> CommittedState(int64_t job_id) override;
  Status Commit(storage::Connection& con, const load::TaskPlan& plan, const load::SinkCommit& commit,
                load::TaskBookkeeping& book, bool* committed) override;

 private:
  LakeCatalogs& lakes_;
  LakeTableRef target_;
  std::string work_dir_;
};

// The scheduler's door to Iceberg targets: the table's columns for the plan, and an IcebergSink. `work_dir` is a
// folder DuckDB may write (inside the scratch folder), where a task's Parquet files wait for their upload.
class IcebergLoadTargets final : public load::LoadTargets {
 public:
  IcebergLoadTargets(LakeCatalogs& lakes, std::string work_dir) : lakes_(lakes), work_dir_(std::move(work_dir)) {}
  Result<load::LoadTarget> Open(const catalog::RoutineLoadDefinition& def) override;
  // A LakeVolumeFiles (lake_volume_pipe.h).
  std::shared_ptr<load::VolumeFilesSink> OpenVolumeFiles(const catalog::RoutineLoadDefinition& def,
                                                         int64_t job_id) override;

 private:
  LakeCatalogs& lakes_;
  std::string work_dir_;
};

}  // namespace sluice::lakehouse
