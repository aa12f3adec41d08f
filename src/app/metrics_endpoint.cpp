#include "app/metrics_endpoint.h"

#include <sys/stat.h>

#include "app/job_visibility.h"
#include "common/log.h"
#include "metrics/process_stats.h"
#include "metrics/render.h"

namespace sluice {

DuckdbMemorySampler::DuckdbMemorySampler(storage::Database& db) {
  thread_ = std::thread([this, &db] { Loop(db); });
}

DuckdbMemorySampler::~DuckdbMemorySampler() { Stop(); }

void DuckdbMemorySampler::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void DuckdbMemorySampler::Loop(storage::Database& db) {
  std::unique_ptr<storage::Connection> con;
  while (true) {
    if (!con) {
      auto c = db.Connect();
      if (c.ok()) con = std::move(c).value();
    }
    if (con) {
      auto r = con->Query("SELECT CAST(coalesce(sum(memory_usage_bytes), 0) AS BIGINT) FROM duckdb_memory()");
      if (r.ok() && r->result_set && !r->result_set->rows.empty() && r->result_set->rows[0][0])
        bytes_.store(std::atoll(r->result_set->rows[0][0]->c_str()), std::memory_order_relaxed);
      else if (!r.ok())
        log::Debug("metrics", "could not read DuckDB's memory: {}", r.status().message());
    }
    std::unique_lock<std::mutex> lock(mu_);
    if (cv_.wait_for(lock, std::chrono::seconds(10), [this] { return stopping_; })) return;
  }
}

namespace {

int64_t FileBytes(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

double UnixSeconds(int64_t ms) { return ms > 0 ? static_cast<double>(ms) / 1000.0 : 0; }

}  // namespace

metrics::ServerSample GatherServerSample(const MetricsSources& sources) {
  metrics::ServerSample s;
  s.uptime_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - sources.started).count();
  if (sources.mysql) {
    const auto& c = sources.mysql->counters();
    s.connections_open = c.connections.load(std::memory_order_relaxed);
    s.connections_total = c.connections_total.load(std::memory_order_relaxed);
    s.queries_by_kind = c.StatementsByKind();
    s.errors_by_code = c.ErrorsByCode();
  }
  if (sources.engine) {
    s.sessions_open = static_cast<int64_t>(sources.engine->open_sessions());
    s.kafka_metadata_requests = sources.engine->routine_loads().KafkaMetadataRequests();
  }
  if (!sources.database_file.empty()) {
    s.duckdb_file_bytes = FileBytes(sources.database_file);
    s.duckdb_wal_bytes = FileBytes(sources.database_file + ".wal");
  }
  if (sources.duckdb_memory) s.duckdb_memory_bytes = sources.duckdb_memory->bytes();
  s.process = metrics::ReadProcessSample();
  return s;
}

metrics::JobSample ToJobSample(const scheduler::JobStatus& job) {
  metrics::JobSample j;
  j.kind = job.kind;
  j.db = job.db;
  j.name = job.name;
  j.table = job.table;
  j.state = job.state;
  j.possible_states = scheduler::PossibleStates(job.kind);
  const scheduler::JobActivity& a = job.activity;
  j.rows_loaded = a.rows_loaded;
  j.rows_filtered = a.rows_filtered;
  j.rows_error = a.rows_error;
  j.read_bytes = a.read_bytes;
  j.tasks_committed = a.tasks_committed;
  j.tasks_aborted = a.tasks_aborted;
  j.commit_seconds = a.commit_seconds;
  j.batch_rows = a.batch_rows;
  j.last_commit_time = UnixSeconds(a.last_commit_ms);
  for (const auto& [key, n] : a.state_changes) j.state_changes.push_back({key.first, key.second, n});
  for (const auto& p : job.partitions) j.partitions.push_back({p.partition, p.lag});
  j.freshness_seconds = job.freshness_seconds;
  j.volume = job.kind == "volume_pipe";
  j.files_pending = job.pending_files;
  j.bytes_pending = job.pending_bytes;
  j.files_loaded = a.files_loaded;
  j.files_failed = a.files_failed;
  j.last_listing_time = UnixSeconds(job.last_listing_ms);
  return j;
}

http::HttpReply MetricsReply(const MetricsSources& sources, const http::HttpRequest& request) {
  metrics::Format format = metrics::NegotiateFormat(request.accept);
  std::vector<scheduler::JobStatus> statuses = sources.engine->routine_loads().Statuses();
  JobVisibility visibility(sources.engine->accounts(), request.user);
  std::vector<metrics::JobSample> jobs;
  jobs.reserve(statuses.size());
  for (const auto& s : statuses)
    if (visibility.Sees(s)) jobs.push_back(ToJobSample(s));
  http::HttpReply reply;
  reply.content_type = metrics::ContentType(format);
  reply.body = metrics::RenderMetrics(GatherServerSample(sources), jobs, format);
  return reply;
}

}  // namespace sluice
