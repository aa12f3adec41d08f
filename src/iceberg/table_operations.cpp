#include "iceberg/table_operations.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <set>

#include <cctype>
#include <chrono>
#include "iceberg/fast_append.h"
#include "iceberg/ids.h"
#include "iceberg/manifest_list.h"
#include "iceberg/metadata_json.h"
#include "iceberg/table_builder.h"

namespace sluice::iceberg {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "ts_day=2024-05-01/id_bucket=3": how Iceberg's writers lay data files out by partition (cosmetic: readers use the
// manifest's partition tuple, never the path).
std::string PartitionPath(const PartitionSpec& spec, const std::vector<Value>& values) {
  std::string out;
  for (size_t i = 0; i < spec.fields.size() && i < values.size(); i++) {
    std::string v = ValueToText(values[i]);
    std::string safe;
    for (char c : v) {
      bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
      safe += ok ? std::string(1, c) : fmt::format("%{:02X}", static_cast<unsigned char>(c));
    }
    out += (i ? "/" : "") + spec.fields[i].name + "=" + safe;
  }
  return out;
}

}  // namespace

int MetadataVersion(const std::string& location) {
  std::string name = location.substr(location.find_last_of('/') + 1);
  int v = -1;
  if (std::sscanf(name.c_str(), "%d-", &v) == 1) return v;
  if (std::sscanf(name.c_str(), "v%d.metadata.json", &v) == 1) return v;  // file-system catalogs' naming
  return -1;
}

std::string TableOperations::DataDir(const TableMetadata& m) const {
  auto it = m.properties.find("write.data.path");
  return it != m.properties.end() ? it->second : m.location + "/data";
}

std::string TableOperations::MetadataDir(const TableMetadata& m) const {
  auto it = m.properties.find("write.metadata.path");
  return it != m.properties.end() ? it->second : m.location + "/metadata";
}

Result<LoadedTable> TableOperations::Load(const TableIdent& ident) {
  ASSIGN_OR_RETURN(TableVersion version, catalog_->LoadTableVersion(ident));
  if (version.metadata) return LoadedTable{ident, version.metadata_location, std::move(*version.metadata)};
  const std::string& location = version.metadata_location;
  auto text = store_->Get(location);
  if (!text.ok()) {
    return Status(text.status().code(), fmt::format("Iceberg table {}: reading its metadata {}: {}", ident.ToString(),
                                                    location, text.status().message()));
  }
  ASSIGN_OR_RETURN(TableMetadata metadata, ParseMetadataJson(*text, location));
  return LoadedTable{ident, location, std::move(metadata)};
}

Result<LoadedTable> TableOperations::Create(const TableIdent& ident, const Schema& schema, const PartitionSpec& spec,
                                            const std::string& location,
                                            const std::map<std::string, std::string>& properties) {
  TableMetadata m = NewTableMetadata(schema, spec, location, properties, NowMs());
  std::string metadata_location;  // stays empty for a catalog that writes the metadata itself
  if (!catalog_->WritesMetadata()) {
    metadata_location = fmt::format("{}/00000-{}.metadata.json", MetadataDir(m), NewUuid());
    RETURN_IF_ERROR(store_->Put(metadata_location, WriteMetadataJson(m)));
  }
  auto version = catalog_->CreateTableVersion(ident, m, metadata_location);
  if (!version.ok()) {
    if (!metadata_location.empty()) (void)store_->Delete(metadata_location);
    return version.status();
  }
  return LoadedTable{ident, version->metadata_location, version->metadata ? std::move(*version->metadata) : std::move(m)};
}

Result<StagedAppend> TableOperations::StageFiles(const LoadedTable& table, std::vector<FileToAppend> files) {
  const TableMetadata& m = table.metadata;
  const Schema* schema = m.CurrentSchema();
  const PartitionSpec* spec = m.DefaultSpec();
  if (schema == nullptr || spec == nullptr) {
    return Status::InvalidArgument(fmt::format("Iceberg table {} has no current schema or partition spec",
                                               table.ident.ToString()));
  }
  StagedAppend staged;
  staged.spec_id = spec->spec_id;
  std::vector<ManifestEntry> entries;
  for (auto& f : files) {
    DataFile df = std::move(f.data_file);
    if (df.partition.size() != spec->fields.size()) {
      return Status::InvalidArgument(fmt::format("{}: {} partition values given, the table's spec has {} fields",
                                                 f.local_path, df.partition.size(), spec->fields.size()));
    }
    std::error_code ec;
    auto size = std::filesystem::file_size(f.local_path, ec);
    if (ec) return Status::IoError(fmt::format("cannot read data file {}: {}", f.local_path, ec.message()));
    std::string dir = DataDir(m);
    if (!spec->unpartitioned()) dir += "/" + PartitionPath(*spec, df.partition);
    df.file_path = fmt::format("{}/{}.parquet", dir, NewUuid());
    df.file_size_in_bytes = static_cast<int64_t>(size);
    df.file_format = "PARQUET";
    RETURN_IF_ERROR(store_->PutFile(df.file_path, f.local_path));
    entries.push_back(ManifestEntry{EntryStatus::kAdded, std::nullopt, std::nullopt, std::nullopt, df});
    staged.files.push_back(std::move(df));
  }
  ASSIGN_OR_RETURN(std::string manifest, WriteManifest(*schema, *spec, entries));
  staged.manifest_location = fmt::format("{}/{}-m0.avro", MetadataDir(m), NewUuid());
  staged.manifest_length = static_cast<int64_t>(manifest.size());
  RETURN_IF_ERROR(store_->Put(staged.manifest_location, manifest));
  return staged;
}

