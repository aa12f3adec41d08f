#pragma once
// Manifest lists (Iceberg table spec, "Manifest Lists"): one Avro file per snapshot naming every manifest of the
// snapshot, with counts and per-partition-field summaries used for pruning. The schema is the spec's v2
// manifest_file with its field ids.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace sluice::iceberg {

struct PartitionFieldSummary {
  bool contains_null = false;
  std::optional<bool> contains_nan;
  std::optional<std::string> lower_bound;  // single-value serialization of the partition value type
  std::optional<std::string> upper_bound;
};

struct ManifestFile {
  std::string manifest_path;
  int64_t manifest_length = 0;
  int partition_spec_id = 0;
  int content = 0;  // 0 data, 1 deletes
  int64_t sequence_number = 0;
  int64_t min_sequence_number = 0;
  int64_t added_snapshot_id = 0;
  int added_files_count = 0;
  int existing_files_count = 0;
  int deleted_files_count = 0;
  int64_t added_rows_count = 0;
  int64_t existing_rows_count = 0;
  int64_t deleted_rows_count = 0;
  std::optional<std::vector<PartitionFieldSummary>> partitions;
};

const std::string& ManifestFileSchemaJson();
// `snapshot_id`, `parent_snapshot_id` and `sequence_number` go into the file's Avro metadata, as Java writes them.
Result<std::string> WriteManifestList(const std::vector<ManifestFile>& manifests, int64_t snapshot_id,
                                      std::optional<int64_t> parent_snapshot_id, int64_t sequence_number);
Result<std::vector<ManifestFile>> ReadManifestList(const std::string& bytes, const std::string& what);

}  // namespace sluice::iceberg
