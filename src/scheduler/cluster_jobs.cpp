// Cluster jobs (docs/cluster.md): on a node started with --cluster, routine loads and pipes into Iceberg tables
// live in the cluster's PostgreSQL database (catalog::ClusterJobStore), every node sees them, and their work is
// split among the live nodes by leases with epochs (cluster::LeaseStore): the partitions of a routine load or a
// Kafka pipe, a volume pipe whole (`pipe:<id>`, the pipes spread evenly over the nodes able to run them). A node
// runs tasks only for what it holds, and a task's commit
// first fences its leases: a node that lost a partition or a pipe commits nothing for it.
//
// One thread per node (ClusterLoop) does, every tick (1 s): read the jobs (SyncClusterJobs), then renew, take and
// give up leases (AssignPartitions, AssignPipeLeases). No PostgreSQL call is made under the registry's lock except
// the job writes PersistLocked makes (bounded by PgClient's statement timeout), as the local store's writes are.
#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "cluster/node_registry.h"
#include "cluster/whole_job_split.h"
#include "common/clock.h"
#include "common/log.h"
#include "scheduler/job_registry.h"

namespace sluice::scheduler {

using catalog::JobState;

namespace {

std::string PartitionResource(int64_t job_id, int32_t partition) {
  return "job:" + std::to_string(job_id) + ":partition:" + std::to_string(partition);
}
std::string JobResourcePrefix(int64_t job_id) { return "job:" + std::to_string(job_id) + ":partition:"; }
// A node that runs a job holds this lease too: the job's partitions are shared among the nodes holding one, so a
// node that cannot run the job (its catalog is not defined there) is not counted and leaves no share unloaded.
std::string MemberPrefix(int64_t job_id) { return "job:" + std::to_string(job_id) + ":node:"; }

bool Live(JobState s) { return s == JobState::kRunning || s == JobState::kNeedSchedule; }

bool IsVolumePipe(const catalog::RoutineLoadDefinition& def) { return def.pipe && def.pipe->volume; }
// A volume pipe runs whole on one node: one lease, kept in JobRuntime::leases under this key.
constexpr int32_t kWholePipe = 0;
std::string PipeResource(int64_t job_id) { return "pipe:" + std::to_string(job_id); }
// A node able to run a volume pipe holds this lease while it may: the holders split the pipes (SplitWholeJobs).
constexpr const char* kPipeMemberPrefix = "pipe_node:";
std::string PipeMemberResource(int64_t job_id, const std::string& node) {
  return kPipeMemberPrefix + std::to_string(job_id) + ":" + node;
}
std::optional<int64_t> PipeIdOfMember(const std::string& resource) {
  const size_t from = std::char_traits<char>::length(kPipeMemberPrefix);
  const size_t colon = resource.find(':', from);
  if (colon == std::string::npos) return std::nullopt;
  try {
    return std::stoll(resource.substr(from, colon - from));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// This node's fair share of `total` partitions: the job's live members sorted by name, the first total % n of
// them take one more. Every node computes the same split from the same list, so shares add up to the total exactly.
size_t FairShare(size_t total, size_t nodes, size_t index) {
  if (nodes == 0) return 0;
  return total / nodes + (index < total % nodes ? 1 : 0);
}

}  // namespace

bool JobRegistry::IsClusterJob(const catalog::RoutineLoadDefinition& def) const {
  // A Kafka pipe is a routine load with other statements: its partitions are split the same way. Pipes and
  // routine loads into DuckDB tables stay the node's own.
  return cluster_store_ != nullptr && def.iceberg_target();
}

catalog::JobStore& JobRegistry::StoreOf(const JobRuntime& job) {
  if (job.cluster && cluster_store_) return *cluster_store_;
  return *store_;
}

void JobRegistry::ClusterLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    lock.unlock();
    SyncClusterJobs();
    AssignPartitions();
    lock.lock();
    cluster_cv_.wait_for(lock, options_.cluster.tick, [&] { return stopping_; });
  }
}

void JobRegistry::SyncClusterJobs() {
  if (!cluster_store_) return;
  uint64_t writes_before;
  {
    std::lock_guard<std::mutex> lock(mu_);
    writes_before = cluster_writes_;
  }
  auto stored = cluster_store_->LoadJobs();
  if (!stored.ok()) {
    log::Debug("scheduler", "cannot read the cluster's jobs: {}", stored.status().message());
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& s : *stored) {
    auto it = jobs_.find(s.id);
    if (it == jobs_.end()) {
      auto job = std::make_shared<JobRuntime>();
      job->cluster = true;
      job->shared_state = s.state;
      job->seen_wakes = s.wakes;  // EXECUTEs before this node saw the pipe are done
      job->stored = std::move(s);
      // Running in the cluster: this node schedules it too, for the partitions it will hold.
      if (job->stored.state == JobState::kRunning) job->stored.state = JobState::kNeedSchedule;
      job->next_schedule_attempt = Clock::now();
      log::Info("scheduler", "{} {}.{} (id {}) of the cluster: {}", JobKind(job->stored.def), job->stored.def.db,
                job->stored.def.name, job->stored.id, catalog::JobStateName(job->shared_state));
      jobs_[job->stored.id] = job;
      continue;
    }
    JobRuntime& job = *it->second;
    if (!job.cluster) continue;
    if (s.wakes > job.seen_wakes) {
      // ALTER PIPE ... EXECUTE on some node: the groups this node runs load their next batch now.
      job.seen_wakes = s.wakes;
      for (auto& g : job.groups) g->next_run = g->asked_at = Clock::now();
    }
    // This node wrote the job after the read began: its own write is newer than what was read.
    if (job.local_write > writes_before) continue;
    // Paused here by the storage gate (this node's disk): it resumes by itself, whatever the cluster says.
    if (job.paused_for_storage) continue;
    job.shared_state = s.state;
    const JobState local = job.stored.state;
    if (!Live(s.state)) {
      // Paused, stopped or cancelled (by a statement on another node, or a task there): follow, without writing.
      job.stored.def = s.def;
      if (local != s.state) SetStateLocked(job, s.state, s.reason, false);
      job.stored.reason = s.reason;
      job.stored.pause_time_ms = s.pause_time_ms;
      job.stored.end_time_ms = s.end_time_ms;
    } else if (!Live(local)) {
      // Resumed elsewhere (perhaps after an ALTER there).
      job.stored.def = s.def;
      job.window_rows = job.window_errors = 0;
      job.other_msg.clear();
      SetStateLocked(job, JobState::kNeedSchedule, "", false);
    } else if (s.def.pipe && job.stored.def.pipe && s.def.pipe->modified_time_ms != job.stored.def.pipe->modified_time_ms) {
      // A running pipe altered on another node (ALTER PIPE ... SET): regrouped with the new definition; its tasks
      // in flight commit nothing.
      job.stored.def = s.def;
      SetStateLocked(job, JobState::kNeedSchedule, "", false);
    }
  }
  cv_.notify_all();
}

void JobRegistry::AssignPartitions() {
  const std::string& me = options_.cluster.node;
  const auto ttl = options_.cluster.node_timeout;
  if (!lease_pg_) {
    auto pg = cluster::PgClient::Connect(options_.cluster.uri);
    if (!pg.ok()) return;  // the heartbeat thread reports outages
    lease_pg_ = std::move(pg).value();
  }
  cluster::NodeRegistry registry(*lease_pg_, options_.cluster.node_timeout);
  auto nodes = registry.List();
  if (!nodes.ok()) return;
  std::vector<std::string> alive;
  // A decommissioned node is not among them: it gives up its shares, and the others take them.
  for (const auto& n : *nodes)
    if (n.state == "alive" && !n.decommissioned) alive.push_back(n.name);
  std::sort(alive.begin(), alive.end());
  auto mine = std::find(alive.begin(), alive.end(), me);
  // Not (or no longer) alive in the cluster's eyes: acquire nothing; what it holds expires or is taken over.
  const bool member = mine != alive.end();

  struct Work {
    std::shared_ptr<JobRuntime> job;
    bool wants = false;
    std::vector<int32_t> partitions;
    std::map<int32_t, cluster::Lease> held;
  };
  std::vector<Work> work;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, job] : jobs_) {
      if (!job->cluster || IsVolumePipe(job->stored.def)) continue;  // AssignPipeLeases
      Work w;
      w.job = job;
      // A node its virtual cluster does not name takes no share: the named nodes split the partitions.
      w.wants = member && Live(job->stored.state) && !job->current_partitions.empty() && MayRunHereLocked(*job);
      w.partitions = job->current_partitions;
      w.held = job->leases;
      if (!w.wants && w.held.empty() && !member_leases_.count(id)) continue;
      work.push_back(std::move(w));
    }
  }
  cluster::LeaseStore leases(*lease_pg_, options_.cluster.node_timeout);
  std::set<std::string> alive_set(alive.begin(), alive.end());
  {
    std::lock_guard<std::mutex> lock(mu_);
    NoteNodeWaitsLocked(alive_set);
  }
  for (auto& w : work) {
    const int64_t id = w.job->stored.id;
    std::map<int32_t, cluster::Lease> held;
    std::vector<cluster::Lease> to_release;
    bool pg_failed = false;
    // This node's membership of the job, then the job's members (alive, sorted by name).
    std::vector<std::string> members;
    if (auto m = member_leases_.find(id); m != member_leases_.end() && !w.wants) {
      to_release.push_back(m->second);
      member_leases_.erase(m);
    } else if (w.wants) {
      bool ok = false;
      if (m != member_leases_.end()) {
        auto renewed = leases.Renew(m->second, ttl);
        ok = renewed.ok() && *renewed;
        if (!renewed.ok()) pg_failed = true;
      }
      if (!ok && !pg_failed) {
        auto got = leases.Acquire(MemberPrefix(id) + me, me, ttl);
        if (got.ok() && got->acquired) {
          member_leases_[id] = got->lease;
          ok = true;
        } else if (!got.ok()) {
          pg_failed = true;
        }
      }
      if (ok) {
        if (auto all = leases.HeldWithPrefix(MemberPrefix(id)); all.ok()) {
          for (const auto& l : *all)
            if (alive_set.count(l.holder)) members.push_back(l.holder);
        } else {
          pg_failed = true;
        }
      }
      std::sort(members.begin(), members.end());
    }
    auto me_in_members = std::find(members.begin(), members.end(), me);
    const bool counted = me_in_members != members.end();
    for (const auto& [p, lease] : w.held) {
      const bool keep = w.wants && std::find(w.partitions.begin(), w.partitions.end(), p) != w.partitions.end();
      auto renewed = leases.Renew(lease, ttl);
      if (renewed.ok() && !*renewed) {
        log::Warn("scheduler", "{} {}: lost partition {} (epoch {}) to another node", JobKind(w.job->stored.def),
                  w.job->stored.def.name, p, lease.epoch);
      } else if (!keep) {
        to_release.push_back(lease);
      } else {
        // Renewed; or PostgreSQL did not answer: kept, as it is still ours until it expires (the fence decides at
        // commit).
        if (!renewed.ok()) pg_failed = true;
        held[p] = lease;
      }
    }
    if (w.wants && !pg_failed && counted) {
      const size_t my_index = static_cast<size_t>(me_in_members - members.begin());
      const size_t share = FairShare(w.partitions.size(), members.size(), my_index);
      // Above the share (a node joined): give up the highest partitions.
      while (held.size() > share) {
        auto last = std::prev(held.end());
        to_release.push_back(last->second);
        held.erase(last);
      }
      // Below it: take free partitions, those of dead nodes, and expired ones; each node starts looking at its
      // own place in the list, so nodes starting together rarely race for the same partition.
      const size_t n = w.partitions.size();
      const size_t start = my_index * n / members.size();
      for (size_t k = 0; k < n && held.size() < share; k++) {
        int32_t p = w.partitions[(start + k) % n];
        if (held.count(p)) continue;
        auto got = leases.Acquire(PartitionResource(id, p), me, ttl);
        if (!got.ok()) break;
        if (got->acquired) held[p] = got->lease;
      }
    }
    bool changed = held.size() != w.held.size() ||
                   !std::equal(held.begin(), held.end(), w.held.begin(),
                               [](const auto& a, const auto& b) { return a.first == b.first && a.second.epoch == b.second.epoch; });
    if (changed) {
      std::lock_guard<std::mutex> lock(mu_);
      auto& job = *w.job;
      job.leases = held;
      if (Live(job.stored.state)) {
        // Regroup over the partitions now held: running tasks finish their batch and commit nothing (the version
        // moved), then the job is scheduled again from the table's offsets.
        job.stored.state = JobState::kNeedSchedule;
        job.next_schedule_attempt = Clock::now();
        job.version++;
      }
      std::string parts;
      for (const auto& [p, l] : held) parts += (parts.empty() ? "" : ",") + std::to_string(p);
      log::Info("scheduler", "{} {}.{}: node '{}' holds partitions [{}] of {}", JobKind(job.stored.def),
                job.stored.def.db, job.stored.def.name, me, parts, w.partitions.size());
      cv_.notify_all();
    }
    // Released after the regroup, so this node's tasks have stopped committing before another node can take them.
    for (const auto& lease : to_release) {
      auto released = leases.Release(lease);
      if (!released.ok()) break;
    }
  }
  AssignPipeLeases(leases, member, alive_set);
}

