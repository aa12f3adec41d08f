#pragma once
// GET /metrics: the scheduler's jobs and the server's counters in the Prometheus text format (OpenMetrics when
// asked), each scrape gathered from memory: the scheduler's copy under its lock, atomics of the MySQL front door,
// /proc/self, two stat() calls and DuckDB's memory as a background thread last sampled it.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "auth/account_store.h"
#include "executor/engine.h"
#include "http/http_server.h"
#include "metrics/samples.h"
#include "server/mysql_server.h"

namespace sluice {

// Asks DuckDB for its memory every 10 s on a connection of its own, so that a scrape never waits on DuckDB.
class DuckdbMemorySampler {
 public:
  explicit DuckdbMemorySampler(storage::Database& db);
  ~DuckdbMemorySampler();  // Stop()s
  void Stop();  // before the database closes
  int64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }  // -1 before the first sample

 private:
  void Loop(storage::Database& db);
  std::atomic<int64_t> bytes_{-1};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

struct MetricsSources {
  Engine* engine = nullptr;
  const server::MysqlServer* mysql = nullptr;
  std::string database_file;  // the DuckDB file; its WAL is database_file + ".wal"
  const DuckdbMemorySampler* duckdb_memory = nullptr;
  std::chrono::steady_clock::time_point started;
};

// The server's own families (not filtered: counts and sizes only).
metrics::ServerSample GatherServerSample(const MetricsSources& sources);
// Jobs as metrics samples.
metrics::JobSample ToJobSample(const scheduler::JobStatus& job);

// Any authenticated user may scrape; job series are limited to the jobs the user sees (JobVisibility), so a
// monitoring account needs privileges on the tables (or pipes) it should report on -- root sees every job.
http::HttpReply MetricsReply(const MetricsSources& sources, const http::HttpRequest& request);

}  // namespace sluice
