#include "cluster/lease_store.h"

#include <fmt/format.h>

#include "cluster/cluster_schema.h"
#include "cluster/node_registry.h"

namespace sluice::cluster {

namespace {

// A node that may hold leases: alive and heartbeating within the node timeout ($n: the timeout in seconds).
std::string AliveNode(const std::string& name_expr, int timeout_param) {
  return fmt::format("SELECT 1 FROM sluice_nodes n WHERE n.name = {} AND n.state = 'alive' AND "
                     "n.last_heartbeat > now() - make_interval(secs => ${}::float8)",
                     name_expr, timeout_param);
}

Lease LeaseFromRow(const std::vector<std::optional<std::string>>& row) {
  Lease l;
  l.resource = row[0].value_or("");
  l.holder = row[1].value_or("");
  l.epoch = row[2] ? std::stoll(*row[2]) : 0;
  l.expires_at = row[3].value_or("");
  return l;
}

std::string LeaseColumns() { return "resource, holder, epoch, " + UtcText("expires_at"); }

}  // namespace

Result<AcquireOutcome> LeaseStore::Acquire(const std::string& resource, const std::string& node,
                                           std::chrono::milliseconds ttl) {
  // $1 resource, $2 node, $3 ttl seconds, $4 node timeout seconds.
  const std::string sql =
      "INSERT INTO sluice_leases AS l (resource, holder, epoch, expires_at, acquired_at) "
      "SELECT $1, $2, 1, now() + make_interval(secs => $3::float8), now() WHERE EXISTS (" + AliveNode("$2", 4) + ") "
      "ON CONFLICT (resource) DO UPDATE SET holder = EXCLUDED.holder, epoch = l.epoch + 1, "
      "expires_at = EXCLUDED.expires_at, acquired_at = now() "
      "WHERE l.holder IS NULL OR l.expires_at <= now() OR NOT EXISTS (" + AliveNode("l.holder", 4) + ") "
      "RETURNING " + LeaseColumns();
  ASSIGN_OR_RETURN(PgRows r, pg_.Exec(sql, {resource, node, SecondsParam(ttl), SecondsParam(node_timeout_)}));
  AcquireOutcome out;
  if (!r.rows.empty()) {
    out.acquired = true;
    out.lease = LeaseFromRow(r.rows[0]);
    return out;
  }
  ASSIGN_OR_RETURN(PgRows alive, pg_.Exec(AliveNode("$1", 2), {node, SecondsParam(node_timeout_)}));
  if (alive.rows.empty())
    return Status::Unavailable(fmt::format("node '{}' is not an alive member of the cluster (it has not joined, it "
                                           "left, or its last heartbeat is older than the node timeout): it may "
                                           "not take leases until its heartbeat is recorded again", node));
  ASSIGN_OR_RETURN(std::optional<Lease> current, Current(resource));
  if (current) out.lease = *current;
  return out;
}

Result<bool> LeaseStore::Renew(const Lease& lease, std::chrono::milliseconds ttl) {
  ASSIGN_OR_RETURN(PgRows r, pg_.Exec("UPDATE sluice_leases SET expires_at = now() + make_interval(secs => $4::float8) "
                                      "WHERE resource = $1 AND holder = $2 AND epoch = $3::bigint",
                                      {lease.resource, lease.holder, std::to_string(lease.epoch), SecondsParam(ttl)}));
  return r.affected > 0;
}

Result<bool> LeaseStore::Release(const Lease& lease) {
  ASSIGN_OR_RETURN(PgRows r, pg_.Exec("UPDATE sluice_leases SET holder = NULL, expires_at = now() "
                                      "WHERE resource = $1 AND holder = $2 AND epoch = $3::bigint",
                                      {lease.resource, lease.holder, std::to_string(lease.epoch)}));
  return r.affected > 0;
}

CommitGuard LeaseStore::FenceGuard(const std::string& resource, int64_t epoch, std::string refused) {
  CommitGuard g;
  g.sql = "SELECT 1 FROM sluice_leases WHERE resource = $1 AND epoch = $2::bigint AND holder IS NOT NULL FOR SHARE";
  g.params = {resource, std::to_string(epoch)};
  g.refused = std::move(refused);
  return g;
}

Result<bool> LeaseStore::Fence(const std::string& resource, int64_t epoch) {
  CommitGuard g = FenceGuard(resource, epoch, "");
  ASSIGN_OR_RETURN(PgRows r, pg_.Exec(g.sql, g.params));
  return !r.rows.empty();
}

Result<std::optional<Lease>> LeaseStore::Current(const std::string& resource) {
  ASSIGN_OR_RETURN(PgRows r, pg_.Exec("SELECT " + LeaseColumns() + " FROM sluice_leases WHERE resource = $1", {resource}));
  if (r.rows.empty()) return std::optional<Lease>();
  return std::optional<Lease>(LeaseFromRow(r.rows[0]));
}

Result<std::vector<Lease>> LeaseStore::HeldWithPrefix(const std::string& prefix) {
  // starts_with, not LIKE: a prefix is taken literally.
  ASSIGN_OR_RETURN(PgRows r, pg_.Exec("SELECT " + LeaseColumns() + " FROM sluice_leases WHERE starts_with(resource, $1) "
                                      "AND holder IS NOT NULL AND expires_at > now() ORDER BY resource",
                                      {prefix}));
  std::vector<Lease> out;
  for (const auto& row : r.rows) out.push_back(LeaseFromRow(row));
  return out;
}

}  // namespace sluice::cluster
