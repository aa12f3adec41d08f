#include "cluster/cluster_member.h"

#include "cluster/cluster_schema.h"
#include "cluster/node_registry.h"
#include "common/log.h"

namespace sluice::cluster {

Result<std::unique_ptr<ClusterMember>> ClusterMember::Start(ClusterOptions options) {
  RETURN_IF_ERROR(CheckOptions(options));
  auto member = std::unique_ptr<ClusterMember>(new ClusterMember(std::move(options)));
  member->thread_ = std::thread([m = member.get()] { m->HeartbeatLoop(); });
  return member;
}

Status ClusterMember::CheckOptions(const ClusterOptions& options) {
  RETURN_IF_ERROR(PgClient::CheckUri(options.uri));
  RETURN_IF_ERROR(CheckNodeName(options.identity.name));
  if (options.identity.address.empty())
    return Status::InvalidArgument("--advertise must be host:port (the address other nodes and clients reach this "
                                   "node's MySQL port at)");
  if (options.node_timeout <= options.heartbeat_interval)
    return Status::InvalidArgument("--node-timeout-seconds must be longer than the heartbeat interval (1 s); "
                                   "a few intervals (the default, 10) ride out a short pause");
  return Status::Ok();
}

ClusterMember::ClusterMember(ClusterOptions options)
    : options_(std::move(options)), incarnation_(options_.incarnation.empty() ? NewIncarnation() : options_.incarnation), where_(PgClient::Describe(options_.uri)) {}

ClusterMember::~ClusterMember() { Stop(); }

bool ClusterMember::joined() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_beat_ok_;
}

Status ClusterMember::Beat() {
  if (!heartbeat_pg_) {
    ASSIGN_OR_RETURN(heartbeat_pg_, PgClient::Connect(options_.uri));
  }
  NodeRegistry registry(*heartbeat_pg_, options_.node_timeout);
  if (!joined_in_pg_) {
    RETURN_IF_ERROR(EnsureClusterTables(*heartbeat_pg_));
    RETURN_IF_ERROR(registry.Join(options_.identity, incarnation_));
    joined_in_pg_ = true;
    if (!ever_joined_)
      log::Info("cluster", "node '{}' joined the cluster at {} (advertised as {})", options_.identity.name, where_,
                options_.identity.address);
    ever_joined_ = true;
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(HeartbeatOutcome outcome, registry.Heartbeat(options_.identity.name, incarnation_));
  switch (outcome) {
    case HeartbeatOutcome::kRecorded:
      return Status::Ok();
    case HeartbeatOutcome::kMissing:  // the row was deleted by hand: join again
      joined_in_pg_ = false;
      log::Warn("cluster", "node '{}' is no longer in sluice_nodes at {}: joining again", options_.identity.name,
                where_);
      return Beat();
    case HeartbeatOutcome::kReplaced:
      replaced_ = true;
      log::Error("cluster", "another server joined the cluster at {} as node '{}' and took its row over: this "
                 "server stops heartbeating under that name. Give every node its own --node-name and restart it",
                 where_, options_.identity.name);
      return Status::Conflict("replaced");
  }
  return Status::Ok();
}

void ClusterMember::HeartbeatLoop() {
  bool in_outage = false;
  auto outage_started = std::chrono::steady_clock::now();
  auto next = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    lock.unlock();
    Status st = replaced_ ? Status::Conflict("replaced") : Beat();
    if (!st.ok() && st.code() != StatusCode::kConflict) {
      heartbeat_pg_.reset();  // start from a fresh connection next time (and join again: tables may be new)
      joined_in_pg_ = false;
      if (!in_outage) {
        in_outage = true;
        outage_started = std::chrono::steady_clock::now();
        log::Warn("cluster", "node '{}' cannot heartbeat: {}; retrying every {} ms (the server keeps running; "
                  "other nodes see this one dead after {} s without a heartbeat)",
                  options_.identity.name, st.message(), options_.heartbeat_interval.count(),
                  options_.node_timeout.count() / 1000);
      }
    } else if (st.ok() && in_outage) {
      in_outage = false;
      auto seconds = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - outage_started);
      log::Info("cluster", "node '{}' reaches the cluster's PostgreSQL at {} again after {} s", options_.identity.name,
                where_, seconds.count());
    }
    lock.lock();
    last_beat_ok_ = st.ok();
    // Beats are spaced from the start of the previous one, so a slow statement does not stretch the interval.
    next += options_.heartbeat_interval;
    auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;
    cv_.wait_until(lock, next, [&] { return stopping_; });
  }
}

void ClusterMember::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (replaced_) return;
  // The heartbeat thread has ended: its connection is ours now. One try; a node that cannot say it left is seen
  // dead after the timeout instead.
  if (!heartbeat_pg_) {
    auto pg = PgClient::Connect(options_.uri);
    if (!pg.ok()) {
      log::Warn("cluster", "node '{}' could not mark itself left: {} (others see it dead after {} s)",
                options_.identity.name, pg.status().message(), options_.node_timeout.count() / 1000);
      return;
    }
    heartbeat_pg_ = std::move(*pg);
  }
  NodeRegistry registry(*heartbeat_pg_, options_.node_timeout);
  if (Status st = registry.Leave(options_.identity.name, incarnation_); !st.ok()) {
    log::Warn("cluster", "node '{}' could not mark itself left: {} (others see it dead after {} s)",
              options_.identity.name, st.message(), options_.node_timeout.count() / 1000);
    return;
  }
  log::Info("cluster", "node '{}' left the cluster", options_.identity.name);
}

Result<std::vector<NodeRow>> ClusterMember::ListNodes() {
  std::lock_guard<std::mutex> lock(list_mu_);
  if (!list_pg_) {
    auto pg = PgClient::Connect(options_.uri);
    if (!pg.ok())
      return Status::Unavailable(pg.status().message() + "; this node keeps retrying, SHOW NODES answers once it "
                                 "reaches it");
    list_pg_ = std::move(*pg);
  }
  NodeRegistry registry(*list_pg_, options_.node_timeout);
  auto nodes = registry.List();
  if (!nodes.ok()) {
    list_pg_.reset();
    if (nodes.status().code() == StatusCode::kInternal && !joined())  // the tables are not there yet
      return Status::Unavailable("this node has not joined the cluster at " + where_ + " yet; try again in a moment");
    return nodes.status();
  }
  return nodes;
}

Status ClusterMember::SetDecommissioned(const std::string& name, bool decommissioned) {
  std::lock_guard<std::mutex> lock(list_mu_);
  if (!list_pg_) {
    auto pg = PgClient::Connect(options_.uri);
    if (!pg.ok()) return pg.status();
    list_pg_ = std::move(*pg);
  }
  NodeRegistry registry(*list_pg_, options_.node_timeout);
  Status st = registry.SetDecommissioned(name, decommissioned);
  if (st.code() == StatusCode::kUnavailable) list_pg_.reset();
  return st;
}

Status ClusterMember::DropNode(const std::string& name) {
  std::lock_guard<std::mutex> lock(list_mu_);
  if (!list_pg_) {
    auto pg = PgClient::Connect(options_.uri);
    if (!pg.ok()) return pg.status();
    list_pg_ = std::move(*pg);
  }
  NodeRegistry registry(*list_pg_, options_.node_timeout);
  Status st = registry.Drop(name);
  if (st.code() == StatusCode::kUnavailable) list_pg_.reset();
  return st;
}

}  // namespace sluice::cluster
