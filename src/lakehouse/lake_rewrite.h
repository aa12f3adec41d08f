#pragma once
// Compaction of an Iceberg table: ALTER TABLE catalog.db.t EXECUTE rewrite_data_files(...) (lake_care.h parses it).
//
// Loads commit small files (one per partition value per commit); this merges them. The current snapshot's live
// data files are grouped by partition; in a partition with at least `min_input_files` small files (smaller than
// `min_file_size_bytes`), the small files are packed, smallest first, into groups of at most
// `target_file_size_bytes`, and each group of two or more becomes one file: DuckDB reads the group's Parquet files
// from the local cache (lake_cache.h, as SELECT does) and writes one Parquet file with the table's field ids (as
// INSERT does). All new files go into ONE snapshot with operation "replace" (iceberg/replace_files.h): the new
// files ADDED, the old ones DELETED, committed by compare-and-swap. Its summary carries forward every sluice.* key
// of the table's history (the loads' offsets), so a routine load into the table resumes exactly where it was.
//
// A load that commits meanwhile makes the swap fail: the rewrite reloads and commits the same new files on top
// (the load's files are kept as they are, in their own manifests). If a file being rewritten left the table
// (another rewrite), nothing is committed and the uploaded files are deleted.
#include <cstdint>
#include <map>
#include <string>

#include "common/status.h"
#include "lakehouse/lake_catalogs.h"
#include "storage/database.h"

namespace sluice::lakehouse {

struct RewriteOptions {
  int64_t target_file_size_bytes = 128LL << 20;
  int64_t min_file_size_bytes = 96LL << 20;  // files this size or larger are left alone
  int64_t min_input_files = 5;               // a partition with fewer small files is left alone
};

struct RewriteResult {
  int64_t rewritten_files = 0;
  int64_t added_files = 0;
  int64_t rewritten_bytes = 0;
  int64_t added_bytes = 0;
  int64_t snapshot_id = 0;  // 0: nothing to rewrite, no snapshot
};

// The defaults for a table: target from the table property write.target-file-size-bytes (Iceberg's, when set),
// else 128 MiB; min_file_size_bytes 75% of the target; min_input_files 5 (Spark's defaults).
RewriteOptions DefaultRewriteOptions(const std::map<std::string, std::string>& table_properties);

// `work_dir`: a folder DuckDB may write (inside the scratch folder), where the new files wait for their upload.
Result<RewriteResult> RewriteDataFiles(LakeCatalogs& lakes, LakeConnection& conn, const LakeTableRef& table,
                                       storage::Connection& con, const RewriteOptions& options,
                                       const std::string& work_dir);

}  // namespace sluice::lakehouse
