#include "cluster/pg_account_replica.h"

namespace sluice::cluster {

namespace {

constexpr const char* kCreateAccounts =
    "CREATE TABLE IF NOT EXISTS sluice_accounts (id INT PRIMARY KEY CHECK (id = 1), version BIGINT NOT NULL, "
    "state TEXT NOT NULL)";
// Any constant shared by every node: the advisory lock that keeps two nodes from racing on CREATE TABLE.
constexpr const char* kCreateLockKey = "7305873260815042";

}  // namespace

Result<PgClient*> PgAccountReplica::ConnectedLocked() {
  if (!pg_) {
    ASSIGN_OR_RETURN(pg_, PgClient::Connect(uri_));
  }
  if (!table_ready_) {
    RETURN_IF_ERROR(pg_->Begin());
    for (const std::string& sql : {std::string("SELECT pg_advisory_xact_lock(") + kCreateLockKey + ")",
                                  std::string(kCreateAccounts)}) {
      if (auto r = pg_->Exec(sql); !r.ok()) {
        pg_->Rollback();
        return r.status();
      }
    }
    RETURN_IF_ERROR(pg_->Commit());
    table_ready_ = true;
  }
  return pg_.get();
}

Result<auth::AccountState> PgAccountReplica::ReadLocked(bool for_update) {
  ASSIGN_OR_RETURN(PgClient * pg, ConnectedLocked());
  ASSIGN_OR_RETURN(PgRows rows, pg->Exec(std::string("SELECT version, state FROM sluice_accounts WHERE id = 1") +
                                         (for_update ? " FOR UPDATE" : "")));
  auth::AccountState state;
  if (!rows.rows.empty()) {
    state.version = std::stoll(rows.rows[0][0].value_or("0"));
    state.rows = rows.rows[0][1].value_or("");
  }
  return state;
}

Result<int64_t> PgAccountReplica::Version() {
  std::lock_guard lock(mu_);
  ASSIGN_OR_RETURN(PgClient * pg, ConnectedLocked());
  ASSIGN_OR_RETURN(PgRows rows, pg->Exec("SELECT version FROM sluice_accounts WHERE id = 1"));
  return rows.rows.empty() ? int64_t{0} : std::stoll(rows.rows[0][0].value_or("0"));
}

Result<auth::AccountState> PgAccountReplica::Read() {
  std::lock_guard lock(mu_);
  return ReadLocked(false);
}

Result<auth::AccountState> PgAccountReplica::Lock() {
  std::unique_lock lock(mu_);
  ASSIGN_OR_RETURN(PgClient * pg, ConnectedLocked());
  RETURN_IF_ERROR(pg->Begin());
  // The row must exist to be locked: the first change of a new cluster creates it (version 0, nothing published).
  auto created = pg->Exec("INSERT INTO sluice_accounts VALUES (1, 0, '') ON CONFLICT (id) DO NOTHING");
  auto state = created.ok() ? ReadLocked(true) : Result<auth::AccountState>(created.status());
  if (!state.ok()) {
    pg->Rollback();
    return state.status();
  }
  held_ = std::move(lock);
  return state;
}

Status PgAccountReplica::Publish(const auth::AccountState& next) {
  std::unique_lock lock = std::move(held_);
  if (!lock.owns_lock()) return Status::Internal("publishing accounts without holding their lock");
  auto updated = pg_->Exec("UPDATE sluice_accounts SET version = $1::bigint, state = $2 WHERE id = 1",
                           {std::to_string(next.version), next.rows});
  if (!updated.ok()) {
    pg_->Rollback();
    return updated.status();
  }
  return pg_->Commit();
}

void PgAccountReplica::Abandon() {
  std::unique_lock lock = std::move(held_);
  if (lock.owns_lock() && pg_) pg_->Rollback();
}

std::string PgAccountReplica::Where() const { return "PostgreSQL at " + PgClient::Describe(uri_); }

}  // namespace sluice::cluster
