#pragma once
// The scheduler's state and threads behind RoutineLoadManager: every job's runtime, the scheduling loop, and the
// worker pool that runs scheduling work and tasks. One mutex guards all job state; nothing waits on Kafka while
// holding it.
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "catalog/catalog.h"
#include "catalog/cluster_job_store.h"
#include "catalog/cluster_mirror.h"
#include "cluster/pg_client.h"
#include "common/text_batch.h"
#include "catalog/routine_load_store.h"
#include "load/routine_load_task.h"
#include "scheduler/job_runtime.h"
#include "scheduler/routine_load_manager.h"
#include "scheduler/worker_pool.h"
#include "source/kafka_metadata_clients.h"

namespace sluice::scheduler {

const char* JobKind(const catalog::RoutineLoadDefinition& def);  // "pipe" or "routine load", for log lines

// Reasons of jobs paused because the database cannot take writes (storage_gate.cpp); they resume by themselves.
inline constexpr const char* kDiskFullReasonPrefix = "disk full:";
inline constexpr const char* kDatabaseStoppedReasonPrefix = "the database stopped after a failed write";
bool IsStoragePauseReason(const std::string& reason);
// A pipe's status as SHOW PIPES has it: RUNNING, SUSPENDED or FAILED (pipe_registry.cpp).
std::string PipeStatusOf(const catalog::StoredJob& s);
// job_status.cpp: the state monitoring shows (routine loads: the job state; pipes: PipeStatusOf), and the class of
// a state change's reason, a label small enough for Prometheus (user, scheduled, error_rows, source, storage,
// table_dropped, task_failed, other).
std::string JobStatusName(const catalog::StoredJob& s);
std::string ReasonClass(catalog::JobState state, const std::string& reason);

// The schema registry a definition names, against the egress allow list (common/egress_policy.h).
Status CheckRegistryEgress(const catalog::RoutineLoadDefinition& def);

class JobRegistry {
 public:
  JobRegistry(storage::Database& db, catalog::Catalog& catalog, SchedulerOptions options)
      : db_(db), catalog_(catalog), options_(std::move(options)) {}

  Status Start();
  void Stop();

  Status Create(const sql::CreateRoutineLoad& stmt, const std::string& db);
  Status Alter(const sql::AlterRoutineLoad& stmt, const std::string& db);
  Status Control(const sql::ControlRoutineLoad& stmt, const std::string& db);
  Result<ResultSet> Show(const sql::ShowRoutineLoad& stmt, const std::string& db);
  Result<ResultSet> ShowTasks(const sql::ShowRoutineLoadTask& stmt, const std::string& db);
  Result<std::string> ShowCreate(const std::string& db, const std::string& name);
  Result<ResultSet> RejectedRows(const std::string& db, const std::string& name, int64_t limit, bool pipe = false);
  // pipe_registry.cpp: Kafka pipes, run as jobs of kind pipe, and the virtual clusters that bound their tasks.
  Status CreatePipe(const sql::CreatePipe& stmt, const std::string& db);
  // max_pipe_num: InvalidArgument saying how to raise it when that many pipes exist (not counting dropped ones).
  Status CheckPipeCap();
  Status DropPipe(const sql::DropPipe& stmt, const std::string& db);
  Status AlterPipe(const sql::AlterPipe& stmt, const std::string& db);
  Result<ResultSet> ShowPipes(const sql::ShowPipes& stmt, const std::string& db);
  Result<ResultSet> DescPipe(const sql::DescPipe& stmt, const std::string& db);
  // The files a cluster volume pipe's commits list in its table, whichever node made them (PIPE_FILES); nullopt
  // for any other pipe, whose files are in this node's load_history.
  Result<std::optional<std::vector<load::CommittedFile>>> PipeFiles(const std::string& db, const std::string& name);
  Status CreateVcluster(const sql::CreateVcluster& stmt);
  Status AlterVcluster(const sql::AlterVcluster& stmt);
  Status DropVcluster(const sql::DropVcluster& stmt);
  Result<ResultSet> ShowVclusters(const sql::ShowVclusters& stmt);
  Status LoadVclusters();
  Result<JobTarget> TargetOf(const std::string& db, const std::string& name, bool pipe);
  // job_status.cpp: every job's runtime state and activity, copied under the lock without any DuckDB or Kafka call.
  std::vector<JobStatus> Statuses(bool definitions = false);
  uint64_t kafka_metadata_requests() const { return kafka_metadata_.requests_sent(); }
  // SHOW NODES (RoutineLoadManager::DescribeHeld): a node's lease resources as jobs and partitions, by job name.
  HeldWork DescribeHeld(const std::vector<std::string>& resources);
  void TargetDropped(const std::string& db, const std::string& table);
  // The table's partitions changed (ALTER TABLE ... ADD/DROP PARTITION): jobs loading it plan their next tasks
  // against the new partitions. A job whose PARTITION (...) names a dropped partition pauses, saying so.
  void TargetChanged(const std::string& db, const std::string& table);
  // ALTER TABLE changed the table's columns (or renamed it to `renamed_to`): a job whose COLUMNS names a dropped
  // column, or whose table is now called otherwise, pauses saying what to do; the others plan their next tasks
  // against the new columns. Called while the table's schema lock is held (load::TableSchemaMutex).
  void TargetAltered(const std::string& db, const std::string& table, const std::string& renamed_to,
                     const std::vector<std::string>& dropped_columns);

