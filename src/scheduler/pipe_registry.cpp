// Kafka pipes on the routine load scheduler: CREATE / DROP / ALTER / SHOW / DESC PIPE turn into jobs of kind pipe
// (catalog::RoutineLoadDefinition::pipe), and virtual clusters bound how many of their tasks run at once.
#include <algorithm>
#include <cctype>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "catalog/load_history.h"
#include "catalog/pipe_definition.h"
#include "catalog/property_table.h"
#include "catalog/server_settings.h"
#include "common/ascii.h"
#include "common/clock.h"
#include "common/like.h"
#include "common/log.h"
#include "common/test_points.h"
#include "load/volume_pipe_task.h"
#include "scheduler/job_registry.h"
#include "sql/lexer.h"
#include "sql/parser.h"

namespace sluice::scheduler {

using catalog::JobState;
using nlohmann::json;

namespace {

std::string PipeStatus(const catalog::StoredJob& s) {
  if (s.state == JobState::kPaused && s.reason == catalog::kPipeSuspendedReason) return "SUSPENDED";
  // Waiting for the disk: it goes on by itself, so it is not FAILED; last_error says why nothing loads.
  if (s.state == JobState::kPaused && IsStoragePauseReason(s.reason)) return "RUNNING";
  if (s.state == JobState::kPaused || s.state == JobState::kCancelled) return "FAILED";
  return "RUNNING";
}

bool IsLivePipe(const JobRuntime& j) { return j.stored.def.pipe && j.stored.state != JobState::kStopped; }

std::string PipeNotFound(const std::string& name, const std::string& db) {
  return "pipe '" + name + "' does not exist in database '" + db + "'";
}

}  // namespace

std::string PipeStatusOf(const catalog::StoredJob& s) { return PipeStatus(s); }

// ---- RoutineLoadManager: the public face ----------------------------------------------------------------------

Status RoutineLoadManager::CreatePipe(const sql::CreatePipe& s, const std::string& db) { return jobs_->CreatePipe(s, db); }
Status RoutineLoadManager::DropPipe(const sql::DropPipe& s, const std::string& db) { return jobs_->DropPipe(s, db); }
Status RoutineLoadManager::AlterPipe(const sql::AlterPipe& s, const std::string& db) { return jobs_->AlterPipe(s, db); }
Result<ResultSet> RoutineLoadManager::ShowPipes(const sql::ShowPipes& s, const std::string& db) {
  return jobs_->ShowPipes(s, db);
}
Result<ResultSet> RoutineLoadManager::DescPipe(const sql::DescPipe& s, const std::string& db) {
  return jobs_->DescPipe(s, db);
}
Result<std::optional<std::vector<load::CommittedFile>>> RoutineLoadManager::PipeFiles(const std::string& db,
                                                                                    const std::string& name) {
  return jobs_->PipeFiles(db, name);
}
Status RoutineLoadManager::CreateVcluster(const sql::CreateVcluster& s) { return jobs_->CreateVcluster(s); }
Status RoutineLoadManager::AlterVcluster(const sql::AlterVcluster& s) { return jobs_->AlterVcluster(s); }
Status RoutineLoadManager::DropVcluster(const sql::DropVcluster& s) { return jobs_->DropVcluster(s); }
Result<ResultSet> RoutineLoadManager::ShowVclusters(const sql::ShowVclusters& s) { return jobs_->ShowVclusters(s); }

// ---- Failing batches ---------------------------------------------------------------------------------------

void JobRegistry::PipeBatchFailedLocked(JobRuntime& job, TaskGroup& group, const std::string& reason,
                                        const std::string& in_a_row, const std::string& fix,
                                        const std::string& retrying, double interval, Clock::time_point now) {
  const auto& def = job.stored.def;
  job.aborted_tasks++;
  job.failed_batches++;
  if (job.failed_batches >= def.pipe->max_skip_batches) {
    SetStateLocked(job, JobState::kPaused,
                   reason + "; " + std::to_string(job.failed_batches) + " batches in a row " + in_a_row +
                       " (MAX_SKIP_BATCH_COUNT_ON_ERROR " + std::to_string(def.pipe->max_skip_batches) + "). " + fix +
                       ", then ALTER PIPE " + def.name + " SET PIPE_EXECUTION_PAUSED = false");
    return;
  }
  group.backoff_seconds =
      std::min(std::max(1.0, interval), static_cast<double>(int64_t{1} << std::min<int64_t>(job.failed_batches - 1, 20)));
  group.next_run = now + Seconds(group.backoff_seconds);
  group.message = reason + "; " + retrying + " " + std::to_string(static_cast<int>(group.backoff_seconds)) + " s";
  job.other_msg = group.message;
}

// ---- Pipes --------------------------------------------------------------------------------------------------

std::shared_ptr<JobRuntime> JobRegistry::FindPipeLocked(const std::string& db, const std::string& name) {
  std::shared_ptr<JobRuntime> found;
  for (auto& [id, job] : jobs_) {
    if (IsLivePipe(*job) && job->stored.def.db == db && job->stored.def.name == name) found = job;
  }
  return found;
}

void JobRegistry::WaitForTasksToEnd(const std::shared_ptr<JobRuntime>& job) {
  // A task of a dropped pipe commits nothing more (its version moved on), but one inside its commit finishes it:
  // wait, so a pipe created next with the same group starts after that commit.
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::seconds(30), [&] { return job->tasks_in_flight == 0; });
}

