#pragma once
// AvroSchemaNode and AvroValue: a small generic Avro model, enough for Iceberg's manifest and manifest-list files
// (records, unions with null, arrays, maps, bytes, fixed). Schema JSON text is kept as written so the attributes
// Iceberg needs ("field-id", "element-id", "logicalType": "map") reach the file untouched; this model only needs to
// know the shape to encode and decode values.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace sluice::iceberg {

enum class AvroKind { kNull, kBoolean, kInt, kLong, kFloat, kDouble, kBytes, kString, kRecord, kEnum, kArray, kMap,
                      kUnion, kFixed };

struct AvroSchemaNode;
using AvroSchemaPtr = std::shared_ptr<const AvroSchemaNode>;

struct AvroFieldNode {
  std::string name;
  AvroSchemaPtr type;
  int field_id = -1;  // Iceberg's "field-id", -1 when absent
};

struct AvroSchemaNode {
  AvroKind kind = AvroKind::kNull;
  std::string name;                    // records, enums, fixed
  std::vector<AvroFieldNode> fields;   // record
  std::vector<AvroSchemaPtr> branches; // union
  AvroSchemaPtr items;                 // array items, map values
  int fixed_size = 0;
  std::vector<std::string> symbols;    // enum
};

// Parses Avro schema JSON (named types may be referred to by name after their definition).
Result<AvroSchemaPtr> ParseAvroSchema(const std::string& json_text);

// A decoded or to-be-encoded datum. Records keep their field names (in schema order once decoded); maps keep their
// keys. A union holds the chosen branch's value directly: null, or the value of the one non-null branch.
struct AvroValue {
  AvroKind kind = AvroKind::kNull;
  bool b = false;
  int64_t l = 0;   // int, long, enum index
  double d = 0;    // float, double
  std::string s;   // bytes, string, fixed
  std::vector<std::string> names;  // record field names, map keys
  std::vector<AvroValue> items;    // record field values, array elements, map values

  static AvroValue Null() { return {}; }
  static AvroValue Bool(bool v);
  static AvroValue Int(int32_t v);
  static AvroValue Long(int64_t v);
  static AvroValue Float(float v);
  static AvroValue Double(double v);
  static AvroValue Bytes(std::string v);
  static AvroValue String(std::string v);
  static AvroValue Record();
  static AvroValue Array();
  static AvroValue Map();

  bool is_null() const { return kind == AvroKind::kNull; }
  // Record fields, map entries, array elements.
  AvroValue& Set(const std::string& name, AvroValue v);
  AvroValue& Append(AvroValue v);
  const AvroValue* Get(const std::string& name) const;  // nullptr when the record has no such field
  bool operator==(const AvroValue& o) const = default;
};

}  // namespace sluice::iceberg
