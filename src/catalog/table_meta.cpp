#include "catalog/table_meta.h"

#include <nlohmann/json.hpp>

namespace sluice::catalog {

using nlohmann::json;

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
  return m;
}

}  // namespace sluice::catalog
