#pragma once
// The data files of a snapshot: its manifest list, then each manifest, read back with Sluice's Avro reader, entries
// marked deleted dropped, sequence numbers and snapshot ids inherited from the manifest list as the spec says. What
// scan planning (SELECT, time travel) and table care (orphan files, compaction) will start from.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/manifest.h"
#include "iceberg/object_store.h"
#include "iceberg/table_model.h"

namespace sluice::iceberg {

struct LiveDataFile {
  DataFile file;
  int spec_id = 0;
  int64_t sequence_number = 0;  // the data sequence number, inherited when the entry has none
  int64_t snapshot_id = 0;      // the snapshot that added it
  std::string manifest_path;
};

// `snapshot_id` nullopt: the current snapshot; a table without snapshots has no files. Delete files (content 1, 2)
// are NotSupported until Sluice applies them.
Result<std::vector<LiveDataFile>> ListLiveDataFiles(ObjectStore* store, const TableMetadata& metadata,
                                                    std::optional<int64_t> snapshot_id = std::nullopt);

}  // namespace sluice::iceberg
