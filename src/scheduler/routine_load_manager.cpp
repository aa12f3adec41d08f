#include "scheduler/routine_load_manager.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <ctime>
#include <random>
#include <set>
#include <strings.h>
#include <sstream>

#include "catalog/server_settings.h"
#include "common/egress_policy.h"
#include "common/ascii.h"
#include "common/clock.h"
#include "common/log.h"
#include "scheduler/job_registry.h"
#include "sql/parser.h"

namespace sluice::scheduler {

using catalog::JobState;

const char* JobKind(const catalog::RoutineLoadDefinition& def) { return def.pipe ? "pipe" : "routine load"; }

std::string FormatTimeMs(int64_t ms) {
  if (ms <= 0) return "";
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

// ---- RoutineLoadManager: the public face --------------------------------------------------------------------

RoutineLoadManager::RoutineLoadManager(storage::Database& db, catalog::Catalog& catalog, SchedulerOptions options)
    : jobs_(std::make_unique<JobRegistry>(db, catalog, std::move(options))) {}
RoutineLoadManager::~RoutineLoadManager() { Stop(); }
Status RoutineLoadManager::Start() { return jobs_->Start(); }
HeldWork RoutineLoadManager::DescribeHeld(const std::vector<std::string>& resources) {
  return jobs_->DescribeHeld(resources);
}
void RoutineLoadManager::Stop() { jobs_->Stop(); }
Status RoutineLoadManager::Create(const sql::CreateRoutineLoad& s, const std::string& db) { return jobs_->Create(s, db); }
Status RoutineLoadManager::Alter(const sql::AlterRoutineLoad& s, const std::string& db) { return jobs_->Alter(s, db); }
Status RoutineLoadManager::Control(const sql::ControlRoutineLoad& s, const std::string& db) {
  return jobs_->Control(s, db);
}
Result<ResultSet> RoutineLoadManager::Show(const sql::ShowRoutineLoad& s, const std::string& db) {
  return jobs_->Show(s, db);
}
Result<ResultSet> RoutineLoadManager::ShowTasks(const sql::ShowRoutineLoadTask& s, const std::string& db) {
  return jobs_->ShowTasks(s, db);
}
Result<std::string> RoutineLoadManager::ShowCreate(const sql::ShowCreateRoutineLoad& s, const std::string& db) {
  return jobs_->ShowCreate(db, s.job_name);
}
Result<JobTarget> RoutineLoadManager::TargetOf(const std::string& db, const std::string& name, bool pipe) {
  return jobs_->TargetOf(db, name, pipe);
}
void RoutineLoadManager::TargetDropped(const std::string& db, const std::string& table) {
  jobs_->TargetDropped(db, table);
}
void RoutineLoadManager::TargetAltered(const std::string& db, const std::string& table,
                                       const std::string& renamed_to, const std::vector<std::string>& dropped) {
  jobs_->TargetAltered(db, table, renamed_to, dropped);
}
void RoutineLoadManager::TargetChanged(const std::string& db, const std::string& table) {
  jobs_->TargetChanged(db, table);
}
Result<ResultSet> RoutineLoadManager::RejectedRows(const std::string& db, const std::string& job, int64_t limit, bool pipe) {
  return jobs_->RejectedRows(db, job, limit, pipe);
}

// ---- JobRegistry: lifecycle and statements ------------------------------------------------------------------

Result<std::shared_ptr<JobRuntime>> JobRegistry::AddNewJob(catalog::RoutineLoadDefinition def, int64_t now_ms,
                                                           std::optional<catalog::TableMeta> described) {
  const bool cluster = IsClusterJob(def);
  ASSIGN_OR_RETURN(int64_t id, cluster ? cluster_store_->CreateJob(def, now_ms) : store_->CreateJob(def, now_ms));
  auto job = std::make_shared<JobRuntime>();
  job->cluster = cluster;
  job->stored.id = id;
  job->stored.def = std::move(def);
  job->stored.state = JobState::kNeedSchedule;
  job->stored.create_time_ms = now_ms;
  job->table_at_create = std::move(described);
  std::lock_guard<std::mutex> lock(mu_);
  jobs_[id] = job;
  return job;
}

Status JobRegistry::Start() {
  ASSIGN_OR_RETURN(store_, catalog::RoutineLoadStore::Open(db_, options_.secrets_key_file));
  ASSIGN_OR_RETURN(auto stored, store_->LoadJobs());
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& s : stored) {
      auto job = std::make_shared<JobRuntime>();
      job->stored = std::move(s);
      // A job that was running when the server stopped resumes from its committed progress.
      if (job->stored.state == JobState::kRunning) job->stored.state = JobState::kNeedSchedule;
      // Paused for a full disk before the restart: the storage gate resumes it once there is room.
      if (job->stored.state == JobState::kPaused && IsStoragePauseReason(job->stored.reason))
        job->paused_for_storage = true;
      jobs_[job->stored.id] = job;
    }
  }
  RETURN_IF_ERROR(LoadVclusters());
  if (!options_.cluster.uri.empty()) {
    // Virtual clusters are the cluster's: learned before the jobs are, so a cluster pipe finds its own.
    RETURN_IF_ERROR(AttachVclustersToCluster());
    // Cluster jobs are read by the cluster thread, which rides out a PostgreSQL that cannot be reached yet.
    ASSIGN_OR_RETURN(cluster_store_, catalog::ClusterJobStore::Open(
                                         options_.cluster.uri, options_.cluster.key_file.empty()
                                                                   ? options_.secrets_key_file
                                                                   : options_.cluster.key_file));
  }
  ASSIGN_OR_RETURN(pool_, WorkerPool::Start(db_, std::max(1, options_.worker_threads)));
  if (cluster_store_) cluster_thread_ = std::thread([this] { ClusterLoop(); });
  scheduler_ = std::thread([this] { SchedulerLoop(); });
  lag_refresher_ = std::thread([this] { IdleLagLoop(); });
  log::Info("scheduler", "{} routine load job(s) loaded; {} worker(s)", stored.size(), pool_->size());
  return Status::Ok();
}

