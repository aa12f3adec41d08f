#pragma once
// The errors a refused statement gets, worded as MySQL words them (the front door maps each to its number:
// 1142 for a table, 1044 for a database, 1227 for a privilege of the system or of an object of another kind),
// each followed by what an administrator runs to allow it.
#include <string>
#include <string_view>

#include "auth/account_store.h"
#include "common/status.h"

namespace sluice::auth {

// "SELECT command denied to user 'u'@'%' for table 'db.t'; ... GRANT SELECT ON TABLE db.t TO USER 'u'@'%'"
Status TableDenied(const Principal& who, std::string_view privilege, std::string_view db, std::string_view table);
// "Access denied for user 'u'@'%' to database 'db'; ... GRANT <privilege> ON DATABASE db TO USER 'u'@'%'"
Status DatabaseDenied(const Principal& who, std::string_view privilege, std::string_view db);
// "Access denied; you need (at least one of) the <privilege> privilege(s) for this operation: <why>"
Status PrivilegeNeeded(std::string_view privilege, std::string_view why);
// The same for an object: the grant to run names it.
Status ObjectDenied(const Principal& who, std::string_view privilege, const ObjectRef& object);

}  // namespace sluice::auth
