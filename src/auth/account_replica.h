#pragma once
// AccountReplica: where the accounts, roles and grants of a cluster live besides each node's own catalog, so that a
// user created, a password changed or a privilege granted on one node holds on every node (docs/cluster.md).
//
// The shared state is one versioned document: the rows of the node's four account tables. A change on any node runs
// under the replica's lock (Lock ... Publish): the node first takes the newest state if another node published one,
// applies the change to its catalog, and publishes the result as version + 1. Every node also polls Version() and
// takes a newer state, so changes reach the others within the poll period. Failed-login counters stay per node.
#include <cstdint>
#include <string>

#include "common/status.h"

namespace sluice::auth {

struct AccountState {
  int64_t version = 0;  // 0: nothing published yet (the first node to attach publishes its own accounts)
  std::string rows;     // AccountStore's export of its tables (JSON)
};

class AccountReplica {
 public:
  virtual ~AccountReplica() = default;
  virtual Result<int64_t> Version() = 0;
  virtual Result<AccountState> Read() = 0;
  // Takes the cluster-wide lock on the state (waits for another node's change to finish) and returns the state.
  virtual Result<AccountState> Lock() = 0;
  // Writes `next` and releases the lock; Unavailable when the write could not be made (nothing changed remotely).
  virtual Status Publish(const AccountState& next) = 0;
  // Releases the lock without a change.
  virtual void Abandon() = 0;
  // Where the state lives, for messages ("PostgreSQL at 127.0.0.1:5432/sluice").
  virtual std::string Where() const = 0;
};

}  // namespace sluice::auth
