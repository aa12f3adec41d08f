#include "storage/sandbox.h"

#include <duckdb.h>

#include "storage/result_conversion.h"

namespace sluice::storage {

namespace {

std::string Literal(std::string_view s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

StatementKind FromDuckDb(duckdb_statement_type t) {
  switch (t) {
    case DUCKDB_STATEMENT_TYPE_SELECT: return StatementKind::kSelect;
    case DUCKDB_STATEMENT_TYPE_INSERT: return StatementKind::kInsert;
    case DUCKDB_STATEMENT_TYPE_UPDATE: return StatementKind::kUpdate;
    case DUCKDB_STATEMENT_TYPE_DELETE: return StatementKind::kDelete;
    case DUCKDB_STATEMENT_TYPE_EXPLAIN: return StatementKind::kExplain;
    case DUCKDB_STATEMENT_TYPE_CREATE: return StatementKind::kCreate;
    case DUCKDB_STATEMENT_TYPE_CREATE_FUNC: return StatementKind::kCreateFunction;
    case DUCKDB_STATEMENT_TYPE_ALTER: return StatementKind::kAlter;
    case DUCKDB_STATEMENT_TYPE_DROP: return StatementKind::kDrop;
    case DUCKDB_STATEMENT_TYPE_TRANSACTION: return StatementKind::kTransaction;
    case DUCKDB_STATEMENT_TYPE_ANALYZE: return StatementKind::kAnalyze;
    case DUCKDB_STATEMENT_TYPE_COPY: return StatementKind::kCopy;
    case DUCKDB_STATEMENT_TYPE_EXPORT: return StatementKind::kExport;
    case DUCKDB_STATEMENT_TYPE_ATTACH: return StatementKind::kAttach;
    case DUCKDB_STATEMENT_TYPE_DETACH: return StatementKind::kDetach;
    case DUCKDB_STATEMENT_TYPE_PRAGMA: return StatementKind::kPragma;
    case DUCKDB_STATEMENT_TYPE_VARIABLE_SET:
    case DUCKDB_STATEMENT_TYPE_SET: return StatementKind::kSet;
    case DUCKDB_STATEMENT_TYPE_LOAD:
    case DUCKDB_STATEMENT_TYPE_EXTENSION: return StatementKind::kLoadExtension;
    case DUCKDB_STATEMENT_TYPE_CALL: return StatementKind::kCall;
    case DUCKDB_STATEMENT_TYPE_VACUUM: return StatementKind::kVacuum;
    case DUCKDB_STATEMENT_TYPE_PREPARE: return StatementKind::kPrepare;
    case DUCKDB_STATEMENT_TYPE_EXECUTE: return StatementKind::kExecute;
    default: return StatementKind::kOther;
  }
}

}  // namespace

std::string_view StatementKindName(StatementKind kind) {
  switch (kind) {
    case StatementKind::kSelect: return "SELECT";
    case StatementKind::kInsert: return "INSERT";
    case StatementKind::kUpdate: return "UPDATE";
    case StatementKind::kDelete: return "DELETE";
    case StatementKind::kExplain: return "EXPLAIN";
    case StatementKind::kCreate: return "CREATE";
    case StatementKind::kCreateFunction: return "CREATE MACRO";
    case StatementKind::kAlter: return "ALTER";
    case StatementKind::kDrop: return "DROP";
    case StatementKind::kTransaction: return "transaction control";
    case StatementKind::kAnalyze: return "ANALYZE";
    case StatementKind::kCopy: return "COPY";
    case StatementKind::kExport: return "EXPORT/IMPORT DATABASE";
    case StatementKind::kAttach: return "ATTACH";
    case StatementKind::kDetach: return "DETACH";
    case StatementKind::kPragma: return "PRAGMA";
    case StatementKind::kSet: return "SET/RESET of an engine setting";
    case StatementKind::kLoadExtension: return "INSTALL/LOAD";
    case StatementKind::kCall: return "CALL/CHECKPOINT";
    case StatementKind::kVacuum: return "VACUUM";
    case StatementKind::kPrepare: return "PREPARE";
    case StatementKind::kExecute: return "EXECUTE";
    case StatementKind::kMerge: return "MERGE";
    case StatementKind::kOther: return "this kind of statement";
  }
  return "?";
}

Status SealDatabase(Connection& con, const std::vector<std::string>& allowed_directories) {
  std::string list;
  for (const auto& d : allowed_directories) list += (list.empty() ? "" : ", ") + Literal(d);
  RETURN_IF_ERROR(con.Execute("SET allowed_directories = [" + list + "]"));
  RETURN_IF_ERROR(con.Execute("SET enable_external_access = false"));
  RETURN_IF_ERROR(con.Execute("SET autoinstall_known_extensions = false"));
  RETURN_IF_ERROR(con.Execute("SET autoload_known_extensions = false"));
  return con.Execute("SET lock_configuration = true");
}

// The sealed engine refused a file (COPY ... TO, IMPORT DATABASE, FROM 'file.csv' ...): say so as MySQL says it.
Status PrepareError(const std::string& message) {
  if (message.find("Permission Error") == std::string::npos) return ErrorFromMessage(message);
  return Status::AccessDenied("Access denied; you need (at least one of) the FILE privilege(s) for this operation: "
                              "SQL cannot reach the server's files in Sluice; load files through a volume (COPY INTO "
                              "... FROM VOLUME). " + message);
}

Result<StatementKind> ClassifyStatement(Connection& con, std::string_view sql) {
  std::string text(sql);
  duckdb_extracted_statements extracted = nullptr;
  idx_t n = duckdb_extract_statements(con.raw(), text.c_str(), &extracted);
  if (n == 0) {
    const char* error = duckdb_extract_statements_error(extracted);
    Status st = PrepareError(error ? error : "the statement cannot be parsed");
    duckdb_destroy_extracted(&extracted);
    return st;
  }
  if (n > 1) {
    duckdb_destroy_extracted(&extracted);
    return Status::SyntaxError("one statement at a time: this text holds " + std::to_string(n));
  }
  duckdb_prepared_statement prepared = nullptr;
  duckdb_state st = duckdb_prepare_extracted_statement(con.raw(), extracted, 0, &prepared);
  duckdb_destroy_extracted(&extracted);
  if (st != DuckDBSuccess) {
    const char* error = prepared ? duckdb_prepare_error(prepared) : nullptr;
    Status out = PrepareError(error ? error : "the statement cannot be prepared");
    duckdb_destroy_prepare(&prepared);
    return out;
  }
  StatementKind kind = FromDuckDb(duckdb_prepared_statement_type(prepared));
  duckdb_destroy_prepare(&prepared);
  return kind;
}

}  // namespace sluice::storage
