#pragma once
// The front door's half of the SQL sandbox (DESIGN.md decision 10; the engine's half is storage/sandbox.h).
// Refuses, for every user, root included: statements that reach files, extensions, the network or engine
// settings (COPY, EXPORT/IMPORT, ATTACH, INSTALL/LOAD, PRAGMA, SET, CALL, PREPARE ...); table functions other
// than the few that only compute (range, unnest, ...) and Sluice's own (DIRECTORY, READ_KAFKA, load_history);
// and any name of Sluice's catalog or internal functions, however it is quoted, cased or qualified.
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sql/statement_scan.h"
#include "storage/sandbox.h"

namespace sluice {

// What a statement's names say beyond the calls: whether it reads one of the observability relations of Sluice's
// catalog that docs name (rejected rows, volume load records, load history), which superusers may SELECT.
struct NameCheck {
  std::vector<struct GuardedCall> calls;
  bool reads_observability = false;
};

// A call to one of Sluice's table functions that reads something the user needs a privilege for.
struct GuardedCall {
  enum class Kind { kDirectory, kLoadHistory } kind;
  std::string argument;  // the volume name / the table name as written
};

class SqlGuard {
 public:
  // `table_functions`: every table function and table macro DuckDB has (lower case), from duckdb_functions().
  // `engine_settings`: DuckDB's setting names (lower case), from duckdb_settings().
  SqlGuard(std::set<std::string> table_functions, std::set<std::string> engine_settings)
      : table_functions_(std::move(table_functions)), engine_settings_(std::move(engine_settings)) {}

  // Names and calls in any statement (Sluice's own included: a pipe's SELECT runs in DuckDB too).
  Result<NameCheck> CheckNames(const sql::StatementScan& scan) const;
  // What DuckDB says a passed-through statement is.
  Status CheckKind(storage::StatementKind kind, const sql::StatementScan& scan) const;
  // SET name = ...: names of DuckDB settings are refused (a session must not change the server's engine).
  bool IsEngineSetting(std::string_view name) const;

 private:
  std::set<std::string> table_functions_;
  std::set<std::string> engine_settings_;
};

// The refusal for a name of Sluice's catalog.
Status CatalogNotReachable(std::string_view name);

// Whether `name` is reserved for Sluice: its catalog schema (__sluice*) and its internal functions.
bool IsReservedName(std::string_view name);

}  // namespace sluice