void JobRegistry::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    for (auto& [id, job] : jobs_) job->version++;  // running tasks roll back instead of committing late
  }
  cv_.notify_all();
  cluster_cv_.notify_all();
  if (scheduler_.joinable()) scheduler_.join();
  if (lag_refresher_.joinable()) lag_refresher_.join();
  if (cluster_thread_.joinable()) cluster_thread_.join();
  vcluster_mirror_.reset();  // its thread calls back into this registry
  if (pool_) pool_->Stop();
}

std::shared_ptr<JobRuntime> JobRegistry::FindLocked(const std::string& db, const std::string& name,
                                                    bool include_final) {
  std::shared_ptr<JobRuntime> found;
  for (auto& [id, job] : jobs_) {
    if (job->stored.def.db != db || job->stored.def.name != name) continue;
    if (job->stored.def.pipe) continue;  // pipes answer to the PIPE statements only
    bool final = job->stored.state == JobState::kStopped || job->stored.state == JobState::kCancelled;
    if (!final) return job;
    if (include_final) found = job;  // the newest stopped one, when no live job has the name
  }
  return found;
}

void JobRegistry::PersistLocked(JobRuntime& job) {
  if (job.cluster) {
    // Marked before the write: a sync that read PostgreSQL before it must not undo it.
    job.local_write = ++cluster_writes_;
    job.shared_state = job.stored.state;
  }
  Status st = StoreOf(job).UpdateJob(job.stored);
  if (!st.ok()) log::Error("scheduler", "could not save {} {}: {}", JobKind(job.stored.def), job.stored.def.name, st.message());
}

