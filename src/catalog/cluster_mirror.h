#pragma once
// ClusterMirror: keeps one node's copy of a kind of shared definitions (catalog/cluster_definition_store.h) in step
// with the cluster's: every `poll` from a thread of its own, and on demand (a statement names something the copy
// does not know). The first time a data directory joins a cluster, its own definitions are offered to the cluster
// and become the cluster's, except names the cluster already has: there the cluster's definition replaces the
// node's (a warning in the log names it). From then on the cluster's definitions are the truth.
//
// The owner (ExternalCatalogStore, VolumeStore, the scheduler's virtual clusters) keeps the copy where it always
// did and hands the mirror a MirrorCopy: how to read its own definitions and apply the cluster's. Reads answer
// from the copy, so they go on while PostgreSQL is away; changes go to the cluster first and are refused then
// (Refusal says why, and that nothing changed).
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "catalog/cluster_definition_store.h"
#include "common/status.h"

namespace sluice::catalog {

struct MirrorCopy {
  // This data directory's own definitions, offered to the cluster at its first join.
  std::function<Result<std::vector<SharedDefinition>>()> own;
  // Whether they were offered already (a row in the node's DuckDB file), and recording that they were.
  std::function<Result<bool>()> published;
  std::function<Status()> mark_published;
  // The lower-case names the copy holds.
  std::function<std::set<std::string>()> names;
  // One step of the copy, applied at once by the owner: `removed` (lower-case names) go, `written` replace or add.
  std::function<Status(const std::vector<std::string>& removed, const std::vector<const SharedDefinition*>& written)>
      apply;
};

class ClusterMirror {
 public:
  // `module`: the log module ("catalog", "volume", "scheduler").
  ClusterMirror(std::unique_ptr<ClusterDefinitionStore> store, MirrorCopy copy, std::string module);
  ~ClusterMirror();

  // Learns the cluster's definitions once (before the node serves anything; PostgreSQL being away, the poll thread
  // does once it answers), then polls. Never fails on an unreachable PostgreSQL.
  Status Start(std::chrono::milliseconds poll);
  // Brings the copy in step (one version read when nothing changed). `on_demand`: skipped for a second after a
  // failure, so statements naming unknown names do not each wait for an unreachable PostgreSQL.
  Status Sync(bool on_demand);
  ClusterDefinitionStore& store() { return *store_; }
  // A change the cluster did not take: when PostgreSQL did not answer, says so and that nothing changed.
  Status Refusal(const std::string& where, const Status& st) const;

 private:
  void PollLoop(std::chrono::milliseconds poll);
  std::unique_ptr<ClusterDefinitionStore> store_;
  MirrorCopy copy_;
  std::string module_;
  std::mutex sync_mu_;                           // one sync at a time; taken before the owner's locks
  int64_t applied_version_ = -1;                 // guarded by sync_mu_
  bool published_ = true;                        // under sync_mu_
  std::map<std::string, std::string> applied_;   // lower-case name -> Fingerprint; under sync_mu_
  std::chrono::steady_clock::time_point last_failure_{};  // under sync_mu_
  bool outage_logged_ = false;                   // under sync_mu_
  std::mutex poll_mu_;
  std::condition_variable poll_cv_;
  bool stopping_ = false;                        // guarded by poll_mu_
  std::thread poller_;
};

}  // namespace sluice::catalog
