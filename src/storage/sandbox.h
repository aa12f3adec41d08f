#pragma once
// The engine's half of the SQL sandbox (DESIGN.md decision 10): once sealed, DuckDB reaches no file outside the
// allowed directories, installs and loads no extension, and refuses every change of its settings, whoever asks.
// The front door refuses the statements that would try (executor/sql_guard.*); this is what holds if it missed one.
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "storage/database.h"

namespace sluice::storage {

// What DuckDB's own parse says a statement is (duckdb_prepared_statement_type).
enum class StatementKind {
  kSelect, kInsert, kUpdate, kDelete, kExplain, kCreate, kCreateFunction, kAlter, kDrop, kTransaction,
  kAnalyze, kCopy, kExport, kAttach, kDetach, kPragma, kSet, kLoadExtension, kCall, kVacuum, kPrepare,
  kExecute, kMerge, kOther,
};
std::string_view StatementKindName(StatementKind kind);

// Seals `db`: allowed_directories (each ending in '/'), enable_external_access=false, no extension autoload or
// autoinstall, lock_configuration=true. Sluice's own settings must be made before. Cannot be undone.
Status SealDatabase(Connection& con, const std::vector<std::string>& allowed_directories);

// DuckDB's parse of exactly one statement, bound (so names must exist). A statement DuckDB cannot prepare
// returns DuckDB's error.
Result<StatementKind> ClassifyStatement(Connection& con, std::string_view sql);

}  // namespace sluice::storage
