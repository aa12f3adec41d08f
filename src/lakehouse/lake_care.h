#pragma once
// Table care of Iceberg tables in StarRocks' syntax (iceberg/table_care.h does the work):
//
//   ALTER TABLE catalog.db.t EXECUTE expire_snapshots(['<older than>' [, <retain last>]])
//   ALTER TABLE catalog.db.t EXECUTE expire_snapshots(older_than = '<time>', retain_last = <n>)
//   ALTER TABLE catalog.db.t EXECUTE remove_orphan_files(['<older than>'] | older_than = '<time>')
//
// Times are 'YYYY-MM-DD HH:MM:SS[.ffffff][+HH:MM]', UTC without an offset. Defaults follow Iceberg's table
// properties: expire_snapshots keeps snapshots younger than history.expire.max-snapshot-age-ms (5 days) and at
// least history.expire.min-snapshots-to-keep (1); remove_orphan_files removes files older than 3 days, and refuses
// a time less than an hour ago (a load's uploaded files are unreferenced until its commit).
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result_set.h"
#include "common/status.h"
#include "lakehouse/lake_catalogs.h"

namespace sluice::lakehouse {

struct LakeCareArgument {
  std::string name;   // "" for a positional argument
  std::string value;  // a string's text or a number as written
  bool is_string = false;
};

struct LakeCare {
  LakeTableRef table;
  std::string procedure;  // lower case: expire_snapshots, remove_orphan_files
  std::vector<LakeCareArgument> arguments;
};

// ALTER TABLE a.b.c EXECUTE name(args) when a is an external catalog; nullopt for any other statement; an error for
// an ALTER TABLE of an Iceberg table Sluice cannot read.
Result<std::optional<LakeCare>> ParseLakeCare(std::string_view sql,
                                              const std::function<bool(const std::string&)>& is_external);

// Runs it: one row of counts (expired_snapshots, deleted_manifest_lists, deleted_manifests, deleted_data_files /
// removed_files, kept_recent_files).
Result<ResultSet> RunLakeCare(LakeCatalogs& lakes, const LakeCare& care, int64_t now_ms);

}  // namespace sluice::lakehouse
