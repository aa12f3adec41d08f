#pragma once
// Avro's binary encoding (Avro 1.11 specification, "Binary Encoding"): zig-zag varints for int and long,
// little-endian IEEE floats, length-prefixed bytes and strings, blocks of array and map items ended by a zero
// count, unions as the branch index then the value. AvroEncoder / AvroDecoder are the primitives; EncodeAvro and
// DecodeAvro walk a schema.
#include <cstdint>
#include <string>

#include "common/status.h"
#include "iceberg/avro_value.h"

namespace sluice::iceberg {

class AvroEncoder {
 public:
  void WriteLong(int64_t v);
  void WriteInt(int32_t v) { WriteLong(v); }
  void WriteBool(bool v) { out_.push_back(v ? '\x01' : '\x00'); }
  void WriteFloat(float v);
  void WriteDouble(double v);
  void WriteBytes(const std::string& v);  // also strings
  void WriteFixed(const std::string& v) { out_ += v; }
  std::string& buffer() { return out_; }

 private:
  std::string out_;
};

class AvroDecoder {
 public:
  AvroDecoder(const std::string& data, size_t pos = 0) : data_(data), pos_(pos) {}
  Result<int64_t> ReadLong();
  Result<bool> ReadBool();
  Result<float> ReadFloat();
  Result<double> ReadDouble();
  Result<std::string> ReadBytes();
  Result<std::string> ReadFixed(size_t n);
  size_t pos() const { return pos_; }
  bool at_end() const { return pos_ >= data_.size(); }
  size_t remaining() const { return pos_ < data_.size() ? data_.size() - pos_ : 0; }

 private:
  Status Truncated() const;
  const std::string& data_;
  size_t pos_;
};

// Encodes `value` as `schema` says. A record field missing from the value is written as null (its schema must allow
// null); a union takes its null branch for a null value and its first other matching branch otherwise.
Status EncodeAvro(const AvroSchemaNode& schema, const AvroValue& value, AvroEncoder* out);
Result<AvroValue> DecodeAvro(const AvroSchemaNode& schema, AvroDecoder* in);

}  // namespace sluice::iceberg