Status JobRegistry::CheckPipeCap() {
  const int64_t cap = options_.settings ? options_.settings->MaxPipeNum() : catalog::kDefaultMaxPipeNum;
  std::lock_guard<std::mutex> lock(mu_);
  int64_t live = 0;
  for (auto& [id, j] : jobs_)
    live += j->stored.def.pipe && j->stored.state != JobState::kStopped && j->stored.state != JobState::kCancelled;
  if (live < cap) return Status::Ok();
  return Status::InvalidArgument("there are already " + std::to_string(live) + " pipes and max_pipe_num is " +
                                 std::to_string(cap) + "; DROP PIPE one first, or raise the cap with SET GLOBAL "
                                 "max_pipe_num = " + std::to_string(std::max<int64_t>(cap * 2, live + 1)));
}

Status JobRegistry::CreatePipe(const sql::CreatePipe& stmt, const std::string& session_db) {
  const std::string db = stmt.db.empty() ? session_db : stmt.db;
  const bool iceberg = !stmt.table_catalog.empty();
  if (!iceberg && !stmt.table_db.empty() && stmt.table_db != db)
    return Status::NotSupported("the target table of a pipe must be in the pipe's database '" + db + "', not '" +
                                stmt.table_db + "'");
  if (!catalog_.DatabaseExists(db)) return Status::UnknownDatabase("Unknown database '" + db + "'");
  SyncClusterJobs();  // a cluster pipe of that name may have been created on another node a moment ago
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (FindPipeLocked(db, stmt.name)) {
      if (stmt.if_not_exists) return Status::Ok();
      return Status::AlreadyExists("pipe '" + stmt.name + "' already exists in database '" + db + "'");
    }
  }
  RETURN_IF_ERROR(CheckPipeCap());
  std::vector<std::string> columns;
  std::optional<catalog::TableMeta> described;  // the DuckDB table, kept for the plan below
  if (iceberg && stmt.volume_copy) {
    // Checked below, once the statement itself is (a volume pipe needs no columns to be built).
  } else if (iceberg) {
    // The Iceberg table's columns, from its current schema in the catalog.
    if (!options_.load_targets)
      return Status::NotSupported("loads into tables of external catalogs are not available in this server");
    catalog::RoutineLoadDefinition target;
    target.lake_catalog = stmt.table_catalog;
    target.lake_db = stmt.table_db;
    target.table = stmt.table;
    ASSIGN_OR_RETURN(load::LoadTarget lake, options_.load_targets->Open(target));
    for (const auto& c : lake.table.columns) columns.push_back(c.name);
  } else {
    auto table = catalog_.DescribeTable(db, stmt.table);
    if (!table.ok()) {
      if (table.status().code() == StatusCode::kUnknownTable)
        return Status::UnknownTable("table '" + stmt.table + "' does not exist in database '" + db + "'");
      return table.status();
    }
    if (table->is_view) return Status::InvalidArgument("'" + stmt.table + "' is a view; a pipe loads into a table");
    for (const auto& c : table->columns) columns.push_back(c.name);
    described = std::move(table).value();
  }
  ASSIGN_OR_RETURN(auto def, catalog::BuildPipe(stmt, db, columns));
  RETURN_IF_ERROR(CheckVclusterExists(def.pipe->virtual_cluster));
  if (def.pipe->volume) {
    RETURN_IF_ERROR(CheckVolumePipe(def));  // the volume exists, the format's OPTIONS are valid
    if (iceberg) {
      ASSIGN_OR_RETURN(load::LoadTarget lake, options_.load_targets->Open(def));  // the table exists
      (void)lake;
    }
    int64_t now = WallClockMs();
    def.pipe->modified_time_ms = now;
    ASSIGN_OR_RETURN(auto job, AddNewJob(std::move(def), now));
    log::Info("scheduler", "pipe {}.{} created (job id {}) on volume {}", db, stmt.name, job->stored.id,
              job->stored.def.pipe->volume->volume);
    cv_.notify_all();
    return Status::Ok();
  }
  // Checks the SELECT list and WHERE against the table now.
  ASSIGN_OR_RETURN(auto plan, Plan(0, def, described ? &*described : nullptr));
  // property.* checked against librdkafka's configuration table, without starting a client (its threads).
  RETURN_IF_ERROR(source::ValidateKafkaClientConfig(SourceConfig(def)));
  RETURN_IF_ERROR(CheckRegistryEgress(def));

  // The group id is the pipe's progress: a dropped pipe of the same group and topic hands over where it stopped.
  int64_t previous = 0;
  bool previous_same_lake_table = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, j] : jobs_) {
      const auto& d = j->stored.def;
      if (!d.pipe || d.pipe->volume || d.group_id() != def.group_id() || d.topic != def.topic) continue;
      if (j->stored.state != JobState::kStopped)
        return Status::AlreadyExists("pipe '" + d.db + "." + d.name + "' already reads topic '" + d.topic +
                                     "' with group '" + d.group_id() + "'; use another group id");
      if (id > previous) {
        previous = id;
        previous_same_lake_table = def.iceberg_target() && d.TargetName() == def.TargetName();
      }
    }
  }
  const std::string& reset = def.pipe->reset_offsets;
  if (previous != 0 && (reset == "none" || reset == "valid")) {
    ASSIGN_OR_RETURN(auto progress, store_->ReadProgress(previous));
    std::map<int32_t, int64_t> handed;
    for (const auto& [p, pr] : progress)
      if (pr.next_offset >= 0) handed[p] = pr.next_offset;
    // Into the same Iceberg table, its snapshots hold the dropped pipe's offsets (the progress rows are their
    // cache, behind after a crash right after a commit): they win.
    if (previous_same_lake_table) {
      ASSIGN_OR_RETURN(auto in_table, plan->sink->CommittedOffsets(previous));
      if (in_table)
        for (const auto& [p, o] : *in_table) handed[p] = o;
    }
    for (const auto& [p, o] : handed)
      def.offsets[p] = catalog::OffsetSpec{catalog::OffsetSpec::Kind::kOffset, o, std::to_string(o)};
  }
  int64_t now = WallClockMs();
  def.pipe->modified_time_ms = now;
  ASSIGN_OR_RETURN(auto job, AddNewJob(std::move(def), now, std::move(described)));
  log::Info("scheduler", "pipe {}.{} created (job id {}){}", db, stmt.name, job->stored.id,
            previous ? " resuming group '" + job->stored.def.group_id() + "'" : std::string());
  cv_.notify_all();
  return Status::Ok();
}

