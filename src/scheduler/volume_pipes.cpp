// Volume pipes (CREATE PIPE ... AS COPY INTO t FROM VOLUME vol ...) on the routine load scheduler: a volume pipe is a
// job of kind pipe with one task group and no partitions. Its task lists the volume and loads new files
// (load/volume_pipe_task.h); the group then waits BATCH_INTERVAL_IN_SECONDS before the next listing, or runs again at
// once while files are left. Virtual clusters bound its tasks like those of Kafka pipes.
#include <regex>

#include "catalog/volume_store.h"
#include "common/clock.h"
#include "common/log.h"
#include "load/commit_sink.h"
#include "load/volume_pipe_task.h"
#include "scheduler/job_registry.h"

namespace sluice::scheduler {

using catalog::JobState;

namespace {

// db.table, or catalog.db.table for an Iceberg table.
std::string TargetTableName(const catalog::RoutineLoadDefinition& def) {
  return def.iceberg_target() ? def.TargetName() : def.db + "." + def.table;
}

}  // namespace

Status JobRegistry::CheckVolumePipe(const catalog::RoutineLoadDefinition& def) {
  if (!options_.volumes) return Status::NotSupported("volume pipes need the volume catalog, which this server lacks");
  ASSIGN_OR_RETURN(auto volume, options_.volumes->Resolve(def.pipe->volume->volume));
  (void)volume;
  ASSIGN_OR_RETURN(auto target, load::VolumePipeTarget(def, options_.scratch_dir));  // checks the format's OPTIONS
  (void)target;
  if (def.iceberg_target() && !options_.load_targets)
    return Status::NotSupported("loads into tables of external catalogs are not available in this server");
  if (!def.pipe->volume->regexp.empty()) {
    try {
      std::regex re(def.pipe->volume->regexp, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return Status::InvalidArgument("REGEXP '" + def.pipe->volume->regexp +
                                     "' is not a valid regular expression: " + e.what());
    }
  }
  return Status::Ok();
}

void JobRegistry::ScheduleVolumePipe(std::shared_ptr<JobRuntime> job) {
  catalog::RoutineLoadDefinition def;
  int64_t version;
  {
    std::lock_guard<std::mutex> lock(mu_);
    def = job->stored.def;
    version = job->version;
  }
  Status st = Status::Ok();
  if (def.iceberg_target()) {
    st = CheckVolumePipe(def);
    // The Iceberg table, in its catalog (which may not answer yet after a restart: tried again with backoff).
    if (st.ok()) {
      auto target = options_.load_targets->Open(def);
      if (!target.ok()) st = target.status();
    }
  } else {
    auto table = catalog_.DescribeTable(def.db, def.table);
    st = table.ok() ? CheckVolumePipe(def) : table.status();
  }
  std::lock_guard<std::mutex> lock(mu_);
  job->scheduling = false;
  cv_.notify_all();
  if (job->version != version || job->stored.state != JobState::kNeedSchedule) return;
  job->cluster_ready = st.ok();
  if (!st.ok()) {
    if (st.code() == StatusCode::kUnknownTable || st.code() == StatusCode::kUnknownDatabase) {
      SetStateLocked(*job, JobState::kCancelled, "the target table " + TargetTableName(def) + " was dropped");
    } else if (st.retriable() || job->cluster) {
      // A cluster pipe this node cannot start (its volume, catalog or vcluster is not defined here, or does not
      // answer) is not failed for the whole cluster: this node takes no lease and keeps trying; another runs it.
      job->schedule_backoff_seconds = std::min(options_.max_retry_backoff_seconds,
                                               job->schedule_backoff_seconds <= 0 ? 1.0 : job->schedule_backoff_seconds * 2);
      job->next_schedule_attempt = Clock::now() + Seconds(job->schedule_backoff_seconds);
      job->other_msg = (job->cluster && !st.retriable() ? "this node cannot run the pipe: " : "") + st.message() +
                       "; retrying in " +
                       std::to_string(static_cast<int>(job->schedule_backoff_seconds)) + " s";
      log::Warn("scheduler", "pipe {}.{}: {}", def.db, def.name, job->other_msg);
    } else {
      SetStateLocked(*job, JobState::kPaused, "cannot start the pipe: " + st.message() +
                                                  "; fix the cause, then ALTER PIPE " + def.name +
                                                  " SET PIPE_EXECUTION_PAUSED = false");
    }
    return;
  }
  job->other_msg.clear();
  job->schedule_backoff_seconds = 0;
  if (job->cluster && job->leases.empty()) {
    // Another node runs it (or none yet: this node's cluster thread tries to take its lease next tick). RUNNING in
    // the cluster, with no task here.
    job->groups.clear();
    job->stored.state = JobState::kRunning;
    job->stored.reason.clear();
    PersistLocked(*job);
    return;
  }
  auto first_run = Clock::now();
  int64_t wait_ms = job->stored.create_time_ms + def.pipe->initial_delay_seconds * 1000 - WallClockMs();
  if (wait_ms > 0) first_run += std::chrono::milliseconds(wait_ms);
  job->groups.clear();
  auto g = std::make_shared<TaskGroup>();
  g->next_run = first_run;
  job->groups.push_back(g);
  job->other_msg.clear();
  job->schedule_backoff_seconds = 0;
  job->stored.state = JobState::kRunning;
  job->stored.reason.clear();
  PersistLocked(*job);
  log::Info("scheduler", "pipe {}.{} running: volume {} ({})", def.db, def.name, def.pipe->volume->volume,
            def.pipe->volume->ingest_mode);
}

void JobRegistry::RunVolumeTask(std::shared_ptr<JobRuntime> job, std::shared_ptr<TaskGroup> group, int64_t version,
                                storage::Connection& con) {
  catalog::RoutineLoadDefinition def;
  {
    std::lock_guard<std::mutex> lock(mu_);
    def = job->stored.def;
  }
  auto still_current = [&] {
    std::lock_guard<std::mutex> lock(mu_);
    return !stopping_ && job->version == version && job->stored.state == JobState::kRunning &&
           std::find(job->groups.begin(), job->groups.end(), group) != job->groups.end();
  };
  Result<load::VolumePipeTaskResult> outcome = Status::Internal("the task did not run");
  auto volume = options_.volumes ? options_.volumes->Resolve(def.pipe->volume->volume)
                                 : Result<catalog::ResolvedVolume>(Status::NotSupported("no volume catalog"));
  const auto task_started = Clock::now();
  auto target = load::VolumePipeTarget(def, options_.scratch_dir);
  // Into an Iceberg table, the task's files commit through the table's sink (one snapshot per task).
  std::shared_ptr<load::VolumeFilesSink> files_sink;
  if (def.iceberg_target() && options_.load_targets)
    files_sink = options_.load_targets->OpenVolumeFiles(def, job->stored.id);
  // A cluster pipe commits only while this node still holds its lease at the epoch it was scheduled under.
  if (files_sink && job->cluster) files_sink->set_commit_fence([this, job] { return FencePipeTask(*job); });
  if (target.ok() && target->continue_on_error && !def.iceberg_target()) {
    // Read at each task, so a task after ALTER TABLE checks the table as it is; an unknown table is the task's
    // own error.
    if (auto table = catalog_.DescribeTable(def.db, def.table); table.ok())
      target->row_checks = load::VolumeRowChecksFor(*table);
  }
  if (!volume.ok()) outcome = volume.status();
  else if (!target.ok()) outcome = target.status();
  else if (def.iceberg_target() && !files_sink) outcome = Status::NotSupported("no Iceberg load targets");
  else outcome = load::RunVolumePipeTask(con, *volume, *def.pipe->volume, *target, load::VolumePipeLimits{},
                                         still_current, files_sink.get());

  std::lock_guard<std::mutex> lock(mu_);
  bool replaced = EndTaskLocked(*job, group);
  if (outcome.ok()) {
    job->pending_files = outcome->pending_files;
    job->pending_bytes = outcome->pending_bytes;
    job->last_listing_ms = WallClockMs();
    if (outcome->loaded_files > 0) {
      job->last_loaded_file = outcome->last_file;
      job->last_load_ms = outcome->last_load_ms;
    }
    // Each file commits on its own; a task that loaded any counts as committed.
    JobActivity& a = job->activity;
    a.files_loaded += outcome->loaded_files;
    a.files_failed += outcome->failed_files;
    a.rows_loaded += outcome->rows_loaded;
    a.rows_error += outcome->error_rows;
    if (outcome->loaded_files > 0) {
      a.tasks_committed++;
      a.commit_seconds.Observe(std::chrono::duration<double>(Clock::now() - task_started).count());
      a.batch_rows.Observe(static_cast<double>(outcome->rows_loaded + outcome->error_rows));
      a.last_commit_ms = WallClockMs();
    }
    if (outcome->failed_files > 0 && outcome->loaded_files == 0) a.tasks_aborted++;
  } else {
    job->activity.tasks_aborted++;
  }
  if (replaced || job->version != version || job->stored.state != JobState::kRunning) return;

  auto now = Clock::now();
  double interval = def.DoubleProperty("max_batch_interval");
  if (!outcome.ok()) {
    const Status& st = outcome.status();
    if (StorageFailureLocked(*job, st)) return;
    if (st.retriable()) {
      group->backoff_seconds = std::min(options_.max_retry_backoff_seconds,
                                        group->backoff_seconds <= 0 ? 1.0 : group->backoff_seconds * 2);
      group->next_run = now + Seconds(group->backoff_seconds);
      group->message = st.message() + "; retrying in " + std::to_string(static_cast<int>(group->backoff_seconds)) + " s";
      job->other_msg = group->message;
      log::Warn("scheduler", "pipe {}: {}", def.name, group->message);
    } else if (st.code() == StatusCode::kUnknownTable || st.code() == StatusCode::kUnknownDatabase) {
      SetStateLocked(*job, JobState::kCancelled, "the target table " + TargetTableName(def) + " was dropped");
    } else if (st.code() == StatusCode::kAccessDenied) {
      // Refused credentials do not heal by retrying (and retrying floods the store's audit log): the pipe fails
      // until someone fixes the connection or the bucket's policy and resumes it.
      SetStateLocked(*job, JobState::kPaused,
                     "object storage refused access: " + st.message() + ". Once fixed (a new connection: DROP VOLUME, "
                     "DROP STORAGE CONNECTION, CREATE both again with the same names), ALTER PIPE " + def.name +
                         " SET PIPE_EXECUTION_PAUSED = false");
    } else {
      SetStateLocked(*job, JobState::kPaused, "task failed: " + st.message() + "; fix the cause, then ALTER PIPE " +
                                                  def.name + " SET PIPE_EXECUTION_PAUSED = false");
    }
    return;
  }
  const load::VolumePipeTaskResult& r = *outcome;
  group->backoff_seconds = 0;
  if (job->other_msg.find("retrying") != std::string::npos) job->other_msg.clear();
  if (!r.failure.empty()) {
    // The files that did load stay loaded.
    PipeBatchFailedLocked(*job, *group, r.failure, "could not load every file",
                          "Fix or remove the file, or use ON_ERROR = CONTINUE", "retrying in", interval, now);
    return;
  }
  job->failed_batches = 0;
  if (!r.purge_failure.empty()) {
    // The loads committed; the file stays with its load record and is deleted by a later listing. Shown as
    // last_error while it lasts (it says "retrying"), cleared by the next task that has nothing to report.
    job->other_msg = r.purge_failure + "; retrying at the next listing";
  }
  group->message = "loaded " + std::to_string(r.loaded_files) + " file(s), " + std::to_string(r.rows_loaded) +
                   " row(s); " + std::to_string(r.pending_files) + " file(s) pending";
  group->next_run = r.more ? now : now + Seconds(interval);
}

}  // namespace sluice::scheduler
