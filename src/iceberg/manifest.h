#pragma once
// Manifests (Iceberg table spec, "Manifests"): Avro files listing data files with their partition tuple and column
// metrics, one manifest_entry per file. The Avro schema is the spec's v2 manifest_entry with every field id, the
// partition record (r102) built from the table's partition spec. Maps with int keys are written as arrays of
// key/value records with "logicalType": "map", as the spec's Avro mapping says.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/table_model.h"
#include "iceberg/value.h"

namespace sluice::iceberg {

struct DataFile {
  int content = 0;  // 0 data, 1 position deletes, 2 equality deletes
  std::string file_path;
  std::string file_format = "PARQUET";
  std::vector<Value> partition;  // one per partition field of the spec, in order
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  std::map<int, int64_t> column_sizes;
  std::map<int, int64_t> value_counts;
  std::map<int, int64_t> null_value_counts;
  std::map<int, int64_t> nan_value_counts;
  std::map<int, std::string> lower_bounds;  // single-value serialization (single_value.h)
  std::map<int, std::string> upper_bounds;
  std::vector<int64_t> split_offsets;
};

enum class EntryStatus { kExisting = 0, kAdded = 1, kDeleted = 2 };

struct ManifestEntry {
  EntryStatus status = EntryStatus::kAdded;
  std::optional<int64_t> snapshot_id;            // null: inherited from the manifest list entry
  std::optional<int64_t> sequence_number;        // null for added files: inherited at commit
  std::optional<int64_t> file_sequence_number;
  DataFile data_file;
};

// The manifest_entry Avro schema for `spec` over `schema`.
Result<std::string> ManifestEntrySchemaJson(const Schema& schema, const PartitionSpec& spec);
// A whole manifest file's bytes.
Result<std::string> WriteManifest(const Schema& schema, const PartitionSpec& spec,
                                  const std::vector<ManifestEntry>& entries);
// Reads a manifest written by Sluice or another engine; partition values are typed by `spec` over `schema`.
Result<std::vector<ManifestEntry>> ReadManifest(const std::string& bytes, const Schema& schema,
                                                const PartitionSpec& spec, const std::string& what);

}  // namespace sluice::iceberg
