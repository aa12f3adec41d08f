#pragma once
// NodeRegistry: the rows of sluice_nodes. A node joins (its row, state alive, a fresh incarnation), heartbeats
// (last_heartbeat = PostgreSQL's now()), and leaves on a clean shutdown (state left, its leases released).
// Whether a node is dead is computed when read: its last heartbeat is older than the node timeout, measured on
// PostgreSQL's clock, so the nodes' own clocks never matter.
//
// The incarnation (random, one per process) tells a restart of the same node from two processes given the same
// --node-name: the newer join takes the row over, and the older process learns from its next heartbeat that it
// was replaced instead of silently heartbeating for the other.
#include <chrono>
#include <string>
#include <vector>

#include "cluster/node_directory.h"
#include "common/commit_guard.h"
#include "cluster/pg_client.h"

namespace sluice::cluster {

enum class HeartbeatOutcome {
  kRecorded,  // last_heartbeat moved
  kMissing,   // the row is gone (deleted by hand): join again
  kReplaced,  // another process joined with this name since
};

class NodeRegistry {
 public:
  NodeRegistry(PgClient& pg, std::chrono::milliseconds node_timeout) : pg_(pg), node_timeout_(node_timeout) {}

  // Inserts or takes over the node's row: alive, started now, heartbeating now.
  Status Join(const NodeIdentity& node, const std::string& incarnation);
  Result<HeartbeatOutcome> Heartbeat(const std::string& name, const std::string& incarnation);
  // State left, and every lease the node holds released (one transaction).
  Status Leave(const std::string& name, const std::string& incarnation);
  // Every node, by name, with its state and the leases it holds.
  Result<std::vector<NodeRow>> List();
  // Sets the decommissioned flag; NotFound when no node of that name ever joined.
  Status SetDecommissioned(const std::string& name, bool decommissioned);
  // Deletes the row of a node that is not alive (left, or silent past the node timeout, by PostgreSQL's clock) and
  // releases its leases (rows kept: epochs only grow), in one transaction. NotFound for an unknown name,
  // InvalidArgument when it is alive. A dead node that wakes up afterwards joins again as a new row.
  Status Drop(const std::string& name);

 private:
  PgClient& pg_;
  std::chrono::milliseconds node_timeout_;
};

// A guard's witness (common/commit_guard.h): a statement that returns a row only in the cluster's own database, run
// by another connection (an Iceberg JDBC catalog's) to learn whether it reaches that database: this process's row
// of sluice_nodes (its incarnation is random) and the privilege a lease guard needs (FOR SHARE: UPDATE).
CommitGuard SameDatabaseWitness(const std::string& name, const std::string& incarnation);
// A new incarnation id: 128 random bits as hex.
std::string NewIncarnation();
// Seconds as PostgreSQL reads a float8 parameter ("10.000").
std::string SecondsParam(std::chrono::milliseconds d);

}  // namespace sluice::cluster
