#pragma once
// ClusterJobStore: routine loads and volume pipes into Iceberg tables on a cluster node (`sluice serve --cluster
// URI`), kept in the cluster's PostgreSQL database so that every node sees the same jobs (docs/cluster.md):
//
//   sluice_routine_loads (id PRIMARY KEY, db, name, definition, state, reason, create_time, pause_time, end_time,
//                         updated_at, kind 'routine_load' | 'pipe', wakes: ALTER PIPE ... EXECUTE count)
//
// Routine loads and pipes have names of their own (`kind`). A pipe is altered while it runs (ALTER PIPE), so its
// definition is written by AlterJob only, never by UpdateJob: a node that writes a running pipe's state from a copy
// older than an ALTER made on another node does not undo that ALTER.
//
// The definition is stored as RoutineLoadStore stores it (SealDefinition: secret properties sealed). The key must
// be the same file on every node (--cluster-key-file), or a node cannot unseal a job another node created with a
// secret property. Progress is not kept here: the Iceberg table's snapshot summaries are the truth, and each
// node's own progress rows are their cache.
//
// Writes that the scheduler makes by itself must not undo a user's statement made on another node meanwhile, so
// UpdateJob never changes a STOPPED or CANCELLED job, and only writes RUNNING over RUNNING or NEED_SCHEDULE (a
// node that finished scheduling a job cannot revive one paused elsewhere a moment before).
#include <memory>
#include <mutex>
#include <string>

#include "catalog/job_store.h"
#include "cluster/pg_client.h"

namespace sluice::catalog {

// Job ids of the cluster store start here: far above the ids a node's own catalog hands out, so a job's id
// (and its Iceberg summary key sluice.offsets.<id>) is unique in the whole cluster.
inline constexpr int64_t kFirstClusterJobId = 1000000001;

class ClusterJobStore final : public JobStore {
 public:
  // Connects lazily: an unreachable PostgreSQL fails the calls (Unavailable), never the server's start.
  static Result<std::unique_ptr<ClusterJobStore>> Open(std::string uri, const std::string& secrets_key_file);

  Result<int64_t> CreateJob(const RoutineLoadDefinition& def, int64_t now_ms) override;
  Status UpdateJob(const StoredJob& job) override;
  // The cluster store keeps no progress: the table's offsets are the truth (reset_partitions is ignored here; the
  // scheduler forgets them in the node's own cache). A routine load must be PAUSED in the cluster; a pipe must not
  // be dropped (NotFound).
  Status AlterJob(const StoredJob& job, const std::vector<int32_t>& reset_partitions) override;
  Result<std::vector<StoredJob>> LoadJobs() override;
  // ALTER PIPE ... EXECUTE: counts one more wake of the pipe (StoredJob::wakes) for the node that runs it, which
  // sees it at its next read; returns the new count. NotFound when the pipe was dropped.
  Result<int64_t> Wake(int64_t id);

 private:
  ClusterJobStore(std::string uri, std::unique_ptr<SecretBox> secrets)
      : uri_(std::move(uri)), secrets_(std::move(secrets)) {}
  // The connection, with the tables created when missing; under mu_.
  Result<cluster::PgClient*> ConnectedLocked();
  std::mutex mu_;
  std::string uri_;
  std::unique_ptr<SecretBox> secrets_;
  std::unique_ptr<cluster::PgClient> pg_;
  bool tables_ready_ = false;
};

}  // namespace sluice::catalog
