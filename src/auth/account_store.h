#pragma once
// Accounts, roles and grants, kept in Sluice's catalog (__sluice.accounts, __sluice.roles, __sluice.role_grants,
// __sluice.grants) and held in memory for the checks every statement makes. Every change is written through in
// one transaction before it shows in memory. Thread-safe.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "auth/account_replica.h"
#include "auth/authenticator.h"
#include "auth/privilege.h"
#include "common/result_set.h"
#include "common/status.h"
#include "storage/database.h"

namespace sluice::auth {

// 'user'@'host' as written in statements; host defaults to '%'.
struct UserIdentity {
  std::string user;
  std::string host = "%";
  std::string ToString() const;  // 'user'@'host'
  bool operator<(const UserIdentity& o) const { return std::tie(user, host) < std::tie(o.user, o.host); }
  bool operator==(const UserIdentity& o) const = default;
};

// Who runs a statement: the account the login matched and the roles active in the session.
struct Principal {
  UserIdentity account;
  std::vector<std::string> active_roles;
  bool IsRootUser() const { return account.user == kRootUser; }
};

// A user or a role, as GRANT ... TO names it.
struct Grantee {
  bool is_role = false;
  UserIdentity user;  // when !is_role
  std::string role;   // when is_role
  std::string ToString() const;
};

// CREATE / ALTER USER options; unset fields are left as they are by ALTER.
struct AccountOptions {
  std::optional<AuthPlugin> plugin;
  std::optional<std::string> password;        // cleartext, hashed here and forgotten
  std::optional<std::string> hashed_password; // IDENTIFIED WITH ... AS '<hash>'
  std::optional<bool> require_ssl;
  std::optional<int> max_user_connections;
  std::optional<int> failed_login_attempts;   // 0: never lock
  std::optional<int> password_lock_days;      // -1: UNBOUNDED
  std::optional<std::vector<std::string>> default_roles;
  std::optional<bool> account_locked;         // ACCOUNT LOCK / UNLOCK
};

struct PrivilegeGrant {
  Grantee grantee;
  ObjectRef object;
  std::string privilege;  // upper case; "ALL" for every privilege of the object's kind
  bool grantable = false;
};

class AccountStore : public Authenticator {
 public:
  // Loads every account, role and grant. Seeds root and the built-in roles at the first start. A given
  // `root_password` becomes root's password (the flag / SLUICE_ROOT_PASSWORD set it at every start).
  static Result<std::unique_ptr<AccountStore>> Open(storage::Database& db, std::optional<std::string> root_password,
                                                    AuthPlugin root_plugin = AuthPlugin::kNativePassword);

  // Authenticator
  std::optional<AccountCredentials> FindAccount(std::string_view user, std::string_view host) override;
  bool VerifyPassword(std::string_view user, std::string_view host, std::string_view password) override;
  LoginGate BeforeLogin(std::string_view user, std::string_view host) override;
  void AfterLogin(std::string_view user, std::string_view host, bool succeeded) override;

  // The account a login from `peer_host` matched, and the roles active when it logs in.
  std::optional<UserIdentity> MatchAccount(std::string_view user, std::string_view peer_host) const;
  std::vector<std::string> LoginRoles(const UserIdentity& account) const;
  bool RootHasEmptyPassword() const;

  // Changes: written to the catalog, and, on a cluster node, published to every node (AttachReplica).
  Status CreateUser(const UserIdentity& who, const AccountOptions& options, bool if_not_exists);
  Status AlterUser(const UserIdentity& who, const AccountOptions& options, bool if_exists);
  Status DropUser(const UserIdentity& who, bool if_exists);
  Status CreateRole(const std::string& role, bool if_not_exists);
  Status DropRole(const std::string& role, bool if_exists);
  Status GrantRole(const std::string& role, const Grantee& to);
  Status RevokeRole(const std::string& role, const Grantee& from);
  Status Grant(const std::vector<PrivilegeGrant>& grants);
  Status Revoke(const std::vector<PrivilegeGrant>& grants);

  // A cluster node's accounts are the cluster's (account_replica.h): from now on every change runs under the
  // replica's lock and is published, and a thread takes other nodes' changes every `poll`. The first sync (taking
  // the cluster's accounts, or publishing this node's when the cluster has none yet) happens in that thread, so an
  // unreachable PostgreSQL never stops the start: until it answers, logins use the node's own accounts and changes
  // fail with Unavailable.
  void AttachReplica(std::unique_ptr<AccountReplica> replica, std::chrono::milliseconds poll);
  // One look at the replica: takes a newer state, or publishes this node's accounts to a cluster that has none.
  Status SyncWithReplica();
  ~AccountStore() override;

