#pragma once
// ClusterMember: this server as a node of a cluster (`sluice serve --cluster URI`). Its own thread connects to the
// cluster's PostgreSQL, creates the cluster's tables when missing, joins, and records a heartbeat every second;
// Stop() marks the node left and releases its leases. PostgreSQL being unreachable (at start or later) is an
// outage the thread rides out: it logs once when the outage starts and once when it ends, retries every
// heartbeat interval, and never stops the server.
//
// It is also the NodeDirectory SHOW NODES reads, over a second connection of its own, so a slow SHOW never
// delays a heartbeat.
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "cluster/node_directory.h"
#include "cluster/pg_client.h"

namespace sluice::cluster {

struct ClusterOptions {
  std::string uri;  // libpq connection string or URI; may hold a password: never logged
  NodeIdentity identity;
  std::chrono::milliseconds node_timeout{10000};     // --node-timeout-seconds
  std::chrono::milliseconds heartbeat_interval{1000};
  // This process's incarnation in sluice_nodes (empty: a fresh one); the scheduler's commit guards name it too
  // (NodeRegistry::SameDatabaseWitness).
  std::string incarnation;
};

class ClusterMember : public NodeDirectory {
 public:
  // Checks the options (a URI libpq cannot read, a bad node name) and starts the heartbeat thread; it does not
  // wait for PostgreSQL.
  static Result<std::unique_ptr<ClusterMember>> Start(ClusterOptions options);
  // Start's checks alone, for a server to make before it opens anything else.
  static Status CheckOptions(const ClusterOptions& options);
  ~ClusterMember() override;

  // Stops the heartbeat and marks the node left (bounded by the connect and statement timeouts when PostgreSQL
  // is gone). Idempotent.
  void Stop();
  Result<std::vector<NodeRow>> ListNodes() override;
  Status SetDecommissioned(const std::string& name, bool decommissioned) override;
  Status DropNode(const std::string& name) override;
  const NodeIdentity& identity() const { return options_.identity; }
  // Whether the last heartbeat was recorded (false before the first, during an outage, or once replaced).
  bool joined() const;

 private:
  explicit ClusterMember(ClusterOptions options);
  void HeartbeatLoop();
  // One beat: connect, create the tables and join if not yet done, record the heartbeat.
  Status Beat();

  ClusterOptions options_;
  std::string incarnation_;
  std::string where_;  // host:port/db for logs

  // The heartbeat thread's own state.
  std::unique_ptr<PgClient> heartbeat_pg_;
  bool joined_in_pg_ = false;  // joined on the current connection (joins again after an outage)
  bool ever_joined_ = false;
  bool replaced_ = false;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool stopped_ = false;
  bool last_beat_ok_ = false;
  std::thread thread_;

  std::mutex list_mu_;  // SHOW NODES: one query at a time over its own connection
  std::unique_ptr<PgClient> list_pg_;
};

}  // namespace sluice::cluster
