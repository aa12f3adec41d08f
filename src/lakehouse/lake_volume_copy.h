#pragma once
// COPY INTO catalog.db.t FROM VOLUME v ...: the volume's files loaded into an Iceberg table exactly once, with the
// table as the truth. Each new file is read into a TEMP stage of the table's columns (load::LoadVolumeFile with
// VolumeLoadTarget::stage_sql), then the stage is appended by ONE commit (AppendRows) whose snapshot summary holds
// `sluice.files.copy`: a JSON list of the identities of this commit's files (URL, size, ETag or modification time,
// as catalog::VolumeStore::FileIdentityKey). A file counts as loaded when a snapshot of the table's current
// ancestry lists it or the local volume_loads records have it (written only after the commit, so snapshots that
// expire_snapshots removed do not make files load again). Before every commit attempt, and each retry after
// another writer committed first, the ancestry is read again: a file another statement committed meanwhile
// abandons the attempt (its rows are in the uploaded files), and the statement starts over without it.
#include <set>
#include <string>
#include <vector>

#include "common/result_set.h"
#include "common/status.h"
#include "iceberg/table_model.h"
#include "lakehouse/lake_catalogs.h"
#include "load/volume_copy.h"
#include "storage/database.h"

namespace sluice::lakehouse {

// The summary key prefix of loaded files' identities; a one-shot COPY INTO writes kCopyFilesKey.
inline constexpr const char* kFilesSummaryPrefix = "sluice.files.";
inline constexpr const char* kCopyFilesKey = "sluice.files.copy";

// FileIdentityKey of every file listed under a sluice.files.* key on the current snapshot's ancestry.
Result<std::set<std::string>> FilesInTableHistory(const iceberg::TableMetadata& metadata);

// `request.target.db` / `.table` name the Iceberg table's namespace and table (the catalog is `target.catalog`);
// ON_ERROR = CONTINUE is refused. The result has COPY INTO's columns, one row per file loaded; an error loads
// nothing of the statement.
Result<ResultSet> CopyIntoLakeFromVolume(LakeCatalogs& lakes, storage::Connection& con, const LakeTableRef& target,
                                         const load::VolumeCopyRequest& request, const std::string& work_dir);

}  // namespace sluice::lakehouse
