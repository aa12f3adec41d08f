// What monitoring reads of the jobs (GET /metrics, the JSON API): copies of the scheduler's memory, made under the
// registry's lock without any DuckDB or Kafka call, and the activity counters tasks add to when they end.
#include <algorithm>

#include "common/clock.h"
#include "scheduler/job_registry.h"

namespace sluice::scheduler {

using catalog::JobState;

const std::vector<std::string>& PossibleStates(const std::string& kind) {
  static const std::vector<std::string> routine = {"NEED_SCHEDULE", "RUNNING", "PAUSED", "STOPPED", "CANCELLED"};
  static const std::vector<std::string> pipe = {"RUNNING", "SUSPENDED", "FAILED"};
  return kind == "routine_load" ? routine : pipe;
}

std::string JobStatusName(const catalog::StoredJob& s) {
  return s.def.pipe ? PipeStatusOf(s) : std::string(catalog::JobStateName(s.state));
}

std::string ReasonClass(JobState state, const std::string& reason) {
  auto has = [&](const char* text) { return reason.find(text) != std::string::npos; };
  if (reason.empty()) return state == JobState::kNeedSchedule ? "scheduled" : "other";
  if (IsStoragePauseReason(reason)) return "storage";
  if (has("by the user") || has("PIPE_EXECUTION_PAUSED = true") || has("DROP PIPE")) return "user";
  if (has("was dropped")) return "table_dropped";
  if (has("error rows") || has("max_filter_ratio") || has("max_error_number") || has("could not be parsed") ||
      has("were not committed") || has("could not load every file"))
    return "error_rows";
  if (has("task failed")) return "task_failed";
  if (has("topic") || has("partition") || has("offset") || has("Kafka") || has("kafka") || has("object storage") ||
      has("volume"))
    return "source";
  return "other";
}

void JobRegistry::RecordTaskLocked(JobRuntime& job, const Result<load::TaskResult>& outcome, double seconds) {
  JobActivity& a = job.activity;
  if (!outcome.ok()) {
    if (outcome.status().code() != StatusCode::kConflict) a.tasks_aborted++;
    return;
  }
  const load::TaskResult& r = *outcome;
  if (!r.committed) {
    if (r.had_data) a.tasks_aborted++;
    return;
  }
  a.rows_loaded += r.counts.loaded_rows;
  a.rows_filtered += r.counts.unselected_rows;
  a.rows_error += r.counts.error_rows;
  a.read_bytes += r.counts.received_bytes;
  a.tasks_committed++;
  a.commit_seconds.Observe(seconds);
  a.batch_rows.Observe(static_cast<double>(r.total_rows));
  a.last_commit_ms = WallClockMs();
  for (const auto& [p, o] : r.next_offsets) a.next_offsets[p] = o;
}

std::vector<JobStatus> JobRegistry::Statuses(bool definitions) {
  std::vector<JobStatus> out;
  const int64_t now_ms = WallClockMs();
  std::lock_guard<std::mutex> lock(mu_);
  out.reserve(jobs_.size());
  for (const auto& [id, job] : jobs_) {
    const catalog::StoredJob& s = job->stored;
    const catalog::RoutineLoadDefinition& d = s.def;
    if (d.pipe && s.state == JobState::kStopped) continue;  // a dropped pipe
    JobStatus st;
    st.id = s.id;
    st.kind = !d.pipe ? "routine_load" : d.pipe->volume ? "volume_pipe" : "pipe";
    st.db = d.db;
    st.name = d.name;
    st.table = d.table;
    st.target_db = d.iceberg_target() ? d.lake_catalog + "." + d.lake_db : d.db;
    // A cluster job: its state in the cluster, as SHOW ROUTINE LOAD shows it (not this node's regrouping).
    if (job->cluster) {
      catalog::StoredJob shared = s;
      shared.state = job->shared_state;
      st.state = JobStatusName(shared);  // a pipe's status (RUNNING, SUSPENDED, FAILED) from that state
    } else {
      st.state = JobStatusName(s);
    }
    st.reason = s.reason;
    st.reason_class = ReasonClass(s.state, s.reason);
    st.other_msg = job->ShownOtherMsg();
    st.creator = d.pipe ? d.pipe->creator : "";
    st.create_time_ms = s.create_time_ms;
    st.pause_time_ms = s.pause_time_ms;
    st.end_time_ms = s.end_time_ms;
    st.activity = job->activity;
    st.activity.next_offsets.clear();
    for (const auto& g : job->groups) {
      if (g->running) st.current_tasks++;
      JobTaskStatus t;
      t.task_id = g->task_id;
      t.status = g->running ? "RUNNING" : g->last_txn_status;
      t.started_ms = g->execute_start_ms;
      t.message = g->message;
      t.partitions = g->partitions;
      st.tasks.push_back(std::move(t));
    }
    if (d.pipe && d.pipe->volume) {
      st.pending_files = job->pending_files;
      st.pending_bytes = job->pending_bytes;
      st.last_listing_ms = job->last_listing_ms;
      st.last_load_ms = job->last_load_ms;
      st.last_loaded_file = job->last_loaded_file;
      if (job->last_listing_ms > 0) {
        int64_t since = job->last_load_ms > 0 ? job->last_load_ms : s.create_time_ms;
        st.freshness_seconds = job->pending_files > 0 ? std::max<int64_t>(0, now_ms - since) / 1000.0 : 0;
      }
    } else {
      std::vector<int32_t> parts = job->current_partitions.empty() ? d.partitions : job->current_partitions;
      // Paused since before a restart, the job never learned its partitions; its lag refresh knows them.
      if (parts.empty())
        for (const auto& [p, high] : job->latest_offsets) parts.push_back(p);
      bool all_known = !parts.empty();
      double freshness = 0;
      for (int32_t p : parts) {
        JobPartitionStatus ps;
        ps.partition = p;
        if (auto it = job->activity.next_offsets.find(p); it != job->activity.next_offsets.end())
          ps.next_offset = it->second;
        if (auto it = job->latest_offsets.find(p); it != job->latest_offsets.end()) ps.high_watermark = it->second;
        if (auto it = job->last_timestamp_ms.find(p); it != job->last_timestamp_ms.end())
          ps.last_message_ms = it->second;
        if (ps.next_offset >= 0 && ps.high_watermark >= 0) ps.lag = std::max<int64_t>(0, ps.high_watermark - ps.next_offset);
        // The oldest message not loaded came after the last one loaded: its age is at most that one's.
        if (ps.lag > 0) {
          int64_t since = ps.last_message_ms > 0 ? ps.last_message_ms : s.create_time_ms;
          freshness = std::max(freshness, std::max<int64_t>(0, now_ms - since) / 1000.0);
        }
        if (ps.lag < 0) all_known = false;
        st.partitions.push_back(ps);
      }
      if (all_known || freshness > 0) st.freshness_seconds = freshness;
    }
    if (definitions) st.definition = d.pipe ? d.pipe->copy_statement : catalog::RenderCreateRoutineLoad(d);
    out.push_back(std::move(st));
  }
  return out;
}

std::vector<JobStatus> RoutineLoadManager::Statuses(bool definitions) { return jobs_->Statuses(definitions); }

uint64_t RoutineLoadManager::KafkaMetadataRequests() const { return jobs_->kafka_metadata_requests(); }

}  // namespace sluice::scheduler