 private:
  // Stores a new job (NEED_SCHEDULE) and registers it; the caller logs and wakes the scheduler.
  // `described`: the DuckDB target table as the CREATE just described it (JobRuntime::table_at_create).
  Result<std::shared_ptr<JobRuntime>> AddNewJob(catalog::RoutineLoadDefinition def, int64_t now_ms,
                                                std::optional<catalog::TableMeta> described = std::nullopt);
  // job_scheduling.cpp
  void SchedulerLoop();
  void ScheduleJob(std::shared_ptr<JobRuntime> job, storage::Connection& con);
  void RunTask(std::shared_ptr<JobRuntime> job, std::shared_ptr<TaskGroup> group, int64_t version,
               storage::Connection& con);
  void CheckPartitions(std::shared_ptr<JobRuntime> job, int64_t version);
  // idle_lag_refresh.cpp: keeps the high watermarks of jobs that are not running current, on lag_refresher_.
  void IdleLagLoop();
  // The pause reason for an OutOfRange task failure, with the statements that repair it.
  std::string OutOfRangeReasonLocked(const JobRuntime& job, const TaskGroup& group, const Status& st);
  // Why a job with pause_on_fatal_parse_error paused, with the ALTER that skips the message.
  std::string FatalParseReasonLocked(const JobRuntime& job, const TaskGroup& group, const RejectedRow& fatal);
  // A task of `group` ended (either kind of job): the group may run again and DROP PIPE's wait is told. Returns
  // whether the group was replaced meanwhile (regrouping, a timed-out task), whose task then changes nothing.
  bool EndTaskLocked(JobRuntime& job, const std::shared_ptr<TaskGroup>& group);
  // `before_start`: per partition resolved here, the messages still in Kafka below the starting offset.
  // Watermarks come from the shared metadata clients; a consumer is created only for a starting time.
  Result<std::map<int32_t, int64_t>> ResolveStartOffsets(const catalog::RoutineLoadDefinition& def,
                                                         const std::vector<int32_t>& partitions,
                                                         const std::map<int32_t, catalog::PartitionProgress>& progress,
                                                         storage::Connection& con,
                                                         std::map<int32_t, int64_t>* before_start);
  // The same per partition, for when the whole answer failed: partitions whose offsets cannot be read for now
  // (their leader down, or refused by --allow-egress) go to `unreachable` with why, and the others are answered.
  Result<std::map<int32_t, int64_t>> ResolveReachableStartOffsets(
      const catalog::RoutineLoadDefinition& def, const std::vector<int32_t>& partitions,
      const std::map<int32_t, catalog::PartitionProgress>& progress, storage::Connection& con,
      std::map<int32_t, int64_t>* before_start, std::map<int32_t, Status>* unreachable);

  // volume_pipes.cpp: volume pipes on the same scheduler (one task group, no partitions).
  Status CheckVolumePipe(const catalog::RoutineLoadDefinition& def);
  void ScheduleVolumePipe(std::shared_ptr<JobRuntime> job);
  void RunVolumeTask(std::shared_ptr<JobRuntime> job, std::shared_ptr<TaskGroup> group, int64_t version,
                     storage::Connection& con);

