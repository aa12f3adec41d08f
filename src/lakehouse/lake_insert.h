#pragma once
// INSERT INTO catalog.db.table [(col, ...)] SELECT ... | VALUES ...: one Iceberg commit. The rows are computed once
// into a temporary DuckDB table on the session's connection (cast to the table's types, NOT NULL checked, each
// row numbered with its partition group), DuckDB writes one Parquet file per partition value with the table's
// field ids into the scratch folder, the files' metrics come from parquet_metadata(), and TableOperations stages
// them (upload + manifest) and commits the snapshot by compare-and-swap in the JDBC catalog. When another writer
// committed first, the same staged files are committed on top of the new version (a rebase: an append conflicts
// with nothing), a few times at most.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "lakehouse/lake_catalogs.h"
#include "lakehouse/lake_read.h"
#include "storage/database.h"

namespace sluice::lakehouse {

struct LakeInsert {
  LakeTableRef target;
  std::vector<std::string> columns;  // empty: every column, in the table's order
  std::string query;                 // the SELECT / VALUES / WITH ... that gives the rows
};

// INSERT INTO a.b.c [(cols)] <query>, when a is an external catalog; nullopt for any other statement. INSERT
// OVERWRITE and INSERT OR REPLACE into an Iceberg table are NotSupported.
Result<std::optional<LakeInsert>> ParseLakeInsert(std::string_view sql,
                                                  const std::function<bool(const std::string&)>& is_external);

// Runs it on `con`. The caller has already replaced the Iceberg tables the query reads (RewriteLakeReads) and
// checked the query's privileges on that text. (the session's connection, so the query sees the session's tables); returns the rows written.
// `work_dir` is a folder DuckDB may write (inside the scratch folder).
Result<uint64_t> RunLakeInsert(LakeCatalogs& lakes, storage::Connection& con, const LakeInsert& insert,
                               const std::string& work_dir);

}  // namespace sluice::lakehouse
