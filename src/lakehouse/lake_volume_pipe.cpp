#include "lakehouse/lake_volume_pipe.h"

#include "catalog/volume_store.h"
#include "common/log.h"
#include "lakehouse/lake_append.h"
#include "lakehouse/lake_volume_copy.h"

namespace sluice::lakehouse {

std::string PipeFilesSummaryKey(int64_t job_id) { return kFilesSummaryPrefix + std::to_string(job_id); }

Result<std::set<std::string>> LakeVolumeFiles::LoadedFiles(storage::Connection& con,
                                                           const catalog::ResolvedVolume& volume,
                                                           const load::VolumeLoadTarget& target) {
  ASSIGN_OR_RETURN(auto conn, lakes_.Connect(target_.catalog));
  ASSIGN_OR_RETURN(iceberg::LoadedTable table, LoadLakeTable(*conn, target_));
  // The table first: what it holds of this pipe and the local records lack is recorded now.
  if (Status st = RecordMissingFileLoads(con, table.metadata, PipeFilesSummaryKey(job_id_), target); !st.ok())
    log::Warn("pipe", "pipe {}: could not record the files a commit to {} holds: {}", pipe_, target_.ToString(),
              st.message());
  ASSIGN_OR_RETURN(std::set<std::string> loaded, FilesInTableHistory(table.metadata));
  ASSIGN_OR_RETURN(std::set<std::string> recorded,
                   catalog::VolumeStore::LoadedFileKeys(con, volume.location.url, target_.ToString()));
  loaded.insert(recorded.begin(), recorded.end());
  return loaded;
}

Result<std::vector<load::CommittedFile>> LakeVolumeFiles::CommittedFiles() {
  ASSIGN_OR_RETURN(auto conn, lakes_.Connect(target_.catalog));
  ASSIGN_OR_RETURN(iceberg::LoadedTable table, LoadLakeTable(*conn, target_));
  return CommittedFilesOf(table.metadata, PipeFilesSummaryKey(job_id_));
}

Result<load::VolumeFilesCommit> LakeVolumeFiles::Commit(storage::Connection& con, source::VolumeReader& reader,
                                                        const catalog::ResolvedVolume& volume,
                                                        const std::vector<source::VolumeFile>& files,
                                                        const load::VolumeLoadTarget& target,
                                                        const std::function<bool(size_t)>& keep_going,
                                                        const std::function<bool()>& still_current) {
  ASSIGN_OR_RETURN(auto conn, lakes_.Connect(target_.catalog));
  LakeFilesRequest request;
  request.what = "pipe " + pipe_;
  request.files_key = PipeFilesSummaryKey(job_id_);
  request.extra_summary["sluice.job"] = pipe_;
  request.stop_at_failed_file = false;
  request.listing_task = true;
  request.keep_going = keep_going;
  request.still_current = still_current;
  request.fence = fence_;
  auto committed = CommitVolumeFiles(*conn, con, target_, reader, volume, files, target, request, work_dir_);
  // Other writers kept winning the catalog's compare-and-swap, or kept committing the same files: nothing of the
  // task committed, and the next task (after a backoff) lists and tries again.
  // A fence that failed is a Conflict too: retried the same way, while the cluster thread sees the lease gone and
  // regroups the pipe (the retry then is no longer current).
  if (!committed.ok() && committed.status().code() == StatusCode::kConflict && still_current())
    return Status::Unavailable(committed.status().message());
  return committed;
}

}  // namespace sluice::lakehouse
