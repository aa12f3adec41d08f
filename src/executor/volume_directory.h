#pragma once
// DIRECTORY(volume): the files of a volume as a table (relative_path, size, last_modified, etag), usable anywhere in
// a SELECT. The front door rewrites DIRECTORY(vol) to sluice_directory('vol') (sql/translate.cpp).
#include "catalog/volume_store.h"
#include "common/status.h"
#include "storage/database.h"

namespace sluice {

// Registers sluice_directory(VARCHAR) in `db`; `volumes` must outlive the database.
Status RegisterVolumeDirectoryFunction(storage::Database& db, catalog::VolumeStore& volumes);

}  // namespace sluice