  bool UserExists(const UserIdentity& who) const;
  bool RoleExists(const std::string& role) const;
  // Roles granted to `who` (directly), for SET ROLE checks.
  std::vector<std::string> GrantedRoles(const Grantee& who) const;

  // Whether `who` holds `privilege` on `object` (through the account, its active roles, the roles those
  // inherit and public). The root role holds everything.
  bool Has(const Principal& who, const ObjectRef& object, std::string_view privilege) const;
  // Whether the root role is among `who`'s roles: it holds every privilege, so checks can be skipped.
  bool IsSuperuser(const Principal& who) const;
  // Whether `who` may pass `privilege` on: holds it WITH GRANT OPTION, or has SYSTEM GRANT.
  bool MayGrant(const Principal& who, const ObjectRef& object, std::string_view privilege) const;
  // Whether `who` holds any privilege on `object`, or, for a database, on anything in it (what SHOW lists).
  bool SeesObject(const Principal& who, const ObjectRef& object) const;
  // The grants `who` holds, directly or through its roles (information_schema's privilege views); every grant
  // when `everyone` (an administrator's view).
  std::vector<PrivilegeGrant> GrantsHeldBy(const Principal& who, bool everyone) const;

  ResultSet ShowUsers() const;
  ResultSet ShowRoles() const;
  Result<ResultSet> ShowGrants(const Grantee& who) const;

 private:
  struct Account {
    UserIdentity id;
    AuthPlugin plugin = AuthPlugin::kNativePassword;
    std::string credential;  // "" (no password), "*<40 hex>" (native) or a SaltedHash (caching_sha2)
    bool require_ssl = false;
    int max_user_connections = 0;
    int failed_login_attempts = 0;
    int password_lock_days = 1;
    bool locked = false;
    std::vector<std::string> default_roles;  // {"ALL"}: every granted role
  };
  struct FailedLogins {
    int count = 0;
    std::chrono::steady_clock::time_point locked_until{};
    bool locked_forever = false;
  };

  explicit AccountStore(std::unique_ptr<storage::Connection> con) : con_(std::move(con)) {}
  Status CreateUserLocally(const UserIdentity& who, const AccountOptions& options, bool if_not_exists);
  Status AlterUserLocally(const UserIdentity& who, const AccountOptions& options, bool if_exists);
  Status DropUserLocally(const UserIdentity& who, bool if_exists);
  Status CreateRoleLocally(const std::string& role, bool if_not_exists);
  Status DropRoleLocally(const std::string& role, bool if_exists);
  Status GrantRoleLocally(const std::string& role, const Grantee& to);
  Status RevokeRoleLocally(const std::string& role, const Grantee& from);
  Status GrantLocally(const std::vector<PrivilegeGrant>& grants);
  Status RevokeLocally(const std::vector<PrivilegeGrant>& grants);
  // account_replication.cpp: a change under the replica's lock, and the tables' rows as the shared state.
  Status Replicated(const std::function<Status()>& change);
  Result<std::string> ExportRows();
  Status ImportRows(const std::string& rows);
  void SyncLoop(std::chrono::milliseconds poll);
  Status Load();
  Status Seed(std::optional<std::string> root_password, AuthPlugin root_plugin);
  Status PersistAccount(const Account& a);
  Status PersistRoleGrants();
  Status PersistGrants();
  static Result<std::string> MakeCredential(AuthPlugin plugin, const AccountOptions& options);
  std::vector<std::string> LoginRolesLocked(const UserIdentity& account) const;
  const Account* MatchLocked(std::string_view user, std::string_view peer_host) const;
  std::set<std::string> RoleClosure(const Principal& who) const;
  bool HasLocked(const Principal& who, const ObjectRef& object, std::string_view privilege, bool need_grantable) const;
  bool IsGrantee(const Principal& who, const std::set<std::string>& roles, const Grantee& g) const;

  mutable std::shared_mutex mu_;
  std::unique_ptr<storage::Connection> con_;
  std::map<UserIdentity, Account> accounts_;
  std::set<std::string> roles_;
  std::vector<std::pair<Grantee, std::string>> role_grants_;  // (grantee, role)
  std::vector<PrivilegeGrant> grants_;
  std::map<std::string, std::string> sha2_cache_;  // 'u'@'h' -> SHA256(SHA256(pw)) after a full login
  std::map<std::string, FailedLogins> failures_;    // user + peer host

  std::unique_ptr<AccountReplica> replica_;
  std::mutex replica_mu_;          // one change or sync at a time on this node
  int64_t replica_version_ = -1;   // the state version this node holds; -1: not synced yet
  std::thread sync_thread_;
  std::mutex sync_mu_;
  std::condition_variable sync_cv_;
  bool stopping_ = false;
};

}  // namespace sluice::auth
