#pragma once
// Table care of Iceberg tables in StarRocks' syntax (iceberg/table_care.h does the work):
//
//   ALTER TABLE catalog.db.t EXECUTE expire_snapshots(['<older than>' [, <retain last>]])
//   ALTER TABLE catalog.db.t EXECUTE expire_snapshots(older_than = '<time>', retain_last = <n>)
//   ALTER TABLE catalog.db.t EXECUTE remove_orphan_files(['<older than>'] | older_than = '<time>')
//   ALTER TABLE catalog.db.t EXECUTE rewrite_data_files([target_file_size_bytes = <n>] [, min_input_files = <n>]
//                                                       [, min_file_size_bytes = <n>])   (positional in that order)
//   ALTER TABLE catalog.db.t SET ("key" = "value" [, ...])   (table properties; procedure "set_properties", the
//                                                             pairs as named arguments)
//
// Times are 'YYYY-MM-DD HH:MM:SS[.ffffff][+HH:MM]', UTC without an offset. Defaults follow Iceberg's table
// properties: expire_snapshots keeps snapshots younger than history.expire.max-snapshot-age-ms (5 days) and at
// least history.expire.min-snapshots-to-keep (1); remove_orphan_files removes files older than 3 days, and refuses
// a time less than an hour ago (a load's uploaded files are unreferenced until its commit). rewrite_data_files
// (lake_rewrite.h) targets write.target-file-size-bytes (128 MiB when unset), takes files under 75% of the target as
// small and merges a partition's small files once it has at least 5 of them.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result_set.h"
#include "common/status.h"
#include "lakehouse/lake_catalogs.h"
#include "storage/database.h"

namespace sluice::lakehouse {

struct LakeCareArgument {
  std::string name;   // "" for a positional argument
  std::string value;  // a string's text or a number as written
  bool is_string = false;
};

struct LakeCare {
  LakeTableRef table;
  std::string procedure;  // lower case: expire_snapshots, remove_orphan_files, rewrite_data_files, set_properties
  std::vector<LakeCareArgument> arguments;
  std::string trigger = "manual";  // or "policy" (lake_care_policy.h): what the care log records
};

// ALTER TABLE a.b.c EXECUTE name(args) when a is an external catalog; nullopt for any other statement; an error for
// an ALTER TABLE of an Iceberg table Sluice cannot read.
Result<std::optional<LakeCare>> ParseLakeCare(std::string_view sql,
                                              const std::function<bool(const std::string&)>& is_external);

// What rewrite_data_files needs besides the catalog: a DuckDB connection to merge the files on and a folder it may
// write (inside the scratch folder).
struct LakeCareWriter {
  storage::Connection* con = nullptr;
  std::string work_dir;
};

// Runs it: one row of counts (expired_snapshots, deleted_manifest_lists, deleted_manifests, deleted_data_files /
// removed_files, kept_recent_files / rewritten_data_files, added_data_files, rewritten_bytes, added_bytes). The run
// and its outcome go into lakes.care_log() (catalog.db.t$care).
Result<ResultSet> RunLakeCare(LakeCatalogs& lakes, const LakeCare& care, int64_t now_ms,
                              const LakeCareWriter& writer);

}  // namespace sluice::lakehouse
