#include "iceberg/replace_files.h"

#include <fmt/format.h>

#include <algorithm>

#include "iceberg/fast_append.h"
#include "iceberg/ids.h"
#include "iceberg/manifest_list.h"
#include "iceberg/metadata_json.h"

namespace sluice::iceberg {
namespace {

std::string MetadataDir(const TableMetadata& m) {
  auto it = m.properties.find("write.metadata.path");
  return it != m.properties.end() ? it->second : m.location + "/metadata";
}

// What this attempt wrote besides the staged files: deleted again when it does not commit.
struct AttemptFiles {
  ObjectStore* store;
  std::vector<std::string> locations;
  bool keep = false;
  ~AttemptFiles() {
    if (keep) return;
    for (const auto& l : locations) (void)store->Delete(l);
  }
};

}  // namespace

Result<AppendResult> CommitReplace(Catalog* catalog, ObjectStore* store, const LoadedTable& base,
                                   const std::set<std::string>& replaced, const StagedAppend& added,
                                   const Summary& extra_summary, int64_t now_ms) {
  const TableMetadata& m = base.metadata;
  const std::string name = base.ident.ToString();
  const Snapshot* parent = m.CurrentSnapshot();
  const Schema* schema = m.CurrentSchema();
  const PartitionSpec* spec = m.DefaultSpec();
  if (!parent || !schema || !spec)
    return Status::Conflict(fmt::format("Iceberg table {} has no current snapshot (or schema / spec) to rewrite",
                                        name));
  if (m.default_spec_id != added.spec_id)
    return Status::Conflict(fmt::format("Iceberg table {}: its partition spec changed while its files were "
                                        "rewritten; run rewrite_data_files again", name));
  ASSIGN_OR_RETURN(std::string list_bytes, store->Get(parent->manifest_list));
  ASSIGN_OR_RETURN(auto parent_manifests, ReadManifestList(list_bytes, "manifest list " + parent->manifest_list));

  const int64_t snapshot_id = NewSnapshotId();
  const int64_t sequence_number = m.last_sequence_number + 1;
  AttemptFiles attempt{store, {}};
  std::vector<ManifestFile> carried;
  std::set<std::string> found;
  int64_t deleted_records = 0, removed_size = 0;
  std::set<std::string> changed_partitions;
  auto partition_key = [](const DataFile& f) {
    std::string key;
    for (const auto& v : f.partition) key += ValueToText(v) + "\x1f";
    return key;
  };
  for (const auto& mf : parent_manifests) {
    // Only data manifests of the current spec can list files this rewrite replaces (it writes that spec only).
    if (mf.content != 0 || mf.partition_spec_id != spec->spec_id) {
      carried.push_back(mf);
      continue;
    }
    // A manifest left with DELETED entries only (an earlier replace's) has told its story: it is not carried on.
    if (mf.added_files_count == 0 && mf.existing_files_count == 0 && mf.deleted_files_count > 0) continue;
    ASSIGN_OR_RETURN(std::string bytes, store->Get(mf.manifest_path));
    ASSIGN_OR_RETURN(auto entries, ReadManifest(bytes, *schema, *spec, "manifest " + mf.manifest_path));
    bool touched = false;
    for (const auto& e : entries)
      touched = touched || (e.status != EntryStatus::kDeleted && replaced.count(e.data_file.file_path));
    if (!touched) {
      carried.push_back(mf);
      continue;
    }
    std::vector<ManifestEntry> rewritten;
    std::vector<DataFile> files;
    int existing = 0, deleted = 0;
    int64_t existing_rows = 0, deleted_rows = 0, min_sequence = sequence_number;
    for (auto& e : entries) {
      if (e.status == EntryStatus::kDeleted) continue;
      // Inheritance (spec, "Sequence Number Inheritance") spelt out: the entry leaves the manifest it came from.
      const bool inherits = e.status == EntryStatus::kAdded;
      ManifestEntry out = e;
      out.snapshot_id = e.snapshot_id.value_or(mf.added_snapshot_id);
      out.sequence_number = e.sequence_number ? *e.sequence_number : (inherits ? mf.sequence_number : 0);
      out.file_sequence_number =
          e.file_sequence_number ? *e.file_sequence_number : (inherits ? mf.sequence_number : 0);
      if (replaced.count(e.data_file.file_path)) {
        found.insert(e.data_file.file_path);
        out.status = EntryStatus::kDeleted;
        out.snapshot_id = snapshot_id;
        deleted++;
        deleted_rows += e.data_file.record_count;
        deleted_records += e.data_file.record_count;
        removed_size += e.data_file.file_size_in_bytes;
        changed_partitions.insert(partition_key(e.data_file));
      } else {
        out.status = EntryStatus::kExisting;
        existing++;
        existing_rows += e.data_file.record_count;
        min_sequence = std::min(min_sequence, *out.sequence_number);
      }
      files.push_back(out.data_file);
      rewritten.push_back(std::move(out));
    }
    ASSIGN_OR_RETURN(std::string manifest, WriteManifest(*schema, *spec, rewritten));
    const std::string location = fmt::format("{}/{}-m1.avro", MetadataDir(m), NewUuid());
    RETURN_IF_ERROR(store->Put(location, manifest));
    attempt.locations.push_back(location);
    ASSIGN_OR_RETURN(ManifestFile entry, AddedManifestEntry(m, location, static_cast<int64_t>(manifest.size()), files,
                                                            snapshot_id, sequence_number));
    entry.min_sequence_number = min_sequence;
    entry.added_files_count = 0;
    entry.added_rows_count = 0;
    entry.existing_files_count = existing;
    entry.existing_rows_count = existing_rows;
    entry.deleted_files_count = deleted;
    entry.deleted_rows_count = deleted_rows;
    carried.push_back(std::move(entry));
  }
  if (found.size() != replaced.size()) {
    return Status::Conflict(fmt::format("Iceberg table {}: {} of the files being rewritten are no longer in the "
                                        "table (another rewrite or an overwrite replaced them); nothing was changed",
                                        name, replaced.size() - found.size()));
  }
  int64_t added_records = 0;
  for (const auto& f : added.files) added_records += f.record_count;
  if (added_records != deleted_records) {
    return Status::Internal(fmt::format("Iceberg table {}: the rewritten files hold {} rows, the files they replace "
                                        "{}; nothing was changed", name, added_records, deleted_records));
  }

  ASSIGN_OR_RETURN(ManifestFile added_entry, AddedManifestEntry(m, added.manifest_location, added.manifest_length,
                                                                added.files, snapshot_id, sequence_number));
  const std::string list_location = fmt::format("{}/snap-{}-1-{}.avro", MetadataDir(m), snapshot_id, NewUuid());
  ASSIGN_OR_RETURN(AppendPlan plan, PlanFastAppend(m, base.metadata_location, carried, std::move(added_entry),
                                                   added.files, extra_summary, snapshot_id, list_location, now_ms));
  // A fast append's summary, made a replace's: the rows stay, files come and go.
  Summary& summary = plan.metadata.snapshots.back().summary;
  int64_t added_size = 0;
  for (const auto& f : added.files) {
    added_size += f.file_size_in_bytes;
    changed_partitions.insert(partition_key(f));
  }
  int64_t parent_rows = 0, parent_files = 0;
  for (const auto& mf : parent_manifests) {
    if (mf.content == 0) {
      parent_rows += mf.added_rows_count + mf.existing_rows_count;
      parent_files += mf.added_files_count + mf.existing_files_count;
    }
  }
  summary["operation"] = "replace";
  summary["deleted-data-files"] = std::to_string(replaced.size());
  summary["deleted-records"] = std::to_string(deleted_records);
  summary["removed-files-size"] = std::to_string(removed_size);
  summary["changed-partition-count"] = std::to_string(changed_partitions.size());
  summary["total-records"] = std::to_string(SummaryLong(parent, "total-records", parent_rows));
  summary["total-files-size"] =
      std::to_string(SummaryLong(parent, "total-files-size", 0) - removed_size + added_size);
  summary["total-data-files"] = std::to_string(SummaryLong(parent, "total-data-files", parent_files) -
                                               static_cast<int64_t>(replaced.size()) +
                                               static_cast<int64_t>(added.files.size()));

  ASSIGN_OR_RETURN(std::string new_list,
                   WriteManifestList(plan.manifests, snapshot_id, m.current_snapshot_id, plan.sequence_number));
  RETURN_IF_ERROR(store->Put(list_location, new_list));
  attempt.locations.push_back(list_location);
  std::string new_location;  // stays empty for a catalog that writes the metadata itself (REST)
  if (!catalog->WritesMetadata()) {
    int version = MetadataVersion(base.metadata_location);
    if (version < 0) version = static_cast<int>(m.metadata_log.size());
    new_location = fmt::format("{}/{:05}-{}.metadata.json", MetadataDir(m), version + 1, NewUuid());
    RETURN_IF_ERROR(store->Put(new_location, WriteMetadataJson(plan.metadata)));
    attempt.locations.push_back(new_location);
  }

  auto outcome = catalog->CommitChange(base.ident, TableChange{base.metadata_location, m, plan.metadata, new_location});
  if (!outcome.ok()) {
    attempt.keep = true;  // the swap may have happened: what it names must stay
    return Status(outcome.status().code(),
                  fmt::format("Iceberg table {}: the commit of the rewrite (snapshot {}) may or may not have "
                              "happened ({}); look at the table's snapshots before running it again",
                              name, snapshot_id, outcome.status().message()));
  }
  AppendResult result;
  result.outcome = outcome->outcome;
  if (outcome->outcome == CommitOutcome::kCommitted) {
    attempt.keep = true;
    result.snapshot_id = snapshot_id;
    TableVersion& committed = outcome->committed;
    result.table = LoadedTable{base.ident, committed.metadata_location,
                               committed.metadata ? std::move(*committed.metadata) : std::move(plan.metadata)};
    return result;
  }
  TableOperations ops(catalog, store);
  ASSIGN_OR_RETURN(result.table, ops.Load(base.ident));
  return result;
}

}  // namespace sluice::iceberg