void JobRegistry::AssignPipeLeases(cluster::LeaseStore& leases, bool member, const std::set<std::string>& alive) {
  const std::string& me = options_.cluster.node;
  const auto ttl = options_.cluster.node_timeout;
  struct Work {
    std::shared_ptr<JobRuntime> job;
    bool wants = false;
    std::optional<cluster::Lease> held;
  };
  std::vector<Work> work;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, job] : jobs_) {
      if (!job->cluster || !IsVolumePipe(job->stored.def)) continue;
      Work w;
      w.job = job;
      w.wants = member && Live(job->stored.state) && job->cluster_ready && MayRunHereLocked(*job);
      if (auto it = job->leases.find(kWholePipe); it != job->leases.end()) w.held = it->second;
      if (!w.wants && !w.held && !pipe_member_leases_.count(id)) continue;
      work.push_back(std::move(w));
    }
  }
  // This node's membership of every pipe it may run: the nodes holding one split the pipes between them.
  bool pg_failed = false;
  for (const auto& w : work) {
    const int64_t id = w.job->stored.id;
    auto m = pipe_member_leases_.find(id);
    if (!w.wants) {
      if (m != pipe_member_leases_.end()) {
        (void)leases.Release(m->second);
        pipe_member_leases_.erase(m);
      }
      continue;
    }
    if (m != pipe_member_leases_.end()) {
      auto renewed = leases.Renew(m->second, ttl);
      if (!renewed.ok()) {
        pg_failed = true;
        continue;
      }
      if (*renewed) continue;
      pipe_member_leases_.erase(m);
    }
    auto got = leases.Acquire(PipeMemberResource(id, me), me, ttl);
    if (!got.ok()) pg_failed = true;
    else if (got->acquired) pipe_member_leases_[id] = got->lease;
  }
  // Who runs each pipe, as every node computes it from the same memberships. Unread (PostgreSQL did not answer):
  // this node keeps what it holds and takes nothing new.
  std::map<int64_t, std::string> runner;
  if (!pg_failed) {
    auto members = leases.HeldWithPrefix(kPipeMemberPrefix);
    auto holders = leases.HeldWithPrefix("pipe:");
    if (members.ok() && holders.ok()) {
      std::map<int64_t, std::vector<std::string>> eligible;
      for (const auto& l : *members) {
        if (!alive.count(l.holder)) continue;
        auto id = PipeIdOfMember(l.resource);
        if (id) eligible[*id].push_back(l.holder);
      }
      // Where each pipe runs now: the split keeps it there while that node is within its share.
      std::map<int64_t, std::string> running;
      for (const auto& l : *holders) {
        try {
          if (alive.count(l.holder)) running[std::stoll(l.resource.substr(5))] = l.holder;
        } catch (const std::exception&) {
          continue;  // not a resource this scheduler names
        }
      }
      runner = cluster::SplitWholeJobs(eligible, running);
    } else {
      pg_failed = true;
    }
  }
  for (auto& w : work) {
    const int64_t id = w.job->stored.id;
    auto r = runner.find(id);
    const bool mine = !pg_failed && w.wants && r != runner.end() && r->second == me;
    const bool elsewhere = !pg_failed && r != runner.end() && r->second != me;
    std::optional<cluster::Lease> now = w.held;
    std::optional<cluster::Lease> to_release;
    if (w.held) {
      auto renewed = leases.Renew(*w.held, ttl);
      if (renewed.ok() && !*renewed) {
        log::Warn("scheduler", "pipe {}.{}: lost it (epoch {}) to another node", w.job->stored.def.db,
                  w.job->stored.def.name, w.held->epoch);
        now.reset();
      } else if (!w.wants || elsewhere) {
        // Given to another node by the split (a node joined or became eligible), or no longer runnable here.
        to_release = w.held;
        now.reset();
      }
      // Renewed; or PostgreSQL did not answer: kept, as it is still ours until it expires (the fence decides at
      // commit).
    } else if (mine) {
      // Free, released, expired, or its holder is dead or left: the lease store's acquire refuses anything else.
      auto got = leases.Acquire(PipeResource(id), me, ttl);
      if (got.ok() && got->acquired) now = got->lease;
    }
    const bool changed = now.has_value() != w.held.has_value() || (now && now->epoch != w.held->epoch);
    if (changed) {
      std::lock_guard<std::mutex> lock(mu_);
      auto& job = *w.job;
      job.leases.clear();
      if (now) job.leases[kWholePipe] = *now;
      if (Live(job.stored.state)) {
        // Started here, or stopped here: its task in flight commits nothing (the version moved), then the pipe is
        // scheduled again, with a task group when this node holds it and none when it does not.
        job.stored.state = JobState::kNeedSchedule;
        job.next_schedule_attempt = Clock::now();
        job.version++;
      }
      if (now)
        log::Info("scheduler", "pipe {}.{}: node '{}' runs it (lease epoch {})", job.stored.def.db,
                  job.stored.def.name, me, now->epoch);
      else
        log::Info("scheduler", "pipe {}.{}: node '{}' no longer runs it", job.stored.def.db, job.stored.def.name, me);
      cv_.notify_all();
    }
    // Released after the regroup, so this node's task has stopped committing before another node can take it.
    if (to_release) (void)leases.Release(*to_release);
  }
}

