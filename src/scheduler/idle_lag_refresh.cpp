// Lag of jobs that are not running. A running job's tasks keep its high watermarks current; a PAUSED or
// NEED_SCHEDULE job has no task, so without this its LatestSourcePosition / OffsetLag (SHOW ROUTINE LOAD,
// /metrics, /api/jobs) would stay frozen at what its last task saw while messages pile up on the topic -- and
// "lag grows while paused" is what users alert on. A thread of its own asks the shared metadata client (one
// ListOffsets per leader) every kIdleLagRefreshInterval, so neither the scheduling loop nor a task ever waits on it.
#include <algorithm>

#include "common/log.h"
#include "scheduler/job_registry.h"

namespace sluice::scheduler {

using catalog::JobState;

namespace {

constexpr auto kIdleLagRefreshInterval = std::chrono::seconds(10);
constexpr auto kIdleLagTimeout = std::chrono::milliseconds(2000);

bool RefreshesIdleLag(const JobRuntime& job) {
  const auto& def = job.stored.def;
  if (def.pipe && def.pipe->volume) return false;  // no partitions, no offsets
  return job.stored.state == JobState::kPaused || job.stored.state == JobState::kNeedSchedule;
}

}  // namespace

void JobRegistry::IdleLagLoop() {
  struct Idle {
    std::shared_ptr<JobRuntime> job;
    int64_t version;
    catalog::RoutineLoadDefinition def;
    std::vector<int32_t> partitions;  // empty: those with committed progress
  };
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, kIdleLagRefreshInterval, [this] { return stopping_; });
    if (stopping_) break;
    std::vector<Idle> idle;
    for (auto& [id, job] : jobs_) {
      if (!RefreshesIdleLag(*job)) continue;
      idle.push_back({job, job->version, job->stored.def,
                      job->current_partitions.empty() ? job->stored.def.partitions : job->current_partitions});
    }
    lock.unlock();
    // Jobs on the same topic share one answer of this round.
    const auto round = std::chrono::steady_clock::now();
    for (auto& j : idle) {
      // The committed offsets too: after a restart a paused job has run no task, so /metrics would not know them.
      std::map<int32_t, int64_t> committed;
      if (auto progress = store_->ReadProgress(j.job->stored.id); progress.ok())
        for (const auto& [p, pp] : *progress)
          if (pp.next_offset >= 0) committed[p] = pp.next_offset;
      if (j.partitions.empty())
        for (const auto& [p, o] : committed) j.partitions.push_back(p);
      if (j.partitions.empty()) continue;  // nothing resolved yet: there is no lag to show
      auto highs = kafka_metadata_.HighWatermarks(SourceConfig(j.def), j.partitions, kIdleLagTimeout, round);
      if (!highs.ok()) {
        log::Debug("scheduler", "{} {}: refreshing the lag of a job that is not running: {}", JobKind(j.def),
                   j.def.name, highs.status().message());
        continue;
      }
      std::lock_guard<std::mutex> relock(mu_);
      // Resumed, altered or stopped meanwhile: its tasks (or nobody) own these numbers now.
      if (stopping_ || j.job->version != j.version || !RefreshesIdleLag(*j.job)) continue;
      for (const auto& [p, h] : *highs) j.job->latest_offsets[p] = h;
      for (const auto& [p, o] : committed) j.job->activity.next_offsets.try_emplace(p, o);
    }
    lock.lock();
  }
}

}  // namespace sluice::scheduler