void JobRegistry::SetStateLocked(JobRuntime& job, JobState state, std::string reason, bool persist) {
  JobState old = job.stored.state;
  job.paused_for_storage = false;
  job.stored.state = state;
  job.stored.reason = std::move(reason);
  job.version++;
  // Tasks still running belong to no group any more: give their worker slots back now (they will not, when they
  // end: RunTask only counts down for groups that are still current).
  for (const auto& g : job.groups)
    if (g->running) running_tasks_--;
  job.groups.clear();
  job.unstarted_partitions.clear();  // the next scheduling asks every partition again
  job.unstarted_note.clear();
  if (state == JobState::kPaused) job.stored.pause_time_ms = WallClockMs();
  if (state == JobState::kStopped || state == JobState::kCancelled) job.stored.end_time_ms = WallClockMs();
  if (state == JobState::kNeedSchedule) {
    job.next_schedule_attempt = Clock::now();
    job.schedule_backoff_seconds = 0;
  }
  if (persist) PersistLocked(job);
  if (old != state) job.activity.state_changes[{JobStatusName(job.stored), ReasonClass(state, job.stored.reason)}]++;
  if (old != state)
    log::Info("scheduler", "{} {}.{}: {} -> {}{}{}", JobKind(job.stored.def), job.stored.def.db, job.stored.def.name,
              catalog::JobStateName(old), catalog::JobStateName(state), job.stored.reason.empty() ? "" : ": ",
              job.stored.reason);
  cv_.notify_all();
}

Status CheckRegistryEgress(const catalog::RoutineLoadDefinition& def) {
  // The brokers are checked by the Kafka client itself (source/kafka_config.cpp); the registry here, when the
  // statement arrives, and by its HTTP client at each connection.
  if (!def.schema_registry_url) return Status::Ok();
  return egress::CheckEgressUrl("schema registry", *def.schema_registry_url, 8081);
}

source::KafkaClientConfig JobRegistry::SourceConfig(const catalog::RoutineLoadDefinition& def) const {
  source::KafkaClientConfig c;
  c.brokers = def.broker_list;
  c.topic = def.topic;
  c.group_id = def.group_id();
  for (const auto& [k, v] : def.custom_properties)
    if (k == "client.id") c.client_id = v;
  c.properties = def.custom_properties;
  return c;
}

Result<std::shared_ptr<const load::TaskPlan>> JobRegistry::Plan(int64_t job_id, const catalog::RoutineLoadDefinition& def,
                                                               const catalog::TableMeta* described) {
  if (def.iceberg_target()) {
    if (!options_.load_targets)
      return Status::NotSupported("loads into tables of external catalogs are not available in this server");
    // A volume pipe has no Kafka task plan: its tasks commit through LoadTargets::OpenVolumeFiles.
    if (def.pipe && def.pipe->volume) return Status::Internal("a volume pipe has no Kafka task plan");
    ASSIGN_OR_RETURN(load::LoadTarget target, options_.load_targets->Open(def));
    return load::MakeTaskPlan(job_id, def, target.table, std::move(target.sink));
  }
  if (described) {
    if (described->is_view)
      return Status::InvalidArgument("'" + def.table + "' is a view; a routine load needs a table");
    return load::MakeTaskPlan(job_id, def, *described);
  }
  ASSIGN_OR_RETURN(catalog::TableMeta table, DescribeTarget(def));
  if (table.is_view) return Status::InvalidArgument("'" + def.table + "' is a view; a routine load needs a table");
  return load::MakeTaskPlan(job_id, def, table);
}

Result<catalog::TableMeta> JobRegistry::DescribeTarget(const catalog::RoutineLoadDefinition& def) {
  auto table = catalog_.DescribeTable(def.db, def.table);
  if (!table.ok()) {
    if (table.status().code() == StatusCode::kUnknownTable || table.status().code() == StatusCode::kUnknownDatabase)
      return Status::UnknownTable("table '" + def.table + "' does not exist in database '" + def.db + "'");
    return table.status();
  }
  return table;
}

