#include "cluster/cluster_schema.h"

namespace sluice::cluster {

namespace {

// Any constant shared by every node: the key of the advisory lock held while the tables are created.
constexpr const char* kSchemaLockKey = "7305873260815041";

constexpr const char* kCreateNodes =
    "CREATE TABLE IF NOT EXISTS sluice_nodes ("
    "name TEXT PRIMARY KEY, "
    "address TEXT NOT NULL, "
    "version TEXT NOT NULL, "
    "started_at TIMESTAMPTZ NOT NULL, "
    "last_heartbeat TIMESTAMPTZ NOT NULL, "
    "state TEXT NOT NULL CHECK (state IN ('alive', 'left')), "
    "incarnation TEXT NOT NULL)";
constexpr const char* kCreateLeases =
    "CREATE TABLE IF NOT EXISTS sluice_leases ("
    "resource TEXT PRIMARY KEY, "
    "holder TEXT, "
    "epoch BIGINT NOT NULL CHECK (epoch > 0), "
    "expires_at TIMESTAMPTZ NOT NULL, "
    "acquired_at TIMESTAMPTZ)";
constexpr const char* kCreateLeaseHolderIndex = "CREATE INDEX IF NOT EXISTS sluice_leases_holder ON sluice_leases (holder)";
// ALTER SYSTEM DECOMMISSION NODE: kept across the node's restarts until CANCEL DECOMMISSION.
constexpr const char* kAddDecommissioned =
    "ALTER TABLE sluice_nodes ADD COLUMN IF NOT EXISTS decommissioned BOOLEAN NOT NULL DEFAULT false";

}  // namespace

Status EnsureClusterTables(PgClient& pg) {
  return CreateTablesUnderLock(pg, kSchemaLockKey,
                               {kCreateNodes, kCreateLeases, kCreateLeaseHolderIndex, kAddDecommissioned});
}

Status InTransaction(PgClient& pg, const std::function<Status()>& body) {
  RETURN_IF_ERROR(pg.Begin());
  Status st = body();
  if (!st.ok()) {
    pg.Rollback();
    return st;
  }
  return pg.Commit();
}

Status CreateTablesUnderLock(PgClient& pg, const std::string& lock_key, const std::vector<std::string>& statements) {
  return InTransaction(pg, [&]() -> Status {
    if (auto r = pg.Exec("SELECT pg_advisory_xact_lock(" + lock_key + ")"); !r.ok()) return r.status();
    for (const std::string& sql : statements) {
      if (auto r = pg.Exec(sql); !r.ok()) return r.status();
    }
    return Status::Ok();
  });
}

std::string UtcText(const std::string& t) {
  return "to_char(" + t + " AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')";
}

}  // namespace sluice::cluster