Result<FencedCommit> JobRegistry::FencePipeTask(const JobRuntime& job) {
  std::optional<cluster::Lease> held;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = job.leases.find(kWholePipe); it != job.leases.end()) held = it->second;
  }
  if (!held) return Status::Conflict("this node no longer runs the pipe; its files are not committed");
  std::lock_guard<std::mutex> lock(fence_mu_);
  if (!fence_pg_) {
    ASSIGN_OR_RETURN(fence_pg_, cluster::PgClient::Connect(options_.cluster.uri));
  }
  cluster::LeaseStore leases(*fence_pg_, options_.cluster.node_timeout);
  ASSIGN_OR_RETURN(bool current, leases.Fence(PipeResource(job.stored.id), held->epoch));
  const std::string refused = "the pipe was taken over by another node (epoch " + std::to_string(held->epoch) +
                              " is no longer current); its files are not committed";
  if (!current) return Status::Conflict(refused);
  nlohmann::json epochs = {{"pipe", held->epoch}};
  FencedCommit out;
  out.summary["sluice.epochs." + std::to_string(job.stored.id)] = epochs.dump();
  out.guards.push_back(cluster::LeaseStore::FenceGuard(PipeResource(job.stored.id), held->epoch, refused));
  out.witness = cluster::SameDatabaseWitness(options_.cluster.node, options_.cluster.incarnation);
  return out;
}

