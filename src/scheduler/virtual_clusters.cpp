// Virtual clusters (CREATE / ALTER / DROP / SHOW VCLUSTER, docs/pipes.md): named bounds on how many tasks of their
// pipes run at once. On a cluster node (docs/cluster.md) they are the cluster's, kept in sluice_vclusters through a
// catalog::ClusterMirror, and one may name its nodes (NODES = ('n1', ...)): its pipes of the cluster then run on
// those nodes only. That restriction is one predicate, MayRunHereLocked, which the cluster thread consults before it
// takes a pipe's leases (cluster_jobs.cpp), whatever way the leases are shared among the nodes that may. So ALTER
// VCLUSTER ... SET NODES needs nothing more: from the next cluster tick a node no longer named gives its leases up
// and a node now named takes its share. A new size regroups the virtual cluster's Kafka pipes (their number of
// tasks is its size), on every node as its copy learns it (ApplyVclusterLocked).
#include <algorithm>

#include <nlohmann/json.hpp>

#include "catalog/load_history.h"
#include "common/ascii.h"
#include "common/clock.h"
#include "common/like.h"
#include "common/log.h"
#include "scheduler/job_registry.h"
#include "sql/parser.h"

namespace sluice::scheduler {

using catalog::JobState;

namespace {

constexpr const char* kDefaultVcluster = "default";

bool IsLivePipe(const JobRuntime& j) { return j.stored.def.pipe && j.stored.state != JobState::kStopped; }

std::string NodesText(const std::vector<std::string>& nodes) { return nlohmann::json(nodes).dump(); }

std::vector<std::string> ParseNodes(const std::string& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  try {
    for (const auto& n : nlohmann::json::parse(text)) out.push_back(n.get<std::string>());
  } catch (const std::exception&) {
  }
  return out;
}

std::string NodeList(const std::vector<std::string>& nodes) {
  std::string out;
  for (const auto& n : nodes) out += (out.empty() ? "" : ", ") + n;
  return out;
}

Status VclusterNotFound(const std::string& name) {
  return Status::NotFound("virtual cluster '" + name + "' does not exist; SHOW VCLUSTERS lists them");
}

std::string NotAClusterNode(const std::string& statement) {
  return statement + ": NODES names the nodes of a cluster that run the virtual cluster's pipes, and this server is "
                     "not a node of one (it was not started with --cluster): leave NODES out";
}

}  // namespace

Status JobRegistry::LoadVclusters() {
  ASSIGN_OR_RETURN(auto con, db_.Connect());
  RETURN_IF_ERROR(catalog::EnsureLoadHistoryTable(*con));
  RETURN_IF_ERROR(con->Execute("CREATE SCHEMA IF NOT EXISTS __sluice; CREATE TABLE IF NOT EXISTS __sluice.vclusters "
                               "(name VARCHAR NOT NULL, size INTEGER NOT NULL, create_time BIGINT NOT NULL);"
                               // The nodes it names (a JSON array), since virtual clusters could name them.
                               "ALTER TABLE __sluice.vclusters ADD COLUMN IF NOT EXISTS nodes VARCHAR DEFAULT '';"
                               "CREATE TABLE IF NOT EXISTS __sluice.cluster_vcluster_membership (joined_at BIGINT "
                               "NOT NULL)"));
  ASSIGN_OR_RETURN(auto rows, con->Query("SELECT name, size, coalesce(nodes, '') FROM __sluice.vclusters"));
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& r : rows.result_set->rows) {
    if (r[0] && r[1]) vclusters_[*r[0]] = Vcluster{std::stoi(*r[1]), ParseNodes(r[2].value_or(""))};
  }
  return Status::Ok();
}

