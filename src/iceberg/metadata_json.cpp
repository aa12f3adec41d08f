#include "iceberg/metadata_json.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace sluice::iceberg {
namespace {

using json = nlohmann::ordered_json;

json SchemaToJson(const Schema& s) {
  json fields = json::array();
  for (const auto& f : s.fields) {
    json jf = {{"id", f.id}, {"name", f.name}, {"required", f.required}, {"type", f.type.ToString()}};
    if (!f.doc.empty()) jf["doc"] = f.doc;
    fields.push_back(std::move(jf));
  }
  json j = {{"type", "struct"}, {"schema-id", s.schema_id}};
  if (!s.identifier_field_ids.empty()) j["identifier-field-ids"] = s.identifier_field_ids;
  j["fields"] = std::move(fields);
  return j;
}

json SpecFieldsToJson(const PartitionSpec& spec) {
  json fields = json::array();
  for (const auto& f : spec.fields) {
    fields.push_back({{"name", f.name}, {"transform", f.transform.ToString()}, {"source-id", f.source_id},
                      {"field-id", f.field_id}});
  }
  return fields;
}

json RefToJson(const SnapshotRef& ref) {
  json jr = {{"snapshot-id", ref.snapshot_id}, {"type", ref.type}};
  if (!ref.extra_json.empty()) {
    json extra = json::parse(ref.extra_json, nullptr, false);
    if (extra.is_object()) {
      for (auto& [k, v] : extra.items()) jr[k] = v;
    }
  }
  return jr;
}

json SnapshotToJson(const Snapshot& s) {
  json js;
  js["sequence-number"] = s.sequence_number;
  js["snapshot-id"] = s.snapshot_id;
  if (s.parent_snapshot_id) js["parent-snapshot-id"] = *s.parent_snapshot_id;
  js["timestamp-ms"] = s.timestamp_ms;
  js["summary"] = s.summary;
  js["manifest-list"] = s.manifest_list;
  if (s.schema_id) js["schema-id"] = *s.schema_id;
  return js;
}

// Field access with messages that say which file and key was wrong.
struct Reader {
  const std::string& what;

  Status Missing(const std::string& key) const {
    return Status::InvalidArgument(fmt::format("{}: table metadata has no \"{}\"", what, key));
  }
  Status Wrong(const std::string& key, const char* expected) const {
    return Status::InvalidArgument(fmt::format("{}: table metadata \"{}\" is not {}", what, key, expected));
  }
  template <typename T>
  Result<T> Get(const json& j, const std::string& key) const {
    if (!j.contains(key)) return Missing(key);
    try {
      return j.at(key).get<T>();
    } catch (const std::exception&) {
      return Wrong(key, "of the expected type");
    }
  }
};

Result<Schema> SchemaFromJson(const json& j, const Reader& r) {
  Schema s;
  s.schema_id = j.value("schema-id", 0);
  if (j.contains("identifier-field-ids")) s.identifier_field_ids = j["identifier-field-ids"].get<std::vector<int>>();
  if (!j.contains("fields") || !j["fields"].is_array()) return r.Missing("fields");
  for (const auto& jf : j["fields"]) {
    Field f;
    ASSIGN_OR_RETURN(f.id, r.Get<int>(jf, "id"));
    ASSIGN_OR_RETURN(f.name, r.Get<std::string>(jf, "name"));
    f.required = jf.value("required", false);
    f.doc = jf.value("doc", "");
    if (!jf.contains("type") || !jf["type"].is_string()) {
      return Status::NotSupported(fmt::format(
          "{}: column '{}' has a nested type; Sluice reads tables of primitive columns only so far", r.what, f.name));
    }
    auto t = Type::Parse(jf["type"].get<std::string>());
    if (!t.ok()) return Status::NotSupported(fmt::format("{}: column '{}': {}", r.what, f.name, t.status().message()));
    f.type = *t;
    s.fields.push_back(std::move(f));
  }
  return s;
}

Result<PartitionSpec> SpecFromJson(int spec_id, const json& fields, const Reader& r) {
  PartitionSpec spec;
  spec.spec_id = spec_id;
  int next_v1_id = 1000;  // v1 specs may omit field ids: they are assigned from 1000 in order
  for (const auto& jf : fields) {
    PartitionField f;
    ASSIGN_OR_RETURN(f.name, r.Get<std::string>(jf, "name"));
    ASSIGN_OR_RETURN(f.source_id, r.Get<int>(jf, "source-id"));
    f.field_id = jf.value("field-id", next_v1_id);
    next_v1_id = f.field_id + 1;
    ASSIGN_OR_RETURN(std::string transform, r.Get<std::string>(jf, "transform"));
    auto t = Transform::Parse(transform);
    if (!t.ok()) return Status::NotSupported(fmt::format("{}: {}", r.what, t.status().message()));
    f.transform = *t;
    spec.fields.push_back(std::move(f));
  }
  return spec;
}

}  // namespace

