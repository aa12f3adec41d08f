#pragma once
// A transaction of Sluice's own around one statement that a client sent outside any transaction.
//
// DuckDB plans a statement with the column statistics of the moment it is prepared: a GROUP BY over a small range
// of integers becomes a perfect hash aggregate sized by the column's min and max, an ORDER BY or DISTINCT packs
// the column into fewer bytes by them. Prepared in one transaction and run in a later one (what DuckDB's C API does
// outside a transaction), a statement meets the rows committed in between, which can lie outside those statistics:
// it fails ("Perfect hash aggregate: aggregate group ... exceeded total groups") or, worse, returns rows that are
// wrong or missing. A table being loaded gets new commits several times a second, so a query on it could. Prepared
// and run inside one transaction, the statement's snapshot is never newer than the statistics it was planned with.
#include <duckdb.h>

#include <atomic>

#include "common/status.h"

namespace sluice::storage {

class PlanTransaction {
 public:
  // Opens a transaction on `con` when `wanted`; when DuckDB refuses (a database that is no longer usable), none is
  // open and the statement then fails on its own with DuckDB's error.
  PlanTransaction(duckdb_connection con, bool wanted);
  ~PlanTransaction() { Rollback(); }  // a transaction still open (the statement failed) is rolled back
  PlanTransaction(const PlanTransaction&) = delete;
  PlanTransaction& operator=(const PlanTransaction&) = delete;

  bool open() const { return open_.load(); }
  // Commits: what the statement changed is kept only through this. The error is DuckDB's (a full disk, say).
  Status Commit();
  // Ends the transaction if it is still open: commits it, and rolls back when the commit fails. Used for a
  // streaming SELECT, which ends when its last rows have been read (or it is abandoned, or the connection's next
  // statement starts).
  void End();
  void Rollback();

 private:
  duckdb_connection con_;
  std::atomic<bool> open_{false};
};

// The statements whose plan depends on the data, so that they are planned and run in one transaction.
bool PlanDependsOnData(duckdb_statement_type type);

}  // namespace sluice::storage