Status JobRegistry::AttachVclustersToCluster() {
  auto key = options_.cluster.key_file.empty() ? options_.secrets_key_file : options_.cluster.key_file;
  ASSIGN_OR_RETURN(auto store, catalog::ClusterDefinitionStore::Open(
                                   catalog::ClusterDefinitionKind{"sluice_vclusters", "sluice_vcluster_state",
                                                                  "7305873260815047", "virtual cluster",
                                                                  "virtual clusters", nullptr},
                                   options_.cluster.uri, key));
  auto write = [this](storage::Connection& con, const catalog::SharedDefinition& v) -> Status {
    RETURN_IF_ERROR(con.Execute("DELETE FROM __sluice.vclusters WHERE lower(name) = lower(" +
                                sql::QuoteLiteral(v.name) + ")"));
    return con.Execute("INSERT INTO __sluice.vclusters (name, size, create_time, nodes) VALUES (" +
                       sql::QuoteLiteral(v.name) + ", " + std::to_string(std::stoi(v.Property("size"))) + ", " +
                       std::to_string(v.created_ms) + ", " + sql::QuoteLiteral(v.Property("nodes")) + ")");
  };
  catalog::MirrorCopy copy;
  copy.own = [this]() -> Result<std::vector<catalog::SharedDefinition>> {
    ASSIGN_OR_RETURN(auto con, db_.Connect());
    ASSIGN_OR_RETURN(auto rows, con->Query("SELECT name, size, create_time, coalesce(nodes, '') FROM "
                                           "__sluice.vclusters ORDER BY name"));
    std::vector<catalog::SharedDefinition> out;
    for (const auto& r : rows.result_set->rows)
      out.push_back(catalog::SharedDefinition{*r[0], "vcluster", "", std::stoll(*r[2]),
                                              {{"size", *r[1]}, {"nodes", r[3].value_or("")}}});
    return out;
  };
  copy.published = [this]() -> Result<bool> {
    ASSIGN_OR_RETURN(auto con, db_.Connect());
    ASSIGN_OR_RETURN(auto r, con->Query("SELECT count(*) FROM __sluice.cluster_vcluster_membership"));
    return r.result_set->rows[0][0] != std::optional<std::string>("0");
  };
  copy.mark_published = [this]() -> Status {
    ASSIGN_OR_RETURN(auto con, db_.Connect());
    return con->Execute("INSERT INTO __sluice.cluster_vcluster_membership VALUES (epoch_ms(now()))");
  };
  copy.names = [this] {
    std::set<std::string> names;
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [name, v] : vclusters_) names.insert(AsciiLower(name));
    return names;
  };
  copy.apply = [this, write](const std::vector<std::string>& removed,
                             const std::vector<const catalog::SharedDefinition*>& written) -> Status {
    ASSIGN_OR_RETURN(auto con, db_.Connect());
    RETURN_IF_ERROR(storage::InTransaction(*con, [&]() -> Status {
      for (const auto& name : removed)
        RETURN_IF_ERROR(con->Execute("DELETE FROM __sluice.vclusters WHERE lower(name) = " + sql::QuoteLiteral(name)));
      for (const auto* v : written) RETURN_IF_ERROR(write(*con, *v));
      return Status::Ok();
    }));
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& name : removed)
      std::erase_if(vclusters_, [&](const auto& kv) { return AsciiLower(kv.first) == name; });
    for (const auto* v : written) {
      std::optional<Vcluster> before;
      for (const auto& [name, old] : vclusters_)
        if (name == v->name) before = old;
      std::erase_if(vclusters_, [&](const auto& kv) { return AsciiLower(kv.first) == AsciiLower(v->name); });
      ApplyVclusterLocked(v->name, Vcluster{std::stoi(v->Property("size")), ParseNodes(v->Property("nodes"))},
                          before);
    }
    return Status::Ok();
  };
  vcluster_mirror_ = std::make_unique<catalog::ClusterMirror>(std::move(store), std::move(copy), "scheduler");
  return vcluster_mirror_->Start(options_.cluster.tick);
}