Result<AppendResult> TableOperations::CommitStaged(const LoadedTable& base, const StagedAppend& staged,
                                                   const Summary& summary, const std::vector<CommitGuard>& guards) {
  const TableMetadata& m = base.metadata;
  if (m.default_spec_id != staged.spec_id) {
    return Status::Conflict(fmt::format(
        "Iceberg table {}: its partition spec changed (now {}, the files were written for {}); write them again",
        base.ident.ToString(), m.default_spec_id, staged.spec_id));
  }
  std::vector<ManifestFile> parent_manifests;
  if (const Snapshot* parent = m.CurrentSnapshot()) {
    ASSIGN_OR_RETURN(std::string list, store_->Get(parent->manifest_list));
    ASSIGN_OR_RETURN(parent_manifests, ReadManifestList(list, "manifest list " + parent->manifest_list));
  }
  const int64_t snapshot_id = NewSnapshotId();
  const int64_t sequence_number = m.last_sequence_number + 1;
  ASSIGN_OR_RETURN(ManifestFile added, AddedManifestEntry(m, staged.manifest_location, staged.manifest_length,
                                                          staged.files, snapshot_id, sequence_number));
  std::string list_location = fmt::format("{}/snap-{}-1-{}.avro", MetadataDir(m), snapshot_id, NewUuid());
  ASSIGN_OR_RETURN(AppendPlan plan, PlanFastAppend(m, base.metadata_location, parent_manifests, std::move(added),
                                                   staged.files, summary, snapshot_id, list_location, NowMs()));
  ASSIGN_OR_RETURN(std::string list_bytes,
                   WriteManifestList(plan.manifests, snapshot_id, m.current_snapshot_id, plan.sequence_number));
  RETURN_IF_ERROR(store_->Put(list_location, list_bytes));
  std::string new_location;  // stays empty for a catalog that writes the metadata itself
  if (!catalog_->WritesMetadata()) {
    int version = MetadataVersion(base.metadata_location);
    if (version < 0) version = static_cast<int>(m.metadata_log.size());
    new_location = fmt::format("{}/{:05}-{}.metadata.json", MetadataDir(m), version + 1, NewUuid());
    RETURN_IF_ERROR(store_->Put(new_location, WriteMetadataJson(plan.metadata)));
  }

  auto outcome =
      catalog_->CommitChange(base.ident, TableChange{base.metadata_location, m, plan.metadata, new_location, &guards});
  if (!outcome.ok()) {
    return Status(outcome.status().code(),
                  fmt::format("Iceberg table {}: the commit of snapshot {} may or may not have happened ({}); reload "
                              "the table and look for the snapshot's summary before trying again",
                              base.ident.ToString(), snapshot_id, outcome.status().message()));
  }
  AppendResult result;
  result.outcome = outcome->outcome;
  if (outcome->outcome == CommitOutcome::kCommitted) {
    result.snapshot_id = snapshot_id;
    TableVersion& committed = outcome->committed;
    result.table = LoadedTable{base.ident, committed.metadata_location,
                               committed.metadata ? std::move(*committed.metadata) : std::move(plan.metadata)};
    return result;
  }
  // Lost the race, or refused by a guard: what this attempt wrote is referenced by nothing.
  if (!new_location.empty()) (void)store_->Delete(new_location);
  (void)store_->Delete(list_location);
  if (outcome->outcome == CommitOutcome::kRefused) {
    result.refused = outcome->refused;
    return result;
  }
  ASSIGN_OR_RETURN(result.table, Load(base.ident));
  return result;
}

Result<AppendResult> TableOperations::Append(const LoadedTable& base, std::vector<FileToAppend> files,
                                             const Summary& summary) {
  ASSIGN_OR_RETURN(StagedAppend staged, StageFiles(base, std::move(files)));
  return CommitStaged(base, staged, summary);
}

Status TableOperations::DiscardStaged(const StagedAppend& staged) {
  for (const auto& f : staged.files) RETURN_IF_ERROR(store_->Delete(f.file_path));
  return store_->Delete(staged.manifest_location);
}

std::optional<SummaryValue> ReadSummaryChain(const TableMetadata& metadata, const std::string& key) {
  std::set<int64_t> seen;  // a malformed parent loop must not spin
  const Snapshot* s = metadata.CurrentSnapshot();
  while (s != nullptr && seen.insert(s->snapshot_id).second) {
    auto it = s->summary.find(key);
    if (it != s->summary.end()) return SummaryValue{it->second, s->snapshot_id};
    s = s->parent_snapshot_id ? metadata.FindSnapshot(*s->parent_snapshot_id) : nullptr;
  }
  return std::nullopt;
}

}  // namespace sluice::iceberg
