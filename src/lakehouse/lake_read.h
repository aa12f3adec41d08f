#pragma once
// SELECT over Iceberg tables. The front door finds every catalog.db.table of an external catalog in the statement
// (FindLakeReferences), and Sluice itself replaces each by a relation over local copies of the table's data files:
// the current snapshot's live files (iceberg/snapshot_files.h), fetched over the catalog's S3 client into a bounded
// cache inside the engine's scratch folder (the only place DuckDB may read), read with read_parquet and cast to
// the table's column types. The user's SQL never names a file: only Sluice's rewrite does, after the statement was
// checked. Every file of the snapshot is fetched: partition and column-statistics pruning are not done yet.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "lakehouse/lake_catalogs.h"

namespace sluice::lakehouse {

struct LakeReference {
  size_t begin = 0;  // byte range of catalog.db.table in the statement
  size_t end = 0;
  LakeTableRef ref;
  bool has_alias = false;  // followed by AS x or an alias name
};

// Chains of exactly three names (not called, not part of a longer chain) whose first name is an external catalog.
std::vector<LakeReference> FindLakeReferences(std::string_view sql,
                                              const std::function<bool(const std::string&)>& is_external);

// `sql` with every reference replaced by `(SELECT CAST(col AS type) AS col, ... FROM read_parquet([...])) AS t`.
Result<std::string> RewriteLakeReads(LakeCatalogs& lakes, std::string_view sql,
                                     const std::vector<LakeReference>& refs);

}  // namespace sluice::lakehouse
