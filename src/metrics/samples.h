#pragma once
// What a scrape reports, as plain values. Whoever runs the server fills these from the scheduler, the MySQL front
// door and the process (app/metrics_wiring.cpp); this module depends on nothing above common/.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/histogram.h"

namespace sluice::metrics {

struct PartitionSample {
  int32_t partition = 0;
  int64_t lag_messages = -1;  // -1: not known yet (no high watermark seen, or no offset resolved)
};

struct StateChangeCount {
  std::string state;         // the state entered
  std::string reason_class;  // user, error_rows, source, storage, table_dropped, task_failed, scheduled, other
  uint64_t count = 0;
};

// One job: a routine load, a Kafka pipe or a volume pipe.
struct JobSample {
  std::string kind;  // routine_load, pipe, volume_pipe
  std::string db, name, table;
  std::string state;                 // one of `possible_states`
  std::vector<std::string> possible_states;
  // Since the server started (Prometheus counters restart with the process).
  uint64_t rows_loaded = 0, rows_filtered = 0, rows_error = 0, read_bytes = 0;
  uint64_t tasks_committed = 0, tasks_aborted = 0;
  Histogram commit_seconds, batch_rows;
  double last_commit_time = 0;  // Unix seconds; 0: none since the server started
  std::vector<StateChangeCount> state_changes;
  std::vector<PartitionSample> partitions;  // Kafka jobs
  double freshness_seconds = -1;            // -1: unknown
  // Volume pipes.
  bool volume = false;
  int64_t files_pending = 0, bytes_pending = 0;
  uint64_t files_loaded = 0, files_failed = 0;
  double last_listing_time = 0;  // Unix seconds; 0: not listed since the server started
};

struct ProcessSample {
  double cpu_seconds = 0;
  int64_t resident_bytes = 0, virtual_bytes = 0;
  int64_t threads = 0, open_fds = 0, max_fds = 0;
  double start_time = 0;  // Unix seconds
};

struct ServerSample {
  double uptime_seconds = 0;
  int64_t connections_open = 0;   // MySQL connections now
  uint64_t connections_total = 0; // accepted since the start
  int64_t sessions_open = 0;
  std::map<std::string, uint64_t> queries_by_kind;
  std::map<uint16_t, uint64_t> errors_by_code;  // MySQL error codes sent to clients
  int64_t duckdb_file_bytes = 0, duckdb_wal_bytes = 0;
  int64_t duckdb_memory_bytes = -1;  // -1: not sampled yet
  uint64_t kafka_metadata_requests = 0;  // sent by the shared metadata clients
  ProcessSample process;
};

}  // namespace sluice::metrics