Status JobRegistry::ValidateTimezone(const std::string& tz) {
  // Fixed offsets (+08:00) are handled by the transform itself; names go through DuckDB's ICU.
  if (tz.size() == 6 && (tz[0] == '+' || tz[0] == '-') && tz[3] == ':') return Status::Ok();
  // ICU's zone names do not change while the server runs: each is checked once (a connection and a query per
  // CREATE cost a tenth of what creating a job costs).
  static std::mutex known_mu;
  static std::set<std::string> known;
  {
    std::lock_guard<std::mutex> lock(known_mu);
    if (known.count(tz)) return Status::Ok();
  }
  ASSIGN_OR_RETURN(auto con, db_.Connect());
  auto r = con->Query("SELECT timezone(" + sql::QuoteLiteral(tz) + ", TIMESTAMPTZ '2000-01-01 00:00:00+00')");
  if (!r.ok())
    return Status::InvalidArgument("property \"timezone\": unknown time zone \"" + tz +
                                   "\"; use a name like \"UTC\", \"Asia/Shanghai\" or \"America/New_York\"");
  std::lock_guard<std::mutex> lock(known_mu);
  known.insert(tz);
  return Status::Ok();
}

Status JobRegistry::Create(const sql::CreateRoutineLoad& stmt, const std::string& db) {
  ASSIGN_OR_RETURN(auto def, catalog::BuildRoutineLoad(stmt, db));
  if (IsClusterJob(def)) {
    SyncClusterJobs();
    std::lock_guard<std::mutex> lock(mu_);
    if (FindLocked(db, def.name, false))
      return Status::AlreadyExists("a routine load named '" + def.name + "' already exists in database '" + db +
                                   "'; STOP it first or choose another name");
  }
  if (!catalog_.DatabaseExists(db)) return Status::UnknownDatabase("Unknown database '" + db + "'");
  RETURN_IF_ERROR(ValidateTimezone(def.Property("timezone")));
  // The plan checks COLUMNS, WHERE and the format against the table now, so mistakes fail the CREATE. The table
  // as described here is kept for the job's first scheduling.
  std::optional<catalog::TableMeta> described;
  if (!def.iceberg_target()) {
    ASSIGN_OR_RETURN(described, DescribeTarget(def));
  }
  ASSIGN_OR_RETURN(auto plan, Plan(0, def, described ? &*described : nullptr));
  (void)plan;
  // property.* checked against librdkafka's configuration table, without starting a client (its threads).
  RETURN_IF_ERROR(source::ValidateKafkaClientConfig(SourceConfig(def)));
  RETURN_IF_ERROR(CheckRegistryEgress(def));
  if (def.group_id().empty()) {
    std::random_device rd;
    std::mt19937_64 gen(rd());
    char suffix[17];
    std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(gen()));
    def.custom_properties.emplace_back("group.id", def.name + "_" + suffix);
  }
  {
    const int64_t cap = options_.settings ? options_.settings->MaxRoutineLoadJobNum() : options_.max_jobs;
    std::lock_guard<std::mutex> lock(mu_);
    int64_t live = 0;
    for (auto& [id, j] : jobs_)
      live += !j->stored.def.pipe && j->stored.state != JobState::kStopped && j->stored.state != JobState::kCancelled;
    if (live >= cap)
      return Status::InvalidArgument("there are already " + std::to_string(live) +
                                     " routine loads and max_routine_load_job_num is " + std::to_string(cap) +
                                     "; STOP one first, or raise the cap with SET GLOBAL max_routine_load_job_num = " +
                                     std::to_string(std::max<int64_t>(cap * 2, live + 1)));
  }
  ASSIGN_OR_RETURN(auto job, AddNewJob(std::move(def), WallClockMs(), std::move(described)));
  log::Info("scheduler", "routine load {}.{} created (id {})", db, job->stored.def.name, job->stored.id);
  cv_.notify_all();
  return Status::Ok();
}

