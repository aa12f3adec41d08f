#include "iceberg/avro_iceberg_types.h"

#include <fmt/format.h>

#include <cctype>

#include "iceberg/single_value.h"

namespace sluice::iceberg {
namespace {

int DecimalBytesFor(int precision) {
  // The fewest bytes whose signed range holds 10^precision - 1.
  for (int n = 1; n <= 16; n++) {
    long double max = 1;
    for (int i = 0; i < 8 * n - 1; i++) max *= 2;
    long double need = 1;
    for (int i = 0; i < precision; i++) need *= 10;
    if (max >= need) return n;
  }
  return 16;
}

}  // namespace

std::string AvroCompatibleName(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); i++) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    bool letter = std::isalpha(c) || c == '_';
    bool ok = i == 0 ? letter : (letter || std::isdigit(c));
    if (ok) {
      out.push_back(static_cast<char>(c));
    } else if (i == 0 && std::isdigit(c)) {
      out += "_" + std::string(1, static_cast<char>(c));
    } else {
      out += fmt::format("_x{:X}", c);
    }
  }
  return out.empty() ? "_" : out;
}

std::string AvroTypeJson(const Type& type, const std::string& unique_name) {
  switch (type.id) {
    case TypeId::kBoolean: return "\"boolean\"";
    case TypeId::kInt: return "\"int\"";
    case TypeId::kLong: return "\"long\"";
    case TypeId::kFloat: return "\"float\"";
    case TypeId::kDouble: return "\"double\"";
    case TypeId::kDate: return R"({"type":"int","logicalType":"date"})";
    case TypeId::kTime: return R"({"type":"long","logicalType":"time-micros"})";
    case TypeId::kTimestamp: return R"({"type":"long","logicalType":"timestamp-micros","adjust-to-utc":false})";
    case TypeId::kTimestampTz: return R"({"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true})";
    case TypeId::kString: return "\"string\"";
    case TypeId::kBinary: return "\"bytes\"";
    case TypeId::kUuid: return fmt::format(R"({{"type":"fixed","name":"{}","size":16,"logicalType":"uuid"}})", unique_name);
    case TypeId::kFixed: return fmt::format(R"({{"type":"fixed","name":"{}","size":{}}})", unique_name, type.length);
    case TypeId::kDecimal:
      return fmt::format(R"({{"type":"fixed","name":"{}","size":{},"logicalType":"decimal","precision":{},"scale":{}}})",
                         unique_name, DecimalBytesFor(type.precision), type.precision, type.scale);
  }
  return "\"string\"";
}

Result<AvroValue> ValueToAvro(const Value& value) {
  if (value.is_null()) return AvroValue::Null();
  switch (value.type.id) {
    case TypeId::kBoolean: return AvroValue::Bool(std::get<bool>(value.v));
    case TypeId::kInt:
    case TypeId::kDate: return AvroValue::Int(std::get<int32_t>(value.v));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: return AvroValue::Long(std::get<int64_t>(value.v));
    case TypeId::kFloat: return AvroValue::Float(std::get<float>(value.v));
    case TypeId::kDouble: return AvroValue::Double(std::get<double>(value.v));
    case TypeId::kString: return AvroValue::String(std::get<std::string>(value.v));
    case TypeId::kBinary:
    case TypeId::kUuid:
    case TypeId::kFixed: return AvroValue::Bytes(std::get<std::string>(value.v));
    case TypeId::kDecimal: {
      ASSIGN_OR_RETURN(std::string minimal, EncodeSingleValue(value));
      size_t size = static_cast<size_t>(DecimalBytesFor(value.type.precision));
      char pad = (static_cast<unsigned char>(minimal[0]) & 0x80) ? '\xff' : '\x00';
      if (minimal.size() < size) minimal.insert(0, size - minimal.size(), pad);
      return AvroValue::Bytes(minimal);
    }
  }
  return Status::Internal("unknown Iceberg type");
}

Result<Value> AvroToValue(const Type& type, const AvroValue& avro) {
  if (avro.is_null()) return Value::Null(type);
  Value out{type, std::monostate{}};
  switch (type.id) {
    case TypeId::kBoolean: out.v = avro.b; return out;
    case TypeId::kInt:
    case TypeId::kDate: out.v = static_cast<int32_t>(avro.l); return out;
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: out.v = avro.l; return out;
    case TypeId::kFloat: out.v = static_cast<float>(avro.d); return out;
    case TypeId::kDouble: out.v = avro.d; return out;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid:
    case TypeId::kFixed: out.v = avro.s; return out;
    case TypeId::kDecimal: return DecodeSingleValue(type, avro.s);
  }
  return Status::Internal("unknown Iceberg type");
}

}  // namespace sluice::iceberg
