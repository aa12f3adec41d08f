#include "metrics/render.h"

#include <algorithm>
#include <functional>

namespace sluice::metrics {

namespace {

// Each job's kind/db/job_name/table labels, escaped once per scrape.
struct Rendered {
  const std::vector<JobSample>& jobs;
  std::vector<std::string> labels;
  explicit Rendered(const std::vector<JobSample>& j) : jobs(j) {
    labels.reserve(jobs.size());
    for (const auto& job : jobs)
      labels.push_back(Exposition::RenderLabels(
          {{"kind", job.kind}, {"db", job.db}, {"job_name", job.name}, {"table", job.table}}));
  }
};

using JobValue = std::function<double(const JobSample&)>;

void PerJob(Exposition& out, const Rendered& r, const char* name, MetricType type, const char* help,
            const JobValue& value, bool volume_only = false) {
  out.Family(name, type, help);
  for (size_t i = 0; i < r.jobs.size(); ++i) {
    if (volume_only && !r.jobs[i].volume) continue;
    out.SampleRendered(r.labels[i], value(r.jobs[i]));
  }
}

void ServerFamilies(Exposition& out, const ServerSample& s) {
  out.Family("sluice_uptime_seconds", MetricType::kGauge, "Seconds since the server started.");
  out.Sample({}, s.uptime_seconds);
  out.Family("sluice_connections", MetricType::kGauge, "MySQL-protocol connections open now.");
  out.Sample({}, static_cast<double>(s.connections_open));
  out.Family("sluice_connections_total", MetricType::kCounter, "MySQL-protocol connections accepted.");
  out.Sample({}, static_cast<double>(s.connections_total));
  out.Family("sluice_sessions", MetricType::kGauge, "Logged-in sessions open now.");
  out.Sample({}, static_cast<double>(s.sessions_open));
  out.Family("sluice_queries_total", MetricType::kCounter,
             "Statements received, by kind (the statement's first keyword, or the protocol command).");
  for (const auto& [kind, n] : s.queries_by_kind) out.Sample({{"kind", kind}}, static_cast<double>(n));
  out.Family("sluice_errors_total", MetricType::kCounter, "Errors sent to MySQL clients, by MySQL error code.");
  for (const auto& [code, n] : s.errors_by_code) {
    std::string text = std::to_string(code);
    out.Sample({{"code", text}}, static_cast<double>(n));
  }
  out.Family("sluice_duckdb_file_size_bytes", MetricType::kGauge, "Size of the DuckDB database file.");
  out.Sample({}, static_cast<double>(s.duckdb_file_bytes));
  out.Family("sluice_duckdb_wal_size_bytes", MetricType::kGauge, "Size of the DuckDB write-ahead log.");
  out.Sample({}, static_cast<double>(s.duckdb_wal_bytes));
  if (s.duckdb_memory_bytes >= 0) {
    out.Family("sluice_duckdb_memory_bytes", MetricType::kGauge, "Memory DuckDB's buffer manager holds.");
    out.Sample({}, static_cast<double>(s.duckdb_memory_bytes));
  }
  out.Family("sluice_kafka_metadata_requests_total", MetricType::kCounter,
             "Metadata and ListOffsets requests sent for all jobs together: partition checks, idle jobs' checks for "
             "new data (one per topic and max_batch_interval, shared by the jobs reading it), starting offsets.");
  out.Sample({}, static_cast<double>(s.kafka_metadata_requests));
  // The names every Prometheus client library uses for its process, so standard dashboards find them.
  const ProcessSample& p = s.process;
  out.Family("process_cpu_seconds_total", MetricType::kCounter, "User and system CPU time of the process.");
  out.Sample({}, p.cpu_seconds);
  out.Family("process_resident_memory_bytes", MetricType::kGauge, "Resident memory of the process.");
  out.Sample({}, static_cast<double>(p.resident_bytes));
  out.Family("process_virtual_memory_bytes", MetricType::kGauge, "Virtual memory of the process.");
  out.Sample({}, static_cast<double>(p.virtual_bytes));
  out.Family("process_threads", MetricType::kGauge, "Threads of the process.");
  out.Sample({}, static_cast<double>(p.threads));
  out.Family("process_open_fds", MetricType::kGauge, "Open file descriptors of the process.");
  out.Sample({}, static_cast<double>(p.open_fds));
  out.Family("process_max_fds", MetricType::kGauge, "Limit of open file descriptors.");
  out.Sample({}, static_cast<double>(p.max_fds));
  out.Family("process_start_time_seconds", MetricType::kGauge, "Start of the process, Unix seconds.");
  out.Sample({}, p.start_time);
}

void JobFamilies(Exposition& out, const std::vector<JobSample>& jobs) {
  const Rendered r(jobs);
  out.Family("sluice_job_state", MetricType::kGauge,
             "1 for the job's current state, 0 for the others (routine loads: NEED_SCHEDULE, RUNNING, PAUSED, "
             "STOPPED, CANCELLED; pipes: RUNNING, SUSPENDED, FAILED).");
  for (size_t i = 0; i < jobs.size(); ++i)
    for (const auto& s : jobs[i].possible_states)
      out.SampleRendered(r.labels[i], s == jobs[i].state ? 1 : 0, Exposition::RenderExtraLabel("state", s));
  PerJob(out, r, "sluice_job_rows_loaded_total", MetricType::kCounter, "Rows committed to the table.",
         [](const JobSample& j) { return static_cast<double>(j.rows_loaded); });
  PerJob(out, r, "sluice_job_rows_filtered_total", MetricType::kCounter,
         "Rows the job's WHERE filtered out (unselected rows).",
         [](const JobSample& j) { return static_cast<double>(j.rows_filtered); });
  PerJob(out, r, "sluice_job_rows_error_total", MetricType::kCounter,
         "Rows rejected as errors in committed tasks (their rows are in the error log).",
         [](const JobSample& j) { return static_cast<double>(j.rows_error); });
  PerJob(out, r, "sluice_job_read_bytes_total", MetricType::kCounter, "Bytes read from the source by committed tasks.",
         [](const JobSample& j) { return static_cast<double>(j.read_bytes); });
  PerJob(out, r, "sluice_job_tasks_committed_total", MetricType::kCounter, "Tasks that committed data.",
         [](const JobSample& j) { return static_cast<double>(j.tasks_committed); });
  PerJob(out, r, "sluice_job_tasks_aborted_total", MetricType::kCounter,
         "Tasks that ended without committing the data they read (errors, limits, failures).",
         [](const JobSample& j) { return static_cast<double>(j.tasks_aborted); });
  out.Family("sluice_job_commit_duration_seconds", MetricType::kHistogram,
             "Wall time of committed tasks, from the first read to COMMIT.");
  for (size_t i = 0; i < jobs.size(); ++i) out.HistogramRendered(r.labels[i], jobs[i].commit_seconds);
  out.Family("sluice_job_batch_rows", MetricType::kHistogram, "Rows per committed task (loaded, error and filtered).");
  for (size_t i = 0; i < jobs.size(); ++i) out.HistogramRendered(r.labels[i], jobs[i].batch_rows);
  out.Family("sluice_job_last_commit_timestamp_seconds", MetricType::kGauge,
             "When the job last committed, Unix seconds (absent: not since the server started).");
  for (size_t i = 0; i < jobs.size(); ++i)
    if (jobs[i].last_commit_time > 0) out.SampleRendered(r.labels[i], jobs[i].last_commit_time);
  out.Family("sluice_job_state_changes_total", MetricType::kCounter,
             "State changes, by the state entered and the class of the reason.");
  for (size_t i = 0; i < jobs.size(); ++i)
    for (const auto& c : jobs[i].state_changes)
      out.SampleRendered(r.labels[i], static_cast<double>(c.count),
                 Exposition::RenderExtraLabel("state", c.state) + Exposition::RenderExtraLabel("reason_class", c.reason_class));
  out.Family("sluice_job_partition_lag_messages", MetricType::kGauge,
             "Messages in the Kafka partition not loaded yet (high watermark minus the next offset to load).");
  for (size_t i = 0; i < jobs.size(); ++i)
    for (const auto& p : jobs[i].partitions)
      if (p.lag_messages >= 0)
        out.SampleRendered(r.labels[i], static_cast<double>(p.lag_messages),
                   Exposition::RenderExtraLabel("partition", std::to_string(p.partition)));
  out.Family("sluice_job_lag_messages", MetricType::kGauge, "Messages not loaded yet, over the job's partitions.");
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].volume) continue;
    int64_t sum = 0;
    for (const auto& p : jobs[i].partitions) sum += std::max<int64_t>(0, p.lag_messages);
    out.SampleRendered(r.labels[i], static_cast<double>(sum));
  }
  out.Family("sluice_job_freshness_seconds", MetricType::kGauge,
             "Age of the oldest data not loaded yet (0 when caught up); an upper bound, see docs/monitoring.md.");
  for (size_t i = 0; i < jobs.size(); ++i)
    if (jobs[i].freshness_seconds >= 0) out.SampleRendered(r.labels[i], jobs[i].freshness_seconds);

  PerJob(out, r, "sluice_volume_pipe_files_pending", MetricType::kGauge,
         "Files the last listing found and that are not loaded yet.",
         [](const JobSample& j) { return static_cast<double>(j.files_pending); }, true);
  PerJob(out, r, "sluice_volume_pipe_pending_bytes", MetricType::kGauge, "Bytes of the pending files.",
         [](const JobSample& j) { return static_cast<double>(j.bytes_pending); }, true);
  PerJob(out, r, "sluice_volume_pipe_files_loaded_total", MetricType::kCounter, "Files loaded and committed.",
         [](const JobSample& j) { return static_cast<double>(j.files_loaded); }, true);
  PerJob(out, r, "sluice_volume_pipe_files_failed_total", MetricType::kCounter, "Files that could not be loaded.",
         [](const JobSample& j) { return static_cast<double>(j.files_failed); }, true);
  out.Family("sluice_volume_pipe_last_listing_timestamp_seconds", MetricType::kGauge,
             "When the volume was last listed, Unix seconds.");
  for (size_t i = 0; i < jobs.size(); ++i)
    if (jobs[i].volume && jobs[i].last_listing_time > 0) out.SampleRendered(r.labels[i], jobs[i].last_listing_time);
}

}  // namespace

std::string RenderMetrics(const ServerSample& server, const std::vector<JobSample>& jobs, Format format) {
  Exposition out(format);
  ServerFamilies(out, server);
  JobFamilies(out, jobs);
  return out.Finish();
}

}  // namespace sluice::metrics
