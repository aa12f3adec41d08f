#include "catalog/cluster_job_store.h"

#include "cluster/cluster_schema.h"

namespace sluice::catalog {

namespace {

// Advisory lock keys shared by every node: one while the tables are created, one while a job is created (the
// name check and the insert must not interleave with another node's).
constexpr const char* kSchemaLockKey = "7305873260815042";
constexpr const char* kCreateLockKey = "7305873260815043";

std::string Str(int64_t v) { return std::to_string(v); }

// Routine loads and pipes are named apart (a pipe and a routine load may share a name), as in a node's own catalog.
std::string KindOf(const RoutineLoadDefinition& def) { return def.pipe ? "pipe" : "routine_load"; }

}  // namespace

Result<std::unique_ptr<ClusterJobStore>> ClusterJobStore::Open(std::string uri, const std::string& secrets_key_file) {
  RETURN_IF_ERROR(cluster::PgClient::CheckUri(uri));
  ASSIGN_OR_RETURN(auto secrets, SecretBox::Open(secrets_key_file));
  return std::unique_ptr<ClusterJobStore>(new ClusterJobStore(std::move(uri), std::move(secrets)));
}

Result<cluster::PgClient*> ClusterJobStore::ConnectedLocked() {
  if (!pg_) {
    ASSIGN_OR_RETURN(pg_, cluster::PgClient::Connect(uri_));
  }
  if (!tables_ready_) {
    RETURN_IF_ERROR(cluster::CreateTablesUnderLock(
        *pg_, kSchemaLockKey,
        {
            "CREATE SEQUENCE IF NOT EXISTS sluice_routine_load_ids START " + Str(kFirstClusterJobId),
            std::string("CREATE TABLE IF NOT EXISTS sluice_routine_loads (id BIGINT PRIMARY KEY, db TEXT NOT NULL, "
                        "name TEXT NOT NULL, definition TEXT NOT NULL, state TEXT NOT NULL, reason TEXT NOT NULL, "
                        "create_time BIGINT NOT NULL, pause_time BIGINT NOT NULL, end_time BIGINT NOT NULL, "
                        "updated_at TIMESTAMPTZ NOT NULL DEFAULT now())"),
            // Pipes joined routine loads later: a table created before holds routine loads only.
            std::string("ALTER TABLE sluice_routine_loads ADD COLUMN IF NOT EXISTS kind TEXT NOT NULL DEFAULT "
                        "'routine_load'"),
            // ALTER PIPE ... EXECUTE reaching the node that runs the pipe came later still.
            std::string("ALTER TABLE sluice_routine_loads ADD COLUMN IF NOT EXISTS wakes BIGINT NOT NULL DEFAULT 0"),
        }));
    tables_ready_ = true;
  }
  return pg_.get();
}

Result<int64_t> ClusterJobStore::CreateJob(const RoutineLoadDefinition& def, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(cluster::PgClient * pg, ConnectedLocked());
  int64_t id = 0;
  RETURN_IF_ERROR(cluster::InTransaction(*pg, [&]() -> Status {
    if (auto r = pg->Exec(std::string("SELECT pg_advisory_xact_lock(") + kCreateLockKey + ")"); !r.ok())
      return r.status();
    ASSIGN_OR_RETURN(auto taken, pg->Exec("SELECT count(*) FROM sluice_routine_loads WHERE db = $1 AND name = $2 "
                                          "AND kind = $3 AND state NOT IN ('STOPPED', 'CANCELLED')",
                                          {def.db, def.name, KindOf(def)}));
    if (taken.rows.empty() || taken.rows[0][0] != std::optional<std::string>("0")) {
      if (def.pipe)
        return Status::AlreadyExists("pipe '" + def.name + "' already exists in database '" + def.db +
                                     "' of the cluster; DROP PIPE it first or choose another name");
      return Status::AlreadyExists("a routine load named '" + def.name + "' already exists in database '" + def.db +
                                   "' of the cluster; STOP it first or choose another name");
    }
    ASSIGN_OR_RETURN(auto next, pg->Exec("SELECT nextval('sluice_routine_load_ids')"));
    id = std::stoll(*next.rows[0][0]);
    auto inserted = pg->Exec("INSERT INTO sluice_routine_loads (id, db, name, definition, state, reason, create_time, "
                             "pause_time, end_time, kind) VALUES ($1, $2, $3, $4, 'NEED_SCHEDULE', '', $5, 0, 0, $6)",
                             {Str(id), def.db, def.name, SealDefinition(*secrets_, def), Str(now_ms), KindOf(def)});
    return inserted.ok() ? Status::Ok() : inserted.status();
  }));
  return id;
}

Status ClusterJobStore::UpdateJob(const StoredJob& job) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(cluster::PgClient * pg, ConnectedLocked());
  // A pipe's definition is written by AlterJob only: a node writing a running pipe's state from a copy older than
  // an ALTER made on another node must not undo that ALTER.
  auto r = pg->Exec("UPDATE sluice_routine_loads SET definition = CASE WHEN kind = 'pipe' THEN definition ELSE $2 "
                    "END, state = $3, reason = $4, pause_time = $5, "
                    "end_time = $6, updated_at = now() WHERE id = $1 AND state NOT IN ('STOPPED', 'CANCELLED') "
                    "AND ($3 <> 'RUNNING' OR state IN ('RUNNING', 'NEED_SCHEDULE'))",
                    {Str(job.id), SealDefinition(*secrets_, job.def), JobStateName(job.state), job.reason,
                     Str(job.pause_time_ms), Str(job.end_time_ms)});
  return r.ok() ? Status::Ok() : r.status();
}

