#include "auth/access_denied.h"

namespace sluice::auth {

namespace {
std::string GranteeText(const Principal& who) { return "USER " + who.account.ToString(); }
}  // namespace

Status TableDenied(const Principal& who, std::string_view privilege, std::string_view db, std::string_view table) {
  std::string name = std::string(db) + "." + std::string(table);
  return Status::AccessDenied(std::string(privilege) + " command denied to user " + who.account.ToString() +
                              " for table '" + name + "'; an administrator can allow it with GRANT " +
                              std::string(privilege) + " ON TABLE " + name + " TO " + GranteeText(who));
}

Status DatabaseDenied(const Principal& who, std::string_view privilege, std::string_view db) {
  return Status::AccessDenied("Access denied for user " + who.account.ToString() + " to database '" +
                              std::string(db) + "'; it needs " + std::string(privilege) +
                              " on the database: an administrator can run GRANT " + std::string(privilege) +
                              " ON DATABASE " + std::string(db) + " TO " + GranteeText(who));
}

Status PrivilegeNeeded(std::string_view privilege, std::string_view why) {
  return Status::AccessDenied("Access denied; you need (at least one of) the " + std::string(privilege) +
                              " privilege(s) for this operation: " + std::string(why));
}

Status ObjectDenied(const Principal& who, std::string_view privilege, const ObjectRef& object) {
  if (object.kind == ObjectKind::kTable) return TableDenied(who, privilege, object.db, object.name);
  if (object.kind == ObjectKind::kDatabase) return DatabaseDenied(who, privilege, object.db);
  return PrivilegeNeeded(privilege, "an administrator can run GRANT " + std::string(privilege) + " ON " +
                                        DescribeObject(object) + " TO " + GranteeText(who));
}

}  // namespace sluice::auth
