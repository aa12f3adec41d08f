#include "format/avro_flat_record.h"

#include <charconv>
#include <cstring>

namespace sluice::format {

namespace {

avro_schema_t Resolved(avro_schema_t s) {
  while (s && avro_typeof(s) == AVRO_LINK) s = avro_schema_link_target(s);
  return s;
}

bool IsPrimitive(avro_type_t t) {
  switch (t) {
    case AVRO_NULL:
    case AVRO_BOOLEAN:
    case AVRO_INT32:
    case AVRO_INT64:
    case AVRO_FLOAT:
    case AVRO_DOUBLE:
    case AVRO_STRING:
    case AVRO_BYTES:
    case AVRO_FIXED:
    case AVRO_ENUM:
      return true;
    default:
      return false;
  }
}

// Avro's zig-zag varint, as BodyCheck::Long reads it (at most 10 bytes).
bool ReadLong(const uint8_t*& p, const uint8_t* end, int64_t& v) {
  uint64_t value = 0;
  for (int i = 0; i < 10; i++) {
    if (p == end) return false;
    const uint8_t b = *p++;
    value |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      v = static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
      return true;
    }
  }
  return false;
}

template <typename T>
size_t FormatNumber(char (&buf)[32], T v) {
  return static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf);
}

}  // namespace

std::optional<AvroFlatRecord> AvroFlatRecord::Plan(avro_schema_t record, const std::vector<int>& field_of_column,
                                                   const std::vector<bool>& json_text_columns) {
  record = Resolved(record);
  if (!record || avro_typeof(record) != AVRO_RECORD) return std::nullopt;
  AvroFlatRecord out;
  const size_t n = avro_schema_record_size(record);
  out.fields_.resize(n);
  out.values_.resize(n);
  for (size_t i = 0; i < n; i++) {
    avro_schema_t s = Resolved(avro_schema_record_field_get_by_index(record, static_cast<int>(i)));
    if (!s) return std::nullopt;
    Field& f = out.fields_[i];
    if (avro_typeof(s) == AVRO_UNION) {
      if (avro_schema_union_size(s) != 2) return std::nullopt;
      avro_schema_t a = Resolved(avro_schema_union_branch(s, 0)), b = Resolved(avro_schema_union_branch(s, 1));
      if (!a || !b || (avro_typeof(a) == AVRO_NULL) == (avro_typeof(b) == AVRO_NULL)) return std::nullopt;
      f.null_branch = avro_typeof(a) == AVRO_NULL ? 0 : 1;
      s = f.null_branch == 0 ? b : a;
    }
    if (!IsPrimitive(avro_typeof(s))) return std::nullopt;
    f.type = avro_typeof(s);
    f.schema = s;
  }
  for (size_t c = 0; c < field_of_column.size(); c++) {
    const int field = field_of_column[c];
    if (field < 0) continue;
    if (c < json_text_columns.size() && json_text_columns[c]) return std::nullopt;
    out.fields_[static_cast<size_t>(field)].columns.push_back(static_cast<uint32_t>(c));
  }
  return out;
}

bool AvroFlatRecord::Read(const uint8_t* p, const uint8_t* end, RowOrigin origin, TextBatch& out) {
  // First every field is read and checked; only a body that decodes whole touches the batch.
  for (size_t i = 0; i < fields_.size(); i++) {
    const Field& f = fields_[i];
    Value& v = values_[i];
    v.null = true;
    int64_t n = 0;
    if (f.null_branch >= 0) {
      if (!ReadLong(p, end, n) || (n != 0 && n != 1)) return false;
      if (n == f.null_branch) continue;
    }
    switch (f.type) {
      case AVRO_NULL:
        continue;
      case AVRO_BOOLEAN:
        if (p == end || *p > 1) return false;
        v.data = *p++ ? "true" : "false";
        v.size = std::strlen(v.data);
        break;
      case AVRO_INT32:
        if (!ReadLong(p, end, n) || n < INT32_MIN || n > INT32_MAX) return false;
        v.size = FormatNumber(v.number, static_cast<int32_t>(n));
        v.data = v.number;
        break;
      case AVRO_INT64:
        if (!ReadLong(p, end, n)) return false;
        v.size = FormatNumber(v.number, n);
        v.data = v.number;
        break;
      case AVRO_FLOAT: {
        if (end - p < 4) return false;
        float x;
        std::memcpy(&x, p, 4);  // Avro floats are little-endian, as this machine
        p += 4;
        v.size = FormatNumber(v.number, x);
        v.data = v.number;
        break;
      }
      case AVRO_DOUBLE: {
        if (end - p < 8) return false;
        double x;
        std::memcpy(&x, p, 8);
        p += 8;
        v.size = FormatNumber(v.number, x);
        v.data = v.number;
        break;
      }
      case AVRO_STRING:
      case AVRO_BYTES:
        if (!ReadLong(p, end, n) || n < 0 || n > end - p) return false;
        v.data = reinterpret_cast<const char*>(p);
        v.size = static_cast<size_t>(n);
        p += n;
        break;
      case AVRO_FIXED: {
        const int64_t size = avro_schema_fixed_size(f.schema);
        if (size < 0 || size > end - p) return false;
        v.data = reinterpret_cast<const char*>(p);
        v.size = static_cast<size_t>(size);
        p += size;
        break;
      }
      case AVRO_ENUM:
        if (!ReadLong(p, end, n) || n < 0 || n >= avro_schema_enum_number_of_symbols(f.schema)) return false;
        v.data = avro_schema_enum_get(f.schema, static_cast<int>(n));
        v.size = std::strlen(v.data);
        break;
      default:
        return false;
    }
    v.null = false;
  }
  if (p != end) return false;  // bytes left over: the general path names them
  out.BeginRow();
  for (size_t i = 0; i < fields_.size(); i++) {
    const Value& v = values_[i];
    if (v.null) continue;  // BeginRow left the columns NULL
    for (uint32_t column : fields_[i].columns) out.SetField(column, std::string_view(v.data, v.size));
  }
  out.FinishRow(origin);
  return true;
}

}  // namespace sluice::format
