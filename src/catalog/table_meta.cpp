#include "catalog/table_meta.h"

#include <nlohmann/json.hpp>

namespace sluice::catalog {

using nlohmann::json;

namespace {

json PartitioningToJson(const PartitionScheme& s) {
  json parts = json::array();
  for (const auto& p : s.partitions) {
    json values = json::array();
    for (const auto& t : p.values) {
      json tuple = json::array();
      for (const auto& v : t) tuple.push_back(v ? json(*v) : json(nullptr));
      values.push_back(std::move(tuple));
    }
    parts.push_back({{"id", p.id}, {"name", p.name}, {"lower", p.lower}, {"upper", p.upper}, {"values", values}});
  }
  return {{"kind", s.kind}, {"columns", s.columns}, {"column_types", s.column_types}, {"partitions", parts},
          {"next_id", s.next_id}};
}

PartitionScheme PartitioningFromJson(const json& j) {
  PartitionScheme s;
  if (!j.is_object()) return s;
  s.kind = j.value("kind", "");
  s.columns = j.value("columns", std::vector<std::string>{});
  s.column_types = j.value("column_types", std::vector<std::string>{});
  s.next_id = j.value("next_id", int64_t{10001});
  for (const auto& jp : j.value("partitions", json::array())) {
    PartitionDef p;
    p.id = jp.value("id", int64_t{0});
    p.name = jp.value("name", "");
    p.lower = jp.value("lower", std::vector<std::string>{});
    p.upper = jp.value("upper", std::vector<std::string>{});
    for (const auto& jt : jp.value("values", json::array())) {
      std::vector<std::optional<std::string>> tuple;
      for (const auto& v : jt) tuple.push_back(v.is_string() ? std::optional<std::string>(v.get<std::string>()) : std::nullopt);
      p.values.push_back(std::move(tuple));
    }
    s.partitions.push_back(std::move(p));
  }
  return s;
}

}  // namespace

const ColumnMeta* TableMeta::FindColumn(const std::string& column) const {
  for (const auto& c : columns)
    if (c.name == column) return &c;
  return nullptr;
}

std::optional<std::string> TableMeta::Property(const std::string& key) const {
  for (const auto& [k, v] : properties)
    if (k == key) return v;
  return std::nullopt;
}

std::string TableMetaToJson(const TableMeta& m) {
  json cols = json::array();
  for (const auto& c : m.columns) {
    json jc = {{"name", c.name},         {"type_text", c.type_text}, {"duckdb_type", c.duckdb_type},
               {"nullable", c.nullable}, {"is_key", c.is_key},       {"aggregate", c.aggregate},
               {"comment", c.comment}};
    if (c.default_sql) jc["default"] = *c.default_sql;
    cols.push_back(std::move(jc));
  }
  json props = json::array();
  for (const auto& [k, v] : m.properties) props.push_back(json::array({k, v}));
  json j = {{"engine", m.engine},
            {"key_model", m.key_model},
            {"key_columns", m.key_columns},
            {"columns", cols},
            {"partition_desc", m.partition_desc},
            {"distribution_columns", m.distribution_columns},
            {"distributed_random", m.distributed_random},
            {"properties", props},
            {"comment", m.comment}};
  if (m.buckets) j["buckets"] = *m.buckets;
  if (m.partitioning.partitioned()) j["partitioning"] = PartitioningToJson(m.partitioning);
  return j.dump();
}

TableMeta TableMetaFromJson(const std::string& text) {
  TableMeta m;
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return m;
  m.engine = j.value("engine", "");
  m.key_model = j.value("key_model", "");
  m.key_columns = j.value("key_columns", std::vector<std::string>{});
  for (const auto& jc : j.value("columns", json::array())) {
    ColumnMeta c;
    c.name = jc.value("name", "");
    c.type_text = jc.value("type_text", "");
    c.duckdb_type = jc.value("duckdb_type", "");
    c.nullable = jc.value("nullable", true);
    c.is_key = jc.value("is_key", false);
    c.aggregate = jc.value("aggregate", "");
    c.comment = jc.value("comment", "");
    if (jc.contains("default")) c.default_sql = jc.value("default", "");
    m.columns.push_back(std::move(c));
  }
  m.partition_desc = j.value("partition_desc", "");
  m.distribution_columns = j.value("distribution_columns", std::vector<std::string>{});
  m.distributed_random = j.value("distributed_random", false);
  for (const auto& p : j.value("properties", json::array()))
    if (p.is_array() && p.size() == 2) m.properties.emplace_back(p[0].get<std::string>(), p[1].get<std::string>());
  m.comment = j.value("comment", "");
  if (j.contains("buckets")) m.buckets = j.value("buckets", int64_t{0});
  if (j.contains("partitioning")) m.partitioning = PartitioningFromJson(j["partitioning"]);
  return m;
}

}  // namespace sluice::catalog
