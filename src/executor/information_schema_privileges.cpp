// information_schema.USER_PRIVILEGES, SCHEMA_PRIVILEGES and TABLE_PRIVILEGES from Sluice's grants (src/auth): a
// user sees the grants they hold, directly or through their roles; an administrator sees every grant. As in MySQL,
// a grant on everything is a user privilege, one on a database (or all its tables) a schema privilege, one on a
// table a table privilege. ALL is listed as the privileges it stands for.
#include "executor/information_schema_views.h"

namespace sluice::information_schema {

namespace {

using auth::ObjectKind;

std::string GranteeText(const auth::Grantee& g) { return g.is_role ? "'" + g.role + "'" : g.user.ToString(); }

std::vector<std::string> Expanded(const auth::PrivilegeGrant& g) {
  if (g.privilege == "ALL") return auth::PrivilegesOf(g.object.kind);
  return {g.privilege};
}

enum class Level { kUser, kSchema, kTable };

Level LevelOf(const auth::ObjectRef& o) {
  switch (o.kind) {
    case ObjectKind::kDatabase:
      return o.db == auth::kAll ? Level::kUser : Level::kSchema;
    case ObjectKind::kTable:
    case ObjectKind::kPipe:
      if (o.db == auth::kAll) return Level::kUser;
      return o.name == auth::kAll ? Level::kSchema : Level::kTable;
    default:
      return Level::kUser;
  }
}

Result<std::vector<Row>> PrivilegeRows(InformationSchemaReader& r, Level level) {
  const auto& s = r.source();
  std::vector<Row> rows;
  for (const auto& g : s.accounts->GrantsHeldBy(s.access->principal(), s.access->HoldsEverything())) {
    if (LevelOf(g.object) != level) continue;
    if (g.object.kind == ObjectKind::kStorageVolume || g.object.kind == ObjectKind::kStorageConnection) continue;
    for (const auto& p : Expanded(g)) {
      std::string privilege = g.object.kind == ObjectKind::kPipe ? p + " PIPE" : p;
      std::optional<std::string> grantable = g.grantable ? "YES" : "NO";
      switch (level) {
        case Level::kUser:
          rows.push_back({GranteeText(g.grantee), Text("def"), privilege, grantable});
          break;
        case Level::kSchema:
          rows.push_back({GranteeText(g.grantee), Text("def"), g.object.db, privilege, grantable});
          break;
        case Level::kTable:
          rows.push_back({GranteeText(g.grantee), Text("def"), g.object.db, g.object.name, privilege, grantable});
          break;
      }
    }
  }
  return rows;
}

}  // namespace

InformationSchemaView UserPrivileges() {
  return {"user_privileges",
          {Varchar("GRANTEE"), Varchar("TABLE_CATALOG"), Varchar("PRIVILEGE_TYPE"), Varchar("IS_GRANTABLE")},
          [](InformationSchemaReader& r) { return PrivilegeRows(r, Level::kUser); }};
}

InformationSchemaView SchemaPrivileges() {
  return {"schema_privileges",
          {Varchar("GRANTEE"), Varchar("TABLE_CATALOG"), Varchar("TABLE_SCHEMA"), Varchar("PRIVILEGE_TYPE"),
           Varchar("IS_GRANTABLE")},
          [](InformationSchemaReader& r) { return PrivilegeRows(r, Level::kSchema); }};
}

InformationSchemaView TablePrivileges() {
  return {"table_privileges",
          {Varchar("GRANTEE"), Varchar("TABLE_CATALOG"), Varchar("TABLE_SCHEMA"), Varchar("TABLE_NAME"),
           Varchar("PRIVILEGE_TYPE"), Varchar("IS_GRANTABLE")},
          [](InformationSchemaReader& r) { return PrivilegeRows(r, Level::kTable); }};
}

}  // namespace sluice::information_schema
