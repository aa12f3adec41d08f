#include "storage/plan_transaction.h"

#include "storage/pending_execution.h"
#include "storage/result_conversion.h"

namespace sluice::storage {

namespace {

Status Run(duckdb_connection con, const char* sql) {
  Prepared prepared;
  if (duckdb_prepare(con, sql, &prepared.stmt) != DuckDBSuccess) {
    const char* error = duckdb_prepare_error(prepared.stmt);
    return ErrorFromMessage(error ? error : "the statement could not be prepared");
  }
  duckdb_result result;
  Status start_error;
  // Sluice's non-spinning wait: the COMMIT of an INSERT writes the WAL.
  const duckdb_state st = ExecutePrepared(prepared.stmt, &result, &start_error);
  if (!start_error.ok()) return start_error;
  Status out = st == DuckDBSuccess ? Status::Ok() : ErrorFromResult(&result);
  duckdb_destroy_result(&result);
  return out;
}

}  // namespace

PlanTransaction::PlanTransaction(duckdb_connection con, bool wanted) : con_(con) {
  if (wanted) open_ = Run(con_, "BEGIN TRANSACTION").ok();
}

Status PlanTransaction::Commit() {
  if (!open_.exchange(false)) return Status::Ok();
  Status committed = Run(con_, "COMMIT");
  if (!committed.ok()) (void)Run(con_, "ROLLBACK");
  return committed;
}

void PlanTransaction::End() { (void)Commit(); }

void PlanTransaction::Rollback() {
  if (open_.exchange(false)) (void)Run(con_, "ROLLBACK");
}

bool PlanDependsOnData(duckdb_statement_type type) {
  switch (type) {
    case DUCKDB_STATEMENT_TYPE_SELECT:
    case DUCKDB_STATEMENT_TYPE_INSERT:
    case DUCKDB_STATEMENT_TYPE_UPDATE:
    case DUCKDB_STATEMENT_TYPE_DELETE:
    case DUCKDB_STATEMENT_TYPE_EXPLAIN:
      return true;
    default:
      return false;
  }
}

}  // namespace sluice::storage