Status JobRegistry::DropPipe(const sql::DropPipe& stmt, const std::string& session_db) {
  const std::string db = stmt.db.empty() ? session_db : stmt.db;
  SyncClusterJobs();
  std::shared_ptr<JobRuntime> job;
  {
    std::lock_guard<std::mutex> lock(mu_);
    job = FindPipeLocked(db, stmt.name);
    if (!job) return stmt.if_exists ? Status::Ok() : Status::NotFound(PipeNotFound(stmt.name, db));
    RETURN_IF_ERROR(ChangeStateLocked(*job, JobState::kStopped, "dropped (DROP PIPE)"));
  }
  WaitForTasksToEnd(job);
  return Status::Ok();
}

Status JobRegistry::AlterPipe(const sql::AlterPipe& stmt, const std::string& session_db) {
  const std::string db = stmt.db.empty() ? session_db : stmt.db;
  SyncClusterJobs();
  catalog::RoutineLoadDefinition def;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto job = FindPipeLocked(db, stmt.name);
    if (!job) return Status::NotFound(PipeNotFound(stmt.name, db));
    const JobState state = job->stored.state;
    if (stmt.execute) {
      if (state != JobState::kRunning && state != JobState::kNeedSchedule)
        return Status::InvalidArgument("pipe '" + stmt.name + "' is " + PipeStatus(job->stored) + "; ALTER PIPE " +
                                       stmt.name + " SET PIPE_EXECUTION_PAUSED = false first");
      if (job->cluster) {
        // The node that runs the pipe (perhaps another) sees the count grow within a tick (SyncClusterJobs).
        auto wakes = cluster_store_->Wake(job->stored.id);
        if (!wakes.ok())
          return Status(wakes.status().code(), "pipe '" + stmt.name + "' belongs to the cluster, whose state is kept "
                                               "in PostgreSQL: " + wakes.status().message() +
                                               "; run the statement again once PostgreSQL answers");
        job->seen_wakes = std::max(job->seen_wakes, *wakes);
      }
      for (auto& g : job->groups) g->next_run = g->asked_at = Clock::now();
      cv_.notify_all();
      return Status::Ok();
    }
    if (stmt.property == "PIPE_EXECUTION_PAUSED") {
      std::string v = AsciiUpper(stmt.value);
      if (v != "TRUE" && v != "FALSE")
        return Status::InvalidArgument("PIPE_EXECUTION_PAUSED must be true or false, got '" + stmt.value + "'");
      if (state == JobState::kCancelled)
        return Status::InvalidArgument("pipe '" + stmt.name + "' failed for good (" + job->stored.reason +
                                       "); drop it and create it again");
      if (v == "TRUE") {
        if (state != JobState::kPaused || job->stored.reason != catalog::kPipeSuspendedReason)
          RETURN_IF_ERROR(ChangeStateLocked(*job, JobState::kPaused, catalog::kPipeSuspendedReason));
      } else if (state == JobState::kPaused) {
        RETURN_IF_ERROR(ChangeStateLocked(*job, JobState::kNeedSchedule, ""));
        job->window_rows = job->window_errors = 0;
        job->failed_batches = 0;
        job->other_msg.clear();
      }
      return Status::Ok();
    }
    def = job->stored.def;
  }
  RETURN_IF_ERROR(catalog::AlterPipeProperty(def, stmt.property, stmt.value));
  RETURN_IF_ERROR(CheckVclusterExists(def.pipe->virtual_cluster));
  def.pipe->modified_time_ms = WallClockMs();
  std::lock_guard<std::mutex> lock(mu_);
  auto job = FindPipeLocked(db, stmt.name);
  if (!job) return Status::NotFound(PipeNotFound(stmt.name, db));
  if (job->cluster) {
    // The cluster's pipe: its new definition is written to PostgreSQL first (a write it did not take fails the
    // statement); every node regroups the pipe when it reads the new definition.
    catalog::StoredJob altered = job->stored;
    altered.def = def;
    job->local_write = ++cluster_writes_;
    if (Status st = cluster_store_->AlterJob(altered, {}); !st.ok())
      return Status(st.code(), "pipe '" + stmt.name + "' belongs to the cluster, whose state is kept in PostgreSQL: " +
                                   st.message() + "; nothing changed, run the statement again once PostgreSQL answers");
  }
  job->stored.def = std::move(def);
  PersistLocked(*job);
  // Stored before the regrouping: a crash here restarts the pipe with its new definition (it was running). Only
  // crash and sleep mean something here; the definition is already changed.
  (void)TestPoint("alter_pipe.after_definition");
  // A running pipe is regrouped with the new settings; its current tasks commit nothing and are read again.
  if (job->stored.state == JobState::kRunning || job->stored.state == JobState::kNeedSchedule)
    SetStateLocked(*job, JobState::kNeedSchedule, "");
  return Status::Ok();
}

