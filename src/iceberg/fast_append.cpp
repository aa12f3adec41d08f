#include "iceberg/fast_append.h"

#include <fmt/format.h>

#include <set>

#include "iceberg/single_value.h"

namespace sluice::iceberg {
namespace {

}  // namespace

Result<ManifestFile> AddedManifestEntry(const TableMetadata& table, const std::string& manifest_path,
                                        int64_t manifest_length, const std::vector<DataFile>& files,
                                        int64_t snapshot_id, int64_t sequence_number) {
  const PartitionSpec* spec = table.DefaultSpec();
  const Schema* schema = table.CurrentSchema();
  if (spec == nullptr || schema == nullptr) {
    return Status::InvalidArgument("the table metadata has no current schema or default partition spec");
  }
  ManifestFile m;
  m.manifest_path = manifest_path;
  m.manifest_length = manifest_length;
  m.partition_spec_id = spec->spec_id;
  m.content = 0;
  m.sequence_number = sequence_number;
  m.min_sequence_number = sequence_number;
  m.added_snapshot_id = snapshot_id;
  m.added_files_count = static_cast<int>(files.size());
  for (const auto& f : files) m.added_rows_count += f.record_count;
  std::vector<PartitionFieldSummary> summaries(spec->fields.size());
  for (size_t i = 0; i < spec->fields.size(); i++) {
    std::optional<Value> lo, hi;
    for (const auto& f : files) {
      if (i >= f.partition.size()) continue;
      const Value& v = f.partition[i];
      if (v.is_null()) {
        summaries[i].contains_null = true;
        continue;
      }
      if (!lo || CompareValues(v, *lo) < 0) lo = v;
      if (!hi || CompareValues(v, *hi) > 0) hi = v;
    }
    if (lo) {
      ASSIGN_OR_RETURN(std::string l, EncodeSingleValue(*lo));
      summaries[i].lower_bound = l;
    }
    if (hi) {
      ASSIGN_OR_RETURN(std::string h, EncodeSingleValue(*hi));
      summaries[i].upper_bound = h;
    }
  }
  m.partitions = std::move(summaries);
  return m;
}

Result<AppendPlan> PlanFastAppend(const TableMetadata& base, const std::string& base_metadata_location,
                                  const std::vector<ManifestFile>& parent_manifests, ManifestFile added,
                                  const std::vector<DataFile>& files, const Summary& extra_summary,
                                  int64_t snapshot_id, const std::string& manifest_list_location, int64_t now_ms) {
  if (base.format_version != 2) {
    return Status::NotSupported(fmt::format(
        "the table at {} is Iceberg format version {}; Sluice appends to version 2 tables (upgrade it with "
        "ALTER TABLE ... SET TBLPROPERTIES ('format-version' = '2') in Spark)", base.location, base.format_version));
  }
  AppendPlan plan;
  plan.snapshot_id = snapshot_id;
  plan.sequence_number = base.last_sequence_number + 1;
  plan.manifest_list_location = manifest_list_location;
  added.sequence_number = plan.sequence_number;
  added.min_sequence_number = plan.sequence_number;
  added.added_snapshot_id = snapshot_id;
  plan.manifests.push_back(std::move(added));
  for (const auto& m : parent_manifests) plan.manifests.push_back(m);

  const Snapshot* parent = base.CurrentSnapshot();
  int64_t added_records = 0, added_size = 0;
  std::set<std::string> partitions;
  for (const auto& f : files) {
    added_records += f.record_count;
    added_size += f.file_size_in_bytes;
    std::string key;
    for (const auto& v : f.partition) key += ValueToText(v) + "\x1f";
    partitions.insert(key);
  }
  // Totals carry on from the parent's summary; a parent without them (another writer's) is summed from its list.
  int64_t parent_rows = 0, parent_files = 0;
  for (const auto& m : parent_manifests) {
    if (m.content == 0) {
      parent_rows += m.added_rows_count + m.existing_rows_count;
      parent_files += m.added_files_count + m.existing_files_count;
    }
  }
  // Every append carries each job's offsets forward, so the current snapshot alone says where every job is:
  // expiring older snapshots (or another engine's commits in between) never loses a job its place.
  Summary summary = CarriedSummaryKeys(base, "sluice.offsets.");
  for (const auto& [key, value] : extra_summary) summary[key] = value;
  summary["operation"] = "append";
  summary["added-data-files"] = std::to_string(files.size());
  summary["added-records"] = std::to_string(added_records);
  summary["added-files-size"] = std::to_string(added_size);
  summary["changed-partition-count"] = std::to_string(partitions.size());
  summary["total-records"] = std::to_string(SummaryLong(parent, "total-records", parent_rows) + added_records);
  summary["total-files-size"] = std::to_string(SummaryLong(parent, "total-files-size", 0) + added_size);
  summary["total-data-files"] =
      std::to_string(SummaryLong(parent, "total-data-files", parent_files) + static_cast<int64_t>(files.size()));
  summary["total-delete-files"] = std::to_string(SummaryLong(parent, "total-delete-files", 0));
  summary["total-position-deletes"] = std::to_string(SummaryLong(parent, "total-position-deletes", 0));
  summary["total-equality-deletes"] = std::to_string(SummaryLong(parent, "total-equality-deletes", 0));

  TableMetadata next = base;
  Snapshot snap;
  snap.snapshot_id = snapshot_id;
  snap.parent_snapshot_id = base.current_snapshot_id;
  snap.sequence_number = plan.sequence_number;
  snap.timestamp_ms = std::max(now_ms, base.last_updated_ms);  // never before the version it follows
  snap.manifest_list = manifest_list_location;
  snap.summary = std::move(summary);
  snap.schema_id = base.current_schema_id;
  next.snapshots.push_back(snap);
  next.current_snapshot_id = snapshot_id;
  next.last_sequence_number = plan.sequence_number;
  next.last_updated_ms = snap.timestamp_ms;
  next.snapshot_log.push_back({snap.timestamp_ms, snapshot_id});
  next.refs["main"] = SnapshotRef{snapshot_id, "branch", base.refs.count("main") ? base.refs.at("main").extra_json : ""};
  if (!base_metadata_location.empty()) next.metadata_log.push_back({base.last_updated_ms, base_metadata_location});
  size_t keep = 100;
  if (auto it = base.properties.find("write.metadata.previous-versions-max"); it != base.properties.end()) {
    try {
      keep = static_cast<size_t>(std::max(1, std::stoi(it->second)));
    } catch (const std::exception&) {
    }
  }
  if (next.metadata_log.size() > keep) {
    next.metadata_log.erase(next.metadata_log.begin(),
                            next.metadata_log.begin() + static_cast<std::ptrdiff_t>(next.metadata_log.size() - keep));
  }
  plan.metadata = std::move(next);
  return plan;
}

}  // namespace sluice::iceberg