Status JobRegistry::Alter(const sql::AlterRoutineLoad& stmt, const std::string& db) {
  SyncClusterJobs();
  std::shared_ptr<JobRuntime> job;
  catalog::RoutineLoadDefinition current;
  {
    std::lock_guard<std::mutex> lock(mu_);
    job = FindLocked(db, stmt.job_name, true);
    if (!job) return Status::NotFound("routine load '" + stmt.job_name + "' does not exist in database '" + db + "'");
    if (job->stored.state != JobState::kPaused)
      return Status::InvalidArgument("routine load '" + stmt.job_name + "' is " + catalog::JobStateName(job->stored.state) +
                                     "; only a PAUSED job can be altered: PAUSE ROUTINE LOAD FOR " + stmt.job_name +
                                     " first");
    current = job->stored.def;
  }
  ASSIGN_OR_RETURN(auto def, catalog::AlterRoutineLoadDefinition(current, stmt));
  RETURN_IF_ERROR(ValidateTimezone(def.Property("timezone")));
  ASSIGN_OR_RETURN(auto plan, Plan(job->stored.id, def));
  (void)plan;
  RETURN_IF_ERROR(source::ValidateKafkaClientConfig(SourceConfig(def)));
  RETURN_IF_ERROR(CheckRegistryEgress(def));
  // New starting offsets: forget those partitions' positions; the next scheduling resolves them from the
  // definition, as for a new job.
  // Only the partitions this ALTER names in kafka_partitions (with kafka_offsets) start over; the others keep
  // their progress, even when CREATE gave them an explicit offset. Partitions the ALTER leaves out keep their
  // progress rows too (the job's statistics), unused while they are not listed.
  std::set<int32_t> named;
  bool offsets_given = false;
  for (const auto& [k, v] : stmt.source_properties) {
    std::string key = AsciiLower(k);
    if (key == "kafka_offsets") offsets_given = true;
    if (key != "kafka_partitions") continue;
    std::stringstream parts(v);
    for (std::string p; std::getline(parts, p, ',');)
      named.insert(static_cast<int32_t>(std::strtol(p.c_str(), nullptr, 10)));
  }
  std::vector<int32_t> reset;
  for (const auto& kv : def.offsets) {
    bool new_offset = current.offsets.find(kv.first) == current.offsets.end();
    if (new_offset || (offsets_given && named.count(kv.first))) reset.push_back(kv.first);
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (job->stored.state != JobState::kPaused)
    return Status::Conflict("routine load '" + stmt.job_name + "' changed state while being altered; try again");
  // The new definition and the forgotten offsets are stored together, under the lock: a RESUME (or a crash) in
  // between would otherwise resolve the forgotten partitions from the old definition and load them again.
  catalog::StoredJob altered = job->stored;
  altered.def = std::move(def);
  if (job->cluster) {
    job->local_write = ++cluster_writes_;
    RETURN_IF_ERROR(cluster_store_->AlterJob(altered, reset));
    // The node's own progress cache forgets the reset partitions (its job row does not exist: nothing else changes).
    if (Status st = store_->AlterJob(altered, reset); !st.ok())
      log::Warn("scheduler", "routine load {}: could not reset this node's progress cache: {}", stmt.job_name,
                st.message());
  } else {
    RETURN_IF_ERROR(store_->AlterJob(altered, reset));
  }
  job->stored = std::move(altered);
  // SHOW's currentKafkaPartitions: the partitions the next RESUME loads (all of the topic's: resolved then).
  job->current_partitions = job->stored.def.partitions;
  job->version++;
  return Status::Ok();
}

Status JobRegistry::Control(const sql::ControlRoutineLoad& stmt, const std::string& db) {
  // A cluster job may have been created, or changed, on another node a moment ago.
  SyncClusterJobs();
  std::lock_guard<std::mutex> lock(mu_);
  auto job = FindLocked(db, stmt.job_name, true);
  if (!job) return Status::NotFound("routine load '" + stmt.job_name + "' does not exist in database '" + db + "'");
  JobState state = job->stored.state;
  bool final = state == JobState::kStopped || state == JobState::kCancelled;
  using Action = sql::ControlRoutineLoad::Action;
  if (final)
    return Status::InvalidArgument("routine load '" + stmt.job_name + "' is " + catalog::JobStateName(state) +
                                   ", which is final; create a new job to load again");
  // A cluster job's state is the cluster's: it is written to PostgreSQL first, and a write PostgreSQL did not take
  // fails the statement. Changed here only, the state would be undone by this node's next read of the cluster's
  // jobs (a PAUSE answered OK during an outage would silently resume once PostgreSQL is back).
  auto change = [&](JobState to, const std::string& reason) -> Status {
    if (!job->cluster) {
      SetStateLocked(*job, to, reason);
      return Status::Ok();
    }
    return ChangeClusterStateLocked(*job, to, reason);
  };
  switch (stmt.action) {
    case Action::kPause:
      // A job the storage gate paused stays paused once the user has paused it too.
      if (state != JobState::kPaused || job->paused_for_storage)
        return change(JobState::kPaused, "paused by the user (PAUSE ROUTINE LOAD)");
      break;
    case Action::kResume:
      if (state == JobState::kPaused) {
        RETURN_IF_ERROR(change(JobState::kNeedSchedule, ""));
        job->window_rows = job->window_errors = 0;
        job->other_msg.clear();
      }
      break;
    case Action::kStop:
      return change(JobState::kStopped, "stopped by the user (STOP ROUTINE LOAD)");
  }
  return Status::Ok();
}

namespace {
// The statement that resumes a paused job of this kind (as job_scheduling.cpp's pause reasons say it).
std::string ResumeFor(const catalog::RoutineLoadDefinition& def) {
  return def.pipe ? "ALTER PIPE " + def.name + " SET PIPE_EXECUTION_PAUSED = false"
                  : "RESUME ROUTINE LOAD FOR " + def.name;
}
}  // namespace

void JobRegistry::TargetChanged(const std::string& db, const std::string& table) {
  std::vector<std::pair<std::shared_ptr<JobRuntime>, catalog::RoutineLoadDefinition>> affected;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, job] : jobs_) {
      const auto& def = job->stored.def;
      if (def.iceberg_target()) continue;  // a DuckDB table of the same name is another table
      if (strcasecmp(def.db.c_str(), db.c_str()) != 0 || strcasecmp(def.table.c_str(), table.c_str()) != 0) continue;
      job->table_at_create.reset();  // its scheduling describes the table as it is now
      if (job->plan) affected.emplace_back(job, def);
    }
  }
  for (auto& [job, def] : affected) {
    auto plan = Plan(job->stored.id, def);  // reads the catalog: outside the registry's lock
    std::lock_guard<std::mutex> lock(mu_);
    if (plan.ok()) {
      job->plan = *plan;
      // A task already running checks rows against the old partitions (a dropped partition's rows would land
      // after DROP PARTITION deleted them): it commits nothing, and the job starts over from its progress.
      if (job->stored.state == JobState::kRunning) {
        job->stored.state = JobState::kNeedSchedule;
        job->next_schedule_attempt = Clock::now();
        job->version++;
        cv_.notify_all();
      }
    } else if (job->stored.state == JobState::kRunning || job->stored.state == JobState::kNeedSchedule) {
      SetStateLocked(*job, JobState::kPaused, plan.status().message() + "; ALTER ROUTINE LOAD to match what the table "
                                              "has now (its partitions, its columns), then " + ResumeFor(def));
    }
  }
}