Status ClusterJobStore::AlterJob(const StoredJob& job, const std::vector<int32_t>&) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(cluster::PgClient * pg, ConnectedLocked());
  // Only a PAUSED routine load is altered (the scheduler checked its own view; this checks the cluster's); a pipe
  // is altered in any state but dropped.
  auto r = pg->Exec("UPDATE sluice_routine_loads SET definition = $2, updated_at = now() WHERE id = $1 "
                    "AND (state = 'PAUSED' OR (kind = 'pipe' AND state NOT IN ('STOPPED', 'CANCELLED')))",
                    {Str(job.id), SealDefinition(*secrets_, job.def)});
  if (!r.ok()) return r.status();
  if (r->affected == 0 && job.def.pipe)
    return Status::NotFound("pipe '" + job.def.name + "' was dropped in the cluster meanwhile; nothing changed");
  if (r->affected == 0)
    return Status::Conflict("routine load '" + job.def.name + "' is no longer PAUSED in the cluster; PAUSE it again "
                            "and retry the ALTER");
  return Status::Ok();
}

Result<std::vector<StoredJob>> ClusterJobStore::LoadJobs() {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(cluster::PgClient * pg, ConnectedLocked());
  ASSIGN_OR_RETURN(auto r, pg->Exec("SELECT id, definition, state, reason, create_time, pause_time, end_time, wakes "
                                    "FROM sluice_routine_loads ORDER BY id"));
  std::vector<StoredJob> out;
  for (const auto& row : r.rows) {
    auto unseal = [&](const std::string& stored) -> Result<RoutineLoadDefinition> {
      auto def = UnsealDefinition(*secrets_, stored);
      if (!def.ok())
        return Status::Internal("cluster routine load " + row[0].value_or("?") + " cannot be read: " +
                                def.status().message() + " (every node needs the same --cluster-key-file)");
      return def;
    };
    ASSIGN_OR_RETURN(StoredJob j, StoredJobFromRow(row, unseal));
    if (row.size() > 7 && row[7]) j.wakes = std::stoll(*row[7]);
    out.push_back(std::move(j));
  }
  return out;
}

Result<int64_t> ClusterJobStore::Wake(int64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(cluster::PgClient * pg, ConnectedLocked());
  ASSIGN_OR_RETURN(auto r, pg->Exec("UPDATE sluice_routine_loads SET wakes = wakes + 1 WHERE id = $1 "
                                    "AND state NOT IN ('STOPPED', 'CANCELLED') RETURNING wakes",
                                    {Str(id)}));
  if (r.rows.empty() || !r.rows[0][0]) return Status::NotFound("the pipe was dropped in the cluster meanwhile");
  return std::stoll(*r.rows[0][0]);
}

}  // namespace sluice::catalog