Status JobRegistry::ChangeClusterStateLocked(JobRuntime& job, JobState to, const std::string& reason) {
  catalog::StoredJob next = job.stored;
  next.state = to;
  next.reason = reason;
  if (to == JobState::kPaused) next.pause_time_ms = WallClockMs();
  if (to == JobState::kStopped) next.end_time_ms = WallClockMs();
  job.local_write = ++cluster_writes_;
  if (Status st = cluster_store_->UpdateJob(next); !st.ok())
    return Status(st.code(), std::string(JobKind(job.stored.def)) + " '" + job.stored.def.name +
                                 "' belongs to the cluster, whose state is kept in PostgreSQL: " + st.message() +
                                 "; nothing changed, run the statement again once PostgreSQL answers");
  job.shared_state = to;
  SetStateLocked(job, to, reason, /*persist=*/false);
  job.stored.pause_time_ms = next.pause_time_ms;
  job.stored.end_time_ms = next.end_time_ms;
  return Status::Ok();
}

Result<FencedCommit> JobRegistry::FenceTask(const JobRuntime& job, const std::vector<int32_t>& partitions) {
  std::map<int32_t, cluster::Lease> held;
  {
    std::lock_guard<std::mutex> lock(mu_);
    held = job.leases;
  }
  nlohmann::json epochs = nlohmann::json::object();
  FencedCommit out;
  std::lock_guard<std::mutex> lock(fence_mu_);
  if (!fence_pg_) {
    ASSIGN_OR_RETURN(fence_pg_, cluster::PgClient::Connect(options_.cluster.uri));
  }
  cluster::LeaseStore leases(*fence_pg_, options_.cluster.node_timeout);
  for (int32_t p : partitions) {
    auto it = held.find(p);
    if (it == held.end())
      return Status::Conflict("this node no longer holds partition " + std::to_string(p) + "; its rows are not committed");
    ASSIGN_OR_RETURN(bool current, leases.Fence(PartitionResource(job.stored.id, p), it->second.epoch));
    const std::string refused = "partition " + std::to_string(p) + " was taken over by another node (epoch " +
                                std::to_string(it->second.epoch) + " is no longer current); its rows are not committed";
    if (!current) return Status::Conflict(refused);
    epochs[std::to_string(p)] = it->second.epoch;
    // The same check again inside the catalog's swap, when the catalog's database is the cluster's (AppendRows).
    out.guards.push_back(cluster::LeaseStore::FenceGuard(PartitionResource(job.stored.id, p), it->second.epoch, refused));
  }
  out.summary["sluice.epochs." + std::to_string(job.stored.id)] = epochs.dump();
  out.witness = cluster::SameDatabaseWitness(options_.cluster.node, options_.cluster.incarnation);
  return out;
}