namespace {

struct PipeSnapshot {
  catalog::StoredJob stored;
  std::string other_msg;
  std::map<int32_t, int64_t> latest, timestamps;
  int64_t pending_files = 0, pending_bytes = 0, last_listing_ms = 0, last_load_ms = 0;
  std::string last_loaded_file;
  std::string start_note;
  // A cluster pipe (run by several nodes over its life): its counts and files are read from its table.
  bool cluster = false;
  std::shared_ptr<const load::TaskPlan> plan;  // a Kafka pipe's, for its sink (null until planned on this node)
};

PipeSnapshot Snapshot(const JobRuntime& j) {
  PipeSnapshot s;
  s.stored = j.stored;
  // A cluster pipe: its state in the cluster, the same on every node (not this node's regrouping).
  if (j.cluster) s.stored.state = j.shared_state;
  // No node that may run it is alive: that is why nothing loads, whatever this node last tried.
  s.other_msg = j.node_wait.empty() ? j.ShownOtherMsg() : j.node_wait;
  s.latest = j.latest_offsets;
  s.timestamps = j.last_timestamp_ms;
  s.pending_files = j.pending_files;
  s.pending_bytes = j.pending_bytes;
  s.last_listing_ms = j.last_listing_ms;
  s.last_load_ms = j.last_load_ms;
  s.last_loaded_file = j.last_loaded_file;
  s.start_note = j.start_note;
  s.cluster = j.cluster;
  s.plan = j.plan;
  return s;
}

std::string PipeKind(const catalog::RoutineLoadDefinition& d) { return d.pipe->volume ? "VOLUME" : "READ_KAFKA"; }

// {"volume":{"pendingFileCount":n,"pendingFileBytes":b,"lastListingTimestamp":ms,"lastIngestedTimestamp":ms,
// "lastIngestedFilePath":"...","timeLag":ms}} as of the last listing; timeLag = now - the last file's load (-1 while
// failing or before the first file).
json VolumeLatency(const PipeSnapshot& s) {
  bool failing = PipeStatus(s.stored) == "FAILED" || s.other_msg.find("retrying") != std::string::npos;
  int64_t last = s.last_load_ms > 0 ? s.last_load_ms : -1;
  int64_t time_lag = failing || last < 0 ? -1 : std::max<int64_t>(0, WallClockMs() - last);
  return json{{"volume",
               {{"pendingFileCount", s.pending_files},
                {"pendingFileBytes", s.pending_bytes},
                {"lastListingTimestamp", s.last_listing_ms > 0 ? s.last_listing_ms : -1},
                {"lastIngestedTimestamp", last},
                {"lastIngestedFilePath", s.last_loaded_file},
                {"timeLag", time_lag}}}};
}

// {"kafka":{"lags":{"0":n,...},"lastConsumeTimestamp":ms,"offsetLag":n,"timeLag":ms}} (timeLag -1 while failing).
json Latency(const PipeSnapshot& s, const std::map<int32_t, catalog::PartitionProgress>& progress) {
  json lags = json::object();
  int64_t total = 0;
  for (const auto& [p, pr] : progress) {
    auto high = s.latest.find(p);
    int64_t lag = high == s.latest.end() || pr.next_offset < 0 ? 0 : std::max<int64_t>(0, high->second - pr.next_offset);
    lags[std::to_string(p)] = lag;
    total += lag;
  }
  int64_t last = -1;
  for (const auto& [p, ts] : s.timestamps) last = std::max(last, ts);
  bool failing = PipeStatus(s.stored) == "FAILED" || s.other_msg.find("retrying") != std::string::npos;
  int64_t time_lag = failing || last < 0 ? -1 : std::max<int64_t>(0, WallClockMs() - last);
  return json{{"kafka", {{"lags", lags}, {"lastConsumeTimestamp", last}, {"offsetLag", total}, {"timeLag", time_lag}}}};
}

std::string LastError(const PipeSnapshot& s) {
  if (PipeStatus(s.stored) == "FAILED" || IsStoragePauseReason(s.stored.reason)) return s.stored.reason;
  return s.other_msg.find("retrying") != std::string::npos ? s.other_msg : "";
}

// The rows DESC PIPE gives for both kinds of pipe; EXTENDED rows follow.
ResultSet DescRows(const PipeSnapshot& s, const json& props, const std::string& input_name, const json& latency) {
  const auto& d = s.stored.def;
  const auto& p = *d.pipe;
  ResultSet rs;
  rs.AddColumn("info_name");
  rs.AddColumn("info_value");
  auto add = [&](const std::string& k, const std::string& v) { rs.rows.push_back({k, v}); };
  add("name", d.name);
  add("creator", p.creator);
  add("created_time", FormatTimeMs(s.stored.create_time_ms));
  add("last_modified_time", FormatTimeMs(std::max(p.modified_time_ms, s.stored.create_time_ms)));
  add("comment", p.comment);
  add("properties", props.dump());
  add("copy_statement", p.copy_statement);
  add("pipe_kind", PipeKind(d));
  add("pipe_status", PipeStatus(s.stored));
  add("input_name", input_name);
  add("output_name", d.iceberg_target() ? d.TargetName() : d.db + "." + d.table);
  add("invalid_reason", PipeStatus(s.stored) == "FAILED" ? s.stored.reason : "");
  add("pipe_latency", latency.dump());
  return rs;
}

// DESC PIPE of a volume pipe. EXTENDED adds what load_history holds of the pipe (within its retention); for a
// cluster pipe (`committed`: from its table) the files, rows and error rows its commits list, whichever node made
// them, and failed_loads from this node's load_history (a file that failed committed nothing).
Result<ResultSet> DescVolumePipe(storage::Database& db, const PipeSnapshot& s, bool extended,
                                 const std::optional<std::vector<load::CommittedFile>>& committed) {
  const auto& d = s.stored.def;
  const auto& p = *d.pipe;
  const auto& v = *p.volume;
  json props = json::object();
  props["VIRTUAL_CLUSTER"] = p.virtual_cluster;
  props["BATCH_INTERVAL_IN_SECONDS"] = d.Property("max_batch_interval");
  props["INGEST_MODE"] = v.ingest_mode;
  props["INITIAL_DELAY_IN_SECONDS"] = std::to_string(p.initial_delay_seconds);
  props["MAX_SKIP_BATCH_COUNT_ON_ERROR"] = std::to_string(p.max_skip_batches);
  ResultSet rs = DescRows(s, props, "volume " + v.volume + (v.subdirectory.empty() ? "" : " subdirectory " + v.subdirectory),
                          VolumeLatency(s));
  auto add = [&](const std::string& k, const std::string& val) { rs.rows.push_back({k, val}); };
  if (extended) {
    ASSIGN_OR_RETURN(auto con, db.Connect());
    ASSIGN_OR_RETURN(auto r, con->Query(
        "SELECT count(*) FILTER (WHERE status IN ('LOADED', 'PARTIALLY_LOADED')), coalesce(sum(loaded_rows), 0), "
        "coalesce(sum(error_rows), 0), count(*) FILTER (WHERE status = 'FAILED') FROM __sluice.load_history WHERE "
        "job_kind = 'PIPE' AND job_name = " + sql::QuoteLiteral(d.name) + " AND db = " +
        // Into an Iceberg table the rows name it catalog.db.table (db = catalog.db).
        sql::QuoteLiteral(d.iceberg_target() ? d.lake_catalog + "." + d.lake_db : d.db) +
        " AND table_name = " + sql::QuoteLiteral(d.table) + " AND start_time >= " +
        std::to_string(s.stored.create_time_ms)));
    const Row& row = r.result_set->rows.at(0);
    add("virtual_cluster", p.virtual_cluster);
    add("ingest_mode", v.ingest_mode);
    if (committed) {
      int64_t rows = 0, errors = 0;
      for (const auto& f : *committed) {
        rows += f.record.rows_loaded;
        errors += f.record.error_rows;
      }
      add("loaded_files", std::to_string(committed->size()));
      add("loaded_rows", std::to_string(rows));
      add("error_rows", std::to_string(errors));
    } else {
      add("loaded_files", row[0].value_or("0"));
      add("loaded_rows", row[1].value_or("0"));
      add("error_rows", row[2].value_or("0"));
    }
    add("failed_loads", row[3].value_or("0"));
    add("last_error", LastError(s));
  }
  return rs;
}

}  // namespace

