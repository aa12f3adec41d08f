#pragma once
// What SHOW NODES lists: the nodes of the cluster as PostgreSQL knows them (ClusterMember), or, on a server
// without --cluster, the one local node (LocalNodeDirectory), so tools see the same shape everywhere.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace sluice::cluster {

// Who this node is: its name (unique in the cluster), the host:port other nodes and clients reach its MySQL port
// at, and its Sluice version.
struct NodeIdentity {
  std::string name;
  std::string address;
  std::string version;
};

// One row of SHOW NODES. Times are UTC text ('YYYY-MM-DD HH:MM:SS'), PostgreSQL's clock in a cluster.
struct NodeRow {
  std::string name;
  std::string address;
  std::string state;  // alive, dead (no heartbeat within the node timeout) or left (shut down cleanly)
  std::string last_heartbeat;
  std::string started_at;
  std::string version;
  int64_t leases = 0;  // unexpired leases the node holds
  bool decommissioned = false;  // ALTER SYSTEM DECOMMISSION NODE: it gives its work up and takes none
};

class NodeDirectory {
 public:
  virtual ~NodeDirectory() = default;
  virtual Result<std::vector<NodeRow>> ListNodes() = 0;
  // ALTER SYSTEM DECOMMISSION NODE 'name' (true) / CANCEL DECOMMISSION NODE 'name' (false). NotFound for a name no
  // node ever joined with.
  virtual Status SetDecommissioned(const std::string& name, bool decommissioned) = 0;
};

// A server on its own: one row, alive, holding no leases.
class LocalNodeDirectory : public NodeDirectory {
 public:
  LocalNodeDirectory(NodeIdentity identity, std::chrono::system_clock::time_point started_at)
      : identity_(std::move(identity)), started_at_(started_at) {}
  Result<std::vector<NodeRow>> ListNodes() override;
  Status SetDecommissioned(const std::string& name, bool decommissioned) override;

 private:
  NodeIdentity identity_;
  std::chrono::system_clock::time_point started_at_;
};

// The defaults of --node-name and --advertise: hostname:mysql-port, and bind:mysql-port (the hostname when the
// server binds every address, 0.0.0.0 or ::, which no other machine can connect to).
std::string DefaultNodeName(uint16_t mysql_port);
std::string DefaultAdvertiseAddress(const std::string& bind, uint16_t mysql_port);
// A node name: 1..200 characters, no control characters. The message says what to change.
Status CheckNodeName(const std::string& name);

// UTC 'YYYY-MM-DD HH:MM:SS', as SHOW ROUTINE LOAD shows times.
std::string FormatUtc(std::chrono::system_clock::time_point t);

}  // namespace sluice::cluster
