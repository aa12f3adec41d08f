#include "iceberg/table_care.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "iceberg/ids.h"
#include "iceberg/manifest.h"
#include "iceberg/manifest_list.h"
#include "iceberg/metadata_json.h"

namespace sluice::iceberg {

namespace {

// Every file a set of snapshots references, by kind (normalized locations).
struct References {
  std::set<std::string> manifest_lists;
  std::set<std::string> manifests;
  std::set<std::string> data_files;  // data and delete files (live ones only, when asked for)
};

// `live_only`: a DELETED entry (a file a replace or an overwrite took out) is no reference -- no kept snapshot reads
// the file through it; the snapshots that still read it list it as ADDED or EXISTING.
Status AddSnapshotReferences(ObjectStore* store, const TableMetadata& m, const Snapshot& s, References* refs,
                             std::set<std::string>* manifests_read, bool live_only) {
  refs->manifest_lists.insert(NormalizedLocation(s.manifest_list));
  auto list = store->Get(s.manifest_list);
  if (!list.ok())
    return Status(list.status().code(), fmt::format("reading the manifest list of snapshot {} ({}): {}",
                                                    s.snapshot_id, s.manifest_list, list.status().message()));
  ASSIGN_OR_RETURN(auto manifests, ReadManifestList(*list, "manifest list " + s.manifest_list));
  const Schema* schema = m.CurrentSchema();
  if (!schema) return Status::InvalidArgument("the table metadata has no current schema");
  for (const auto& mf : manifests) {
    const std::string key = NormalizedLocation(mf.manifest_path);
    refs->manifests.insert(key);
    if (!manifests_read->insert(key).second) continue;  // shared by many snapshots: read once
    const PartitionSpec* spec = nullptr;
    for (const auto& ps : m.partition_specs)
      if (ps.spec_id == mf.partition_spec_id) spec = &ps;
    if (!spec)
      return Status::InvalidArgument(fmt::format("manifest {} names partition spec {}, which the metadata lacks",
                                                 mf.manifest_path, mf.partition_spec_id));
    ASSIGN_OR_RETURN(std::string bytes, store->Get(mf.manifest_path));
    ASSIGN_OR_RETURN(auto entries, ReadManifest(bytes, *schema, *spec, "manifest " + mf.manifest_path));
    for (const auto& e : entries)
      if (!live_only || e.status != EntryStatus::kDeleted)
        refs->data_files.insert(NormalizedLocation(e.data_file.file_path));
  }
  return Status::Ok();
}

// The manifests' own file lists, per manifest (so expired snapshots' data files can be told apart).
Result<References> ReferencesOf(ObjectStore* store, const TableMetadata& m, const std::vector<const Snapshot*>& snaps,
                                bool live_only) {
  References refs;
  std::set<std::string> read;
  for (const Snapshot* s : snaps) RETURN_IF_ERROR(AddSnapshotReferences(store, m, *s, &refs, &read, live_only));
  return refs;
}

std::string MetadataDir(const TableMetadata& m) {
  auto it = m.properties.find("write.metadata.path");
  return it != m.properties.end() ? it->second : m.location + "/metadata";
}

// Writes `next` as the table's next metadata.json and swaps it in; the file is deleted again on a conflict.
Result<CommitOutcome> CommitMetadata(Catalog* catalog, ObjectStore* store, const LoadedTable& base,
                                     TableMetadata next) {
  next.metadata_log.push_back({base.metadata.last_updated_ms, base.metadata_location});
  const size_t keep = static_cast<size_t>(std::max<int64_t>(1, next.IntProperty("write.metadata.previous-versions-max", 100)));
  if (next.metadata_log.size() > keep)
    next.metadata_log.erase(next.metadata_log.begin(),
                            next.metadata_log.begin() + static_cast<std::ptrdiff_t>(next.metadata_log.size() - keep));
  std::string location;  // stays empty for a catalog that writes the metadata itself
  if (!catalog->WritesMetadata()) {
    int version = MetadataVersion(base.metadata_location);
    if (version < 0) version = static_cast<int>(base.metadata.metadata_log.size());
    location = fmt::format("{}/{:05}-{}.metadata.json", MetadataDir(next), version + 1, NewUuid());
    RETURN_IF_ERROR(store->Put(location, WriteMetadataJson(next)));
  }
  auto outcome =
      catalog->CommitChange(base.ident, TableChange{base.metadata_location, base.metadata, next, location});
  if (!outcome.ok()) {
    return Status(outcome.status().code(),
                  fmt::format("Iceberg table {}: the commit may or may not have happened ({}); nothing was deleted, "
                              "run the statement again", base.ident.ToString(), outcome.status().message()));
  }
  if (outcome->outcome == CommitOutcome::kConflict && !location.empty()) (void)store->Delete(location);
  return outcome->outcome;
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::string NormalizedLocation(const std::string& location) {
  const size_t scheme = location.find("://");
  const size_t from = scheme == std::string::npos ? 0 : scheme + 3;
  std::string out;
  for (size_t i = from; i < location.size(); i++) {
    if (location[i] == '/' && !out.empty() && out.back() == '/') continue;  // "a//b" is "a/b"
    out += location[i];
  }
  return out;
}

Result<PropertiesResult> SetTableProperties(Catalog* catalog, ObjectStore* store, const TableIdent& ident,
                                            const std::map<std::string, std::string>& properties, int64_t now_ms) {
  TableOperations ops(catalog, store);
  for (int attempt = 0; attempt < 10; attempt++) {
    ASSIGN_OR_RETURN(LoadedTable base, ops.Load(ident));
    TableMetadata next = base.metadata;
    PropertiesResult result;
    for (const auto& [key, value] : properties) {
      auto it = next.properties.find(key);
      if (it != next.properties.end() && it->second == value) continue;
      next.properties[key] = value;
      result.changed++;
    }
    if (result.changed == 0) return result;
    next.last_updated_ms = std::max(now_ms, base.metadata.last_updated_ms);
    ASSIGN_OR_RETURN(CommitOutcome outcome, CommitMetadata(catalog, store, base, std::move(next)));
    if (outcome == CommitOutcome::kCommitted) return result;
  }
  return Status::Conflict("Iceberg table " + ident.ToString() +
                          ": other writers kept committing first; no property was set, run the statement again");
}

Result<ExpireResult> ExpireSnapshots(Catalog* catalog, ObjectStore* store, const TableIdent& ident,
                                     int64_t older_than_ms, int retain_last, int64_t now_ms) {
  if (retain_last < 1) return Status::InvalidArgument("retain_last must be at least 1: the current snapshot stays");
  TableOperations ops(catalog, store);
  for (int attempt = 0; attempt < 5; attempt++) {
    ASSIGN_OR_RETURN(LoadedTable base, ops.Load(ident));
    const TableMetadata& m = base.metadata;
    std::set<int64_t> keep;
    int kept_ancestors = 0;
    for (const Snapshot* s = m.CurrentSnapshot(); s && kept_ancestors < retain_last && !keep.count(s->snapshot_id);
         s = s->parent_snapshot_id ? m.FindSnapshot(*s->parent_snapshot_id) : nullptr, kept_ancestors++)
      keep.insert(s->snapshot_id);
    for (const auto& [name, ref] : m.refs) keep.insert(ref.snapshot_id);
    if (m.current_snapshot_id) keep.insert(*m.current_snapshot_id);
    std::vector<const Snapshot*> kept, expired;
    for (const auto& s : m.snapshots) {
      (keep.count(s.snapshot_id) || s.timestamp_ms >= older_than_ms ? kept : expired).push_back(&s);
    }
    ExpireResult result;
    if (expired.empty()) return result;
    // What the kept snapshots reference, read before the commit: if it cannot be read, nothing changes.
    // A data file the kept snapshots list only as DELETED (compacted away) goes with the snapshots that read it.
    ASSIGN_OR_RETURN(References kept_refs, ReferencesOf(store, m, kept, /*live_only=*/true));
    ASSIGN_OR_RETURN(References expired_refs, ReferencesOf(store, m, expired, /*live_only=*/false));

    TableMetadata next = m;
    std::set<int64_t> expired_ids;
    for (const Snapshot* s : expired) expired_ids.insert(s->snapshot_id);
    next.snapshots.clear();
    for (const Snapshot* s : kept) next.snapshots.push_back(*s);
    next.snapshot_log.erase(std::remove_if(next.snapshot_log.begin(), next.snapshot_log.end(),
                                           [&](const SnapshotLogEntry& e) { return expired_ids.count(e.snapshot_id); }),
                            next.snapshot_log.end());
    next.last_updated_ms = std::max(now_ms, m.last_updated_ms);
    ASSIGN_OR_RETURN(CommitOutcome outcome, CommitMetadata(catalog, store, base, std::move(next)));
    if (outcome == CommitOutcome::kConflict) continue;  // another writer committed: plan again on its version

    result.expired_snapshots = static_cast<int64_t>(expired.size());
    auto remove = [&](const std::set<std::string>& candidates, const std::set<std::string>& still_used,
                      int64_t* count) {
      for (const auto& loc : candidates) {
        if (still_used.count(loc)) continue;
        // Locations were normalized; the store takes them with the table location's scheme.
        const size_t scheme = m.location.find("://");
        const std::string full = scheme == std::string::npos ? loc : m.location.substr(0, scheme + 3) + loc;
        if (store->Delete(full).ok()) (*count)++;
      }
    };
    remove(expired_refs.manifest_lists, kept_refs.manifest_lists, &result.deleted_manifest_lists);
    remove(expired_refs.manifests, kept_refs.manifests, &result.deleted_manifests);
    remove(expired_refs.data_files, kept_refs.data_files, &result.deleted_data_files);
    return result;
  }
  return Status::Conflict(fmt::format("Iceberg table {}: other writers kept committing; run expire_snapshots again",
                                      ident.ToString()));
}

Result<OrphanResult> RemoveOrphanFiles(Catalog* catalog, ObjectStore* store, const TableIdent& ident,
                                       int64_t older_than_ms) {
  TableOperations ops(catalog, store);
  ASSIGN_OR_RETURN(LoadedTable base, ops.Load(ident));
  const TableMetadata& m = base.metadata;
  std::vector<const Snapshot*> all;
  for (const auto& s : m.snapshots) all.push_back(&s);
  // Conservative: a file any entry names, even a DELETED one, is no orphan (expire_snapshots removes those).
  ASSIGN_OR_RETURN(References refs, ReferencesOf(store, m, all, /*live_only=*/false));
  std::set<std::string> referenced = refs.data_files;
  referenced.insert(refs.manifests.begin(), refs.manifests.end());
  referenced.insert(refs.manifest_lists.begin(), refs.manifest_lists.end());
  referenced.insert(NormalizedLocation(base.metadata_location));
  for (const auto& e : m.metadata_log) referenced.insert(NormalizedLocation(e.metadata_file));
  // Keys the model does not know (another engine's statistics files) may name files: those are kept too.
  std::string unknown_text;
  for (const auto& [k, v] : m.unknown_json) unknown_text += v;

  ASSIGN_OR_RETURN(auto objects, store->List(m.location + "/"));
  const std::string data_dir = NormalizedLocation(m.location + "/data/");
  const std::string metadata_dir = NormalizedLocation(MetadataDir(m) + "/");
  OrphanResult result;
  std::vector<std::string> candidates;
  for (const auto& o : objects) {
    const std::string loc = NormalizedLocation(o.location);
    if (referenced.count(loc)) continue;
    const bool data = loc.rfind(data_dir, 0) == 0 &&
                      (EndsWith(loc, ".parquet") || EndsWith(loc, ".orc") || EndsWith(loc, ".avro"));
    const bool meta = loc.rfind(metadata_dir, 0) == 0 && (EndsWith(loc, ".avro") || EndsWith(loc, ".metadata.json"));
    if (!data && !meta) continue;
    if (unknown_text.find(loc.substr(loc.find('/') + 1)) != std::string::npos) continue;
    if (o.last_modified_ms >= older_than_ms) {
      result.kept_recent_files++;
      continue;
    }
    candidates.push_back(o.location);
  }
  // A commit that landed while the folder was listed may reference one of them: look once more.
  ASSIGN_OR_RETURN(LoadedTable now, ops.Load(ident));
  if (now.metadata_location != base.metadata_location)
    return Status::Conflict(fmt::format("Iceberg table {} changed while its files were compared; run "
                                        "remove_orphan_files again", ident.ToString()));
  for (const auto& loc : candidates) {
    if (store->Delete(loc).ok()) {
      result.removed_files++;
      result.removed.push_back(loc);
    }
  }
  return result;
}

}  // namespace sluice::iceberg