Result<std::map<int64_t, std::set<std::string>>> JobRegistry::ClusterPipeRunners() {
  std::lock_guard<std::mutex> lock(fence_mu_);
  if (!fence_pg_) {
    ASSIGN_OR_RETURN(fence_pg_, cluster::PgClient::Connect(options_.cluster.uri));
  }
  cluster::LeaseStore leases(*fence_pg_, options_.cluster.node_timeout);
  std::map<int64_t, std::set<std::string>> out;
  // A volume pipe's runner holds pipe:<id>; a Kafka pipe's run its partitions, job:<id>:partition:<n> (a
  // membership, job:<id>:node:<name>, loads nothing by itself).
  ASSIGN_OR_RETURN(auto whole, leases.HeldWithPrefix("pipe:"));
  ASSIGN_OR_RETURN(auto partitions, leases.HeldWithPrefix("job:"));
  for (const auto* list : {&whole, &partitions}) {
    for (const auto& l : *list) {
      const size_t from = l.resource.find(':') + 1;
      const size_t to = l.resource.find(':', from);
      if (list == &partitions && l.resource.find(":partition:") == std::string::npos) continue;
      try {
        out[std::stoll(l.resource.substr(from, to == std::string::npos ? std::string::npos : to - from))].insert(
            l.holder);
      } catch (const std::exception&) {
        continue;  // not a resource this scheduler names
      }
    }
  }
  return out;
}

