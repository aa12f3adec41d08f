#include "iceberg/avro_encoding.h"

#include <fmt/format.h>

#include <cstring>

namespace sluice::iceberg {
namespace {

const char* KindName(AvroKind k) {
  switch (k) {
    case AvroKind::kNull: return "null";
    case AvroKind::kBoolean: return "boolean";
    case AvroKind::kInt: return "int";
    case AvroKind::kLong: return "long";
    case AvroKind::kFloat: return "float";
    case AvroKind::kDouble: return "double";
    case AvroKind::kBytes: return "bytes";
    case AvroKind::kString: return "string";
    case AvroKind::kRecord: return "record";
    case AvroKind::kEnum: return "enum";
    case AvroKind::kArray: return "array";
    case AvroKind::kMap: return "map";
    case AvroKind::kUnion: return "union";
    case AvroKind::kFixed: return "fixed";
  }
  return "?";
}

// Whether a value of kind `v` may be written as schema kind `s` (ints widen, bytes/string/fixed share storage).
bool Fits(AvroKind s, AvroKind v) {
  if (s == v) return true;
  if (s == AvroKind::kLong && v == AvroKind::kInt) return true;
  if ((s == AvroKind::kDouble || s == AvroKind::kFloat) && (v == AvroKind::kFloat || v == AvroKind::kDouble)) return true;
  if ((s == AvroKind::kBytes || s == AvroKind::kFixed || s == AvroKind::kString) &&
      (v == AvroKind::kBytes || v == AvroKind::kString)) {
    return true;
  }
  if (s == AvroKind::kEnum && v == AvroKind::kInt) return true;
  return false;
}

Status Mismatch(const AvroSchemaNode& schema, const AvroValue& value) {
  return Status::Internal(fmt::format("an Avro {} value does not fit schema type {}{}", KindName(value.kind),
                                      KindName(schema.kind), schema.name.empty() ? "" : " " + schema.name));
}

}  // namespace

void AvroEncoder::WriteLong(int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out_.push_back(static_cast<char>((z & 0x7f) | 0x80));
    z >>= 7;
  }
  out_.push_back(static_cast<char>(z));
}

void AvroEncoder::WriteFloat(float v) {
  char b[4];
  std::memcpy(b, &v, 4);
  out_.append(b, 4);
}

void AvroEncoder::WriteDouble(double v) {
  char b[8];
  std::memcpy(b, &v, 8);
  out_.append(b, 8);
}

void AvroEncoder::WriteBytes(const std::string& v) {
  WriteLong(static_cast<int64_t>(v.size()));
  out_ += v;
}

Status AvroDecoder::Truncated() const {
  return Status::InvalidArgument(fmt::format("the Avro data ends early (at byte {} of {})", pos_, data_.size()));
}

Result<int64_t> AvroDecoder::ReadLong() {
  uint64_t z = 0;
  int shift = 0;
  while (true) {
    if (pos_ >= data_.size()) return Truncated();
    uint8_t b = static_cast<uint8_t>(data_[pos_++]);
    if (shift >= 64) return Status::InvalidArgument("an Avro varint is longer than 10 bytes");
    z |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
    shift += 7;
  }
  return static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
}

Result<bool> AvroDecoder::ReadBool() {
  if (pos_ >= data_.size()) return Truncated();
  return data_[pos_++] != 0;
}

Result<float> AvroDecoder::ReadFloat() {
  if (pos_ + 4 > data_.size()) return Truncated();
  float v;
  std::memcpy(&v, data_.data() + pos_, 4);
  pos_ += 4;
  return v;
}

Result<double> AvroDecoder::ReadDouble() {
  if (pos_ + 8 > data_.size()) return Truncated();
  double v;
  std::memcpy(&v, data_.data() + pos_, 8);
  pos_ += 8;
  return v;
}

Result<std::string> AvroDecoder::ReadBytes() {
  ASSIGN_OR_RETURN(int64_t n, ReadLong());
  if (n < 0) return Status::InvalidArgument(fmt::format("an Avro string or bytes has a negative length {}", n));
  return ReadFixed(static_cast<size_t>(n));
}

Result<std::string> AvroDecoder::ReadFixed(size_t n) {
  if (n > data_.size() - std::min(pos_, data_.size())) return Truncated();
  std::string out = data_.substr(pos_, n);
  pos_ += n;
  return out;
}

