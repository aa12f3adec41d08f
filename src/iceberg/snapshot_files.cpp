#include "iceberg/snapshot_files.h"

#include <fmt/format.h>

#include "iceberg/manifest_list.h"

namespace sluice::iceberg {

Result<std::vector<LiveDataFile>> ListLiveDataFiles(ObjectStore* store, const TableMetadata& metadata,
                                                    std::optional<int64_t> snapshot_id) {
  std::vector<LiveDataFile> out;
  const Snapshot* snapshot = snapshot_id ? metadata.FindSnapshot(*snapshot_id) : metadata.CurrentSnapshot();
  if (snapshot_id && snapshot == nullptr) {
    return Status::NotFound(fmt::format("the table at {} has no snapshot {} (it may have been expired)",
                                        metadata.location, *snapshot_id));
  }
  if (snapshot == nullptr) return out;
  const Schema* schema = metadata.CurrentSchema();
  if (schema == nullptr) return Status::InvalidArgument("the table metadata has no current schema");
  ASSIGN_OR_RETURN(std::string list_bytes, store->Get(snapshot->manifest_list));
  ASSIGN_OR_RETURN(std::vector<ManifestFile> manifests,
                   ReadManifestList(list_bytes, "manifest list " + snapshot->manifest_list));
  for (const auto& m : manifests) {
    if (m.content != 0) {
      return Status::NotSupported(fmt::format(
          "snapshot {} of the table at {} has delete files (row-level deletes); Sluice does not apply them yet",
          snapshot->snapshot_id, metadata.location));
    }
    const PartitionSpec* spec = nullptr;
    for (const auto& s : metadata.partition_specs) {
      if (s.spec_id == m.partition_spec_id) spec = &s;
    }
    if (spec == nullptr) {
      return Status::InvalidArgument(fmt::format("manifest {} was written for partition spec {}, which the table "
                                                 "metadata does not have", m.manifest_path, m.partition_spec_id));
    }
    ASSIGN_OR_RETURN(std::string bytes, store->Get(m.manifest_path));
    ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries,
                     ReadManifest(bytes, *schema, *spec, "manifest " + m.manifest_path));
    for (auto& e : entries) {
      if (e.status == EntryStatus::kDeleted) continue;
      if (e.data_file.content != 0) {
        return Status::NotSupported(fmt::format("manifest {} lists a delete file; Sluice does not apply them yet",
                                                m.manifest_path));
      }
      LiveDataFile f;
      // Inheritance (spec, "Sequence Number Inheritance"): an ADDED entry without one takes the manifest's.
      f.sequence_number = e.sequence_number.value_or(e.status == EntryStatus::kAdded ? m.sequence_number : 0);
      f.snapshot_id = e.snapshot_id.value_or(m.added_snapshot_id);
      f.spec_id = m.partition_spec_id;
      f.manifest_path = m.manifest_path;
      f.file = std::move(e.data_file);
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace sluice::iceberg
