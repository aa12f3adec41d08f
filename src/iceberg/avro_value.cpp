#include "iceberg/avro_value.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace sluice::iceberg {
namespace {

using json = nlohmann::json;
using Named = std::map<std::string, AvroSchemaPtr>;

Result<AvroSchemaPtr> ParseNode(const json& j, Named* named);

Result<AvroSchemaPtr> Primitive(const std::string& name, Named* named) {
  static const std::map<std::string, AvroKind> kPrimitives = {
      {"null", AvroKind::kNull},   {"boolean", AvroKind::kBoolean}, {"int", AvroKind::kInt},
      {"long", AvroKind::kLong},   {"float", AvroKind::kFloat},     {"double", AvroKind::kDouble},
      {"bytes", AvroKind::kBytes}, {"string", AvroKind::kString}};
  auto p = kPrimitives.find(name);
  if (p != kPrimitives.end()) {
    auto node = std::make_shared<AvroSchemaNode>();
    node->kind = p->second;
    return AvroSchemaPtr(node);
  }
  auto n = named->find(name);
  if (n != named->end()) return n->second;
  return Status::InvalidArgument(fmt::format("Avro schema refers to an unknown type '{}'", name));
}

Result<AvroSchemaPtr> ParseNode(const json& j, Named* named) {
  if (j.is_string()) return Primitive(j.get<std::string>(), named);
  if (j.is_array()) {
    auto node = std::make_shared<AvroSchemaNode>();
    node->kind = AvroKind::kUnion;
    for (const auto& b : j) {
      ASSIGN_OR_RETURN(auto branch, ParseNode(b, named));
      node->branches.push_back(branch);
    }
    return AvroSchemaPtr(node);
  }
  if (!j.is_object() || !j.contains("type")) return Status::InvalidArgument("an Avro schema node has no \"type\"");
  const json& type = j["type"];
  if (!type.is_string()) return ParseNode(type, named);  // {"type": {...}} wraps another node
  std::string t = type.get<std::string>();
  auto node = std::make_shared<AvroSchemaNode>();
  if (t == "record" || t == "error") {
    node->kind = AvroKind::kRecord;
    node->name = j.value("name", "");
    if (!node->name.empty()) (*named)[node->name] = node;  // before the fields: a record may refer to itself
    if (!j.contains("fields") || !j["fields"].is_array()) {
      return Status::InvalidArgument(fmt::format("Avro record '{}' has no fields array", node->name));
    }
    for (const auto& f : j["fields"]) {
      AvroFieldNode field;
      field.name = f.value("name", "");
      if (!f.contains("type")) return Status::InvalidArgument(fmt::format("Avro field '{}' has no type", field.name));
      ASSIGN_OR_RETURN(field.type, ParseNode(f["type"], named));
      if (f.contains("field-id") && f["field-id"].is_number_integer()) field.field_id = f["field-id"].get<int>();
      node->fields.push_back(std::move(field));
    }
    return AvroSchemaPtr(node);
  }
  if (t == "enum") {
    node->kind = AvroKind::kEnum;
    node->name = j.value("name", "");
    if (j.contains("symbols")) node->symbols = j["symbols"].get<std::vector<std::string>>();
    (*named)[node->name] = node;
    return AvroSchemaPtr(node);
  }
  if (t == "fixed") {
    node->kind = AvroKind::kFixed;
    node->name = j.value("name", "");
    node->fixed_size = j.value("size", 0);
    (*named)[node->name] = node;
    return AvroSchemaPtr(node);
  }
  if (t == "array" || t == "map") {
    node->kind = t == "array" ? AvroKind::kArray : AvroKind::kMap;
    const char* key = t == "array" ? "items" : "values";
    if (!j.contains(key)) return Status::InvalidArgument(fmt::format("Avro {} has no \"{}\"", t, key));
    ASSIGN_OR_RETURN(node->items, ParseNode(j[key], named));
    return AvroSchemaPtr(node);
  }
  return Primitive(t, named);  // {"type": "long", "logicalType": ...}
}

}  // namespace

Result<AvroSchemaPtr> ParseAvroSchema(const std::string& json_text) {
  json j = json::parse(json_text, nullptr, false);
  if (j.is_discarded()) return Status::InvalidArgument("the Avro schema is not valid JSON");
  Named named;
  return ParseNode(j, &named);
}

AvroValue AvroValue::Bool(bool v) { AvroValue a; a.kind = AvroKind::kBoolean; a.b = v; return a; }
AvroValue AvroValue::Int(int32_t v) { AvroValue a; a.kind = AvroKind::kInt; a.l = v; return a; }
AvroValue AvroValue::Long(int64_t v) { AvroValue a; a.kind = AvroKind::kLong; a.l = v; return a; }
AvroValue AvroValue::Float(float v) { AvroValue a; a.kind = AvroKind::kFloat; a.d = v; return a; }
AvroValue AvroValue::Double(double v) { AvroValue a; a.kind = AvroKind::kDouble; a.d = v; return a; }
AvroValue AvroValue::Bytes(std::string v) { AvroValue a; a.kind = AvroKind::kBytes; a.s = std::move(v); return a; }
AvroValue AvroValue::String(std::string v) { AvroValue a; a.kind = AvroKind::kString; a.s = std::move(v); return a; }
AvroValue AvroValue::Record() { AvroValue a; a.kind = AvroKind::kRecord; return a; }
AvroValue AvroValue::Array() { AvroValue a; a.kind = AvroKind::kArray; return a; }
AvroValue AvroValue::Map() { AvroValue a; a.kind = AvroKind::kMap; return a; }

AvroValue& AvroValue::Set(const std::string& name, AvroValue v) {
  for (size_t i = 0; i < names.size(); i++) {
    if (names[i] == name) {
      items[i] = std::move(v);
      return *this;
    }
  }
  names.push_back(name);
  items.push_back(std::move(v));
  return *this;
}

AvroValue& AvroValue::Append(AvroValue v) {
  items.push_back(std::move(v));
  return *this;
}

const AvroValue* AvroValue::Get(const std::string& name) const {
  for (size_t i = 0; i < names.size(); i++) {
    if (names[i] == name) return &items[i];
  }
  return nullptr;
}

}  // namespace sluice::iceberg
