#pragma once
// How Iceberg values travel in Avro (table spec, "Avro" type mapping): the Avro schema JSON of a primitive Iceberg
// type, and Value <-> AvroValue. Used for partition tuples in manifests.
#include <string>

#include "common/status.h"
#include "iceberg/avro_value.h"
#include "iceberg/value.h"

namespace sluice::iceberg {

// `unique_name` names fixed types (decimal, uuid, fixed), which Avro requires to be unique in a file.
std::string AvroTypeJson(const Type& type, const std::string& unique_name);
Result<AvroValue> ValueToAvro(const Value& value);
Result<Value> AvroToValue(const Type& type, const AvroValue& avro);
// Avro names allow [A-Za-z_][A-Za-z0-9_]*; other characters become _x<hex>, as Iceberg's Java writer does.
std::string AvroCompatibleName(const std::string& name);

}  // namespace sluice::iceberg
