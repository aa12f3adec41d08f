#pragma once
// Account statements: users, roles, grants (StarRocks v3 syntax, plus the MySQL forms users also type).
// The parser only checks syntax; whether a role exists or a privilege fits an object is for auth/ to say.
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace sluice::sql {

// 'user'@'host'; host '%' when not written.
struct UserName {
  std::string user;
  std::string host = "%";
};

struct AccountSpec {
  std::optional<std::string> plugin;    // "mysql_native_password" | "caching_sha2_password"
  std::optional<std::string> password;  // IDENTIFIED BY 'pw'
  std::optional<std::string> hashed;    // IDENTIFIED WITH plugin AS 'hash'
  std::optional<bool> require_ssl;      // REQUIRE SSL | REQUIRE NONE
  std::optional<int> max_user_connections;
  std::optional<int> failed_login_attempts;
  std::optional<int> password_lock_days;  // -1: UNBOUNDED
  std::optional<std::vector<std::string>> default_roles;  // {"ALL"} / {"NONE"} / names
  std::optional<bool> account_locked;     // ACCOUNT LOCK | ACCOUNT UNLOCK
};

struct CreateUser { UserName who; bool if_not_exists = false; AccountSpec spec; };
struct AlterUser { UserName who; bool if_exists = false; AccountSpec spec; };
struct DropUser { std::vector<UserName> who; bool if_exists = false; };
// SET PASSWORD [FOR user] = 'pw' | PASSWORD('pw'); ALTER USER ... IDENTIFIED BY is the other spelling.
struct SetPassword { std::optional<UserName> who; std::string password; };
struct CreateRole { std::vector<std::string> names; bool if_not_exists = false; };
struct DropRole { std::vector<std::string> names; bool if_exists = false; };

struct GranteeName {
  bool is_role = false;
  UserName user;
  std::string role;
};

enum class GrantObjectKind { kSystem, kCatalog, kDatabase, kTable, kPipe, kStorageVolume, kStorageConnection,
                             kMysqlDbStar };
// What a grant names. db / name "*" mean all; an empty db means the current database. kMysqlDbStar is
// MySQL's `db.*` / `*.*`: table privileges on every table in db, database privileges on db.
struct GrantObject {
  GrantObjectKind kind = GrantObjectKind::kSystem;
  std::string db;
  std::string name;
};

// GRANT privs ON object TO grantees [WITH GRANT OPTION]; REVOKE privs ON object FROM grantees.
struct GrantPrivileges {
  bool revoke = false;
  std::vector<std::string> privileges;  // upper case, words joined by one space; "ALL" for ALL [PRIVILEGES]
  GrantObject object;
  std::vector<GranteeName> grantees;
  bool with_grant_option = false;
};
// GRANT role, ... TO grantee, ...; REVOKE role, ... FROM grantee, ...
struct GrantRoles {
  bool revoke = false;
  std::vector<std::string> roles;
  std::vector<GranteeName> grantees;
};

enum class RoleChoice { kNamed, kAll, kNone, kDefault };
// SET ROLE r, ... | ALL | NONE | DEFAULT
struct SetRole { RoleChoice choice = RoleChoice::kNamed; std::vector<std::string> roles; };
// SET DEFAULT ROLE r, ... | ALL | NONE TO user, ...
struct SetDefaultRole { RoleChoice choice = RoleChoice::kNamed; std::vector<std::string> roles; std::vector<UserName> users; };

struct ShowUsers {};
struct ShowRoles {};
struct ShowGrants { std::optional<GranteeName> grantee; };  // none: the current user

struct AccountStatement {
  std::variant<CreateUser, AlterUser, DropUser, SetPassword, CreateRole, DropRole, GrantPrivileges, GrantRoles,
               SetRole, SetDefaultRole, ShowUsers, ShowRoles, ShowGrants>
      stmt;
};

}  // namespace sluice::sql
