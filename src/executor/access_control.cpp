#include "executor/access_control.h"

#include "common/ascii.h"
#include "sql/lexer.h"

namespace sluice {

namespace {

using auth::ObjectKind;
using auth::ObjectRef;

// The (db, table) pairs a chain of names may mean, given how DuckDB resolves names: t in the current schema or
// main; a.b as schema.table or catalog.table; a.b.c as catalog.schema.table. Column references (t.col) give
// pairs too; they only matter when such a table exists.
std::vector<std::pair<std::string, std::string>> Candidates(const std::vector<std::string>& parts,
                                                            const std::string& current_db,
                                                            const std::string& catalog) {
  std::vector<std::pair<std::string, std::string>> out;
  auto lower = [](const std::string& s) { return AsciiLower(s); };
  if (parts.size() == 1) {
    out.emplace_back(lower(current_db.empty() ? "main" : current_db), lower(parts[0]));
    out.emplace_back("main", lower(parts[0]));
  } else {
    for (size_t i = 0; i + 1 < parts.size(); i++) {
      out.emplace_back(lower(parts[i]), lower(parts[i + 1]));
      if (lower(parts[i]) == lower(catalog)) out.emplace_back("main", lower(parts[i + 1]));
    }
  }
  return out;
}

}  // namespace

bool KnownTables::Has(const std::string& db, const std::string& table) const {
  return tables.count({AsciiLower(db), AsciiLower(table)}) > 0;
}

std::pair<std::string, std::string> ResolveTarget(const std::vector<std::string>& parts, const std::string& current_db,
                                                  const std::string& catalog) {
  if (parts.size() == 1) return {current_db.empty() ? "main" : current_db, parts[0]};
  if (parts.size() == 2) {
    if (AsciiLower(parts[0]) == AsciiLower(catalog)) return {"main", parts[1]};
    return {parts[0], parts[1]};
  }
  return {parts[parts.size() - 2], parts.back()};
}

bool AccessControl::HoldsEverything() const {
  return accounts_.IsSuperuser(principal_);
}

bool AccessControl::Holds(const ObjectRef& object, std::string_view privilege) const {
  return accounts_.Has(principal_, object, privilege);
}

bool AccessControl::Sees(const ObjectRef& object) const { return accounts_.SeesObject(principal_, object); }

Status AccessControl::Require(const ObjectRef& object, std::string_view privilege) const {
  if (accounts_.Has(principal_, object, privilege)) return Status::Ok();
  return auth::ObjectDenied(principal_, privilege, object);
}

Status AccessControl::RequireSystem(std::string_view privilege, std::string_view why) const {
  if (accounts_.Has(principal_, ObjectRef{ObjectKind::kSystem, "", ""}, privilege)) return Status::Ok();
  return auth::PrivilegeNeeded(privilege, why);
}

Status AccessControl::RequireDatabase(const std::string& db, std::string_view privilege) const {
  return Require(ObjectRef{ObjectKind::kDatabase, db, ""}, privilege);
}

Status AccessControl::RequireTable(const std::string& db, const std::string& table, std::string_view privilege) const {
  return Require(ObjectRef{ObjectKind::kTable, db, table}, privilege);
}

Status AccessControl::CheckPassThrough(const sql::StatementScan& scan, storage::StatementKind kind,
                                       const std::vector<GuardedCall>& calls, const std::string& current_db,
                                       const KnownTables& known) const {
  using K = storage::StatementKind;
  for (const auto& call : calls) {
    if (call.kind == GuardedCall::Kind::kDirectory) {
      RETURN_IF_ERROR(Require(ObjectRef{ObjectKind::kStorageVolume, "", call.argument}, "USAGE"));
    } else {
      std::vector<std::string> parts;
      size_t dot = call.argument.find('.');
      if (dot == std::string::npos) parts = {call.argument};
      else parts = {call.argument.substr(0, dot), call.argument.substr(dot + 1)};
      auto [db, table] = ResolveTarget(parts, current_db, known.catalog);
      RETURN_IF_ERROR(RequireTable(db, table, "SELECT"));
    }
  }
  std::pair<std::string, std::string> target;
  bool has_target = !scan.target.empty();
  if (has_target) target = ResolveTarget(scan.target, current_db, known.catalog);
  const std::string& verb = scan.verb;
  if (has_target && !scan.temporary) {
    const auto& [db, name] = target;
    if (verb == "INSERT") RETURN_IF_ERROR(RequireTable(db, name, "INSERT"));
    if (verb == "UPDATE") RETURN_IF_ERROR(RequireTable(db, name, "UPDATE"));
    if (verb == "DELETE" || verb == "TRUNCATE") RETURN_IF_ERROR(RequireTable(db, name, "DELETE"));
    if (verb == "MERGE") {
      if (scan.merge_inserts) RETURN_IF_ERROR(RequireTable(db, name, "INSERT"));
      if (scan.merge_updates) RETURN_IF_ERROR(RequireTable(db, name, "UPDATE"));
      if (scan.merge_deletes) RETURN_IF_ERROR(RequireTable(db, name, "DELETE"));
    }
    const std::string& what = scan.object_kind;
    if (verb == "CREATE") {
      if (what == "INDEX") {
        if (!scan.index_table.empty()) {
          auto [idb, itable] = ResolveTarget(scan.index_table, current_db, known.catalog);
          RETURN_IF_ERROR(RequireTable(idb, itable, "ALTER"));
        }
      } else {
        const char* priv = what == "VIEW" ? "CREATE VIEW" : what == "MACRO" ? "CREATE FUNCTION" : "CREATE TABLE";
        RETURN_IF_ERROR(RequireDatabase(db, priv));
      }
    }
    if (verb == "DROP") {
      if (what == "TABLE" || what == "VIEW") RETURN_IF_ERROR(RequireTable(db, name, "DROP"));
      else RETURN_IF_ERROR(RequireDatabase(db, "DROP"));
    }
    if (verb == "ALTER" || verb == "COMMENT") {
      if (what == "TABLE" || what == "VIEW") RETURN_IF_ERROR(RequireTable(db, name, "ALTER"));
      else RETURN_IF_ERROR(RequireDatabase(db, "ALTER"));
    }
  } else if (!has_target && (kind == K::kInsert || kind == K::kUpdate || kind == K::kDelete ||
                             kind == K::kCreate || kind == K::kCreateFunction || kind == K::kDrop ||
                             kind == K::kAlter)) {
    // DuckDB says it writes, but the head named nothing Sluice could check: refuse rather than guess.
    return Status::AccessDenied("Access denied: Sluice could not tell which object this " +
                                std::string(storage::StatementKindName(kind)) +
                                " statement changes; name it right after the verb (e.g. INSERT INTO db.t ...)");
  }
  // Every existing table or view the statement names, other than what it writes, is read.
  for (const auto& chain : scan.names) {
    if (chain.called) continue;
    for (const auto& [db, table] : Candidates(chain.parts, current_db, known.catalog)) {
      if (!known.Has(db, table)) continue;
      if (has_target && AsciiLower(db) == AsciiLower(target.first) && AsciiLower(table) == AsciiLower(target.second) &&
          verb != "SELECT")
        continue;
      RETURN_IF_ERROR(RequireTable(db, table, "SELECT"));
    }
  }
  return Status::Ok();
}

}  // namespace sluice