void JobRegistry::TargetAltered(const std::string& db, const std::string& table, const std::string& renamed_to,
                                const std::vector<std::string>& dropped) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, job] : jobs_) {
      const auto& def = job->stored.def;
      JobState state = job->stored.state;
      if (state != JobState::kRunning && state != JobState::kNeedSchedule) continue;
      if (def.iceberg_target()) continue;  // a DuckDB table of the same name is another table
      if (strcasecmp(def.db.c_str(), db.c_str()) != 0 || strcasecmp(def.table.c_str(), table.c_str()) != 0) continue;
      const std::string kind = def.pipe ? "the pipe's SELECT list" : "its COLUMNS";
      if (!renamed_to.empty() && strcasecmp(renamed_to.c_str(), table.c_str()) != 0) {
        SetStateLocked(*job, JobState::kPaused,
                       "the target table " + def.db + "." + def.table + " was renamed to " + renamed_to +
                           "; rename it back (ALTER TABLE " + renamed_to + " RENAME " + def.table + "), then " +
                           ResumeFor(def) + ", or load " + renamed_to + " with a new " +
                           (def.pipe ? "pipe" : "routine load"));
        continue;
      }
      if (!def.load.columns) continue;
      for (const auto& m : *def.load.columns) {
        auto gone = std::find_if(dropped.begin(), dropped.end(),
                                 [&](const std::string& d) { return strcasecmp(d.c_str(), m.name.c_str()) == 0; });
        if (gone == dropped.end()) continue;
        SetStateLocked(*job, JobState::kPaused,
                       "column " + *gone + " was dropped from table " + def.db + "." + def.table + " and " + kind +
                           " names it; " +
                           (def.pipe ? "DROP PIPE " + def.name + " and create it again without the column"
                                     : "ALTER ROUTINE LOAD FOR " + def.name +
                                           " COLUMNS (...) without it, then " + ResumeFor(def)));
        break;
      }
    }
  }
  TargetChanged(db, renamed_to.empty() ? table : renamed_to);
}

