#pragma once
// Volume pipes into Iceberg tables (CREATE PIPE p AS COPY INTO catalog.db.t FROM VOLUME v ...): the sink their
// tasks commit through (load::VolumeFilesSink). Each task's new files go into ONE snapshot whose summary lists them
// under `sluice.files.<pipe id>` (and `sluice.job` = db.pipe), by CommitVolumeFiles, the commit one-shot COPY INTO
// makes (lake_volume_copy.h). The table is the truth, as the snapshot summary's offsets are for Kafka pipes: a file
// is loaded when the table's history lists it under any `sluice.files.*` key (or the local records have it, for
// snapshots expire_snapshots removed). The local records (volume_loads, load_history: SHOW, DESC PIPE, PIPE_FILES)
// are written after the commit; each task first writes those a crash right after a commit left out
// (RecordMissingFileLoads).
#include <memory>
#include <set>
#include <string>

#include "lakehouse/lake_catalogs.h"
#include "load/volume_pipe_task.h"

namespace sluice::lakehouse {

// "sluice.files.<job id>"
std::string PipeFilesSummaryKey(int64_t job_id);

class LakeVolumeFiles final : public load::VolumeFilesSink {
 public:
  // `pipe` is db.name, for the summary's sluice.job and the log.
  LakeVolumeFiles(LakeCatalogs& lakes, LakeTableRef target, int64_t job_id, std::string pipe, std::string work_dir)
      : lakes_(lakes), target_(std::move(target)), job_id_(job_id), pipe_(std::move(pipe)),
        work_dir_(std::move(work_dir)) {}
  std::string Describe() const override { return "Iceberg table " + target_.ToString(); }
  Result<std::set<std::string>> LoadedFiles(storage::Connection& con, const catalog::ResolvedVolume& volume,
                                            const load::VolumeLoadTarget& target) override;
  Result<load::VolumeFilesCommit> Commit(storage::Connection& con, source::VolumeReader& reader,
                                         const catalog::ResolvedVolume& volume,
                                         const std::vector<source::VolumeFile>& files,
                                         const load::VolumeLoadTarget& target,
                                         const std::function<bool(size_t)>& keep_going,
                                         const std::function<bool()>& still_current) override;
  // From the table's current ancestry: the files listed under sluice.files.<pipe id> (CommittedFilesOf).
  Result<std::vector<load::CommittedFile>> CommittedFiles() override;

 private:
  LakeCatalogs& lakes_;
  LakeTableRef target_;
  int64_t job_id_;
  std::string pipe_;
  std::string work_dir_;
};

}  // namespace sluice::lakehouse
