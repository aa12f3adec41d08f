#include "iceberg/rest_requests.h"

#include <fmt/format.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <set>

#include "iceberg/metadata_json.h"

namespace sluice::iceberg {
namespace {

using json = nlohmann::ordered_json;

json Parse(const std::string& text) { return json::parse(text, nullptr, false); }

bool SameSchemas(const TableMetadata& a, const TableMetadata& b) {
  if (a.schemas.size() != b.schemas.size() || a.current_schema_id != b.current_schema_id) return false;
  for (size_t i = 0; i < a.schemas.size(); i++)
    if (SchemaJson(a.schemas[i]) != SchemaJson(b.schemas[i])) return false;
  return true;
}

bool SameSpecs(const TableMetadata& a, const TableMetadata& b) {
  if (a.partition_specs.size() != b.partition_specs.size() || a.default_spec_id != b.default_spec_id) return false;
  for (size_t i = 0; i < a.partition_specs.size(); i++) {
    if (a.partition_specs[i].spec_id != b.partition_specs[i].spec_id ||
        PartitionSpecFieldsJson(a.partition_specs[i]) != PartitionSpecFieldsJson(b.partition_specs[i]))
      return false;
  }
  return true;
}

}  // namespace

std::string RestEscape(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string RestNamespacePath(const std::vector<std::string>& ns) {
  std::string joined;
  for (size_t i = 0; i < ns.size(); i++) joined += (i ? "\x1f" : "") + ns[i];
  return RestEscape(joined);
}

Result<std::string> RestCommitBody(const TableIdent& table, const TableMetadata& base, const TableMetadata& next) {
  const std::string what = "Iceberg table " + table.ToString();
  if (!SameSchemas(base, next) || !SameSpecs(base, next) || base.location != next.location ||
      base.default_sort_order_id != next.default_sort_order_id) {
    return Status::NotSupported(what + ": this change alters the schema, partition spec, sort order or location, "
                                       "which Sluice does not commit to a REST catalog");
  }
  json requirements = json::array();
  requirements.push_back({{"type", "assert-table-uuid"}, {"uuid", base.table_uuid}});
  json main_ref = {{"type", "assert-ref-snapshot-id"}, {"ref", "main"}};
  auto main = base.refs.find("main");
  main_ref["snapshot-id"] = main == base.refs.end() ? json(nullptr) : json(main->second.snapshot_id);
  requirements.push_back(std::move(main_ref));

  json updates = json::array();
  std::set<int64_t> base_ids, next_ids;
  for (const auto& s : base.snapshots) base_ids.insert(s.snapshot_id);
  for (const auto& s : next.snapshots) next_ids.insert(s.snapshot_id);
  for (const auto& s : next.snapshots)
    if (!base_ids.count(s.snapshot_id)) updates.push_back({{"action", "add-snapshot"}, {"snapshot", Parse(SnapshotJson(s))}});
  json removed = json::array();
  for (const auto& s : base.snapshots)
    if (!next_ids.count(s.snapshot_id)) removed.push_back(s.snapshot_id);
  for (const auto& [name, ref] : next.refs) {
    auto old = base.refs.find(name);
    if (old != base.refs.end() && SnapshotRefJson(old->second) == SnapshotRefJson(ref)) continue;
    json u = {{"action", "set-snapshot-ref"}, {"ref-name", name}};
    const json fields = Parse(SnapshotRefJson(ref));  // kept alive: items() only refers to it
    for (auto& [k, v] : fields.items()) u[k] = v;
    updates.push_back(std::move(u));
  }
  for (const auto& [name, ref] : base.refs)
    if (!next.refs.count(name)) updates.push_back({{"action", "remove-snapshot-ref"}, {"ref-name", name}});
  if (!removed.empty()) updates.push_back({{"action", "remove-snapshots"}, {"snapshot-ids", std::move(removed)}});
  json set = json::object();
  json removals = json::array();
  for (const auto& [k, v] : next.properties) {
    auto old = base.properties.find(k);
    if (old == base.properties.end() || old->second != v) set[k] = v;
  }
  for (const auto& [k, v] : base.properties)
    if (!next.properties.count(k)) removals.push_back(k);
  if (!set.empty()) updates.push_back({{"action", "set-properties"}, {"updates", std::move(set)}});
  if (!removals.empty()) updates.push_back({{"action", "remove-properties"}, {"removals", std::move(removals)}});

  json body;
  json ns = json::array();
  for (const auto& level : table.ns) ns.push_back(level);
  body["identifier"] = {{"namespace", std::move(ns)}, {"name", table.name}};
  body["requirements"] = std::move(requirements);
  body["updates"] = std::move(updates);
  return body.dump();
}

std::string RestCreateTableBody(const std::string& name, const TableMetadata& m, const std::string& location) {
  json body;
  body["name"] = name;
  if (!location.empty()) body["location"] = location;
  if (const Schema* schema = m.CurrentSchema()) body["schema"] = Parse(SchemaJson(*schema));
  if (const PartitionSpec* spec = m.DefaultSpec())
    body["partition-spec"] = {{"spec-id", spec->spec_id}, {"fields", Parse(PartitionSpecFieldsJson(*spec))}};
  body["write-order"] = {{"order-id", 0}, {"fields", json::array()}};
  body["stage-create"] = false;
  body["properties"] = m.properties;
  return body.dump();
}

}  // namespace sluice::iceberg