void JobRegistry::ApplyVclusterLocked(const std::string& name, Vcluster v, const std::optional<Vcluster>& before) {
  const bool resized = before && before->size != v.size;
  if (before && (resized || before->nodes != v.nodes))
    log::Info("scheduler", "virtual cluster {}: size {}, nodes [{}] (was {}, [{}])", name, v.size, NodeList(v.nodes),
              before->size, NodeList(before->nodes));
  vclusters_[name] = std::move(v);
  if (!resized) return;
  // A Kafka pipe reads with as many tasks as its virtual cluster's size: regrouped now, its tasks in flight commit
  // nothing and are read again (as after ALTER PIPE). A volume pipe runs one task whatever the size.
  for (auto& [id, job] : jobs_) {
    if (!IsLivePipe(*job) || job->stored.def.pipe->volume || job->stored.def.pipe->virtual_cluster != name) continue;
    const JobState s = job->stored.state;
    if (s == JobState::kRunning || s == JobState::kNeedSchedule)
      SetStateLocked(*job, JobState::kNeedSchedule, "", false);
  }
}

bool JobRegistry::VclusterHasRoomLocked(const std::string& cluster, const std::map<std::string, int>& running) const {
  auto it = vclusters_.find(cluster);
  if (it == vclusters_.end()) return cluster == kDefaultVcluster;  // default: only the worker pool bounds it
  auto r = running.find(cluster);
  return (r == running.end() ? 0 : r->second) < it->second.size;
}

int64_t JobRegistry::VclusterSizeLocked(const std::string& cluster) const {
  auto it = vclusters_.find(cluster);
  return it == vclusters_.end() ? static_cast<int64_t>(pool_->size()) : it->second.size;
}

bool JobRegistry::MayRunHereLocked(const JobRuntime& job) const {
  if (!job.cluster || !job.stored.def.pipe) return true;
  const std::string& name = job.stored.def.pipe->virtual_cluster;
  auto it = vclusters_.find(name);
  // One this node has not learned yet (created elsewhere a moment ago) may name other nodes: take nothing yet.
  if (it == vclusters_.end()) return name == kDefaultVcluster;
  if (it->second.nodes.empty()) return true;
  const auto& nodes = it->second.nodes;
  return std::find(nodes.begin(), nodes.end(), options_.cluster.node) != nodes.end();
}

void JobRegistry::NoteNodeWaitsLocked(const std::set<std::string>& alive) {
  for (auto& [id, job] : jobs_) {
    std::string wait;
    if (job->cluster && job->stored.def.pipe) {
      auto it = vclusters_.find(job->stored.def.pipe->virtual_cluster);
      if (it != vclusters_.end() && !it->second.nodes.empty() &&
          std::none_of(it->second.nodes.begin(), it->second.nodes.end(),
                       [&](const std::string& n) { return alive.count(n) > 0; }))
        wait = "virtual cluster '" + it->first + "' runs its pipes on node(s) " + NodeList(it->second.nodes) +
               " only, and none of them is alive (SHOW NODES): the pipe waits, retrying every second";
    }
    if (wait != job->node_wait) {
      if (!wait.empty()) log::Warn("scheduler", "pipe {}.{}: {}", job->stored.def.db, job->stored.def.name, wait);
      else if (!job->node_wait.empty())
        log::Info("scheduler", "pipe {}.{}: a node of its virtual cluster is alive again", job->stored.def.db,
                  job->stored.def.name);
      job->node_wait = std::move(wait);
    }
  }
}