  // pipe_registry.cpp
  std::shared_ptr<JobRuntime> FindPipeLocked(const std::string& db, const std::string& name);
  // Every file the volume pipe's commits list in its Iceberg table (LoadTargets::OpenVolumeFiles).
  Result<std::vector<load::CommittedFile>> CommittedPipeFiles(const catalog::StoredJob& pipe);
  // Pipe jobs' tasks may start on `cluster` now (its size minus its running tasks).
  bool VclusterHasRoomLocked(const std::string& cluster, const std::map<std::string, int>& running) const;
  // Tasks the cluster runs at once: its size, or the worker pool's for "default".
  int64_t VclusterSizeLocked(const std::string& cluster) const;
  Status CheckVclusterExists(const std::string& name);
  // virtual_clusters.cpp: whether this node may run `job`: a pipe of the cluster whose virtual cluster names its
  // nodes runs only on them (its partitions' and its pipe:<id> leases are taken by those nodes only). The cluster
  // threads consult it before they take a lease; true on a server of its own and for jobs of the node's own.
  bool MayRunHereLocked(const JobRuntime& job) const;
  // Every tick, from the live nodes: a pipe no live node may run waits, and says so (JobRuntime::node_wait).
  void NoteNodeWaitsLocked(const std::set<std::string>& alive);
  // On a cluster node: virtual clusters are the cluster's (sluice_vclusters), this node's table their copy.
  Status AttachVclustersToCluster();
  void WaitForTasksToEnd(const std::shared_ptr<JobRuntime>& job);
  // A pipe batch that could not commit (too many error rows, a file that cannot load): the pipe retries it, backing
  // off, and fails after MAX_SKIP_BATCH_COUNT_ON_ERROR batches in a row. The reason and messages say `in_a_row`
  // ("were not committed"), what to `fix`, and `retrying` ("retrying in") before the delay.
  void PipeBatchFailedLocked(JobRuntime& job, TaskGroup& group, const std::string& reason, const std::string& in_a_row,
                             const std::string& fix, const std::string& retrying, double interval,
                             Clock::time_point now);

  // storage_gate.cpp: no task runs while the database cannot take writes.
  // Pauses live jobs while storage blocks writes, resumes the ones it paused once it does not.
  void GateOnStorageLocked();
  // A task failed: if the cause is the storage (a full disk, a stopped database), pauses the job until it is fixed
  // and returns true.
  bool StorageFailureLocked(JobRuntime& job, const Status& st);
  void PauseForStorageLocked(JobRuntime& job, const std::string& reason);

  // job_status.cpp: what a Kafka task did, for the job's activity counters (GET /metrics).
  void RecordTaskLocked(JobRuntime& job, const Result<load::TaskResult>& outcome, double seconds);

  // cluster_jobs.cpp: cluster jobs (docs/cluster.md). Whether `def` is one: a routine load or a pipe (Kafka or volume)
  // into an Iceberg table on a cluster node.
  bool IsClusterJob(const catalog::RoutineLoadDefinition& def) const;
  catalog::JobStore& StoreOf(const JobRuntime& job);
  // Every tick: SyncClusterJobs, then AssignPartitions.
  void ClusterLoop();
  // Reads the cluster's jobs from PostgreSQL and makes this node's view follow: new jobs appear, and states
  // changed by statements on other nodes are applied. Statements call it first, so any node answers the same.
  // PostgreSQL out of reach: the view stays as it was (logged once per outage).
  void SyncClusterJobs();
  // Renews this node's leases, takes its fair share of every live cluster job's partitions, gives up what is
  // above it, and regroups a job whose partitions changed.
  void AssignPartitions();
  // The same for volume pipes, each run whole by one node: every node alive (`member`) and able to run a pipe
  // (JobRuntime::cluster_ready, its virtual cluster's nodes) holds a membership `pipe_node:<id>:<node>`; the live
  // members split the pipes evenly (cluster::SplitWholeJobs), and this node holds `pipe:<id>` for the pipes the
  // split gives it, releases the others, and regroups a pipe whose lease came or went.
  void AssignPipeLeases(cluster::LeaseStore& leases, bool member, const std::set<std::string>& alive);
  // Before a cluster volume pipe's commit: the pipe's lease still held at its epoch. Returns the summary entry
  // sluice.epochs.<job> = {"pipe":<epoch>}; Conflict when the lease was lost.
  Result<FencedCommit> FencePipeTask(const JobRuntime& job);
  // A statement's change of a cluster job's state (PAUSE, RESUME, STOP, ALTER PIPE, DROP PIPE): written to
  // PostgreSQL first, then applied here; a write PostgreSQL did not take fails the statement and changes nothing
  // (changed here only, the next sync would undo it).
  Status ChangeClusterStateLocked(JobRuntime& job, catalog::JobState to, const std::string& reason);
  // A statement's change of any job's state: ChangeClusterStateLocked for a cluster job, SetStateLocked otherwise.
  Status ChangeStateLocked(JobRuntime& job, catalog::JobState to, const std::string& reason) {
    if (job.cluster) return ChangeClusterStateLocked(job, to, reason);
    SetStateLocked(job, to, reason);
    return Status::Ok();
  }
  // Before a cluster task's commit: every partition of the task still held at its epoch (LeaseStore::Fence).
  // Returns the summary entry sluice.epochs.<job> = {"<partition>":<epoch>,...}; Conflict when a lease was lost.
  Result<FencedCommit> FenceTask(const JobRuntime& job, const std::vector<int32_t>& partitions);
  // SHOW PIPES' node column: job id -> the nodes holding its leases (pipe:<id>, or its partitions).
  Result<std::map<int64_t, std::set<std::string>>> ClusterPipeRunners();
  // Rows of SHOW ROUTINE LOAD TASK for the partitions of `job_id` other nodes hold.
  Result<std::vector<std::pair<std::string, std::vector<int32_t>>>> PartitionsHeldElsewhere(int64_t job_id);
  // The node name SHOW ROUTINE LOAD TASK shows in BeId ("0" on a server of its own).
  std::string NodeName() const { return options_.cluster.uri.empty() ? "0" : options_.cluster.node; }

