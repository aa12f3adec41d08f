// Users, roles and grants for the session (sql/account_ast.h -> auth::AccountStore). Managing accounts needs the
// SYSTEM privilege GRANT (the user_admin role); a user may change their own password and see their own grants;
// a privilege held WITH GRANT OPTION may be passed on.
#include "executor/sql_session.h"
#include "executor/result_rows.h"

#include "common/overloaded.h"

#include "sql/lexer.h"

namespace sluice {

namespace {

using auth::ObjectKind;
using auth::ObjectRef;

auth::UserIdentity Identity(const sql::UserName& u) { return auth::UserIdentity{u.user, u.host}; }

auth::Grantee ToGrantee(const sql::GranteeName& g) {
  return auth::Grantee{g.is_role, g.is_role ? auth::UserIdentity{} : Identity(g.user), g.role};
}

Result<auth::AccountOptions> ToOptions(const sql::AccountSpec& spec) {
  auth::AccountOptions o;
  if (spec.plugin) {
    o.plugin = *spec.plugin == "caching_sha2_password" ? auth::AuthPlugin::kCachingSha2Password
                                                        : auth::AuthPlugin::kNativePassword;
  }
  o.password = spec.password;
  o.hashed_password = spec.hashed;
  o.require_ssl = spec.require_ssl;
  o.max_user_connections = spec.max_user_connections;
  o.failed_login_attempts = spec.failed_login_attempts;
  o.password_lock_days = spec.password_lock_days;
  o.default_roles = spec.default_roles;
  o.account_locked = spec.account_locked;
  return o;
}

StatementResult Done() { return StatementResult{}; }

bool IsTablePrivilege(const std::string& p) {
  return p == "SELECT" || p == "INSERT" || p == "UPDATE" || p == "DELETE" || p == "ALTER" || p == "DROP";
}

}  // namespace

// The (object, privilege) pairs a GRANT or REVOKE means. MySQL's db.* names table privileges on every table of
// db and database privileges on db; its CREATE is CREATE TABLE.
Result<std::vector<std::pair<ObjectRef, std::string>>> SqlSession::GrantTargets(const sql::GrantPrivileges& g) {
  std::vector<std::pair<ObjectRef, std::string>> out;
  const sql::GrantObject& o = g.object;
  auto db_or_current = [&](const std::string& db) -> Result<std::string> {
    if (!db.empty()) return db;
    return ResolveDb("");
  };
  for (const std::string& p : g.privileges) {
    switch (o.kind) {
      case sql::GrantObjectKind::kMysqlDbStar: {
        ASSIGN_OR_RETURN(std::string db, db_or_current(o.db));
        if (auto lake = CheckLakeGrantObject(db, auth::kAll, !g.revoke); lake && !lake->ok()) return *lake;
        if (p == "USAGE") continue;  // MySQL's "no privilege"
        bool everything = db == auth::kAll;
        if (p == "ALL") {
          out.push_back({ObjectRef{ObjectKind::kTable, db, auth::kAll}, "ALL"});
          out.push_back({ObjectRef{ObjectKind::kDatabase, db, ""}, "ALL"});
          if (everything) out.push_back({ObjectRef{ObjectKind::kCatalog, "", ""}, "ALL"});
        } else if (p == "CREATE") {
          out.push_back({ObjectRef{ObjectKind::kDatabase, db, ""}, "CREATE TABLE"});
          if (everything) out.push_back({ObjectRef{ObjectKind::kCatalog, "", ""}, "CREATE DATABASE"});
        } else if (IsTablePrivilege(p)) {
          out.push_back({ObjectRef{ObjectKind::kTable, db, auth::kAll}, p});
          if (p == "ALTER" || p == "DROP") out.push_back({ObjectRef{ObjectKind::kDatabase, db, ""}, p});
        } else if (auth::IsPrivilegeOf(ObjectKind::kDatabase, p)) {
          out.push_back({ObjectRef{ObjectKind::kDatabase, db, ""}, p});
        } else if (everything && auth::IsPrivilegeOf(ObjectKind::kSystem, p)) {
          out.push_back({ObjectRef{ObjectKind::kSystem, "", ""}, p});
        } else {
          return Status::InvalidArgument("privilege '" + p + "' does not apply to " + (everything ? "*.*" : db + ".*") +
                                         "; table privileges are SELECT, INSERT, UPDATE, DELETE, ALTER, DROP");
        }
        break;
      }
      default: {
        ObjectRef ref;
        switch (o.kind) {
          case sql::GrantObjectKind::kSystem: ref.kind = ObjectKind::kSystem; break;
          case sql::GrantObjectKind::kCatalog: ref.kind = ObjectKind::kCatalog; break;
          case sql::GrantObjectKind::kDatabase: ref.kind = ObjectKind::kDatabase; break;
          case sql::GrantObjectKind::kTable: ref.kind = ObjectKind::kTable; break;
          case sql::GrantObjectKind::kPipe: ref.kind = ObjectKind::kPipe; break;
          case sql::GrantObjectKind::kStorageVolume: ref.kind = ObjectKind::kStorageVolume; break;
          case sql::GrantObjectKind::kStorageConnection: ref.kind = ObjectKind::kStorageConnection; break;
          case sql::GrantObjectKind::kMysqlDbStar: break;
        }
        ref.db = o.db;
        ref.name = o.name;
        if ((ref.kind == ObjectKind::kTable || ref.kind == ObjectKind::kPipe) && ref.db.empty()) {
          ASSIGN_OR_RETURN(ref.db, db_or_current(""));
        }
        // catalog.db / catalog.db.t of an external catalog: the Iceberg namespace (and table) must exist.
        std::optional<Status> lake;
        if (ref.kind == ObjectKind::kTable || ref.kind == ObjectKind::kDatabase)
          lake = CheckLakeGrantObject(ref.db, ref.kind == ObjectKind::kTable ? ref.name : auth::kAll, !g.revoke);
        if (lake) {
          RETURN_IF_ERROR(*lake);
        } else if (ref.kind == ObjectKind::kTable && ref.db != auth::kAll && ref.name != auth::kAll &&
                   !catalog_.DescribeTable(ref.db, ref.name).ok())
          return Status::UnknownTable("Table '" + ref.db + "." + ref.name + "' doesn't exist: grants name existing "
                                      "tables, or ALL TABLES IN DATABASE " + ref.db);
        else if (ref.kind == ObjectKind::kDatabase && ref.db != auth::kAll && !catalog_.DatabaseExists(ref.db))
          return Status::UnknownDatabase("Unknown database '" + ref.db + "'");
        if (!auth::IsPrivilegeOf(ref.kind, p)) {
          std::string list;
          for (const auto& x : auth::PrivilegesOf(ref.kind)) list += (list.empty() ? "" : ", ") + x;
          return Status::InvalidArgument("privilege '" + p + "' does not apply to " +
                                         std::string(auth::ObjectKindName(ref.kind)) + " objects; they have " + list +
                                         " (or ALL)");
        }
        out.push_back({ref, p});
      }
    }
  }
  return out;
}

Result<StatementResult> SqlSession::RunAccount(const sql::AccountStatement& st) {
  const auth::Principal& me = access_.principal();
  auto require_grant = [&](std::string_view what) {
    return access_.RequireSystem("GRANT", std::string(what) + " needs the user_admin role or GRANT ON SYSTEM");
  };
  auto is_self = [&](const sql::UserName& u) { return Identity(u) == me.account; };
  return std::visit(
      Overloaded{
          [&](const sql::CreateUser& s) -> Result<StatementResult> {
            RETURN_IF_ERROR(require_grant("CREATE USER"));
            ASSIGN_OR_RETURN(auto o, ToOptions(s.spec));
            RETURN_IF_ERROR(accounts_.CreateUser(Identity(s.who), o, s.if_not_exists));
            return Done();
          },
          [&](const sql::AlterUser& s) -> Result<StatementResult> {
            bool only_password = !s.spec.require_ssl && !s.spec.max_user_connections && !s.spec.failed_login_attempts &&
                                 !s.spec.password_lock_days && !s.spec.default_roles && !s.spec.account_locked;
            if (!(is_self(s.who) && only_password)) RETURN_IF_ERROR(require_grant("ALTER USER"));
            ASSIGN_OR_RETURN(auto o, ToOptions(s.spec));
            RETURN_IF_ERROR(accounts_.AlterUser(Identity(s.who), o, s.if_exists));
            return Done();
          },
          [&](const sql::DropUser& s) -> Result<StatementResult> {
            RETURN_IF_ERROR(require_grant("DROP USER"));
            for (const auto& u : s.who) RETURN_IF_ERROR(accounts_.DropUser(Identity(u), s.if_exists));
            return Done();
          },
          [&](const sql::SetPassword& s) -> Result<StatementResult> {
            auth::UserIdentity who = s.who ? Identity(*s.who) : me.account;
            if (!(who == me.account)) RETURN_IF_ERROR(require_grant("SET PASSWORD FOR another user"));
            auth::AccountOptions o;
            o.password = s.password;
            RETURN_IF_ERROR(accounts_.AlterUser(who, o, false));
            return Done();
          },
          [&](const sql::CreateRole& s) -> Result<StatementResult> {
            RETURN_IF_ERROR(require_grant("CREATE ROLE"));
            for (const auto& r : s.names) RETURN_IF_ERROR(accounts_.CreateRole(r, s.if_not_exists));
            return Done();
          },
          [&](const sql::DropRole& s) -> Result<StatementResult> {
            RETURN_IF_ERROR(require_grant("DROP ROLE"));
            for (const auto& r : s.names) RETURN_IF_ERROR(accounts_.DropRole(r, s.if_exists));
            return Done();
          },
          [&](const sql::GrantRoles& s) -> Result<StatementResult> {
            RETURN_IF_ERROR(require_grant(s.revoke ? "REVOKE of a role" : "GRANT of a role"));
            for (const auto& r : s.roles) {
              if (r == auth::kRootRole && !access_.HoldsEverything())
                return auth::PrivilegeNeeded("root", "only holders of the root role may grant or revoke it");
              for (const auto& g : s.grantees) {
                RETURN_IF_ERROR(s.revoke ? accounts_.RevokeRole(r, ToGrantee(g)) : accounts_.GrantRole(r, ToGrantee(g)));
              }
            }
            return Done();
          },
          [&](const sql::GrantPrivileges& s) -> Result<StatementResult> {
            ASSIGN_OR_RETURN(auto targets, GrantTargets(s));
            std::vector<auth::PrivilegeGrant> grants;
            for (const auto& [object, privilege] : targets) {
              if (!accounts_.MayGrant(me, object, privilege))
                return auth::PrivilegeNeeded("GRANT", "granting " + privilege + " ON " + auth::DescribeObject(object) +
                                                          " needs it WITH GRANT OPTION, or the user_admin role");
              for (const auto& g : s.grantees)
                grants.push_back(auth::PrivilegeGrant{ToGrantee(g), object, privilege, s.with_grant_option});
            }
            RETURN_IF_ERROR(s.revoke ? accounts_.Revoke(grants) : accounts_.Grant(grants));
            return Done();
          },
          [&](const sql::SetRole& s) -> Result<StatementResult> {
            auth::Grantee self{false, me.account, ""};
            std::vector<std::string> granted = accounts_.GrantedRoles(self);
            std::vector<std::string> roles;
            switch (s.choice) {
              case sql::RoleChoice::kAll: roles = granted; break;
              case sql::RoleChoice::kNone: break;
              case sql::RoleChoice::kDefault: roles = accounts_.LoginRoles(me.account); break;
              case sql::RoleChoice::kNamed:
                for (const auto& r : s.roles) {
                  if (std::find(granted.begin(), granted.end(), r) == granted.end())
                    return Status::InvalidArgument("Role '" + r + "' is not granted to " + me.account.ToString() +
                                                   " (SHOW GRANTS lists the roles you have)");
                  roles.push_back(r);
                }
            }
            access_.set_active_roles(std::move(roles));
            return Done();
          },
          [&](const sql::SetDefaultRole& s) -> Result<StatementResult> {
            for (const auto& u : s.users) {
              if (!is_self(u)) RETURN_IF_ERROR(require_grant("SET DEFAULT ROLE for another user"));
              auth::AccountOptions o;
              switch (s.choice) {
                case sql::RoleChoice::kAll: o.default_roles = std::vector<std::string>{"ALL"}; break;
                case sql::RoleChoice::kNone: o.default_roles = std::vector<std::string>{"NONE"}; break;
                default: o.default_roles = s.roles;
              }
              RETURN_IF_ERROR(accounts_.AlterUser(Identity(u), o, false));
            }
            return Done();
          },
          [&](const sql::ShowUsers&) -> Result<StatementResult> {
            RETURN_IF_ERROR(require_grant("SHOW USERS"));
            return Rows(accounts_.ShowUsers());
          },
          [&](const sql::ShowRoles&) -> Result<StatementResult> {
            RETURN_IF_ERROR(require_grant("SHOW ROLES"));
            return Rows(accounts_.ShowRoles());
          },
          [&](const sql::ShowGrants& s) -> Result<StatementResult> {
            auth::Grantee who{false, me.account, ""};
            if (s.grantee) {
              who = ToGrantee(*s.grantee);
              bool self = !who.is_role && who.user == me.account;
              bool own_role = who.is_role && std::find(me.active_roles.begin(), me.active_roles.end(), who.role) !=
                                                 me.active_roles.end();
              if (!self && !own_role) RETURN_IF_ERROR(require_grant("SHOW GRANTS FOR another user"));
            }
            ASSIGN_OR_RETURN(ResultSet rs, accounts_.ShowGrants(who));
            return Rows(std::move(rs));
          },
      },
      st.stmt);
}

}  // namespace sluice
