#pragma once
// How a task's good rows change the target table, by its key model (shared/reference/routine-load.md "Data
// change"):
// - DUPLICATE KEY and tables without a key model: the rows are appended.
// - PRIMARY KEY: upsert by key; `__op` = 1 deletes the key. Of the rows with one key in a batch only the last
//   one counts (messages of one partition are in offset order in the batch, so the later message wins).
//   partial_update=true changes only the loaded columns of a stored row; merge_condition='c' applies an update
//   only when the new c >= the stored c (a delete always applies; a key deleted earlier in the batch counts as
//   absent).
// - UNIQUE KEY: a row replaces the stored row with its key (the last of a batch wins).
// - AGGREGATE KEY: rows with the same key combine by each value column's function: SUM, MAX, MIN (NULLs
//   ignored), REPLACE (the last value, NULL too), REPLACE_IF_NOT_NULL (the last non-NULL value).
// A column the load does not fill keeps its stored value (and gets its default in a new row), except that a
// full-row PRIMARY/UNIQUE upsert resets it to its default, as replacing the row does.
// Everything is one DuckDB statement over the transform, so it runs inside the task's transaction.
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "catalog/routine_load_job.h"
#include "catalog/table_meta.h"
#include "common/status.h"

namespace sluice::load {

struct TableWrite {
  bool append = true;  // a plain INSERT: its affected rows are the loaded rows
  // The statement, with "{ROWS}" where the good rows go: a FROM item yielding the loaded columns (under the
  // table's column names), __op (when `has_op`) and __sluice_row.
  std::string sql;
};

inline constexpr const char* kWriteRowsPlaceholder = "{ROWS}";

// Checks the job's data-change settings against the table (__op, partial_update and merge_condition need a
// PRIMARY KEY table; merge_condition names a loaded value column) and writes the statement.
// `loaded_columns` are the table columns the transform yields, `has_op` whether it yields __op.
Result<TableWrite> PlanTableWrite(const catalog::RoutineLoadDefinition& def, const catalog::TableMeta& table,
                                  const std::string& target_table_sql, const std::vector<std::string>& loaded_columns,
                                  bool has_op);

// Keyed writes to one table run one at a time (hold this from BEGIN to COMMIT): two transactions that both find
// a key absent would both insert it, and DuckDB cannot re-insert a key deleted by a transaction that an
// overlapping one may still see.
std::mutex& KeyedWriteMutex(const std::string& target_table_sql);

// Writes to a table hold this shared from BEGIN to COMMIT; ALTER TABLE holds it exclusively while it rebuilds the
// table (catalog/table_rebuild.cpp) and re-plans the table's jobs. A commit that overlapped the rebuild would
// otherwise land in the table being dropped (its rows lost while its offsets advance), or use a plan made for the
// old columns. Keyed by "db"."table" without regard to case, as DuckDB compares names.
std::shared_mutex& TableSchemaMutex(const std::string& target_table_sql);

// True for the error DuckDB gives when a key deleted recently is inserted again while an older transaction is
// still open: trying again a moment later succeeds.
bool IsTransientKeyConflict(const Status& st);

// The statement for one batch: `rows` replaces the placeholder.
std::string BindTableWrite(const TableWrite& write, const std::string& rows);

}  // namespace sluice::load