  // routine_load_manager.cpp
  std::shared_ptr<JobRuntime> FindLocked(const std::string& db, const std::string& name, bool include_final);
  // `persist`: also write the state to the catalog (not while the disk is full).
  void SetStateLocked(JobRuntime& job, catalog::JobState state, std::string reason, bool persist = true);
  void PersistLocked(JobRuntime& job);
  source::KafkaClientConfig SourceConfig(const catalog::RoutineLoadDefinition& def) const;
  // `described`: the DuckDB target table as the caller just read it (CREATE PIPE reads it for its columns), so the
  // catalog is not asked twice; null: read here.
  Result<std::shared_ptr<const load::TaskPlan>> Plan(int64_t job_id, const catalog::RoutineLoadDefinition& def,
                                                     const catalog::TableMeta* described = nullptr);
  // The DuckDB target table of `def`, as Plan describes it (unknown table or database -> UnknownTable).
  Result<catalog::TableMeta> DescribeTarget(const catalog::RoutineLoadDefinition& def);
  std::string ErrorLogUrl(const JobRuntime& job) const;
  Status ValidateTimezone(const std::string& tz);

  storage::Database& db_;
  catalog::Catalog& catalog_;
  SchedulerOptions options_;
  std::unique_ptr<catalog::RoutineLoadStore> store_;
  // Partitions and watermarks for every job (partition checks, idle groups' checks for new data): one client per
  // Kafka setup instead of one per job. Declared before pool_, so it outlives the tasks that use it.
  source::KafkaMetadataClients kafka_metadata_;
  std::unique_ptr<WorkerPool> pool_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  int running_tasks_ = 0;
  std::map<int64_t, std::shared_ptr<JobRuntime>> jobs_;
  struct Vcluster {
    int size = 1;                    // tasks at once
    std::vector<std::string> nodes;  // the nodes that run its cluster pipes; empty: every node
  };
  std::map<std::string, Vcluster> vclusters_;  // "default" (the worker pool) is not in it
  // virtual_clusters.cpp: `name` is `v` now (created, or altered from `before`); a new size regroups its Kafka pipes.
  void ApplyVclusterLocked(const std::string& name, Vcluster v, const std::optional<Vcluster>& before);
  std::unique_ptr<catalog::ClusterMirror> vcluster_mirror_;  // on a cluster node; its thread calls back here
  std::atomic<int64_t> next_task_id_{1};
  std::thread scheduler_;
  std::thread lag_refresher_;

  // Cluster jobs (cluster_jobs.cpp); all null on a server of its own.
  std::unique_ptr<catalog::ClusterJobStore> cluster_store_;
  std::unique_ptr<cluster::PgClient> lease_pg_;  // the cluster thread's connection
  std::map<int64_t, cluster::Lease> member_leases_;  // cluster thread only: job id -> this node's job:<id>:node:<me>
  std::map<int64_t, cluster::Lease> pipe_member_leases_;  // cluster thread only: pipe id -> pipe_node:<id>:<me>
  std::mutex fence_mu_;                           // guards fence_pg_ (workers fence, SHOW lists leases)
  std::unique_ptr<cluster::PgClient> fence_pg_;
  uint64_t cluster_writes_ = 0;                   // under mu_: counts this node's writes of cluster jobs
  std::condition_variable cluster_cv_;
  std::thread cluster_thread_;
  bool cluster_unreachable_logged_ = false;       // cluster thread only
};

}  // namespace sluice::scheduler
