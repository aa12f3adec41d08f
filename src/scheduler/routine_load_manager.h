#pragma once
// Runs every routine load job: keeps their definitions and states in the catalog, turns each job into tasks
// (one per group of partitions), and schedules those tasks on a worker pool with timers, retries and pauses.
// This is the control side; a task's data path lives in load/.
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/histogram.h"

#include "common/result_set.h"
#include "common/status.h"
#include "sql/pipe_ast.h"
#include "sql/routine_load_ast.h"
#include "storage/database.h"

namespace sluice::catalog {
class Catalog;
class ServerSettings;
class VolumeStore;
}
namespace sluice::load {
class LoadTargets;     // load/commit_sink.h
struct CommittedFile;  // load/volume_pipe_task.h
}

namespace sluice::scheduler {

// A time as SHOW and the job views print it: "2026-11-30 03:25:00", UTC; "" for 0 (never).
std::string FormatTimeMs(int64_t ms);

// A node of a cluster (`sluice serve --cluster URI`, docs/cluster.md): routine loads into Iceberg tables are kept
// in the cluster's PostgreSQL database and their partitions split among the live nodes by leases.
struct ClusterJobsOptions {
  std::string uri;   // empty: a server of its own, every job local
  std::string node;  // this node's name: the holder of its leases
  std::string incarnation;  // this process's row of sluice_nodes (ClusterOptions::incarnation): commit guards' witness
  std::chrono::milliseconds node_timeout{10000};
  std::chrono::milliseconds tick{1000};  // how often jobs are synced and leases renewed
  // The key sealing secret properties of cluster jobs: the same file on every node (empty: the node's own).
  std::string key_file;
};

// What one node of the cluster holds, for SHOW NODES: `jobs` it loads (a routine load or Kafka pipe with at least one
// of its partitions, a volume pipe it runs), `partitions` in all, and `held` as JSON by job name, e.g.
// {"d.ev_job":[0,1,2,3],"d.files":"pipe"} ("{}" when it holds nothing).
struct HeldWork {
  int64_t jobs = 0;
  int64_t partitions = 0;
  std::string held = "{}";
};

struct SchedulerOptions {
  // Worker slots shared by every job's tasks.
  int worker_threads = 4;
  // StarRocks' max_routine_load_task_concurrent_num: tasks one job may run at once.
  int max_task_concurrent_per_job = 5;
  // StarRocks' max_routine_load_job_num: routine loads (pipes not counted) that are not STOPPED/CANCELLED, when
  // there are no `settings` (with them, the server setting of that name is the cap).
  int max_jobs = 100;
  // Where max_pipe_num and max_routine_load_job_num (SET GLOBAL) are read at each CREATE PIPE / CREATE ROUTINE
  // LOAD; null: catalog::kDefaultMaxPipeNum and max_jobs.
  const catalog::ServerSettings* settings = nullptr;
  // Longest wait between retries of a job whose source keeps failing.
  double max_retry_backoff_seconds = 300;
  // Base URL error-log links point at (the HTTP port), e.g. "http://127.0.0.1:8030".
  std::string http_base_url;
  // Key file sealing secret job properties in the catalog (catalog::SecretBox); empty: a key in memory.
  std::string secrets_key_file;
  // Volume pipes: where volumes are resolved (null: volume pipes cannot be created) and where files fetched from
  // object storage wait for their load.
  catalog::VolumeStore* volumes = nullptr;
  std::string scratch_dir;
  // Targets outside DuckDB (ON catalog.db.table: Iceberg tables), with the sink that commits into them; null:
  // such jobs cannot be created.
  load::LoadTargets* load_targets = nullptr;
  ClusterJobsOptions cluster;
};

class JobRegistry;

// What a privilege check needs of a job: the table it loads and who made it.
struct JobTarget {
  std::string db;
  std::string table;
  std::string creator;  // empty for routine loads made before accounts existed
  std::string volume;   // a volume pipe's volume
};

// What a job did since the server started, for GET /metrics and the JSON API (SHOW ROUTINE LOAD's Statistic
// counts the job's whole life from the catalog). Updated under the registry's lock when a task ends; a scrape
// copies it.
struct JobActivity {
  uint64_t rows_loaded = 0, rows_filtered = 0, rows_error = 0, read_bytes = 0;
  uint64_t tasks_committed = 0, tasks_aborted = 0;
  uint64_t files_loaded = 0, files_failed = 0;  // volume pipes
  Histogram commit_seconds{std::vector<double>{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}};
  Histogram batch_rows{std::vector<double>{1, 10, 100, 1000, 10000, 100000, 1000000}};
  int64_t last_commit_ms = 0;
  std::map<std::pair<std::string, std::string>, uint64_t> state_changes;  // (state entered, reason class)
  std::map<int32_t, int64_t> next_offsets;  // per partition, the next offset to load as last known
};

struct JobPartitionStatus {
  int32_t partition = 0;
  int64_t next_offset = -1;     // the next offset to load; -1: not resolved yet
  int64_t high_watermark = -1;  // as last seen; -1: not seen yet
  int64_t lag = -1;             // high_watermark - next_offset; -1: unknown
  int64_t last_message_ms = 0;  // timestamp of the last message loaded (0: none since the start)
};

struct JobTaskStatus {
  int64_t task_id = 0;
  std::string status;  // RUNNING, COMMITTED, ABORTED, NO_DATA, or empty before the first task ended
  int64_t started_ms = 0;
  std::string message;
  std::vector<int32_t> partitions;
};

// One job as monitoring sees it (GET /metrics, GET /api/jobs): copied from the scheduler's memory.
struct JobStatus {
  int64_t id = 0;
  std::string kind;  // routine_load, pipe, volume_pipe
  std::string db, name, table;
  // Where the table's privileges are checked: db, or catalog.db for an Iceberg table (as INSERT INTO catalog.db.t).
  std::string target_db;
  std::string state;  // as SHOW shows it: routine loads NEED_SCHEDULE..CANCELLED, pipes RUNNING/SUSPENDED/FAILED
  std::string reason, reason_class, other_msg;
  std::string definition;  // CREATE ROUTINE LOAD text, or the pipe's COPY statement; secrets masked
  std::string creator;
  int64_t create_time_ms = 0, pause_time_ms = 0, end_time_ms = 0;
  int current_tasks = 0;
  std::vector<JobPartitionStatus> partitions;
  std::vector<JobTaskStatus> tasks;  // one per task group: the running or last task
  JobActivity activity;
  // Volume pipes.
  int64_t pending_files = 0, pending_bytes = 0, last_listing_ms = 0, last_load_ms = 0;
  std::string last_loaded_file;
  // Age of the oldest data not loaded yet, an upper bound (docs/monitoring.md); -1 unknown.
  double freshness_seconds = -1;
};

// The states a job of `kind` can show (the values of sluice_job_state's state label).
const std::vector<std::string>& PossibleStates(const std::string& kind);

class RoutineLoadManager {
 public:
  RoutineLoadManager(storage::Database& db, catalog::Catalog& catalog, SchedulerOptions options);
  ~RoutineLoadManager();