void JobRegistry::TargetDropped(const std::string& db, const std::string& table) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, job] : jobs_) {
    const auto& def = job->stored.def;
    JobState state = job->stored.state;
    if (state == JobState::kStopped || state == JobState::kCancelled) continue;
    // Names are DuckDB identifiers, which compare without case.
    if (strcasecmp(def.db.c_str(), db.c_str()) != 0) continue;
    if (!table.empty() && def.iceberg_target()) continue;  // a DuckDB table of the same name is another table
    if (!table.empty() && strcasecmp(def.table.c_str(), table.c_str()) != 0) continue;
    SetStateLocked(*job, JobState::kCancelled,
                   "the target table " + def.db + "." + def.table + " was dropped" +
                       (table.empty() ? " with its database" : "") + " while the " + JobKind(def) + " was " +
                       catalog::JobStateName(state) + "; " +
                       (def.pipe ? "create the table and the pipe again to load again"
                                 : "create the table and a new routine load to load again"));
  }
}

Result<std::string> JobRegistry::ShowCreate(const std::string& db, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto job = FindLocked(db, name, true);
  if (!job) return Status::NotFound("routine load '" + name + "' does not exist in database '" + db + "'");
  return catalog::RenderCreateRoutineLoad(job->stored.def);
}

Result<ResultSet> JobRegistry::RejectedRows(const std::string& db, const std::string& name, int64_t limit, bool pipe) {
  int64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto job = pipe ? FindPipeLocked(db, name) : FindLocked(db, name, true);
    if (!job)
      return Status::NotFound(std::string(pipe ? "pipe '" : "routine load '") + name + "' does not exist in database '" +
                              db + "'");
    id = job->stored.id;
  }
  return store_->RejectedRows(id, limit);
}

std::string JobRegistry::ErrorLogUrl(const JobRuntime& job) const {
  if (options_.http_base_url.empty()) return "";
  return options_.http_base_url + "/api/routine_load/errors?db=" + job.stored.def.db + "&job=" + job.stored.def.name;
}

}  // namespace sluice::scheduler

namespace sluice::scheduler {

Result<JobTarget> JobRegistry::TargetOf(const std::string& db, const std::string& name, bool pipe) {
  if (!pipe) SyncClusterJobs();  // a cluster job created on another node a moment ago
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<JobRuntime> job = pipe ? FindPipeLocked(db, name) : FindLocked(db, name, true);
  if (!job) {
    return Status::NotFound((pipe ? "Pipe '" : "Routine load job '") + name + "' does not exist in database '" +
                            db + "'");
  }
  const auto& def = job->stored.def;
  // An Iceberg target is authorized as catalog.db / table, as INSERT INTO catalog.db.table is.
  JobTarget t{def.iceberg_target() ? def.lake_catalog + "." + def.lake_db : def.db, def.table,
              def.pipe ? def.pipe->creator : "", ""};
  if (def.pipe && def.pipe->volume) t.volume = def.pipe->volume->volume;
  return t;
}

}  // namespace sluice::scheduler