Status EncodeAvro(const AvroSchemaNode& schema, const AvroValue& value, AvroEncoder* out) {
  if (schema.kind == AvroKind::kUnion) {
    for (size_t i = 0; i < schema.branches.size(); i++) {
      const AvroSchemaNode& branch = *schema.branches[i];
      bool match = value.is_null() ? branch.kind == AvroKind::kNull
                                   : branch.kind != AvroKind::kNull && Fits(branch.kind, value.kind);
      if (match) {
        out->WriteLong(static_cast<int64_t>(i));
        return EncodeAvro(branch, value, out);
      }
    }
    return Mismatch(schema, value);
  }
  if (!Fits(schema.kind, value.kind)) return Mismatch(schema, value);
  switch (schema.kind) {
    case AvroKind::kNull: return Status::Ok();
    case AvroKind::kBoolean: out->WriteBool(value.b); return Status::Ok();
    case AvroKind::kInt:
    case AvroKind::kLong:
    case AvroKind::kEnum: out->WriteLong(value.l); return Status::Ok();
    case AvroKind::kFloat: out->WriteFloat(static_cast<float>(value.d)); return Status::Ok();
    case AvroKind::kDouble: out->WriteDouble(value.d); return Status::Ok();
    case AvroKind::kBytes:
    case AvroKind::kString: out->WriteBytes(value.s); return Status::Ok();
    case AvroKind::kFixed:
      if (static_cast<int>(value.s.size()) != schema.fixed_size) {
        return Status::Internal(fmt::format("Avro fixed {} takes {} bytes, not {}", schema.name, schema.fixed_size,
                                            value.s.size()));
      }
      out->WriteFixed(value.s);
      return Status::Ok();
    case AvroKind::kRecord: {
      static const AvroValue kNull;
      for (const auto& f : schema.fields) {
        const AvroValue* v = value.Get(f.name);
        Status st = EncodeAvro(*f.type, v ? *v : kNull, out);
        if (!st.ok()) return Status::Internal(fmt::format("field {}.{}: {}", schema.name, f.name, st.message()));
      }
      return Status::Ok();
    }
    case AvroKind::kArray:
    case AvroKind::kMap:
      // One block holding every item, then the empty block that ends the list.
      if (!value.items.empty()) {
        out->WriteLong(static_cast<int64_t>(value.items.size()));
        for (size_t i = 0; i < value.items.size(); i++) {
          if (schema.kind == AvroKind::kMap) out->WriteBytes(value.names[i]);
          RETURN_IF_ERROR(EncodeAvro(*schema.items, value.items[i], out));
        }
      }
      out->WriteLong(0);
      return Status::Ok();
    case AvroKind::kUnion: break;
  }
  return Mismatch(schema, value);
}

Result<AvroValue> DecodeAvro(const AvroSchemaNode& schema, AvroDecoder* in) {
  switch (schema.kind) {
    case AvroKind::kNull: return AvroValue::Null();
    case AvroKind::kBoolean: {
      ASSIGN_OR_RETURN(bool b, in->ReadBool());
      return AvroValue::Bool(b);
    }
    case AvroKind::kInt: {
      ASSIGN_OR_RETURN(int64_t v, in->ReadLong());
      return AvroValue::Int(static_cast<int32_t>(v));
    }
    case AvroKind::kLong: {
      ASSIGN_OR_RETURN(int64_t v, in->ReadLong());
      return AvroValue::Long(v);
    }
    case AvroKind::kEnum: {
      ASSIGN_OR_RETURN(int64_t v, in->ReadLong());
      AvroValue a = AvroValue::Int(static_cast<int32_t>(v));
      a.kind = AvroKind::kEnum;
      return a;
    }
    case AvroKind::kFloat: {
      ASSIGN_OR_RETURN(float v, in->ReadFloat());
      return AvroValue::Float(v);
    }
    case AvroKind::kDouble: {
      ASSIGN_OR_RETURN(double v, in->ReadDouble());
      return AvroValue::Double(v);
    }
    case AvroKind::kBytes: {
      ASSIGN_OR_RETURN(std::string v, in->ReadBytes());
      return AvroValue::Bytes(std::move(v));
    }
    case AvroKind::kString: {
      ASSIGN_OR_RETURN(std::string v, in->ReadBytes());
      return AvroValue::String(std::move(v));
    }
    case AvroKind::kFixed: {
      ASSIGN_OR_RETURN(std::string v, in->ReadFixed(static_cast<size_t>(schema.fixed_size)));
      AvroValue a = AvroValue::Bytes(std::move(v));
      a.kind = AvroKind::kFixed;
      return a;
    }
    case AvroKind::kUnion: {
      ASSIGN_OR_RETURN(int64_t branch, in->ReadLong());
      if (branch < 0 || branch >= static_cast<int64_t>(schema.branches.size())) {
        return Status::InvalidArgument(fmt::format("an Avro union branch {} does not exist (the union has {})",
                                                   branch, schema.branches.size()));
      }
      return DecodeAvro(*schema.branches[static_cast<size_t>(branch)], in);
    }
    case AvroKind::kRecord: {
      AvroValue rec = AvroValue::Record();
      for (const auto& f : schema.fields) {
        ASSIGN_OR_RETURN(AvroValue v, DecodeAvro(*f.type, in));
        rec.names.push_back(f.name);
        rec.items.push_back(std::move(v));
      }
      return rec;
    }
    case AvroKind::kArray:
    case AvroKind::kMap: {
      AvroValue list = schema.kind == AvroKind::kArray ? AvroValue::Array() : AvroValue::Map();
      while (true) {
        ASSIGN_OR_RETURN(int64_t count, in->ReadLong());
        if (count == 0) break;
        if (count < 0) {  // a negative count is followed by the block's size in bytes
          count = -count;
          ASSIGN_OR_RETURN(int64_t ignored_size, in->ReadLong());
          (void)ignored_size;
        }
        // Every item Iceberg stores takes at least a byte: a count beyond the bytes left is a corrupt file, not a
        // reason to allocate billions of values.
        if (static_cast<uint64_t>(count) > in->remaining()) {
          return Status::InvalidArgument(fmt::format("an Avro array or map claims {} items in {} bytes", count,
                                                     in->remaining()));
        }
        for (int64_t i = 0; i < count; i++) {
          if (in->at_end()) return Status::InvalidArgument("an Avro array or map ends early");
          if (schema.kind == AvroKind::kMap) {
            ASSIGN_OR_RETURN(std::string key, in->ReadBytes());
            list.names.push_back(std::move(key));
          }
          ASSIGN_OR_RETURN(AvroValue v, DecodeAvro(*schema.items, in));
          list.items.push_back(std::move(v));
        }
      }
      return list;
    }
  }
  return Status::Internal("unknown Avro kind");
}

}  // namespace sluice::iceberg
