#include "lakehouse/iceberg_sink.h"

#include <nlohmann/json.hpp>

#include "common/ascii.h"
#include "common/log.h"
#include "common/test_points.h"
#include "iceberg/table_operations.h"
#include "iceberg/types.h"
#include "lakehouse/job_statistics.h"
#include "lakehouse/lake_append.h"
#include "lakehouse/lake_volume_pipe.h"
#include "load/task_plan.h"
#include "sql/lexer.h"
#include "sql/parser.h"

namespace sluice::lakehouse {

namespace {

std::string OffsetsText(const std::map<int32_t, int64_t>& offsets) {
  std::string out;
  for (const auto& [p, o] : offsets) out += (out.empty() ? "" : ", ") + std::to_string(p) + ":" + std::to_string(o);
  return out;
}

}  // namespace

std::string OffsetsSummaryKey(int64_t job_id) { return "sluice.offsets." + std::to_string(job_id); }

std::string OffsetsJson(const std::map<int32_t, int64_t>& offsets) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [p, o] : offsets) j[std::to_string(p)] = o;
  return j.dump();
}

Result<std::optional<std::map<int32_t, int64_t>>> ReadJobOffsets(const iceberg::TableMetadata& metadata,
                                                                 int64_t job_id) {
  auto value = iceberg::ReadSummaryChain(metadata, OffsetsSummaryKey(job_id));
  if (!value) return std::optional<std::map<int32_t, int64_t>>();
  std::map<int32_t, int64_t> out;
  try {
    nlohmann::json j = nlohmann::json::parse(value->value);
    for (const auto& [k, v] : j.items()) out[static_cast<int32_t>(std::stol(k))] = v.get<int64_t>();
  } catch (const std::exception& e) {
    return Status::Internal("snapshot " + std::to_string(value->snapshot_id) + " holds " +
                            OffsetsSummaryKey(job_id) + " = '" + value->value + "', which is not a JSON object of "
                            "partition -> offset (" + e.what() + ")");
  }
  return std::optional<std::map<int32_t, int64_t>>(std::move(out));
}

Result<std::optional<std::map<int32_t, int64_t>>> IcebergSink::CommittedOffsets(int64_t job_id) {
  ASSIGN_OR_RETURN(auto conn, lakes_.Connect(target_.catalog));
  ASSIGN_OR_RETURN(iceberg::LoadedTable table, LoadLakeTable(*conn, target_));
  return ReadJobOffsets(table.metadata, job_id);
}

Result<load::CommittedJobState> IcebergSink::CommittedState(int64_t job_id) {
  ASSIGN_OR_RETURN(auto conn, lakes_.Connect(target_.catalog));
  ASSIGN_OR_RETURN(iceberg::LoadedTable table, LoadLakeTable(*conn, target_));
  load::CommittedJobState state;
  ASSIGN_OR_RETURN(state.offsets, ReadJobOffsets(table.metadata, job_id));
  ASSIGN_OR_RETURN(state.totals, ReadJobStatistics(table.metadata, job_id));
  return state;
}