  // Loads the jobs kept in the catalog (RUNNING ones resume, PAUSED stay paused) and starts scheduling.
  Status Start();
  void Stop();

  // `db` is the database the statement resolves to (its own or the session's).
  Status Create(const sql::CreateRoutineLoad& stmt, const std::string& db);
  Status Alter(const sql::AlterRoutineLoad& stmt, const std::string& db);
  Status Control(const sql::ControlRoutineLoad& stmt, const std::string& db);
  Result<ResultSet> Show(const sql::ShowRoutineLoad& stmt, const std::string& db);
  Result<ResultSet> ShowTasks(const sql::ShowRoutineLoadTask& stmt, const std::string& db);
  Result<std::string> ShowCreate(const sql::ShowCreateRoutineLoad& stmt, const std::string& db);
  // Rejected rows of a job, newest first (for the ErrorLogUrls link and sluice_rejected_rows()).
  // `pipe`: of the live pipe `job` (Kafka or volume).
  Result<ResultSet> RejectedRows(const std::string& db, const std::string& job, int64_t limit, bool pipe = false);

  // Kafka and volume pipes (docs/pipes.md): jobs of kind pipe on the same scheduler.
  Status CreatePipe(const sql::CreatePipe& stmt, const std::string& db);
  Status DropPipe(const sql::DropPipe& stmt, const std::string& db);
  Status AlterPipe(const sql::AlterPipe& stmt, const std::string& db);
  Result<ResultSet> ShowPipes(const sql::ShowPipes& stmt, const std::string& db);
  Result<ResultSet> DescPipe(const sql::DescPipe& stmt, const std::string& db);
  // The files a cluster volume pipe's commits list in its Iceberg table (PIPE_FILES on a cluster: the same on every
  // node); nullopt for any other pipe, whose files are in this node's load_history. NotFound: no such live pipe.
  Result<std::optional<std::vector<load::CommittedFile>>> PipeFiles(const std::string& db, const std::string& name);
  Status CreateVcluster(const sql::CreateVcluster& stmt);
  Status AlterVcluster(const sql::AlterVcluster& stmt);
  Status DropVcluster(const sql::DropVcluster& stmt);
  Result<ResultSet> ShowVclusters(const sql::ShowVclusters& stmt);
  // DROP TABLE / DROP DATABASE succeeded: every job (routine load or pipe) loading that table (empty `table`: any
  // table of `db`) that is not STOPPED or CANCELLED yet is CANCELLED now, whatever its state (a PAUSED job would
  // otherwise wait for a RESUME that can never succeed).
  void TargetDropped(const std::string& db, const std::string& table);
  void TargetChanged(const std::string& db, const std::string& table);
  void TargetAltered(const std::string& db, const std::string& table, const std::string& renamed_to,
                     const std::vector<std::string>& dropped_columns);
  // The job (pipe: a live pipe) named `name` in `db`; NotFound when there is none.
  Result<JobTarget> TargetOf(const std::string& db, const std::string& name, bool pipe);
  // Every job that is not dropped (STOPPED and CANCELLED included), from memory: cheap enough for every scrape.
  // `definitions`: also render each definition (the JSON API; a scrape does not need them).
  std::vector<JobStatus> Statuses(bool definitions = false);
  // SHOW NODES: what a node's leases (cluster::NodeRow::held) are, by job.
  HeldWork DescribeHeld(const std::vector<std::string>& resources);
  // Metadata and ListOffsets requests the shared metadata clients sent (partition checks, idle groups' checks for
  // new data, starting offsets, lag of jobs not running), for /metrics.
  uint64_t KafkaMetadataRequests() const;

 private:
  std::unique_ptr<JobRegistry> jobs_;
};

}  // namespace sluice::scheduler