Status JobRegistry::CheckVclusterExists(const std::string& name) {
  if (vcluster_mirror_) {
    bool known;
    {
      std::lock_guard<std::mutex> lock(mu_);
      known = name == kDefaultVcluster || vclusters_.count(name);
    }
    if (!known) (void)vcluster_mirror_->Sync(true);  // created on another node a moment ago
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (name == kDefaultVcluster || vclusters_.count(name)) return Status::Ok();
  std::string known = kDefaultVcluster;
  for (const auto& [n, v] : vclusters_) known += ", " + n;
  return Status::NotFound("virtual cluster '" + name + "' does not exist (there are: " + known +
                          "); create it with CREATE VCLUSTER " + name + " VCLUSTER_SIZE = n");
}

Status JobRegistry::CreateVcluster(const sql::CreateVcluster& stmt) {
  if (stmt.name == kDefaultVcluster)
    return stmt.if_not_exists ? Status::Ok()
                              : Status::AlreadyExists("virtual cluster 'default' always exists (it is the worker pool)");
  if (!stmt.nodes.empty() && options_.cluster.uri.empty())
    return Status::InvalidArgument(NotAClusterNode("CREATE VCLUSTER " + stmt.name));
  if (vcluster_mirror_) (void)vcluster_mirror_->Sync(true);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (vclusters_.count(stmt.name))
      return stmt.if_not_exists ? Status::Ok()
                                : Status::AlreadyExists("virtual cluster '" + stmt.name + "' already exists");
  }
  const Vcluster v{static_cast<int>(stmt.size), stmt.nodes};
  if (vcluster_mirror_) {
    // The cluster's table decides (its primary key); this node's copy follows.
    auto inserted = vcluster_mirror_->store().Insert(catalog::SharedDefinition{
        stmt.name, "vcluster", "", WallClockMs(), {{"size", std::to_string(v.size)}, {"nodes", NodesText(v.nodes)}}});
    if (!inserted.ok()) return vcluster_mirror_->Refusal("CREATE VCLUSTER " + stmt.name, inserted.status());
    if (Status st = vcluster_mirror_->Sync(false); !st.ok())
      log::Warn("scheduler", "virtual cluster {} is the cluster's, but this node's copy is not written yet: {}",
                stmt.name, st.message());
    if (*inserted || stmt.if_not_exists) return Status::Ok();
    return Status::AlreadyExists("virtual cluster '" + stmt.name + "' already exists");
  }
  ASSIGN_OR_RETURN(auto con, db_.Connect());
  RETURN_IF_ERROR(con->Execute("INSERT INTO __sluice.vclusters (name, size, create_time, nodes) VALUES (" +
                               sql::QuoteLiteral(stmt.name) + ", " + std::to_string(stmt.size) + ", " +
                               std::to_string(WallClockMs()) + ", '')"));
  std::lock_guard<std::mutex> lock(mu_);
  vclusters_[stmt.name] = v;
  return Status::Ok();
}

Status JobRegistry::AlterVcluster(const sql::AlterVcluster& stmt) {
  const std::string what = "ALTER VCLUSTER " + stmt.name;
  if (stmt.name == kDefaultVcluster)
    return Status::InvalidArgument("virtual cluster 'default' is the worker pool and cannot be altered: its size is "
                                   "sluice serve --load-workers; for another size or other nodes, CREATE VCLUSTER "
                                   "and ALTER PIPE ... SET VIRTUAL_CLUSTER = '...'");
  if (stmt.nodes && options_.cluster.uri.empty()) return Status::InvalidArgument(NotAClusterNode(what));
  if (vcluster_mirror_) (void)vcluster_mirror_->Sync(true);  // created (or dropped) on another node a moment ago
  Vcluster v;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = vclusters_.find(stmt.name);
    if (it == vclusters_.end()) return stmt.if_exists ? Status::Ok() : VclusterNotFound(stmt.name);
    v = it->second;
  }
  if (stmt.size) v.size = static_cast<int>(*stmt.size);
  if (stmt.nodes) v.nodes = *stmt.nodes;
  if (vcluster_mirror_) {
    // The cluster's row changes first, only the properties named (another node may change the other one at once);
    // this node's copy follows, as every other node's does within a tick.
    std::vector<std::pair<std::string, std::string>> changed;
    if (stmt.size) changed.emplace_back("size", std::to_string(v.size));
    if (stmt.nodes) changed.emplace_back("nodes", NodesText(v.nodes));
    auto updated = vcluster_mirror_->store().Update(stmt.name, changed);
    if (!updated.ok()) return vcluster_mirror_->Refusal(what, updated.status());
    if (Status st = vcluster_mirror_->Sync(false); !st.ok())
      log::Warn("scheduler", "virtual cluster {} is altered in the cluster, but this node's copy is not updated yet: "
                "{}", stmt.name, st.message());
    if (*updated || stmt.if_exists) return Status::Ok();
    return VclusterNotFound(stmt.name);  // dropped on another node a moment ago
  }
  ASSIGN_OR_RETURN(auto con, db_.Connect());
  RETURN_IF_ERROR(con->Execute("UPDATE __sluice.vclusters SET size = " + std::to_string(v.size) +
                               " WHERE name = " + sql::QuoteLiteral(stmt.name)));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = vclusters_.find(stmt.name);
  if (it == vclusters_.end()) return stmt.if_exists ? Status::Ok() : VclusterNotFound(stmt.name);
  const Vcluster before = it->second;
  ApplyVclusterLocked(stmt.name, v, before);
  return Status::Ok();
}