Result<std::vector<std::pair<std::string, std::vector<int32_t>>>> JobRegistry::PartitionsHeldElsewhere(int64_t job_id) {
  std::lock_guard<std::mutex> lock(fence_mu_);
  if (!fence_pg_) {
    ASSIGN_OR_RETURN(fence_pg_, cluster::PgClient::Connect(options_.cluster.uri));
  }
  cluster::LeaseStore leases(*fence_pg_, options_.cluster.node_timeout);
  ASSIGN_OR_RETURN(auto held, leases.HeldWithPrefix(JobResourcePrefix(job_id)));
  std::map<std::string, std::vector<int32_t>> by_node;
  const std::string prefix = JobResourcePrefix(job_id);
  for (const auto& l : held) {
    if (l.holder == options_.cluster.node) continue;
    by_node[l.holder].push_back(static_cast<int32_t>(std::stol(l.resource.substr(prefix.size()))));
  }
  std::vector<std::pair<std::string, std::vector<int32_t>>> out(by_node.begin(), by_node.end());
  for (auto& [node, parts] : out) std::sort(parts.begin(), parts.end());
  return out;
}

HeldWork JobRegistry::DescribeHeld(const std::vector<std::string>& resources) {
  std::map<int64_t, std::vector<int32_t>> partitions;  // by job id
  std::set<int64_t> pipes;
  for (const auto& r : resources) {
    // job:<id>:partition:<n> and pipe:<id>; a membership (job:<id>:node:<name>) is no work of its own.
    try {
      if (r.rfind("pipe:", 0) == 0) {
        pipes.insert(std::stoll(r.substr(5)));
      } else if (r.rfind("job:", 0) == 0) {
        const size_t at = r.find(":partition:", 4);
        if (at == std::string::npos) continue;
        partitions[std::stoll(r.substr(4, at - 4))].push_back(static_cast<int32_t>(std::stol(r.substr(at + 11))));
      }
    } catch (const std::exception&) {
      continue;  // not a resource this scheduler names
    }
  }
  HeldWork out;
  nlohmann::json held = nlohmann::json::object();
  std::lock_guard<std::mutex> lock(mu_);
  auto name_of = [&](int64_t id) {
    auto it = jobs_.find(id);
    // A job this node has not read yet (created a moment ago) or no longer has: its id.
    return it == jobs_.end() ? "job " + std::to_string(id) : it->second->stored.def.db + "." + it->second->stored.def.name;
  };
  for (auto& [id, parts] : partitions) {
    std::sort(parts.begin(), parts.end());
    held[name_of(id)] = parts;
    out.partitions += static_cast<int64_t>(parts.size());
    out.jobs++;
  }
  for (int64_t id : pipes) {
    held[name_of(id)] = "pipe";
    out.jobs++;
  }
  out.held = held.dump();
  return out;
}

}  // namespace sluice::scheduler
