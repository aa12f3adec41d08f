#pragma once
// Appends a relation's rows to an Iceberg table as ONE commit: what INSERT INTO catalog.db.t and loads into
// Iceberg tables (iceberg_sink.*) share. The rows are computed once into a temporary DuckDB table on the caller's
// connection (cast to the table's types, NOT NULL checked, each row numbered with its partition group), DuckDB
// writes one Parquet file per partition value with the table's field ids into `work_dir`, the files' metrics come
// from parquet_metadata(), and TableOperations stages them (upload + manifest) and commits the snapshot by
// compare-and-swap in the catalog. When another writer committed first, the same staged files are committed on
// top of the new version (a rebase: an append conflicts with nothing), a few times at most.
//
// Before every attempt, the first one and each rebase, `prepare` sees the table as the attempt will commit on top
// of: it returns the snapshot-summary properties to add (such as a job's offsets, recomputed against that
// version), or an error, and then nothing is committed and the staged files are deleted (a stale load task:
// another task already committed its offsets). It may also return guards (common/commit_guard.h) with their
// witness: when the table's catalog runs its swaps in the witness's database (Catalog::RunsGuards), the guards run
// inside the swap, and a guard that fails refuses the commit (Conflict with its reason; the staged files deleted).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "catalog/table_meta.h"
#include "common/status.h"
#include "iceberg/table_operations.h"
#include "lakehouse/lake_catalogs.h"
#include "storage/database.h"

namespace sluice::lakehouse {

struct AppendRequest {
  // A SELECT (or VALUES / WITH ...) giving the rows; its columns feed `columns` in order (empty: every column of
  // the table, in the table's order).
  std::string query;
  std::vector<std::string> columns;
  // Called with the version each attempt commits on top of; the summary properties to add (and guards), or an error.
  std::function<Result<FencedCommit>(const iceberg::LoadedTable&)> prepare;
  // Called once the files are uploaded and the manifest written, before the first catalog commit (a test point).
  std::function<Status()> after_stage;
  // Commit a snapshot even when the query gives no rows (a load's offsets must advance past filtered messages).
  bool commit_when_empty = false;
};

struct AppendOutcome {
  uint64_t rows = 0;
  bool committed = false;   // false only when there were no rows and commit_when_empty is false
  int64_t snapshot_id = 0;
  std::string metadata_location;
};

Result<AppendOutcome> AppendRows(LakeConnection& conn, const LakeTableRef& target, storage::Connection& con,
                                 const AppendRequest& request, const std::string& work_dir);

// A Parquet file DuckDB wrote on `con` with the table's field ids (iceberg::ParquetCopySql), as a file to stage:
// its metrics from parquet_metadata() and its partition tuple from its column ranges, or from `given` for the
// partition fields (by index) whose value ranges cannot tell (bucket).
Result<iceberg::FileToAppend> DescribeParquetFile(storage::Connection& con, const iceberg::Schema& schema,
                                                 const iceberg::PartitionSpec& spec, const std::string& path,
                                                 const std::map<size_t, iceberg::Value>& given = {});

// Whether Sluice can append to the table: v2, every partition transform one Sluice writes.
Status CheckAppendable(const iceberg::TableMetadata& metadata, const std::string& name);
// The table, loaded (CheckAppendable): UnknownTable "Unknown table 'c.d.t'" when it does not exist; v2 only.
Result<iceberg::LoadedTable> LoadLakeTable(LakeConnection& conn, const LakeTableRef& target);
// The table's current columns as Sluice's TableMeta (db `catalog.db`): DuckDB types, required fields NOT NULL, no
// Sluice partitions (every row fits an Iceberg partition spec). What loads plan their transform and row checks on.
catalog::TableMeta LakeTableMeta(const LakeTableRef& target, const iceberg::Schema& schema);

}  // namespace sluice::lakehouse