Status JobRegistry::DropVcluster(const sql::DropVcluster& stmt) {
  if (stmt.name == kDefaultVcluster) return Status::InvalidArgument("virtual cluster 'default' cannot be dropped");
  if (vcluster_mirror_) {
    (void)vcluster_mirror_->Sync(true);
    SyncClusterJobs();  // the pipes of the cluster that use it, as PostgreSQL has them
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!vclusters_.count(stmt.name))
      return stmt.if_exists ? Status::Ok() : VclusterNotFound(stmt.name);
    for (const auto& [id, j] : jobs_) {
      if (IsLivePipe(*j) && j->stored.def.pipe->virtual_cluster == stmt.name)
        return Status::InvalidArgument("virtual cluster '" + stmt.name + "' runs pipe '" + j->stored.def.db + "." +
                                       j->stored.def.name + "'; drop the pipe or ALTER PIPE " + j->stored.def.name +
                                       " SET VIRTUAL_CLUSTER = '...' first");
    }
  }
  if (vcluster_mirror_) {
    auto removed = vcluster_mirror_->store().Remove(stmt.name);
    if (!removed.ok()) return vcluster_mirror_->Refusal("DROP VCLUSTER " + stmt.name, removed.status());
    if (Status st = vcluster_mirror_->Sync(false); !st.ok())
      log::Warn("scheduler", "virtual cluster {} was dropped from the cluster, but this node's copy is not updated "
                "yet: {}", stmt.name, st.message());
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(auto con, db_.Connect());
  RETURN_IF_ERROR(con->Execute("DELETE FROM __sluice.vclusters WHERE name = " + sql::QuoteLiteral(stmt.name)));
  std::lock_guard<std::mutex> lock(mu_);
  vclusters_.erase(stmt.name);
  return Status::Ok();
}

Result<ResultSet> JobRegistry::ShowVclusters(const sql::ShowVclusters& stmt) {
  if (vcluster_mirror_) (void)vcluster_mirror_->Sync(true);  // the same answer on every node
  ResultSet rs;
  rs.AddColumn("name");
  for (const char* c : {"size", "running_tasks", "pipes"}) rs.AddColumn(c, ValueType::kBigInt);
  rs.AddColumn("nodes");
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, Vcluster> all = vclusters_;
  all[kDefaultVcluster] = Vcluster{static_cast<int>(pool_ ? pool_->size() : 0), {}};
  for (const auto& [name, v] : all) {
    if (stmt.like && !LikeMatch(name, *stmt.like)) continue;
    int running = 0, pipes = 0;
    for (const auto& [id, j] : jobs_) {
      if (!IsLivePipe(*j) || j->stored.def.pipe->virtual_cluster != name) continue;
      pipes++;
      for (const auto& g : j->groups) running += g->running;
    }
    rs.rows.push_back({name, std::to_string(v.size), std::to_string(running), std::to_string(pipes),
                       NodeList(v.nodes)});
  }
  return rs;
}

}  // namespace sluice::scheduler
