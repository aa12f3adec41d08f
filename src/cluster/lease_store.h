#pragma once
// LeaseStore: leases with epochs in sluice_leases, the primitive that splits work across nodes and fences what a
// node commits (docs/cluster.md). A resource is a name such as 'job:<id>:partition:<n>' or 'pipe:<id>'.
//
//   Acquire  succeeds only when the resource is free (never held, or released), its lease expired, or its holder
//            is dead (no heartbeat within the node timeout, or left); the acquiring node must itself be alive.
//            Every successful acquire increments the epoch, so each assignment has an epoch of its own.
//   Renew    extends the lease, only for the holder with the same epoch.
//   Release  frees it (holder NULL); the row and its epoch stay, so an old epoch never becomes current again.
//   Fence    "is this epoch still the current one?", with the row locked FOR SHARE: run inside the transaction
//            of a commit (PgClient::Begin), it keeps anyone from taking the lease over until that transaction
//            ends, so a commit that passed the fence cannot land after a takeover.
//
// Each statement is one atomic PostgreSQL statement: of two nodes racing for a resource exactly one acquires it
// (INSERT ... ON CONFLICT DO UPDATE ... WHERE re-evaluates the condition on the row it locked). Expiry and
// liveness are judged by PostgreSQL's now(), never by a node's clock.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/pg_client.h"
#include "common/commit_guard.h"

namespace sluice::cluster {

struct Lease {
  std::string resource;
  std::string holder;  // empty: released
  int64_t epoch = 0;
  std::string expires_at;  // UTC text, PostgreSQL's clock
};

struct AcquireOutcome {
  bool acquired = false;
  // The lease as it now stands: ours when acquired, else the current holder's (empty holder: free but not ours,
  // which happens only when the acquiring node is not alive).
  Lease lease;
};

class LeaseStore {
 public:
  LeaseStore(PgClient& pg, std::chrono::milliseconds node_timeout) : pg_(pg), node_timeout_(node_timeout) {}

  // A node that is not alive in sluice_nodes (never joined, left, or silent past the timeout) acquires nothing:
  // Unavailable, retriable once its heartbeat is recorded again.
  Result<AcquireOutcome> Acquire(const std::string& resource, const std::string& node, std::chrono::milliseconds ttl);
  // false: the lease is no longer this holder's at this epoch (taken over or released).
  Result<bool> Renew(const Lease& lease, std::chrono::milliseconds ttl);
  Result<bool> Release(const Lease& lease);
  Result<bool> Fence(const std::string& resource, int64_t epoch);
  // Fence's statement as a guard for a commit made in the same database on another connection (the Iceberg JDBC
  // catalog's swap, common/commit_guard.h): the swap lands only while the epoch is current, and its FOR SHARE lock
  // keeps a takeover waiting until the swap has committed.
  static CommitGuard FenceGuard(const std::string& resource, int64_t epoch, std::string refused);
  Result<std::optional<Lease>> Current(const std::string& resource);
  // The unexpired, held leases whose resource starts with `prefix` (e.g. 'job:7:partition:'), by resource.
  Result<std::vector<Lease>> HeldWithPrefix(const std::string& prefix);

 private:
  PgClient& pg_;
  std::chrono::milliseconds node_timeout_;
};

}  // namespace sluice::cluster
