// Jobs and the database's health: while the database cannot take writes (a full disk, or DuckDB stopped it after
// a failed write) no task starts, every live job is paused with the reason, and the jobs paused so resume by
// themselves once writes can succeed again. A task is atomic (rows and progress in one transaction), so a
// paused job loses nothing: it continues from its committed progress.
//
// A cluster job paused so is paused on this node only (nothing is written to PostgreSQL): not live here, it is not
// among the job's members, and the cluster thread releases its leases at its next tick, so the other nodes take its
// partitions (or its volume pipe) at theirs. Once the disk has room it is scheduled again here, still without a
// write (the cluster's state may have changed meanwhile: the next sync applies it), and takes its share again.
#include <string>

#include "common/log.h"
#include "scheduler/job_registry.h"
#include "storage/database.h"

namespace sluice::scheduler {

using catalog::JobState;

bool IsStoragePauseReason(const std::string& reason) {
  return reason.rfind(kDiskFullReasonPrefix, 0) == 0 || reason.rfind(kDatabaseStoppedReasonPrefix, 0) == 0;
}

void JobRegistry::PauseForStorageLocked(JobRuntime& job, const std::string& reason) {
  // Not written to the catalog: the disk is full, and a restart re-checks the disk before any task runs anyway.
  SetStateLocked(job, JobState::kPaused, reason, /*persist=*/false);
  job.paused_for_storage = true;
}

bool JobRegistry::StorageFailureLocked(JobRuntime& job, const Status& st) {
  std::string blocker = db_.health().WriteBlocker();
  if (blocker.empty() && st.code() != StatusCode::kDiskFull) return false;
  PauseForStorageLocked(job, blocker.empty() ? st.message() : blocker);
  return true;
}

void JobRegistry::GateOnStorageLocked() {
  const std::string blocker = db_.health().WriteBlocker();
  if (!blocker.empty()) {
    int paused = 0;
    for (auto& [id, job] : jobs_) {
      JobState state = job->stored.state;
      if (state == JobState::kRunning || state == JobState::kNeedSchedule) {
        PauseForStorageLocked(*job, blocker);
        paused++;
      } else if (job->paused_for_storage && job->stored.reason != blocker) {
        job->stored.reason = blocker;  // keep the free space it shows current
      }
    }
    if (paused > 0) log::Warn("scheduler", "paused {} job(s): {}", paused, blocker);
    return;
  }
  int resumed = 0;
  for (auto& [id, job] : jobs_) {
    if (!job->paused_for_storage || job->stored.state != JobState::kPaused) continue;
    job->window_rows = job->window_errors = 0;
    job->other_msg.clear();
    // A cluster job's pause was never written: writing NEED_SCHEDULE now could undo a PAUSE made on another node.
    SetStateLocked(*job, JobState::kNeedSchedule, "", /*persist=*/!job->cluster);
    resumed++;
  }
  if (resumed > 0) log::Info("scheduler", "the database takes writes again: resumed {} job(s)", resumed);
}

}  // namespace sluice::scheduler
