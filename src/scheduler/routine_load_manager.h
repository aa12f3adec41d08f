#pragma once
// Runs every routine load job: keeps their definitions and states in the catalog, turns each job into tasks
// (one per group of partitions), and schedules those tasks on a worker pool with timers, retries and pauses.
// This is the control side; a task's data path lives in load/.
#include <memory>
#include <string>

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

namespace sluice::scheduler {

struct SchedulerOptions {
  // Worker slots shared by every job's tasks.
  int worker_threads = 4;
  // StarRocks' max_routine_load_task_concurrent_num: tasks one job may run at once.
  int max_task_concurrent_per_job = 5;
  // StarRocks' max_routine_load_job_num: routine loads (pipes not counted) that are not STOPPED/CANCELLED.
  int max_jobs = 100;
  // Where max_pipe_num (SET GLOBAL) is read at each CREATE PIPE; null: catalog::kDefaultMaxPipeNum.
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
};

class JobRegistry;

// What a privilege check needs of a job: the table it loads and who made it.
struct JobTarget {
  std::string db;
  std::string table;
  std::string creator;  // empty for routine loads made before accounts existed
  std::string volume;   // a volume pipe's volume
};

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
  Result<ResultSet> RejectedRows(const std::string& db, const std::string& job, int64_t limit);

  // Kafka and volume pipes (docs/pipes.md): jobs of kind pipe on the same scheduler.
  Status CreatePipe(const sql::CreatePipe& stmt, const std::string& db);
  Status DropPipe(const sql::DropPipe& stmt, const std::string& db);
  Status AlterPipe(const sql::AlterPipe& stmt, const std::string& db);
  Result<ResultSet> ShowPipes(const sql::ShowPipes& stmt, const std::string& db);
  Result<ResultSet> DescPipe(const sql::DescPipe& stmt, const std::string& db);
  Status CreateVcluster(const sql::CreateVcluster& stmt);
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

 private:
  std::unique_ptr<JobRegistry> jobs_;
};

}  // namespace sluice::scheduler
