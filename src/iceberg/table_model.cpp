#include "iceberg/table_model.h"

#include <fmt/format.h>

#include <exception>
#include <set>

namespace sluice::iceberg {

const Field* Schema::FindById(int id) const {
  for (const auto& f : fields) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

const Field* Schema::FindByName(const std::string& name) const {
  for (const auto& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

int Schema::HighestFieldId() const {
  int top = 0;
  for (const auto& f : fields) top = std::max(top, f.id);
  return top;
}

Result<std::vector<Type>> PartitionSpec::ResultTypes(const Schema& schema) const {
  std::vector<Type> out;
  for (const auto& pf : fields) {
    const Field* source = schema.FindById(pf.source_id);
    if (source == nullptr) {
      return Status::InvalidArgument(fmt::format(
          "partition field '{}' reads column id {}, which the table's current schema does not have", pf.name,
          pf.source_id));
    }
    ASSIGN_OR_RETURN(Type t, pf.transform.ResultType(source->type));
    out.push_back(t);
  }
  return out;
}

const Schema* TableMetadata::CurrentSchema() const {
  for (const auto& s : schemas) {
    if (s.schema_id == current_schema_id) return &s;
  }
  return nullptr;
}

const PartitionSpec* TableMetadata::DefaultSpec() const {
  for (const auto& s : partition_specs) {
    if (s.spec_id == default_spec_id) return &s;
  }
  return nullptr;
}

const Snapshot* TableMetadata::CurrentSnapshot() const {
  return current_snapshot_id ? FindSnapshot(*current_snapshot_id) : nullptr;
}

const Snapshot* TableMetadata::FindSnapshot(int64_t id) const {
  for (const auto& s : snapshots) {
    if (s.snapshot_id == id) return &s;
  }
  return nullptr;
}

int64_t TableMetadata::IntProperty(const std::string& key, int64_t fallback) const {
  auto it = properties.find(key);
  if (it == properties.end()) return fallback;
  try {
    return std::stoll(it->second);
  } catch (const std::exception&) {
    return fallback;
  }
}

int64_t SummaryLong(const Snapshot* s, const char* key, int64_t fallback) {
  if (s == nullptr) return 0;
  auto it = s->summary.find(key);
  if (it == s->summary.end()) return fallback;
  try {
    return std::stoll(it->second);
  } catch (const std::exception&) {
    return fallback;
  }
}

Summary CarriedSummaryKeys(const TableMetadata& metadata, const std::string& prefix) {
  Summary out;
  std::set<int64_t> seen;
  for (const Snapshot* s = metadata.CurrentSnapshot(); s != nullptr && seen.insert(s->snapshot_id).second;
       s = s->parent_snapshot_id ? metadata.FindSnapshot(*s->parent_snapshot_id) : nullptr) {
    for (const auto& [k, v] : s->summary)
      if (k.rfind(prefix, 0) == 0) out.emplace(k, v);  // emplace keeps the newer value already there
  }
  return out;
}

}  // namespace sluice::iceberg