Status IcebergSink::Commit(storage::Connection& con, const load::TaskPlan& plan, const load::SinkCommit& commit,
                           load::TaskBookkeeping& book, bool* committed) {
  if (!book.StillCurrent()) return Status::Conflict("the job moved on while the task ran; its rows are not committed");
  // The batch's accounting first: a batch over max_filter_ratio is never uploaded.
  RETURN_IF_ERROR(book.Account(con, -1));
  const auto& loaded = plan.transform.loaded_columns;
  if (loaded.empty()) return Status::InvalidArgument("the load fills no column of " + target_.ToString());
  std::string cols;
  for (const auto& c : loaded) cols += (cols.empty() ? "" : ", ") + sql::QuoteIdentifier(c);
  const std::string key = OffsetsSummaryKey(commit.job_id);
  ASSIGN_OR_RETURN(auto conn, lakes_.Connect(target_.catalog));

  AppendRequest request;
  request.query = "SELECT " + cols + " FROM " + commit.transform + " WHERE __sluice_error IS NULL AND __sluice_selected";
  request.columns = loaded;
  // Offsets must advance even past a batch whose rows were all filtered or rejected.
  request.commit_when_empty = true;
  request.after_stage = [] { return TestPoint("iceberg_load.after_upload"); };
  request.prepare = [&](const iceberg::LoadedTable& base) -> Result<FencedCommit> {
    ASSIGN_OR_RETURN(auto in_table, ReadJobOffsets(base.metadata, commit.job_id));
    std::map<int32_t, int64_t> merged = in_table.value_or(std::map<int32_t, int64_t>{});
    for (const auto& [p, from] : *commit.from) {
      auto it = merged.find(p);
      if (it != merged.end() && it->second != from)
        return Status::Conflict("partition " + std::to_string(p) + " is at offset " + std::to_string(it->second) +
                                " in " + target_.ToString() + ", not at " + std::to_string(from) +
                                " where the task started: another task already committed it");
    }
    if (!book.StillCurrent()) return Status::Conflict("the job moved on while the task ran; its rows are not committed");
    // A cluster job: the task's leases are still this node's (checked before every attempt, so also after a
    // rebase), and their epochs go into the summary beside the offsets.
    // When the catalog's database is the cluster's, the same checks run again inside the swap (AppendRows): a node
    // that stalls between here and the swap while its partitions are taken over cannot commit at all.
    ASSIGN_OR_RETURN(FencedCommit fenced, book.Fence());
    RETURN_IF_ERROR(TestPoint("iceberg_load.after_fence"));
    for (const auto& [p, to] : *commit.to) merged[p] = to;
    fenced.summary[key] = OffsetsJson(merged);
    // The job's totals on the version this attempt lands on, plus this task: exact whichever node commits next.
    ASSIGN_OR_RETURN(auto totals, ReadJobStatistics(base.metadata, commit.job_id));
    fenced.summary[StatisticsSummaryKey(commit.job_id)] =
        StatisticsJson(AddTask(totals.value_or(catalog::PartitionProgress{}), book.counts()));
    fenced.summary["sluice.job"] = plan.def.db + "." + plan.def.name;
    return fenced;
  };
  ASSIGN_OR_RETURN(AppendOutcome outcome, AppendRows(*conn, target_, con, request, work_dir_));
  *committed = true;
  log::Debug("load", "job {}: committed {} rows to {} (snapshot {}), offsets {}", commit.job_id, outcome.rows,
             target_.ToString(), outcome.snapshot_id, OffsetsText(*commit.to));
  RETURN_IF_ERROR(TestPoint("iceberg_load.after_commit"));
  // The table holds the truth now; the progress row is its cache (SHOW ROUTINE LOAD, lag), written with the task's
  // records. If this fails, the next task reads the offsets from the table and the cache follows.
  Status local = storage::InTransaction(con, [&]() -> Status {
    RETURN_IF_ERROR(catalog::RoutineLoadStore::AdvanceProgress(con, commit.job_id, *commit.from, *commit.to,
                                                               book.counts()));
    return book.RecordLocal(con);
  });
  if (!local.ok())
    log::Warn("load", "job {}: committed to {}, but its local progress and records were not written: {}",
              commit.job_id, target_.ToString(), local.message());
  return Status::Ok();
}

Result<load::LoadTarget> IcebergLoadTargets::Open(const catalog::RoutineLoadDefinition& def) {
  LakeTableRef ref{def.lake_catalog, def.lake_db, def.table};
  ASSIGN_OR_RETURN(auto conn, lakes_.Connect(ref.catalog));
  ASSIGN_OR_RETURN(iceberg::LoadedTable table, LoadLakeTable(*conn, ref));
  load::LoadTarget target;
  target.table = LakeTableMeta(ref, *table.metadata.CurrentSchema());
  target.sink = std::make_shared<IcebergSink>(lakes_, std::move(ref), work_dir_);
  return target;
}

std::shared_ptr<load::VolumeFilesSink> IcebergLoadTargets::OpenVolumeFiles(const catalog::RoutineLoadDefinition& def,
                                                                           int64_t job_id) {
  return std::make_shared<LakeVolumeFiles>(lakes_, LakeTableRef{def.lake_catalog, def.lake_db, def.table}, job_id,
                                           def.db + "." + def.name, work_dir_);
}

}  // namespace sluice::lakehouse