Result<ResultSet> JobRegistry::ShowPipes(const sql::ShowPipes& stmt, const std::string& session_db) {
  const std::string db = stmt.db.empty() ? session_db : stmt.db;
  SyncClusterJobs();
  std::vector<PipeSnapshot> snaps;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, j] : jobs_) {
      if (!IsLivePipe(*j) || j->stored.def.db != db) continue;
      if (stmt.like && !LikeMatch(j->stored.def.name, *stmt.like)) continue;
      snaps.push_back(Snapshot(*j));
    }
  }
  std::sort(snaps.begin(), snaps.end(), [](const auto& a, const auto& b) { return a.stored.def.name < b.stored.def.name; });
  // Which nodes run each cluster pipe, from the leases: the same answer on every node.
  std::optional<std::map<int64_t, std::set<std::string>>> runners;
  if (cluster_store_ && std::any_of(snaps.begin(), snaps.end(), [](const auto& s) { return s.cluster; })) {
    auto held = ClusterPipeRunners();
    if (held.ok()) runners = std::move(held).value();
    else log::Warn("pipe", "SHOW PIPES: which node runs each cluster pipe is unknown: {}", held.status().message());
  }
  ResultSet rs;
  for (const char* c : {"name", "status", "pipe_kind", "copy_statement", "virtual_cluster", "created_time", "comment",
                        "last_error", "node"})
    rs.AddColumn(c);
  for (const auto& s : snaps) {
    const auto& p = *s.stored.def.pipe;
    // node: a cluster pipe's runners (its lease holders, ", "-joined; NULL when PostgreSQL does not answer); a
    // node's own pipe runs here (its name on a cluster node, empty on a server of its own).
    std::optional<std::string> node = cluster_store_ ? options_.cluster.node : "";
    if (s.cluster) {
      node.reset();
      if (runners) {
        node = "";
        if (auto it = runners->find(s.stored.id); it != runners->end())
          for (const auto& n : it->second) *node += (node->empty() ? "" : ", ") + n;
      }
    }
    rs.rows.push_back({s.stored.def.name, PipeStatus(s.stored), PipeKind(s.stored.def), p.copy_statement,
                       p.virtual_cluster, FormatTimeMs(s.stored.create_time_ms), p.comment, LastError(s), node});
  }
  return rs;
}

