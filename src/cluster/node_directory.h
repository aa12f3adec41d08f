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
  // The resources of those leases, sorted ('job:7:partition:3', 'pipe:9', ...): what the scheduler, which names
  // them, turns into SHOW NODES' Jobs, Partitions and Held.
  std::vector<std::string> held;
};

class NodeDirectory {
 public:
  virtual ~NodeDirectory() = default;
  virtual Result<std::vector<NodeRow>> ListNodes() = 0;
  // ALTER SYSTEM DECOMMISSION NODE 'name' (true) / CANCEL DECOMMISSION NODE 'name' (false). NotFound for a name no
  // node ever joined with.
  virtual Status SetDecommissioned(const std::string& name, bool decommissioned) = 0;
  // ALTER SYSTEM DROP NODE 'name': forgets a node that is not alive (left, or dead past the node timeout) and
  // frees its leases. NotFound for an unknown name, InvalidArgument for a node that is alive.
  virtual Status DropNode(const std::string& name) = 0;
};

// A server on its own: one row, alive, holding no leases.
class LocalNodeDirectory : public NodeDirectory {
 public:
  LocalNodeDirectory(NodeIdentity identity, std::chrono::system_clock::time_point started_at)
      : identity_(std::move(identity)), started_at_(started_at) {}
  Result<std::vector<NodeRow>> ListNodes() override;
  Status SetDecommissioned(const std::string& name, bool decommissioned) override;
  Status DropNode(const std::string& name) override;

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
