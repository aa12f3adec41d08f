#pragma once
// The cluster's own tables in its PostgreSQL database, created when missing (every node runs this when it joins;
// an advisory lock keeps two nodes starting at once from racing on CREATE TABLE):
//
//   sluice_nodes  (name PK, address, version, started_at, last_heartbeat, state 'alive'|'left', incarnation,
//                  decommissioned)
//   sluice_leases (resource PK, holder (NULL: released), epoch BIGINT, expires_at, acquired_at)
//
// Times are PostgreSQL's (now()), so whether a node is dead or a lease expired never depends on a node's clock.
// Lease rows are never deleted: a resource's epoch only grows, so an old epoch can never become current again.
#include <functional>
#include <string>
#include <vector>

#include "cluster/pg_client.h"

namespace sluice::cluster {

Status EnsureClusterTables(PgClient& pg);

// Runs `body` in one transaction on `pg`; rolls back on any error (the body's or the commit's).
Status InTransaction(PgClient& pg, const std::function<Status()>& body);

// Runs `statements` (CREATE ... IF NOT EXISTS, ALTER ... ADD COLUMN IF NOT EXISTS) in one transaction under the
// advisory lock `lock_key`, so nodes starting at once do not race on them. Each store of the cluster's
// database (the nodes and leases here; the jobs and external catalogs in catalog/) has a key of its own.
Status CreateTablesUnderLock(PgClient& pg, const std::string& lock_key, const std::vector<std::string>& statements);

// `t` (a timestamptz expression) as Sluice shows times: UTC, 'YYYY-MM-DD HH:MM:SS'.
std::string UtcText(const std::string& t);

}  // namespace sluice::cluster