std::string SchemaJson(const Schema& schema) { return SchemaToJson(schema).dump(); }
std::string PartitionSpecFieldsJson(const PartitionSpec& spec) { return SpecFieldsToJson(spec).dump(); }
std::string SnapshotJson(const Snapshot& snapshot) { return SnapshotToJson(snapshot).dump(); }
std::string SnapshotRefJson(const SnapshotRef& ref) { return RefToJson(ref).dump(); }

std::string WriteMetadataJson(const TableMetadata& m) {
  json j;
  j["format-version"] = m.format_version;
  j["table-uuid"] = m.table_uuid;
  j["location"] = m.location;
  j["last-sequence-number"] = m.last_sequence_number;
  j["last-updated-ms"] = m.last_updated_ms;
  j["last-column-id"] = m.last_column_id;
  j["current-schema-id"] = m.current_schema_id;
  json schemas = json::array();
  for (const auto& s : m.schemas) schemas.push_back(SchemaToJson(s));
  j["schemas"] = std::move(schemas);
  j["default-spec-id"] = m.default_spec_id;
  json specs = json::array();
  for (const auto& s : m.partition_specs) specs.push_back({{"spec-id", s.spec_id}, {"fields", SpecFieldsToJson(s)}});
  j["partition-specs"] = std::move(specs);
  j["last-partition-id"] = m.last_partition_id;
  j["default-sort-order-id"] = m.default_sort_order_id;
  json orders = json::array();
  for (const auto& o : m.sort_orders) {
    orders.push_back({{"order-id", o.order_id}, {"fields", json::parse(o.fields_json, nullptr, false)}});
  }
  j["sort-orders"] = std::move(orders);
  j["properties"] = m.properties;
  j["current-snapshot-id"] = m.current_snapshot_id.value_or(-1);
  json refs = json::object();
  for (const auto& [name, ref] : m.refs) refs[name] = RefToJson(ref);
  j["refs"] = std::move(refs);
  json snapshots = json::array();
  for (const auto& s : m.snapshots) snapshots.push_back(SnapshotToJson(s));
  j["snapshots"] = std::move(snapshots);
  json slog = json::array();
  for (const auto& e : m.snapshot_log) slog.push_back({{"timestamp-ms", e.timestamp_ms}, {"snapshot-id", e.snapshot_id}});
  j["snapshot-log"] = std::move(slog);
  json mlog = json::array();
  for (const auto& e : m.metadata_log) {
    mlog.push_back({{"timestamp-ms", e.timestamp_ms}, {"metadata-file", e.metadata_file}});
  }
  j["metadata-log"] = std::move(mlog);
  for (const auto& [k, v] : m.unknown_json) {
    json parsed = json::parse(v, nullptr, false);
    if (!parsed.is_discarded() && !j.contains(k)) j[k] = std::move(parsed);
  }
  return j.dump(2);
}

