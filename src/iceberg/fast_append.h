#pragma once
// Fast append (Iceberg's FastAppend): the next table version adds one snapshot whose manifest list is the new
// manifest followed by every manifest of the parent snapshot, unchanged. No manifest is rewritten, so a commit's
// cost does not grow with the table; merging small manifests is table care's job. Pure functions: the I/O is in
// table_operations.*.
#include <cstdint>
#include <string>
#include <vector>

#include "iceberg/manifest.h"
#include "iceberg/manifest_list.h"
#include "iceberg/table_model.h"

namespace sluice::iceberg {

// The manifest-list entry of a manifest of newly added files, for a snapshot with `snapshot_id` and
// `sequence_number`; partition summaries are computed from the files' partition tuples.
Result<ManifestFile> AddedManifestEntry(const TableMetadata& table, const std::string& manifest_path,
                                        int64_t manifest_length, const std::vector<DataFile>& files,
                                        int64_t snapshot_id, int64_t sequence_number);

struct AppendPlan {
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;
  std::string manifest_list_location;
  std::vector<ManifestFile> manifests;  // new first, then the parent's
  TableMetadata metadata;               // the next version
};

// `base_metadata_location` goes into the metadata-log; `extra_summary` (the writer's own keys, such as
// sluice.offsets.<job>) is added to Iceberg's standard counters. The metadata log keeps the last
// write.metadata.previous-versions-max (default 100) versions.
Result<AppendPlan> PlanFastAppend(const TableMetadata& base, const std::string& base_metadata_location,
                                  const std::vector<ManifestFile>& parent_manifests, ManifestFile added,
                                  const std::vector<DataFile>& files, const Summary& extra_summary,
                                  int64_t snapshot_id, const std::string& manifest_list_location, int64_t now_ms);

}  // namespace sluice::iceberg
