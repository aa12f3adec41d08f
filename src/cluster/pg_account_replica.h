#pragma once
// The accounts of a cluster in its PostgreSQL database (auth/account_replica.h):
//
//   sluice_accounts (id 1 PRIMARY KEY, version BIGINT, state TEXT)
//
// One row; Lock is SELECT ... FOR UPDATE in a transaction that Publish commits, so changes made on two nodes at once
// run one after the other. The state holds password hashes (as each node's catalog does), never a cleartext password.
#include <memory>
#include <mutex>
#include <string>

#include "auth/account_replica.h"
#include "cluster/pg_client.h"

namespace sluice::cluster {

class PgAccountReplica final : public auth::AccountReplica {
 public:
  // Connects lazily: an unreachable PostgreSQL fails the calls (Unavailable), never the server's start.
  explicit PgAccountReplica(std::string uri) : uri_(std::move(uri)) {}

  Result<int64_t> Version() override;
  Result<auth::AccountState> Read() override;
  Result<auth::AccountState> Lock() override;
  Status Publish(const auth::AccountState& next) override;
  void Abandon() override;
  std::string Where() const override;

 private:
  Result<PgClient*> ConnectedLocked();
  Result<auth::AccountState> ReadLocked(bool for_update);
  std::mutex mu_;             // the client; held from Lock until Publish / Abandon
  std::unique_lock<std::mutex> held_;
  std::string uri_;
  std::unique_ptr<PgClient> pg_;
  bool table_ready_ = false;
};

}  // namespace sluice::cluster
