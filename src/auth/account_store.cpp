#include "auth/account_store.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <thread>

#include "auth/password_hash.h"
#include "common/ascii.h"
#include "common/like.h"
#include "common/log.h"
#include "sql/parser.h"

namespace sluice::auth {

namespace {

using sql::QuoteLiteral;

std::string Field(const Row& row, size_t i) { return i < row.size() && row[i] ? *row[i] : std::string(); }

std::string JoinRoles(const std::vector<std::string>& roles) {
  std::string out;
  for (const auto& r : roles) out += (out.empty() ? "" : ",") + r;
  return out;
}

std::vector<std::string> SplitRoles(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::string NativeCredential(std::string_view password) {
  return "*" + AsciiUpper(HexEncode(NativeStage2(password)));
}

// A host pattern without wildcards ranks before one with them, then longer before shorter (MySQL's order).
int HostRank(const std::string& host) {
  bool wildcard = host.find_first_of("%_") != std::string::npos;
  return (wildcard ? 0 : 100000) + static_cast<int>(host.size());
}

bool HostMatches(const std::string& pattern, std::string_view peer) {
  if (pattern == "%") return true;
  if (pattern == "localhost") return peer == "127.0.0.1" || peer == "::1" || peer == "localhost";
  return LikeMatch(std::string(peer), pattern);
}

constexpr int kDelayAfterFailures = 3;
constexpr std::chrono::milliseconds kDelayStep{500};
constexpr std::chrono::milliseconds kMaxDelay{10000};

// Privileges the built-in roles hold, seeded as grants so SHOW GRANTS FOR ROLE shows them (root holds all).
std::vector<PrivilegeGrant> BuiltinRoleGrants() {
  auto role = [](const char* r) { return Grantee{true, {}, r}; };
  return {
      {role(kDbAdminRole), {ObjectKind::kCatalog, "", ""}, "ALL", true},
      {role(kDbAdminRole), {ObjectKind::kDatabase, kAll, ""}, "ALL", true},
      {role(kDbAdminRole), {ObjectKind::kTable, kAll, kAll}, "ALL", true},
      {role(kDbAdminRole), {ObjectKind::kPipe, kAll, kAll}, "ALL", true},
      {role(kUserAdminRole), {ObjectKind::kSystem, "", ""}, "GRANT", false},
      {role(kClusterAdminRole), {ObjectKind::kSystem, "", ""}, "OPERATE", false},
      {role(kClusterAdminRole), {ObjectKind::kSystem, "", ""}, "NODE", false},
      {role(kClusterAdminRole), {ObjectKind::kSystem, "", ""}, "CREATE RESOURCE GROUP", false},
  };
}

bool SameGrantee(const Grantee& a, const Grantee& b) {
  if (a.is_role != b.is_role) return false;
  return a.is_role ? AsciiLower(a.role) == AsciiLower(b.role) : a.user == b.user;
}

}  // namespace

std::string UserIdentity::ToString() const { return "'" + user + "'@'" + host + "'"; }

std::string Grantee::ToString() const { return is_role ? "ROLE '" + role + "'" : "USER " + user.ToString(); }

Result<std::unique_ptr<AccountStore>> AccountStore::Open(storage::Database& db,
                                                         std::optional<std::string> root_password,
                                                         AuthPlugin root_plugin) {
  ASSIGN_OR_RETURN(auto con, db.Connect());
  std::unique_ptr<AccountStore> store(new AccountStore(std::move(con)));
  RETURN_IF_ERROR(store->con_->Execute(
      "CREATE SCHEMA IF NOT EXISTS __sluice;"
      "CREATE TABLE IF NOT EXISTS __sluice.accounts (user_name VARCHAR NOT NULL, host VARCHAR NOT NULL, "
      "plugin VARCHAR NOT NULL, credential VARCHAR NOT NULL, require_ssl BOOLEAN NOT NULL, "
      "max_user_connections INTEGER NOT NULL, failed_login_attempts INTEGER NOT NULL, "
      "password_lock_days INTEGER NOT NULL, locked BOOLEAN NOT NULL, default_roles VARCHAR NOT NULL, "
      "PRIMARY KEY (user_name, host));"
      "CREATE TABLE IF NOT EXISTS __sluice.roles (name VARCHAR PRIMARY KEY);"
      "CREATE TABLE IF NOT EXISTS __sluice.role_grants (grantee_is_role BOOLEAN NOT NULL, grantee VARCHAR NOT NULL, "
      "grantee_host VARCHAR NOT NULL, role VARCHAR NOT NULL);"
      "CREATE TABLE IF NOT EXISTS __sluice.grants (grantee_is_role BOOLEAN NOT NULL, grantee VARCHAR NOT NULL, "
      "grantee_host VARCHAR NOT NULL, object_kind VARCHAR NOT NULL, db VARCHAR NOT NULL, name VARCHAR NOT NULL, "
      "privilege VARCHAR NOT NULL, grantable BOOLEAN NOT NULL)"));
  RETURN_IF_ERROR(store->Load());
  RETURN_IF_ERROR(store->Seed(std::move(root_password), root_plugin));
  return store;
}

Status AccountStore::Load() {
  ASSIGN_OR_RETURN(auto accounts,
                   con_->Query("SELECT user_name, host, plugin, credential, require_ssl, max_user_connections, "
                               "failed_login_attempts, password_lock_days, locked, default_roles "
                               "FROM __sluice.accounts"));
  for (const Row& r : accounts.result_set->rows) {
    Account a;
    a.id = {Field(r, 0), Field(r, 1)};
    a.plugin = Field(r, 2) == "caching_sha2_password" ? AuthPlugin::kCachingSha2Password : AuthPlugin::kNativePassword;
    a.credential = Field(r, 3);
    a.require_ssl = Field(r, 4) == "true";
    a.max_user_connections = std::atoi(Field(r, 5).c_str());
    a.failed_login_attempts = std::atoi(Field(r, 6).c_str());
    a.password_lock_days = std::atoi(Field(r, 7).c_str());
    a.locked = Field(r, 8) == "true";
    a.default_roles = SplitRoles(Field(r, 9));
    accounts_[a.id] = std::move(a);
  }
  ASSIGN_OR_RETURN(auto roles, con_->Query("SELECT name FROM __sluice.roles"));
  for (const Row& r : roles.result_set->rows) roles_.insert(Field(r, 0));
  ASSIGN_OR_RETURN(auto role_grants,
                   con_->Query("SELECT grantee_is_role, grantee, grantee_host, role FROM __sluice.role_grants"));
  for (const Row& r : role_grants.result_set->rows) {
    Grantee g{Field(r, 0) == "true", {Field(r, 1), Field(r, 2)}, Field(r, 1)};
    role_grants_.emplace_back(std::move(g), Field(r, 3));
  }
  ASSIGN_OR_RETURN(auto grants, con_->Query("SELECT grantee_is_role, grantee, grantee_host, object_kind, db, name, "
                                            "privilege, grantable FROM __sluice.grants"));
  for (const Row& r : grants.result_set->rows) {
    PrivilegeGrant g;
    g.grantee = Grantee{Field(r, 0) == "true", {Field(r, 1), Field(r, 2)}, Field(r, 1)};
    std::string kind = Field(r, 3);
    for (ObjectKind k : {ObjectKind::kSystem, ObjectKind::kCatalog, ObjectKind::kDatabase, ObjectKind::kTable,
                         ObjectKind::kPipe, ObjectKind::kStorageVolume, ObjectKind::kStorageConnection})
      if (kind == ObjectKindName(k)) g.object.kind = k;
    g.object.db = Field(r, 4);
    g.object.name = Field(r, 5);
    g.privilege = Field(r, 6);
    g.grantable = Field(r, 7) == "true";
    grants_.push_back(std::move(g));
  }
  return Status::Ok();
}

Status AccountStore::Seed(std::optional<std::string> root_password, AuthPlugin root_plugin) {
  std::unique_lock lock(mu_);
  bool changed_roles = false;
  for (const char* r : {kRootRole, kClusterAdminRole, kDbAdminRole, kUserAdminRole, kPublicRole}) {
    if (roles_.insert(r).second) {
      RETURN_IF_ERROR(con_->Execute("INSERT INTO __sluice.roles VALUES (" + QuoteLiteral(r) + ")"));
      changed_roles = true;
    }
  }
  if (changed_roles) {
    for (auto& g : BuiltinRoleGrants()) {
      bool present = std::any_of(grants_.begin(), grants_.end(), [&](const PrivilegeGrant& x) {
        return SameGrantee(x.grantee, g.grantee) && x.object == g.object && x.privilege == g.privilege;
      });
      if (!present) grants_.push_back(g);
    }
    RETURN_IF_ERROR(PersistGrants());
  }
  UserIdentity root{kRootUser, "%"};
  auto it = accounts_.find(root);
  if (it == accounts_.end() || root_password) {
    Account a = it == accounts_.end() ? Account{} : it->second;
    a.id = root;
    a.plugin = root_password ? root_plugin : a.plugin;
    std::string pw = root_password.value_or("");
    a.credential = !root_password ? a.credential
                   : pw.empty() ? ""
                   : a.plugin == AuthPlugin::kNativePassword ? NativeCredential(pw) : SaltedHash(pw);
    sha2_cache_.erase(root.ToString());
    if (it == accounts_.end()) a.default_roles = {kRootRole};
    RETURN_IF_ERROR(PersistAccount(a));
    accounts_[root] = a;
    Grantee g{false, root, ""};
    bool has_role = std::any_of(role_grants_.begin(), role_grants_.end(), [&](const auto& rg) {
      return SameGrantee(rg.first, g) && rg.second == kRootRole;
    });
    if (!has_role) {
      role_grants_.emplace_back(g, kRootRole);
      RETURN_IF_ERROR(PersistRoleGrants());
    }
  }
  return Status::Ok();
}

Status AccountStore::PersistAccount(const Account& a) {
  return storage::InTransaction(*con_, [&]() -> Status {
    RETURN_IF_ERROR(con_->Execute("DELETE FROM __sluice.accounts WHERE user_name = " + QuoteLiteral(a.id.user) +
                                  " AND host = " + QuoteLiteral(a.id.host)));
    return con_->Execute(
        "INSERT INTO __sluice.accounts VALUES (" + QuoteLiteral(a.id.user) + ", " + QuoteLiteral(a.id.host) + ", " +
        QuoteLiteral(PluginName(a.plugin)) + ", " + QuoteLiteral(a.credential) + ", " +
        (a.require_ssl ? "true" : "false") + ", " + std::to_string(a.max_user_connections) + ", " +
        std::to_string(a.failed_login_attempts) + ", " + std::to_string(a.password_lock_days) + ", " +
        (a.locked ? "true" : "false") + ", " + QuoteLiteral(JoinRoles(a.default_roles)) + ")");
  });
}

Status AccountStore::PersistRoleGrants() {
  return storage::InTransaction(*con_, [&]() -> Status {
    RETURN_IF_ERROR(con_->Execute("DELETE FROM __sluice.role_grants"));
    for (const auto& [g, role] : role_grants_) {
      RETURN_IF_ERROR(con_->Execute("INSERT INTO __sluice.role_grants VALUES (" +
                                    std::string(g.is_role ? "true" : "false") + ", " +
                                    QuoteLiteral(g.is_role ? g.role : g.user.user) + ", " +
                                    QuoteLiteral(g.is_role ? "" : g.user.host) + ", " + QuoteLiteral(role) + ")"));
    }
    return Status::Ok();
  });
}

Status AccountStore::PersistGrants() {
  return storage::InTransaction(*con_, [&]() -> Status {
    RETURN_IF_ERROR(con_->Execute("DELETE FROM __sluice.grants"));
    for (const auto& g : grants_) {
      RETURN_IF_ERROR(con_->Execute(
          "INSERT INTO __sluice.grants VALUES (" + std::string(g.grantee.is_role ? "true" : "false") + ", " +
          QuoteLiteral(g.grantee.is_role ? g.grantee.role : g.grantee.user.user) + ", " +
          QuoteLiteral(g.grantee.is_role ? "" : g.grantee.user.host) + ", " +
          QuoteLiteral(ObjectKindName(g.object.kind)) + ", " + QuoteLiteral(g.object.db) + ", " +
          QuoteLiteral(g.object.name) + ", " + QuoteLiteral(g.privilege) + ", " + (g.grantable ? "true" : "false") +
          ")"));
    }
    return Status::Ok();
  });
}

const AccountStore::Account* AccountStore::MatchLocked(std::string_view user, std::string_view peer_host) const {
  const Account* best = nullptr;
  for (const auto& [id, a] : accounts_) {
    if (id.user != user || !HostMatches(id.host, peer_host)) continue;
    if (!best || HostRank(id.host) > HostRank(best->id.host)) best = &a;
  }
  return best;
}

std::optional<UserIdentity> AccountStore::MatchAccount(std::string_view user, std::string_view peer_host) const {
  std::shared_lock lock(mu_);
  const Account* a = MatchLocked(user, peer_host);
  if (!a) return std::nullopt;
  return a->id;
}

std::optional<AccountCredentials> AccountStore::FindAccount(std::string_view user, std::string_view host) {
  std::shared_lock lock(mu_);
  const Account* a = MatchLocked(user, host);
  if (!a) return std::nullopt;
  AccountCredentials c;
  c.user = a->id.user;
  c.host = a->id.host;
  c.plugin = a->plugin;
  c.empty_password = a->credential.empty();
  if (a->plugin == AuthPlugin::kNativePassword && !a->credential.empty())
    c.native_stage2 = HexDecode(std::string_view(a->credential).substr(1));
  if (a->plugin == AuthPlugin::kCachingSha2Password) {
    auto cached = sha2_cache_.find(a->id.ToString());
    if (cached != sha2_cache_.end()) c.sha2_stage2 = cached->second;
  }
  c.require_ssl = a->require_ssl;
  c.max_user_connections = a->max_user_connections;
  Principal p{a->id, LoginRolesLocked(a->id)};
  lock.unlock();
  c.administrator = Has(p, ObjectRef{ObjectKind::kSystem, "", ""}, "OPERATE") ||
                    Has(p, ObjectRef{ObjectKind::kSystem, "", ""}, "GRANT");
  return c;
}

bool AccountStore::VerifyPassword(std::string_view user, std::string_view host, std::string_view password) {
  // Every check costs one slow hash, whether the user exists, is locked, or keeps a fast native hash, so the
  // time an answer takes tells nothing about the account.
  static const std::string kStandIn = SaltedHash("stand-in for an account that is not checked slowly");
  std::unique_lock lock(mu_);
  const Account* a = MatchLocked(user, host);
  bool slow = a && !a->locked && !a->credential.empty() && a->plugin == AuthPlugin::kCachingSha2Password;
  if (!slow) (void)VerifySaltedHash(kStandIn, password);
  if (!a || a->locked) return false;
  bool ok;
  if (a->credential.empty()) {
    ok = password.empty();
  } else if (a->plugin == AuthPlugin::kNativePassword) {
    ok = ConstantTimeEquals(NativeCredential(password), a->credential);
  } else {
    ok = VerifySaltedHash(a->credential, password);
  }
  if (ok && a->plugin == AuthPlugin::kCachingSha2Password) sha2_cache_[a->id.ToString()] = Sha2Stage2(password);
  return ok;
}

LoginGate AccountStore::BeforeLogin(std::string_view user, std::string_view host) {
  std::shared_lock lock(mu_);
  LoginGate gate;
  const Account* a = MatchLocked(user, host);
  if (a && a->locked) {
    gate.locked = true;
    gate.message = "Access denied for user '" + std::string(user) + "'@'" + std::string(host) +
                   "'. Account is locked: an administrator unlocks it with ALTER USER ... ACCOUNT UNLOCK";
    return gate;
  }
  auto it = failures_.find(std::string(user) + "@" + std::string(host));
  if (it == failures_.end()) return gate;
  const FailedLogins& f = it->second;
  if (f.locked_forever || f.locked_until > std::chrono::steady_clock::now()) {
    gate.locked = true;
    int days = a ? a->password_lock_days : 1;
    gate.message = "Access denied for user '" + std::string(user) + "'@'" + std::string(host) + "'. Account is blocked " +
                   (f.locked_forever ? std::string("until an administrator runs ALTER USER ... ACCOUNT UNLOCK")
                                     : "for " + std::to_string(days) + " day(s)") +
                   " (" + std::to_string(f.count) + " consecutive failed logins).";
    return gate;
  }
  if (f.count >= kDelayAfterFailures)
    gate.delay = std::min(kMaxDelay, kDelayStep * (f.count - kDelayAfterFailures + 1));
  return gate;
}

void AccountStore::AfterLogin(std::string_view user, std::string_view host, bool succeeded) {
  std::unique_lock lock(mu_);
  std::string key = std::string(user) + "@" + std::string(host);
  if (succeeded) {
    failures_.erase(key);
    return;
  }
  FailedLogins& f = failures_[key];
  f.count++;
  const Account* a = MatchLocked(user, host);
  if (a && a->failed_login_attempts > 0 && f.count >= a->failed_login_attempts) {
    if (a->password_lock_days < 0) {
      f.locked_forever = true;
    } else {
      f.locked_until = std::chrono::steady_clock::now() + std::chrono::hours(24) * a->password_lock_days;
    }
    log::Warn("auth", "account {} blocked after {} consecutive failed logins from {}", a->id.ToString(), f.count,
              host);
  }
  // Bounded: a flood of made-up user names must not grow this without end.
  if (failures_.size() > 100000) failures_.clear();
}

std::vector<std::string> AccountStore::LoginRoles(const UserIdentity& account) const {
  std::shared_lock lock(mu_);
  return LoginRolesLocked(account);
}

std::vector<std::string> AccountStore::LoginRolesLocked(const UserIdentity& account) const {
  // activate_all_roles_on_login: every role granted to the account is active unless DEFAULT ROLE narrows it.
  auto it = accounts_.find(account);
  std::vector<std::string> granted;
  for (const auto& [g, role] : role_grants_)
    if (!g.is_role && g.user == account) granted.push_back(role);
  if (it == accounts_.end() || it->second.default_roles.empty() ||
      (it->second.default_roles.size() == 1 && it->second.default_roles[0] == "ALL"))
    return granted;
  if (it->second.default_roles.size() == 1 && it->second.default_roles[0] == "NONE") return {};
  std::vector<std::string> out;
  for (const auto& r : it->second.default_roles)
    if (std::find(granted.begin(), granted.end(), r) != granted.end()) out.push_back(r);
  return out;
}

bool AccountStore::RootHasEmptyPassword() const {
  std::shared_lock lock(mu_);
  auto it = accounts_.find(UserIdentity{kRootUser, "%"});
  return it == accounts_.end() || it->second.credential.empty();
}

Result<std::string> AccountStore::MakeCredential(AuthPlugin plugin, const AccountOptions& o) {
  if (o.hashed_password) {
    const std::string& h = *o.hashed_password;
    if (plugin == AuthPlugin::kNativePassword) {
      if (h.empty()) return std::string();
      if (h.size() != 41 || h[0] != '*' || HexDecode(h.substr(1)).size() != 20)
        return Status::InvalidArgument("IDENTIFIED WITH mysql_native_password AS takes a hash like "
                                       "'*6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9' (41 characters, from "
                                       "PASSWORD() or SHOW GRANTS); use IDENTIFIED BY 'password' for a password");
      return AsciiUpper(h);
    }
    if (!h.empty() && h.rfind("pbkdf2-sha256$", 0) != 0)
      return Status::InvalidArgument("IDENTIFIED WITH caching_sha2_password AS takes a hash that Sluice made "
                                     "(pbkdf2-sha256$...); use IDENTIFIED BY 'password' for a password");
    return h;
  }
  std::string password = o.password.value_or("");
  if (password.empty()) return std::string();
  return plugin == AuthPlugin::kNativePassword ? NativeCredential(password) : SaltedHash(password);
}

Status AccountStore::CreateUserLocally(const UserIdentity& who, const AccountOptions& o, bool if_not_exists) {
  std::unique_lock lock(mu_);
  if (accounts_.count(who)) {
    if (if_not_exists) return Status::Ok();
    return Status::AlreadyExists("Operation CREATE USER failed for " + who.ToString() +
                                 ": the user exists; use ALTER USER to change it, or CREATE USER IF NOT EXISTS");
  }
  for (const auto& r : o.default_roles.value_or(std::vector<std::string>{})) {
    if (r != "ALL" && r != "NONE" && !roles_.count(r))
      return Status::NotFound("Role '" + r + "' does not exist: CREATE ROLE " + r + " first");
  }
  Account a;
  a.id = who;
  a.plugin = o.plugin.value_or(AuthPlugin::kNativePassword);
  ASSIGN_OR_RETURN(a.credential, MakeCredential(a.plugin, o));
  a.require_ssl = o.require_ssl.value_or(false);
  a.max_user_connections = o.max_user_connections.value_or(0);
  a.failed_login_attempts = o.failed_login_attempts.value_or(0);
  a.password_lock_days = o.password_lock_days.value_or(1);
  a.locked = o.account_locked.value_or(false);
  a.default_roles = o.default_roles.value_or(std::vector<std::string>{});
  RETURN_IF_ERROR(PersistAccount(a));
  // DEFAULT ROLE in CREATE USER also grants the roles (StarRocks does the same).
  bool granted = false;
  for (const auto& r : a.default_roles) {
    if (r == "ALL" || r == "NONE") continue;
    role_grants_.emplace_back(Grantee{false, who, ""}, r);
    granted = true;
  }
  if (granted) RETURN_IF_ERROR(PersistRoleGrants());
  accounts_[who] = std::move(a);
  return Status::Ok();
}

Status AccountStore::AlterUserLocally(const UserIdentity& who, const AccountOptions& o, bool if_exists) {
  std::unique_lock lock(mu_);
  auto it = accounts_.find(who);
  if (it == accounts_.end()) {
    if (if_exists) return Status::Ok();
    return Status::NotFound("Operation ALTER USER failed for " + who.ToString() +
                            ": no such user (SHOW USERS lists them)");
  }
  Account a = it->second;
  if (o.plugin) a.plugin = *o.plugin;
  if (o.password || o.hashed_password || o.plugin) {
    ASSIGN_OR_RETURN(a.credential, MakeCredential(a.plugin, o));
    sha2_cache_.erase(who.ToString());
  }
  if (o.require_ssl) a.require_ssl = *o.require_ssl;
  if (o.max_user_connections) a.max_user_connections = *o.max_user_connections;
  if (o.failed_login_attempts) a.failed_login_attempts = *o.failed_login_attempts;
  if (o.password_lock_days) a.password_lock_days = *o.password_lock_days;
  if (o.account_locked) {
    a.locked = *o.account_locked;
    if (!a.locked) {
      // ACCOUNT UNLOCK also lifts a block after failed logins, from every host.
      for (auto f = failures_.begin(); f != failures_.end();) {
        if (f->first.rfind(who.user + "@", 0) == 0) f = failures_.erase(f);
        else ++f;
      }
    }
  }
  if (o.default_roles) {
    for (const auto& r : *o.default_roles) {
      if (r == "ALL" || r == "NONE") continue;
      bool granted = std::any_of(role_grants_.begin(), role_grants_.end(), [&](const auto& rg) {
        return !rg.first.is_role && rg.first.user == who && rg.second == r;
      });
      if (!granted)
        return Status::InvalidArgument("Role '" + r + "' is not granted to " + who.ToString() + ": GRANT " + r +
                                       " TO " + who.ToString() + " first");
    }
    a.default_roles = *o.default_roles;
  }
  RETURN_IF_ERROR(PersistAccount(a));
  it->second = std::move(a);
  return Status::Ok();
}

Status AccountStore::DropUserLocally(const UserIdentity& who, bool if_exists) {
  std::unique_lock lock(mu_);
  if (who.user == kRootUser)
    return Status::InvalidArgument("root cannot be dropped: it is how an operator gets back in");
  if (!accounts_.count(who)) {
    if (if_exists) return Status::Ok();
    return Status::NotFound("Operation DROP USER failed for " + who.ToString() + ": no such user");
  }
  Grantee g{false, who, ""};
  auto role_grants = role_grants_;
  auto grants = grants_;
  std::erase_if(role_grants_, [&](const auto& rg) { return SameGrantee(rg.first, g); });
  std::erase_if(grants_, [&](const auto& pg) { return SameGrantee(pg.grantee, g); });
  Status st = storage::InTransaction(*con_, [&]() -> Status {
    return con_->Execute("DELETE FROM __sluice.accounts WHERE user_name = " + QuoteLiteral(who.user) +
                         " AND host = " + QuoteLiteral(who.host));
  });
  if (st.ok()) st = PersistRoleGrants();
  if (st.ok()) st = PersistGrants();
  if (!st.ok()) {
    role_grants_ = std::move(role_grants);
    grants_ = std::move(grants);
    return st;
  }
  accounts_.erase(who);
  sha2_cache_.erase(who.ToString());
  return Status::Ok();
}

Status AccountStore::CreateRoleLocally(const std::string& role, bool if_not_exists) {
  std::unique_lock lock(mu_);
  if (roles_.count(role) || IsBuiltinRole(role)) {
    if (if_not_exists) return Status::Ok();
    return Status::AlreadyExists("Role '" + role + "' already exists (SHOW ROLES lists them)");
  }
  RETURN_IF_ERROR(con_->Execute("INSERT INTO __sluice.roles VALUES (" + QuoteLiteral(role) + ")"));
  roles_.insert(role);
  return Status::Ok();
}

Status AccountStore::DropRoleLocally(const std::string& role, bool if_exists) {
  std::unique_lock lock(mu_);
  if (IsBuiltinRole(role)) return Status::InvalidArgument("'" + role + "' is a built-in role and cannot be dropped");
  if (!roles_.count(role)) {
    if (if_exists) return Status::Ok();
    return Status::NotFound("Role '" + role + "' does not exist (SHOW ROLES lists them)");
  }
  Grantee g{true, {}, role};
  std::erase_if(role_grants_, [&](const auto& rg) { return rg.second == role || SameGrantee(rg.first, g); });
  std::erase_if(grants_, [&](const auto& pg) { return SameGrantee(pg.grantee, g); });
  RETURN_IF_ERROR(con_->Execute("DELETE FROM __sluice.roles WHERE name = " + QuoteLiteral(role)));
  RETURN_IF_ERROR(PersistRoleGrants());
  RETURN_IF_ERROR(PersistGrants());
  roles_.erase(role);
  return Status::Ok();
}

Status AccountStore::GrantRoleLocally(const std::string& role, const Grantee& to) {
  std::unique_lock lock(mu_);
  if (!roles_.count(role)) return Status::NotFound("Role '" + role + "' does not exist: CREATE ROLE " + role + " first");
  if (to.is_role && !roles_.count(to.role)) return Status::NotFound("Role '" + to.role + "' does not exist");
  if (!to.is_role && !accounts_.count(to.user))
    return Status::NotFound("User " + to.user.ToString() + " does not exist: CREATE USER first");
  if (to.is_role) {
    // A role may not end up inheriting itself.
    std::set<std::string> seen{role};
    std::vector<std::string> todo{role};
    while (!todo.empty()) {
      std::string r = todo.back();
      todo.pop_back();
      if (AsciiLower(r) == AsciiLower(to.role))
        return Status::InvalidArgument("Granting role '" + role + "' to role '" + to.role + "' would make a cycle");
      for (const auto& [g, granted] : role_grants_)
        if (g.is_role && g.role == r && seen.insert(granted).second) todo.push_back(granted);
    }
  }
  for (const auto& [g, r] : role_grants_)
    if (SameGrantee(g, to) && r == role) return Status::Ok();
  role_grants_.emplace_back(to, role);
  Status st = PersistRoleGrants();
  if (!st.ok()) role_grants_.pop_back();
  return st;
}

Status AccountStore::RevokeRoleLocally(const std::string& role, const Grantee& from) {
  std::unique_lock lock(mu_);
  if (role == kRootRole && !from.is_role && from.user.user == kRootUser)
    return Status::InvalidArgument("the root role cannot be revoked from root");
  size_t before = role_grants_.size();
  std::erase_if(role_grants_, [&](const auto& rg) { return SameGrantee(rg.first, from) && rg.second == role; });
  if (role_grants_.size() == before)
    return Status::NotFound("Role '" + role + "' is not granted to " + from.ToString());
  return PersistRoleGrants();
}

Status AccountStore::GrantLocally(const std::vector<PrivilegeGrant>& grants) {
  std::unique_lock lock(mu_);
  auto saved = grants_;
  for (const auto& g : grants) {
    if (g.grantee.is_role ? !roles_.count(g.grantee.role) : !accounts_.count(g.grantee.user))
      return Status::NotFound(g.grantee.ToString() + " does not exist: CREATE " +
                              (g.grantee.is_role ? "ROLE" : "USER") + " first");
    auto same = std::find_if(grants_.begin(), grants_.end(), [&](const PrivilegeGrant& x) {
      return SameGrantee(x.grantee, g.grantee) && x.object == g.object && x.privilege == g.privilege;
    });
    if (same == grants_.end()) grants_.push_back(g);
    else same->grantable = same->grantable || g.grantable;
  }
  Status st = PersistGrants();
  if (!st.ok()) grants_ = std::move(saved);
  return st;
}

Status AccountStore::RevokeLocally(const std::vector<PrivilegeGrant>& grants) {
  std::unique_lock lock(mu_);
  auto saved = grants_;
  for (const auto& g : grants) {
    std::erase_if(grants_, [&](const PrivilegeGrant& x) {
      return SameGrantee(x.grantee, g.grantee) && x.object == g.object &&
             (g.privilege == "ALL" || x.privilege == g.privilege);
    });
  }
  Status st = PersistGrants();
  if (!st.ok()) grants_ = std::move(saved);
  return st;
}

bool AccountStore::UserExists(const UserIdentity& who) const {
  std::shared_lock lock(mu_);
  return accounts_.count(who) > 0;
}

bool AccountStore::RoleExists(const std::string& role) const {
  std::shared_lock lock(mu_);
  return roles_.count(role) > 0;
}

std::vector<std::string> AccountStore::GrantedRoles(const Grantee& who) const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  for (const auto& [g, role] : role_grants_)
    if (SameGrantee(g, who)) out.push_back(role);
  return out;
}

std::set<std::string> AccountStore::RoleClosure(const Principal& who) const {
  std::set<std::string> roles{kPublicRole};
  std::vector<std::string> todo(who.active_roles.begin(), who.active_roles.end());
  while (!todo.empty()) {
    std::string r = todo.back();
    todo.pop_back();
    if (!roles.insert(r).second && r != kPublicRole) continue;
    for (const auto& [g, granted] : role_grants_)
      if (g.is_role && g.role == r && !roles.count(granted)) todo.push_back(granted);
  }
  return roles;
}

bool AccountStore::IsGrantee(const Principal& who, const std::set<std::string>& roles, const Grantee& g) const {
  return g.is_role ? roles.count(g.role) > 0 : g.user == who.account;
}

bool AccountStore::HasLocked(const Principal& who, const ObjectRef& object, std::string_view privilege,
                             bool need_grantable) const {
  std::set<std::string> roles = RoleClosure(who);
  if (roles.count(kRootRole)) return true;
  for (const auto& g : grants_) {
    if (need_grantable && !g.grantable) continue;
    if (!IsGrantee(who, roles, g.grantee) || !Covers(g.object, object)) continue;
    if (g.privilege == "ALL" || g.privilege == privilege) return true;
  }
  return false;
}

bool AccountStore::Has(const Principal& who, const ObjectRef& object, std::string_view privilege) const {
  std::shared_lock lock(mu_);
  return HasLocked(who, object, privilege, false);
}

bool AccountStore::IsSuperuser(const Principal& who) const {
  std::shared_lock lock(mu_);
  return RoleClosure(who).count(kRootRole) > 0;
}

bool AccountStore::MayGrant(const Principal& who, const ObjectRef& object, std::string_view privilege) const {
  std::shared_lock lock(mu_);
  return HasLocked(who, ObjectRef{ObjectKind::kSystem, "", ""}, "GRANT", false) ||
         HasLocked(who, object, privilege, true);
}

bool AccountStore::SeesObject(const Principal& who, const ObjectRef& object) const {
  std::shared_lock lock(mu_);
  std::set<std::string> roles = RoleClosure(who);
  if (roles.count(kRootRole)) return true;
  for (const auto& g : grants_) {
    if (!IsGrantee(who, roles, g.grantee)) continue;
    if (Covers(g.object, object)) return true;
    // A database is visible to whoever holds something inside it.
    if (object.kind == ObjectKind::kDatabase && (g.object.kind == ObjectKind::kTable || g.object.kind == ObjectKind::kPipe) &&
        (g.object.db == kAll || AsciiLower(g.object.db) == AsciiLower(object.db)))
      return true;
  }
  return false;
}

std::vector<PrivilegeGrant> AccountStore::GrantsHeldBy(const Principal& who, bool everyone) const {
  std::shared_lock lock(mu_);
  if (everyone) return grants_;
  std::set<std::string> roles = RoleClosure(who);
  std::vector<PrivilegeGrant> out;
  for (const auto& g : grants_)
    if (IsGrantee(who, roles, g.grantee)) out.push_back(g);
  return out;
}

ResultSet AccountStore::ShowUsers() const {
  std::shared_lock lock(mu_);
  ResultSet rs;
  rs.AddColumn("User");
  for (const auto& [id, a] : accounts_) rs.rows.push_back({id.ToString()});
  return rs;
}

ResultSet AccountStore::ShowRoles() const {
  std::shared_lock lock(mu_);
  ResultSet rs;
  rs.AddColumn("Name");
  rs.AddColumn("Builtin");
  for (const auto& r : roles_) rs.rows.push_back({r, std::string(IsBuiltinRole(r) ? "true" : "false")});
  return rs;
}

Result<ResultSet> AccountStore::ShowGrants(const Grantee& who) const {
  std::shared_lock lock(mu_);
  if (who.is_role ? !roles_.count(who.role) : !accounts_.count(who.user))
    return Status::NotFound(who.ToString() + " does not exist");
  ResultSet rs;
  std::string name = who.is_role ? who.role : who.user.ToString();
  rs.AddColumn(who.is_role ? "RoleName" : "UserIdentity");
  rs.AddColumn("Grants");
  std::string target = who.is_role ? "ROLE '" + who.role + "'" : who.user.ToString();
  std::vector<std::string> roles;
  for (const auto& [g, role] : role_grants_)
    if (SameGrantee(g, who)) roles.push_back("'" + role + "'");
  if (!roles.empty()) {
    std::string list;
    for (const auto& r : roles) list += (list.empty() ? "" : ", ") + r;
    rs.rows.push_back({name, "GRANT " + list + " TO " + target});
  }
  if (who.is_role && who.role == kRootRole) rs.rows.push_back({name, "GRANT ALL ON SYSTEM TO ROLE 'root'"});
  for (const auto& g : grants_) {
    if (!SameGrantee(g.grantee, who)) continue;
    std::string priv = g.privilege == "ALL" ? "ALL PRIVILEGES" : g.privilege;
    rs.rows.push_back({name, "GRANT " + priv + " ON " + DescribeObject(g.object) + " TO " + target +
                                 (g.grantable ? " WITH GRANT OPTION" : "")});
  }
  return rs;
}

}  // namespace sluice::auth
