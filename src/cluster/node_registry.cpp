#include "cluster/node_registry.h"

#include <fmt/format.h>

#include <random>

#include "cluster/cluster_schema.h"

namespace sluice::cluster {

CommitGuard SameDatabaseWitness(const std::string& name, const std::string& incarnation) {
  CommitGuard g;
  g.sql = "SELECT 1 FROM sluice_nodes WHERE name = $1 AND incarnation = $2 AND "
          "has_table_privilege('sluice_leases', 'SELECT') AND has_table_privilege('sluice_leases', 'UPDATE')";
  g.params = {name, incarnation};
  g.refused = "the cluster's database is not this catalog's";
  return g;
}

std::string NewIncarnation() {
  std::random_device rd;
  return fmt::format("{:08x}{:08x}{:08x}{:08x}", rd(), rd(), rd(), rd());
}

std::string SecondsParam(std::chrono::milliseconds d) { return fmt::format("{:.3f}", d.count() / 1000.0); }

Status NodeRegistry::Join(const NodeIdentity& node, const std::string& incarnation) {
  return pg_.Exec("INSERT INTO sluice_nodes (name, address, version, started_at, last_heartbeat, state, incarnation) "
                  "VALUES ($1, $2, $3, now(), now(), 'alive', $4) "
                  "ON CONFLICT (name) DO UPDATE SET address = EXCLUDED.address, version = EXCLUDED.version, "
                  "last_heartbeat = now(), state = 'alive', incarnation = EXCLUDED.incarnation, "
                  // Joining again after an outage is the same process: it keeps its start time.
                  "started_at = CASE WHEN sluice_nodes.incarnation = EXCLUDED.incarnation "
                  "THEN sluice_nodes.started_at ELSE now() END",
                  {node.name, node.address, node.version, incarnation})
      .status();
}

Result<HeartbeatOutcome> NodeRegistry::Heartbeat(const std::string& name, const std::string& incarnation) {
  ASSIGN_OR_RETURN(PgRows r, pg_.Exec("UPDATE sluice_nodes SET last_heartbeat = now(), state = 'alive' "
                                      "WHERE name = $1 AND incarnation = $2",
                                      {name, incarnation}));
  if (r.affected > 0) return HeartbeatOutcome::kRecorded;
  ASSIGN_OR_RETURN(PgRows row, pg_.Exec("SELECT 1 FROM sluice_nodes WHERE name = $1", {name}));
  return row.rows.empty() ? HeartbeatOutcome::kMissing : HeartbeatOutcome::kReplaced;
}

Status NodeRegistry::Leave(const std::string& name, const std::string& incarnation) {
  RETURN_IF_ERROR(pg_.Begin());
  auto left = pg_.Exec("UPDATE sluice_nodes SET state = 'left', last_heartbeat = now() "
                       "WHERE name = $1 AND incarnation = $2",
                       {name, incarnation});
  if (!left.ok()) {
    pg_.Rollback();
    return left.status();
  }
  if (left->affected == 0) {  // another process took the name over: its leases are its own
    pg_.Rollback();
    return Status::Ok();
  }
  // Released, not deleted: the rows keep their epochs (cluster_schema.h).
  auto released = pg_.Exec("UPDATE sluice_leases SET holder = NULL, expires_at = now() WHERE holder = $1", {name});
  if (!released.ok()) {
    pg_.Rollback();
    return released.status();
  }
  return pg_.Commit();
}

Result<std::vector<NodeRow>> NodeRegistry::List() {
  ASSIGN_OR_RETURN(
      PgRows r,
      pg_.Exec("SELECT n.name, n.address, "
               "CASE WHEN n.state = 'left' THEN 'left' "
               "WHEN n.last_heartbeat > now() - make_interval(secs => $1::float8) THEN 'alive' ELSE 'dead' END, " +
                   UtcText("n.last_heartbeat") + ", " + UtcText("n.started_at") +
                   ", n.version, "
                   "(SELECT count(*) FROM sluice_leases l WHERE l.holder = n.name AND l.expires_at > now()), "
                   "n.decommissioned, "
                   // Node names hold no control characters (CheckNodeName), resources neither: '\n' separates.
                   "(SELECT string_agg(l.resource, E'\\n' ORDER BY l.resource) FROM sluice_leases l "
                   "WHERE l.holder = n.name AND l.expires_at > now()) FROM sluice_nodes n ORDER BY n.name",
               {SecondsParam(node_timeout_)}));
  std::vector<NodeRow> nodes;
  for (const auto& row : r.rows) {
    if (row.size() != 9) continue;
    NodeRow n;
    n.name = row[0].value_or("");
    n.address = row[1].value_or("");
    n.state = row[2].value_or("");
    n.last_heartbeat = row[3].value_or("");
    n.started_at = row[4].value_or("");
    n.version = row[5].value_or("");
    n.leases = row[6] ? std::stoll(*row[6]) : 0;
    n.decommissioned = row[7].value_or("f") == "t";
    if (row[8]) {
      const std::string& all = *row[8];
      size_t start = 0;
      while (start < all.size()) {
        size_t end = all.find('\n', start);
        if (end == std::string::npos) end = all.size();
        n.held.push_back(all.substr(start, end - start));
        start = end + 1;
      }
    }
    nodes.push_back(std::move(n));
  }
  return nodes;
}

Status NodeRegistry::SetDecommissioned(const std::string& name, bool decommissioned) {
  ASSIGN_OR_RETURN(PgRows r, pg_.Exec("UPDATE sluice_nodes SET decommissioned = $2::boolean WHERE name = $1",
                                      {name, decommissioned ? "true" : "false"}));
  if (r.affected == 0) return Status::NotFound("Unknown node '" + name + "': SHOW NODES lists the cluster's nodes");
  return Status::Ok();
}

Status NodeRegistry::Drop(const std::string& name) {
  RETURN_IF_ERROR(pg_.Begin());
  // Alive by the same rule as List's (and as acquire's): the row is locked by the DELETE, so a heartbeat racing
  // this statement either comes first (and the node is alive) or waits and finds the row gone (and joins again).
  auto dropped = pg_.Exec("DELETE FROM sluice_nodes WHERE name = $1 AND (state = 'left' OR "
                          "last_heartbeat <= now() - make_interval(secs => $2::float8))",
                          {name, SecondsParam(node_timeout_)});
  if (!dropped.ok()) {
    pg_.Rollback();
    return dropped.status();
  }
  if (dropped->affected == 0) {
    pg_.Rollback();
    ASSIGN_OR_RETURN(PgRows exists, pg_.Exec("SELECT 1 FROM sluice_nodes WHERE name = $1", {name}));
    if (exists.rows.empty()) return Status::NotFound("Unknown node '" + name + "': SHOW NODES lists the cluster's nodes");
    return Status::InvalidArgument("node '" + name + "' is alive (it heartbeats): only a node that left or is dead "
                                   "can be dropped. Stop it first (SIGTERM: it leaves at once), or DECOMMISSION it "
                                   "to move its work away while it runs");
  }
  auto released = pg_.Exec("UPDATE sluice_leases SET holder = NULL, expires_at = now() WHERE holder = $1", {name});
  if (!released.ok()) {
    pg_.Rollback();
    return released.status();
  }
  return pg_.Commit();
}

}  // namespace sluice::cluster