Result<TableMetadata> ParseMetadataJson(const std::string& text, const std::string& what) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::InvalidArgument(fmt::format("{} is not a JSON object: is it an Iceberg metadata.json?", what));
  }
  Reader r{what};
  TableMetadata m;
  ASSIGN_OR_RETURN(m.format_version, r.Get<int>(j, "format-version"));
  if (m.format_version < 1 || m.format_version > 2) {
    return Status::NotSupported(fmt::format(
        "{}: the table is Iceberg format version {}; Sluice reads versions 1 and 2", what, m.format_version));
  }
  m.table_uuid = j.value("table-uuid", "");
  ASSIGN_OR_RETURN(m.location, r.Get<std::string>(j, "location"));
  while (!m.location.empty() && m.location.back() == '/') m.location.pop_back();
  m.last_sequence_number = j.value("last-sequence-number", int64_t{0});
  ASSIGN_OR_RETURN(m.last_updated_ms, r.Get<int64_t>(j, "last-updated-ms"));
  ASSIGN_OR_RETURN(m.last_column_id, r.Get<int>(j, "last-column-id"));
  if (j.contains("schemas")) {
    for (const auto& js : j["schemas"]) {
      ASSIGN_OR_RETURN(Schema s, SchemaFromJson(js, r));
      m.schemas.push_back(std::move(s));
    }
    m.current_schema_id = j.value("current-schema-id", 0);
  } else if (j.contains("schema")) {
    ASSIGN_OR_RETURN(Schema s, SchemaFromJson(j["schema"], r));
    m.current_schema_id = s.schema_id;
    m.schemas.push_back(std::move(s));
  } else {
    return r.Missing("schemas");
  }
  if (j.contains("partition-specs")) {
    for (const auto& js : j["partition-specs"]) {
      ASSIGN_OR_RETURN(PartitionSpec s, SpecFromJson(js.value("spec-id", 0), js.value("fields", json::array()), r));
      m.partition_specs.push_back(std::move(s));
    }
    m.default_spec_id = j.value("default-spec-id", 0);
  } else if (j.contains("partition-spec")) {
    ASSIGN_OR_RETURN(PartitionSpec s, SpecFromJson(0, j["partition-spec"], r));
    m.partition_specs.push_back(std::move(s));
  }
  int highest_partition_id = 999;
  for (const auto& s : m.partition_specs) {
    for (const auto& f : s.fields) highest_partition_id = std::max(highest_partition_id, f.field_id);
  }
  m.last_partition_id = j.value("last-partition-id", highest_partition_id);
  if (j.contains("properties") && j["properties"].is_object()) {
    for (auto& [k, v] : j["properties"].items()) m.properties[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  int64_t current = j.contains("current-snapshot-id") && j["current-snapshot-id"].is_number_integer()
                        ? j["current-snapshot-id"].get<int64_t>()
                        : -1;
  if (current >= 0) m.current_snapshot_id = current;
  if (j.contains("snapshots")) {
    for (const auto& js : j["snapshots"]) {
      Snapshot s;
      ASSIGN_OR_RETURN(s.snapshot_id, r.Get<int64_t>(js, "snapshot-id"));
      if (js.contains("parent-snapshot-id") && js["parent-snapshot-id"].is_number_integer()) {
        s.parent_snapshot_id = js["parent-snapshot-id"].get<int64_t>();
      }
      s.sequence_number = js.value("sequence-number", int64_t{0});
      s.timestamp_ms = js.value("timestamp-ms", int64_t{0});
      if (!js.contains("manifest-list")) {
        return Status::NotSupported(fmt::format(
            "{}: snapshot {} lists its manifests inline (a v1 table without manifest lists); Sluice reads tables "
            "whose snapshots have a manifest-list", what, s.snapshot_id));
      }
      s.manifest_list = js["manifest-list"].get<std::string>();
      if (js.contains("summary") && js["summary"].is_object()) {
        for (auto& [k, v] : js["summary"].items()) s.summary[k] = v.is_string() ? v.get<std::string>() : v.dump();
      }
      if (js.contains("schema-id") && js["schema-id"].is_number_integer()) s.schema_id = js["schema-id"].get<int>();
      m.snapshots.push_back(std::move(s));
    }
  }
  if (j.contains("snapshot-log")) {
    for (const auto& e : j["snapshot-log"]) {
      m.snapshot_log.push_back({e.value("timestamp-ms", int64_t{0}), e.value("snapshot-id", int64_t{0})});
    }
  }
  if (j.contains("metadata-log")) {
    for (const auto& e : j["metadata-log"]) {
      m.metadata_log.push_back({e.value("timestamp-ms", int64_t{0}), e.value("metadata-file", "")});
    }
  }
  if (j.contains("sort-orders")) {
    m.sort_orders.clear();
    for (const auto& o : j["sort-orders"]) {
      m.sort_orders.push_back({o.value("order-id", 0), o.contains("fields") ? o["fields"].dump() : "[]"});
    }
    m.default_sort_order_id = j.value("default-sort-order-id", 0);
  }
  if (j.contains("refs") && j["refs"].is_object()) {
    for (auto& [name, jr] : j["refs"].items()) {
      SnapshotRef ref;
      ref.snapshot_id = jr.value("snapshot-id", int64_t{0});
      ref.type = jr.value("type", "branch");
      json extra = json::object();
      for (auto& [k, v] : jr.items()) {
        if (k != "snapshot-id" && k != "type") extra[k] = v;
      }
      if (!extra.empty()) ref.extra_json = extra.dump();
      m.refs[name] = std::move(ref);
    }
  } else if (m.current_snapshot_id) {
    m.refs["main"] = SnapshotRef{*m.current_snapshot_id, "branch", ""};  // v1 tables have no refs: main is implied
  }
  static const char* kKnown[] = {"format-version", "table-uuid", "location", "last-sequence-number",
                                 "last-updated-ms", "last-column-id", "schemas", "schema", "current-schema-id",
                                 "partition-specs", "partition-spec", "default-spec-id", "last-partition-id",
                                 "properties", "current-snapshot-id", "snapshots", "snapshot-log", "metadata-log",
                                 "sort-orders", "default-sort-order-id", "refs"};
  for (auto& [k, v] : j.items()) {
    bool known = false;
    for (const char* name : kKnown) known = known || k == name;
    if (!known) m.unknown_json[k] = v.dump();
  }
  return m;
}

}  // namespace sluice::iceberg
