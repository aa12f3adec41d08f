#pragma once
// Privilege checks for one session: who runs the statement (auth::Principal) against what it touches. Sluice's
// own statements name their objects; a passed-through statement's objects come from its scan
// (sql/statement_scan.h): its head (what it writes, creates, alters or drops) and every chain of names that
// names an existing table or view (all of which need SELECT). A view needs SELECT on the view only: its
// creator needed SELECT on what it reads.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "auth/access_denied.h"
#include "auth/account_store.h"
#include "executor/sql_guard.h"
#include "sql/statement_scan.h"
#include "storage/sandbox.h"

namespace sluice {

// The tables and views of the database file, lower case (schema, name), read once for a statement.
struct KnownTables {
  std::string catalog;  // DuckDB's name of the database file (catalog.schema.table)
  std::set<std::pair<std::string, std::string>> tables;
  bool Has(const std::string& db, const std::string& table) const;
};

class AccessControl {
 public:
  AccessControl(const auth::AccountStore& accounts, auth::Principal principal)
      : accounts_(accounts), principal_(std::move(principal)) {}

  const auth::Principal& principal() const { return principal_; }
  void set_active_roles(std::vector<std::string> roles) { principal_.active_roles = std::move(roles); }
  // The root role holds every privilege, so its statements need no lookups.
  bool HoldsEverything() const;

  Status RequireSystem(std::string_view privilege, std::string_view why) const;
  Status RequireDatabase(const std::string& db, std::string_view privilege) const;
  Status RequireTable(const std::string& db, const std::string& table, std::string_view privilege) const;
  Status Require(const auth::ObjectRef& object, std::string_view privilege) const;
  bool Holds(const auth::ObjectRef& object, std::string_view privilege) const;
  bool Sees(const auth::ObjectRef& object) const;

  // A passed-through statement of DuckDB kind `kind`, run with `current_db` as the current database.
  Status CheckPassThrough(const sql::StatementScan& scan, storage::StatementKind kind,
                          const std::vector<GuardedCall>& calls, const std::string& current_db,
                          const KnownTables& known) const;

 private:
  const auth::AccountStore& accounts_;
  auth::Principal principal_;
};

// Where a written name lives: (db, table) for t, db.t and catalog.db.t; db is `current_db` (or main) for t.
std::pair<std::string, std::string> ResolveTarget(const std::vector<std::string>& parts, const std::string& current_db,
                                                  const std::string& catalog);

}  // namespace sluice