Result<ResultSet> JobRegistry::DescPipe(const sql::DescPipe& stmt, const std::string& session_db) {
  const std::string db = stmt.db.empty() ? session_db : stmt.db;
  SyncClusterJobs();
  PipeSnapshot s;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto job = FindPipeLocked(db, stmt.name);
    if (!job) return Status::NotFound(PipeNotFound(stmt.name, db));
    s = Snapshot(*job);
  }
  if (s.stored.def.pipe->volume) {
    std::optional<std::vector<load::CommittedFile>> committed;
    if (stmt.extended && s.cluster) {
      // A table that cannot be read leaves this node's own figures (information_schema.pipes still lists the pipe).
      auto in_table = CommittedPipeFiles(s.stored);
      if (in_table.ok()) committed = std::move(in_table).value();
      else log::Warn("pipe", "DESC PIPE {}: this node's own counts: {}", stmt.name, in_table.status().message());
    }
    return DescVolumePipe(db_, s, stmt.extended, committed);
  }
  ASSIGN_OR_RETURN(auto progress, store_->ReadProgress(s.stored.id));
  // A cluster pipe's partitions are loaded by several nodes: offsets and counts come from its table, where they
  // commit with the rows (lakehouse/job_statistics.h), so every node answers the same.
  std::optional<catalog::PartitionProgress> table_totals;
  if (s.cluster && s.plan) {
    auto in_table = s.plan->sink->CommittedState(s.stored.id);
    if (in_table.ok()) {
      if (in_table->offsets)
        for (const auto& [part, o] : *in_table->offsets) progress[part].next_offset = o;
      table_totals = in_table->totals;
    } else {
      log::Warn("pipe", "DESC PIPE {}: cannot read its progress from its table, this node's own counts: {}",
                stmt.name, in_table.status().message());
    }
  }
  const auto& d = s.stored.def;
  const auto& p = *d.pipe;
  json props = json::object();
  props["VIRTUAL_CLUSTER"] = p.virtual_cluster;
  props["BATCH_INTERVAL_IN_SECONDS"] = d.Property("max_batch_interval");
  props["BATCH_SIZE_PER_KAFKA_PARTITION"] = std::to_string(p.batch_size_per_partition);
  props["INITIAL_DELAY_IN_SECONDS"] = std::to_string(p.initial_delay_seconds);
  props["MAX_SKIP_BATCH_COUNT_ON_ERROR"] = std::to_string(p.max_skip_batches);
  props["RESET_KAFKA_GROUP_OFFSETS"] = p.reset_offsets;
  if (d.iceberg_target()) props["ICEBERG_COMMIT_INTERVAL_IN_SECONDS"] = d.Property("iceberg.commit_interval_seconds");
  ResultSet rs = DescRows(s, props, "kafka://" + d.topic + " (group " + d.group_id() + ")", Latency(s, progress));
  auto add = [&](const std::string& k, const std::string& v) { rs.rows.push_back({k, v}); };
  add("start_position", s.start_note);
  if (stmt.extended) {
    int64_t loaded = 0, errors = 0, unselected = 0, batches = 0, bytes = 0;
    json offsets = json::object();
    for (const auto& [part, pr] : progress) {
      loaded += pr.loaded_rows;
      errors += pr.error_rows;
      unselected += pr.unselected_rows;
      batches += pr.committed_tasks;
      bytes += pr.received_bytes;
      offsets[std::to_string(part)] = pr.next_offset;
    }
    if (table_totals) {
      loaded = table_totals->loaded_rows;
      errors = table_totals->error_rows;
      unselected = table_totals->unselected_rows;
      batches = table_totals->committed_tasks;
      bytes = table_totals->received_bytes;
    }
    add("virtual_cluster", p.virtual_cluster);
    add("max_errors", std::to_string(p.max_errors));
    add("loaded_rows", std::to_string(loaded));
    add("error_rows", std::to_string(errors));
    add("filtered_rows", std::to_string(unselected));
    add("committed_batches", std::to_string(batches));
    add("received_bytes", std::to_string(bytes));
    add("next_offsets", offsets.dump());
    add("last_error", LastError(s));
  }
  return rs;
}

Result<std::vector<load::CommittedFile>> JobRegistry::CommittedPipeFiles(const catalog::StoredJob& pipe) {
  if (!options_.load_targets) return Status::NotSupported("no Iceberg load targets");
  auto sink = options_.load_targets->OpenVolumeFiles(pipe.def, pipe.id);
  auto files = sink->CommittedFiles();
  if (!files.ok())
    return Status(files.status().code(), "cannot read the files pipe '" + pipe.def.name + "' loaded from " +
                                             sink->Describe() + ": " + files.status().message());
  return files;
}

Result<std::optional<std::vector<load::CommittedFile>>> JobRegistry::PipeFiles(const std::string& db,
                                                                             const std::string& name) {
  catalog::StoredJob stored;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto job = FindPipeLocked(db, name);
    if (!job) return Status::NotFound(PipeNotFound(name, db));
    if (!job->cluster || !job->stored.def.pipe->volume) return std::optional<std::vector<load::CommittedFile>>();
    stored = job->stored;
  }
  ASSIGN_OR_RETURN(auto files, CommittedPipeFiles(stored));
  return std::optional<std::vector<load::CommittedFile>>(std::move(files));
}

}  // namespace sluice::scheduler
