// AccountStore on a cluster node: its changes under the replica's lock, published to every node, and other nodes'
// changes taken in (account_replica.h). The shared state is the rows of the four account tables, so taking it is
// the same as loading the catalog at a start.
#include <nlohmann/json.hpp>

#include "auth/account_store.h"
#include "common/log.h"
#include "sql/parser.h"

namespace sluice::auth {

namespace {

// The tables and the order of their columns, as Open creates them.
constexpr const char* kTables[] = {"accounts", "roles", "role_grants", "grants"};

Status Unreachable(const AccountReplica& replica, const Status& why) {
  return Status::Unavailable("users, roles and grants are shared by the cluster's nodes and cannot change while " +
                             replica.Where() + " does not answer (" + why.message() + "); try again once it does");
}

}  // namespace

AccountStore::~AccountStore() {
  {
    std::lock_guard lock(sync_mu_);
    stopping_ = true;
  }
  sync_cv_.notify_all();
  if (sync_thread_.joinable()) sync_thread_.join();
}

Result<std::string> AccountStore::ExportRows() {
  std::unique_lock lock(mu_);
  nlohmann::json out = nlohmann::json::object();
  for (const char* table : kTables) {
    ASSIGN_OR_RETURN(auto rows, con_->Query(std::string("SELECT * FROM __sluice.") + table + " ORDER BY ALL"));
    nlohmann::json list = nlohmann::json::array();
    for (const Row& r : rows.result_set->rows) {
      nlohmann::json row = nlohmann::json::array();
      for (const auto& cell : r) row.push_back(cell ? nlohmann::json(*cell) : nlohmann::json(nullptr));
      list.push_back(std::move(row));
    }
    out[table] = std::move(list);
  }
  return out.dump();
}

Status AccountStore::ImportRows(const std::string& rows) {
  nlohmann::json state = nlohmann::json::parse(rows, nullptr, /*allow_exceptions=*/false);
  if (!state.is_object()) return Status::Internal("the cluster's account state is not a JSON object");
  std::unique_lock lock(mu_);
  RETURN_IF_ERROR(storage::InTransaction(*con_, [&]() -> Status {
    for (const char* table : kTables) {
      RETURN_IF_ERROR(con_->Execute(std::string("DELETE FROM __sluice.") + table));
      if (!state.contains(table)) continue;
      for (const auto& row : state[table]) {
        std::string values;
        for (const auto& cell : row)
          values += (values.empty() ? "" : ", ") +
                    (cell.is_null() ? std::string("NULL") : sql::QuoteLiteral(cell.get<std::string>()));
        RETURN_IF_ERROR(con_->Execute(std::string("INSERT INTO __sluice.") + table + " VALUES (" + values + ")"));
      }
    }
    return Status::Ok();
  }));
  accounts_.clear();
  roles_.clear();
  role_grants_.clear();
  grants_.clear();
  sha2_cache_.clear();
  return Load();
}

Status AccountStore::Replicated(const std::function<Status()>& change) {
  if (!replica_) return change();
  std::lock_guard guard(replica_mu_);
  auto state = replica_->Lock();
  if (!state.ok()) return Unreachable(*replica_, state.status());
  // Another node's change first, so this one applies on top of it.
  if (state->version > 0 && state->version != replica_version_) {
    if (Status st = ImportRows(state->rows); !st.ok()) {
      replica_->Abandon();
      return st;
    }
    replica_version_ = state->version;
  }
  if (Status st = change(); !st.ok()) {
    replica_->Abandon();
    return st;
  }
  auto rows = ExportRows();
  if (!rows.ok()) {
    replica_->Abandon();
    replica_version_ = -1;  // the catalog changed but the cluster did not: take the cluster's state back
    return rows.status();
  }
  if (Status st = replica_->Publish({state->version + 1, *rows}); !st.ok()) {
    replica_version_ = -1;
    return Unreachable(*replica_, st);
  }
  replica_version_ = state->version + 1;
  return Status::Ok();
}

Status AccountStore::SyncWithReplica() {
  if (!replica_) return Status::Ok();
  std::lock_guard guard(replica_mu_);
  ASSIGN_OR_RETURN(int64_t version, replica_->Version());
  if (version > 0 && version == replica_version_) return Status::Ok();
  if (version == 0) {
    // A new cluster: this node's accounts become the cluster's, unless another node got there first.
    ASSIGN_OR_RETURN(AccountState state, replica_->Lock());
    if (state.version == 0) {
      auto rows = ExportRows();
      if (!rows.ok()) {
        replica_->Abandon();
        return rows.status();
      }
      RETURN_IF_ERROR(replica_->Publish({1, *rows}));
      replica_version_ = 1;
      log::Info("auth", "this node's users, roles and grants are now the cluster's ({})", replica_->Where());
      return Status::Ok();
    }
    replica_->Abandon();
  }
  ASSIGN_OR_RETURN(AccountState state, replica_->Read());
  RETURN_IF_ERROR(ImportRows(state.rows));
  if (replica_version_ == -1)
    log::Info("auth", "took the cluster's users, roles and grants (version {}) from {}", state.version,
              replica_->Where());
  replica_version_ = state.version;
  return Status::Ok();
}

void AccountStore::AttachReplica(std::unique_ptr<AccountReplica> replica, std::chrono::milliseconds poll) {
  replica_ = std::move(replica);
  sync_thread_ = std::thread([this, poll] { SyncLoop(poll); });
}

void AccountStore::SyncLoop(std::chrono::milliseconds poll) {
  bool failing = false;
  std::unique_lock lock(sync_mu_);
  while (!stopping_) {
    lock.unlock();
    Status st = SyncWithReplica();
    if (!st.ok() && !failing) {
      log::Warn("auth", "cannot take the cluster's users, roles and grants: {}; retrying every {} ms", st.message(),
                poll.count());
    } else if (st.ok() && failing) {
      log::Info("auth", "the cluster's users, roles and grants are reachable again");
    }
    failing = !st.ok();
    lock.lock();
    sync_cv_.wait_for(lock, poll, [this] { return stopping_; });
  }
}

Status AccountStore::CreateUser(const UserIdentity& who, const AccountOptions& options, bool if_not_exists) {
  return Replicated([&] { return CreateUserLocally(who, options, if_not_exists); });
}
Status AccountStore::AlterUser(const UserIdentity& who, const AccountOptions& options, bool if_exists) {
  return Replicated([&] { return AlterUserLocally(who, options, if_exists); });
}
Status AccountStore::DropUser(const UserIdentity& who, bool if_exists) {
  return Replicated([&] { return DropUserLocally(who, if_exists); });
}
Status AccountStore::CreateRole(const std::string& role, bool if_not_exists) {
  return Replicated([&] { return CreateRoleLocally(role, if_not_exists); });
}
Status AccountStore::DropRole(const std::string& role, bool if_exists) {
  return Replicated([&] { return DropRoleLocally(role, if_exists); });
}
Status AccountStore::GrantRole(const std::string& role, const Grantee& to) {
  return Replicated([&] { return GrantRoleLocally(role, to); });
}
Status AccountStore::RevokeRole(const std::string& role, const Grantee& from) {
  return Replicated([&] { return RevokeRoleLocally(role, from); });
}
Status AccountStore::Grant(const std::vector<PrivilegeGrant>& grants) {
  return Replicated([&] { return GrantLocally(grants); });
}
Status AccountStore::Revoke(const std::vector<PrivilegeGrant>& grants) {
  return Replicated([&] { return RevokeLocally(grants); });
}

}  // namespace sluice::auth
