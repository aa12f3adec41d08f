#include "format/avro_decoder.h"

#include <avro.h>
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "format/avro_flat_record.h"
#include "format/json_path.h"
#include "format/quoted_bytes.h"
#include "format/rejected_row.h"

namespace sluice::format {

namespace {

constexpr std::string_view kWireFormat = "a 0x00 byte, a 4-byte schema id and the Avro body";

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

avro_schema_t Resolve(avro_schema_t s) {
  while (s && avro_typeof(s) == AVRO_LINK) s = avro_schema_link_target(s);
  return s;
}

// union {null, T} (either order): loaded as a nullable T.
bool IsNullableUnion(avro_schema_t s) {
  if (avro_schema_union_size(s) != 2) return false;
  avro_schema_t a = Resolve(avro_schema_union_branch(s, 0)), b = Resolve(avro_schema_union_branch(s, 1));
  return (avro_typeof(a) == AVRO_NULL) != (avro_typeof(b) == AVRO_NULL);
}

std::string_view TypeName(avro_schema_t s) {
  switch (avro_typeof(s)) {
    case AVRO_NULL: return "null";
    case AVRO_BOOLEAN: return "boolean";
    case AVRO_INT32: return "int";
    case AVRO_INT64: return "long";
    case AVRO_FLOAT: return "float";
    case AVRO_DOUBLE: return "double";
    case AVRO_BYTES: return "bytes";
    case AVRO_STRING: return "string";
    case AVRO_FIXED: return "fixed";
    case AVRO_ENUM: return "enum";
    case AVRO_RECORD: return "record";
    case AVRO_ARRAY: return "array";
    case AVRO_MAP: return "map";
    case AVRO_UNION: return "union";
    case AVRO_LINK: return "named type";
  }
  return "unknown type";
}

// Walks an Avro binary datum as its schema describes it, without building values, and checks that avro-c can read
// it safely: avro-c trusts lengths (a negative one corrupts its heap), counts (an array of a billion nulls loops a
// billion times) and depth (a recursive schema recurses once per byte).
class BodyCheck {
 public:
  BodyCheck(const uint8_t* p, const uint8_t* end) : begin_(p), p_(p), end_(end) {}

  // Empty when the body is one datum of `schema` with nothing left over; else what is wrong.
  std::string Check(avro_schema_t schema) {
    if (!Value(schema, 0)) return error_;
    if (p_ != end_) return fmt::format("{} bytes are left over after the datum", end_ - p_);
    return {};
  }

 private:
  bool Fail(std::string what) {
    error_ = fmt::format("{} at byte {} of the body", what, p_ - begin_);
    return false;
  }
  bool Long(int64_t& v) {
    uint64_t value = 0;
    for (int i = 0; i < 10; i++) {
      if (p_ == end_) return Fail("the body ends inside a number");
      uint8_t b = *p_++;
      value |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
      if (!(b & 0x80)) {
        v = static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
        return true;
      }
    }
    return Fail("a number is longer than 10 bytes");
  }
  bool Skip(int64_t n, std::string_view what) {
    if (n < 0) return Fail(fmt::format("the length of a {} is negative ({})", what, n));
    if (n > end_ - p_) return Fail(fmt::format("a {} of {} bytes runs past the end of the body", what, n));
    p_ += n;
    return true;
  }
  bool Value(avro_schema_t s, int depth) {
    if (depth > kMaxAvroDepth) return Fail(fmt::format("the datum nests deeper than {} levels", kMaxAvroDepth));
    s = Resolve(s);
    int64_t n = 0;
    switch (avro_typeof(s)) {
      case AVRO_NULL:
        return true;
      case AVRO_BOOLEAN:
        if (p_ == end_) return Fail("the body ends inside a boolean");
        if (*p_ > 1) return Fail(fmt::format("a boolean byte is 0x{:02x}, not 0 or 1", *p_));
        p_++;
        return true;
      case AVRO_INT32:
        if (!Long(n)) return false;
        if (n < INT32_MIN || n > INT32_MAX) return Fail(fmt::format("the int {} is out of range", n));
        return true;
      case AVRO_INT64:
        return Long(n);
      case AVRO_FLOAT:
        return Skip(4, "float");
      case AVRO_DOUBLE:
        return Skip(8, "double");
      case AVRO_STRING:
        return Long(n) && Skip(n, "string");
      case AVRO_BYTES:
        return Long(n) && Skip(n, "bytes value");
      case AVRO_FIXED:
        return Skip(avro_schema_fixed_size(s), "fixed value");
      case AVRO_ENUM:
        if (!Long(n)) return false;
        if (n < 0 || n >= avro_schema_enum_number_of_symbols(s))
          return Fail(fmt::format("enum index {} is not one of the {} symbols of {}", n,
                                  avro_schema_enum_number_of_symbols(s), avro_schema_name(s)));
        return true;
      case AVRO_RECORD: {
        size_t fields = avro_schema_record_size(s);
        for (size_t i = 0; i < fields; i++)
          if (!Value(avro_schema_record_field_get_by_index(s, static_cast<int>(i)), depth + 1)) return false;
        return true;
      }
      case AVRO_ARRAY:
      case AVRO_MAP: {
        const bool is_map = avro_typeof(s) == AVRO_MAP;
        avro_schema_t items = is_map ? avro_schema_map_values(s) : avro_schema_array_items(s);
        while (true) {
          int64_t count = 0;
          if (!Long(count)) return false;
          if (count == 0) return true;
          if (count < 0) {
            if (count == INT64_MIN) return Fail("a block count is out of range");
            count = -count;
            int64_t block_bytes = 0;
            if (!Long(block_bytes)) return false;
            if (block_bytes < 0) return Fail("a block's byte size is negative");
          }
          if (count > kMaxAvroElements - elements_)
            return Fail(fmt::format("the datum has more than {} array and map elements", kMaxAvroElements));
          elements_ += count;
          for (int64_t i = 0; i < count; i++) {
            if (is_map && !(Long(n) && Skip(n, "map key"))) return false;
            if (!Value(items, depth + 1)) return false;
          }
        }
      }
      case AVRO_UNION:
        if (!Long(n)) return false;
        if (n < 0 || n >= static_cast<int64_t>(avro_schema_union_size(s)))
          return Fail(fmt::format("union branch {} does not exist (the union has {})", n, avro_schema_union_size(s)));
        return Value(avro_schema_union_branch(s, static_cast<int>(n)), depth + 1);
      case AVRO_LINK:
        break;
    }
    return Fail("unexpected schema type");
  }

  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  int64_t elements_ = 0;
  std::string error_;
};

template <typename T>
void AppendNumber(std::string& out, T v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void AppendJsonString(std::string& out, std::string_view s, bool bytes) {
  static const char* kHex = "0123456789abcdef";
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || (bytes && c >= 0x7f)) {
      // Bytes are one character per byte (Avro's JSON encoding); strings keep their UTF-8.
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

// The JSON text of a value, appended to `out`.
void AppendJson(avro_value_t& v, std::string& out) {
  switch (avro_value_get_type(&v)) {
    case AVRO_NULL:
      out += "null";
      return;
    case AVRO_BOOLEAN: {
      int b = 0;
      avro_value_get_boolean(&v, &b);
      out += b ? "true" : "false";
      return;
    }
    case AVRO_INT32: {
      int32_t i = 0;
      avro_value_get_int(&v, &i);
      AppendNumber(out, i);
      return;
    }
    case AVRO_INT64: {
      int64_t l = 0;
      avro_value_get_long(&v, &l);
      AppendNumber(out, l);
      return;
    }
    case AVRO_FLOAT: {
      float f = 0;
      avro_value_get_float(&v, &f);
      if (std::isfinite(f)) AppendNumber(out, f);
      else out += "null";
      return;
    }
    case AVRO_DOUBLE: {
      double d = 0;
      avro_value_get_double(&v, &d);
      if (std::isfinite(d)) AppendNumber(out, d);
      else out += "null";
      return;
    }
    case AVRO_STRING: {
      const char* s = nullptr;
      size_t size = 0;
      avro_value_get_string(&v, &s, &size);
      AppendJsonString(out, std::string_view(s, size ? size - 1 : 0), false);  // size counts the NUL
      return;
    }
    case AVRO_BYTES: {
      const void* b = nullptr;
      size_t size = 0;
      avro_value_get_bytes(&v, &b, &size);
      AppendJsonString(out, std::string_view(static_cast<const char*>(b), size), true);
      return;
    }
    case AVRO_FIXED: {
      const void* b = nullptr;
      size_t size = 0;
      avro_value_get_fixed(&v, &b, &size);
      AppendJsonString(out, std::string_view(static_cast<const char*>(b), size), true);
      return;
    }
    case AVRO_ENUM: {
      int i = 0;
      avro_value_get_enum(&v, &i);
      AppendJsonString(out, avro_schema_enum_get(avro_value_get_schema(&v), i), false);
      return;
    }
    case AVRO_RECORD:
    case AVRO_MAP: {
      size_t n = 0;
      avro_value_get_size(&v, &n);
      out += '{';
      for (size_t i = 0; i < n; i++) {
        avro_value_t child;
        const char* name = nullptr;
        avro_value_get_by_index(&v, i, &child, &name);
        if (i) out += ',';
        AppendJsonString(out, name ? name : "", false);
        out += ':';
        AppendJson(child, out);
      }
      out += '}';
      return;
    }
    case AVRO_ARRAY: {
      size_t n = 0;
      avro_value_get_size(&v, &n);
      out += '[';
      for (size_t i = 0; i < n; i++) {
        avro_value_t child;
        avro_value_get_by_index(&v, i, &child, nullptr);
        if (i) out += ',';
        AppendJson(child, out);
      }
      out += ']';
      return;
    }
    case AVRO_UNION: {
      avro_value_t branch;
      avro_value_get_current_branch(&v, &branch);
      AppendJson(branch, out);
      return;
    }
    case AVRO_LINK:
      break;
  }
  out += "null";
}

// One schema id, as this decoder knows it.
struct SchemaEntry {
  avro_schema_t schema = nullptr;
  avro_value_iface_t* iface = nullptr;
  avro_value_t value{};
  bool has_value = false;
  std::string error;                  // non-empty: messages with this id are error rows with this reason
  std::vector<int> field_of_column;   // without jsonpaths: the record's field index for each column, -1 for none
  std::optional<AvroFlatRecord> flat;  // a record of primitive fields: read without avro-c (avro_flat_record.h)

  SchemaEntry() = default;
  SchemaEntry(const SchemaEntry&) = delete;
  SchemaEntry& operator=(const SchemaEntry&) = delete;
  ~SchemaEntry() {
    if (has_value) avro_value_decref(&value);
    if (iface) avro_value_iface_decref(iface);
    if (schema) avro_schema_decref(schema);
  }
};

}  // namespace

class AvroDecoder::Impl {
 public:
  Impl(AvroOptions options, std::vector<JsonPath> paths) : options_(std::move(options)), paths_(std::move(paths)) {
    static const char kEmpty[1] = {0};
    reader_ = avro_reader_memory(kEmpty, 0);
  }
  ~Impl() {
    entries_.clear();
    if (reader_) avro_reader_free(reader_);
  }

  Status Decode(std::string_view message, RowOrigin origin, TextBatch& out) {
    if (message.size() < 5 || message[0] != 0) {
      std::string reason = message.size() < 5
                               ? fmt::format("not in the Confluent wire format ({}): the message has only {} byte{}",
                                             kWireFormat, message.size(), message.size() == 1 ? "" : "s")
                               : fmt::format("not in the Confluent wire format ({}): the first byte is 0x{:02x}",
                                             kWireFormat, static_cast<unsigned char>(message[0]));
      AddRejectedRow(out, origin, std::move(reason), message, /*fatal=*/true);
      return Status::Ok();
    }
    const auto* bytes = reinterpret_cast<const uint8_t*>(message.data());
    const int32_t id = static_cast<int32_t>((uint32_t{bytes[1]} << 24) | (uint32_t{bytes[2]} << 16) |
                                            (uint32_t{bytes[3]} << 8) | uint32_t{bytes[4]});
    SchemaEntry* entry = nullptr;
    if (auto it = entries_.find(id); it != entries_.end()) {
      entry = it->second.get();
    } else {
      Result<std::string> schema = options_.schema_lookup(id);
      if (!schema.ok() && schema.status().code() != StatusCode::kNotFound &&
          schema.status().code() != StatusCode::kNotSupported)
        return schema.status();
      auto made = std::make_unique<SchemaEntry>();
      if (!schema.ok()) made->error = schema.status().message();
      else Prepare(id, *schema, *made);
      entry = made.get();
      entries_.emplace(id, std::move(made));
    }
    if (!entry->error.empty()) {
      AddRejectedRow(out, origin, entry->error, message, /*fatal=*/true);
      return Status::Ok();
    }

    // The common shape in one pass; a body it does not take goes the general way, which says what is wrong.
    if (entry->flat && entry->flat->Read(bytes + 5, bytes + message.size(), origin, out)) return Status::Ok();
    const std::string_view body = message.substr(5);
    std::string problem = BodyCheck(bytes + 5, bytes + message.size()).Check(entry->schema);
    if (problem.empty()) {
      avro_reader_memory_set_source(reader_, body.data(), static_cast<int64_t>(body.size()));
      // avro-c keeps its last error message in one buffer for the whole process (Debian builds it without
      // THREADSAFE), so it is not read here, where tasks decode in parallel. The walk above leaves avro-c
      // nothing to refuse; this is a backstop.
      if (avro_value_read(reader_, &entry->value) != 0) problem = "avro-c could not read it";
    }
    if (!problem.empty()) {
      AddRejectedRow(out, origin, fmt::format("the Avro body (schema id {}) does not decode: {}", id, problem), message,
                     /*fatal=*/true);
      return Status::Ok();
    }

    out.BeginRow();
    for (size_t c = 0; c < options_.columns.size(); c++) {
      avro_value_t v;
      bool found = false;
      if (paths_.empty()) {
        int field = entry->field_of_column[c];
        found = field >= 0 && avro_value_get_by_index(&entry->value, static_cast<size_t>(field), &v, nullptr) == 0;
      } else {
        found = Walk(entry->value, paths_[c], v);
      }
      if (found) SetValue(v, c, out);
    }
    out.FinishRow(origin);
    return Status::Ok();
  }

  const AvroOptions& options() const { return options_; }

 private:
  void Prepare(int32_t id, const std::string& json, SchemaEntry& e) {
    // Schemas are parsed once per id and task; the lock keeps avro-c's process-wide error buffer (see Decode)
    // consistent between a failure and the message read from it.
    static std::mutex avro_errors;
    std::lock_guard<std::mutex> lock(avro_errors);
    if (avro_schema_from_json_length(json.data(), json.size(), &e.schema) != 0) {
      e.schema = nullptr;
      e.error = fmt::format("schema id {} from the registry is not a valid Avro schema: {}", id, avro_strerror());
      return;
    }
    e.iface = avro_generic_class_from_schema(e.schema);
    if (!e.iface || avro_generic_value_new(e.iface, &e.value) != 0) {
      e.error = fmt::format("schema id {}: avro-c cannot build values of it: {}", id, avro_strerror());
      return;
    }
    e.has_value = true;
    if (!paths_.empty()) return;
    avro_schema_t top = Resolve(e.schema);
    if (avro_typeof(top) != AVRO_RECORD) {
      e.error = fmt::format(
          "schema id {} is a {}, not a record; without jsonpaths the columns are filled from a record's fields by "
          "name (jsonpaths [\"$\"] loads the whole value)",
          id, TypeName(top));
      return;
    }
    const size_t fields = avro_schema_record_size(top);
    for (const std::string& column : options_.columns) {
      int exact = -1, folded = -1;
      for (size_t i = 0; i < fields && exact < 0; i++) {
        std::string_view name = avro_schema_record_field_name(top, static_cast<int>(i));
        if (name == column) exact = static_cast<int>(i);
        else if (folded < 0 && EqualsIgnoreCase(name, column)) folded = static_cast<int>(i);
      }
      e.field_of_column.push_back(exact >= 0 ? exact : folded);
    }
    e.flat = AvroFlatRecord::Plan(top, e.field_of_column, options_.json_text_columns);
  }

  static bool Walk(avro_value_t v, const JsonPath& path, avro_value_t& out) {
    for (const JsonPathStep& step : path.steps) {
      while (avro_value_get_type(&v) == AVRO_UNION) {
        avro_value_t branch;
        if (avro_value_get_current_branch(&v, &branch) != 0) return false;
        v = branch;
      }
      avro_type_t type = avro_value_get_type(&v);
      avro_value_t child;
      if (step.kind == JsonPathStep::Kind::kKey) {
        if (type != AVRO_RECORD && type != AVRO_MAP) return false;
        if (avro_value_get_by_name(&v, step.key.c_str(), &child, nullptr) != 0) return false;
      } else {
        size_t n = 0;
        if (type != AVRO_ARRAY || avro_value_get_size(&v, &n) != 0 || step.index >= n) return false;
        if (avro_value_get_by_index(&v, step.index, &child, nullptr) != 0) return false;
      }
      v = child;
    }
    out = v;
    return true;
  }

  void SetValue(avro_value_t& v, size_t column, TextBatch& out) {
    scratch_.clear();
    const avro_type_t type = avro_value_get_type(&v);
    if (column < options_.json_text_columns.size() && options_.json_text_columns[column] && type != AVRO_NULL &&
        type != AVRO_UNION) {
      AppendJson(v, scratch_);
      out.SetField(column, scratch_);
      return;
    }
    switch (type) {
      case AVRO_NULL:
        return;  // BeginRow left it NULL
      case AVRO_UNION: {
        avro_value_t branch;
        if (avro_value_get_current_branch(&v, &branch) != 0) return;
        if (avro_value_get_type(&branch) == AVRO_NULL) return;
        if (IsNullableUnion(avro_value_get_schema(&v))) return SetValue(branch, column, out);
        AppendJson(branch, scratch_);
        break;
      }
      case AVRO_BOOLEAN: {
        int b = 0;
        avro_value_get_boolean(&v, &b);
        out.SetField(column, b ? "true" : "false");
        return;
      }
      case AVRO_INT32: {
        int32_t i = 0;
        avro_value_get_int(&v, &i);
        AppendNumber(scratch_, i);
        break;
      }
      case AVRO_INT64: {
        int64_t l = 0;
        avro_value_get_long(&v, &l);
        AppendNumber(scratch_, l);
        break;
      }
      case AVRO_FLOAT: {
        float f = 0;
        avro_value_get_float(&v, &f);
        AppendNumber(scratch_, f);
        break;
      }
      case AVRO_DOUBLE: {
        double d = 0;
        avro_value_get_double(&v, &d);
        AppendNumber(scratch_, d);
        break;
      }
      case AVRO_STRING: {
        const char* s = nullptr;
        size_t size = 0;
        avro_value_get_string(&v, &s, &size);
        out.SetField(column, std::string_view(s, size ? size - 1 : 0));
        return;
      }
      case AVRO_BYTES: {
        const void* b = nullptr;
        size_t size = 0;
        avro_value_get_bytes(&v, &b, &size);
        out.SetField(column, std::string_view(static_cast<const char*>(b), size));
        return;
      }
      case AVRO_FIXED: {
        const void* b = nullptr;
        size_t size = 0;
        avro_value_get_fixed(&v, &b, &size);
        out.SetField(column, std::string_view(static_cast<const char*>(b), size));
        return;
      }
      case AVRO_ENUM: {
        int i = 0;
        avro_value_get_enum(&v, &i);
        out.SetField(column, avro_schema_enum_get(avro_value_get_schema(&v), i));
        return;
      }
      default:
        AppendJson(v, scratch_);
        break;
    }
    out.SetField(column, scratch_);
  }

  AvroOptions options_;
  std::vector<JsonPath> paths_;
  avro_reader_t reader_ = nullptr;
  std::unordered_map<int32_t, std::unique_ptr<SchemaEntry>> entries_;
  std::string scratch_;
};

Result<AvroDecoder> AvroDecoder::Create(AvroOptions options) {
  if (options.columns.empty()) return Status::InvalidArgument("an Avro source needs at least one column");
  if (!options.schema_lookup) return Status::InvalidArgument("an Avro source needs a schema registry");
  std::unordered_set<std::string_view> seen;
  for (const std::string& column : options.columns)
    if (!seen.insert(column).second)
      return Status::InvalidArgument(fmt::format("column {} is listed twice", QuoteBytes(column)));
  std::vector<JsonPath> paths;
  if (!options.jsonpaths.empty()) {
    if (options.jsonpaths.size() != options.columns.size()) {
      return Status::InvalidArgument(fmt::format(
          "jsonpaths has {} path{} but there {} {} column{}; give one path per column, in the order of COLUMNS",
          options.jsonpaths.size(), options.jsonpaths.size() == 1 ? "" : "s",
          options.columns.size() == 1 ? "is" : "are", options.columns.size(), options.columns.size() == 1 ? "" : "s"));
    }
    for (const std::string& text : options.jsonpaths) {
      Result<JsonPath> path = ParseJsonPath(text);
      if (!path.ok()) return Status::InvalidArgument("jsonpaths: " + path.status().message());
      paths.push_back(std::move(*path));
    }
  }
  return AvroDecoder(std::make_unique<Impl>(std::move(options), std::move(paths)));
}

AvroDecoder::AvroDecoder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AvroDecoder::AvroDecoder(AvroDecoder&&) noexcept = default;
AvroDecoder& AvroDecoder::operator=(AvroDecoder&&) noexcept = default;
AvroDecoder::~AvroDecoder() = default;

Status AvroDecoder::Decode(std::string_view message, RowOrigin origin, TextBatch& out) {
  return impl_->Decode(message, origin, out);
}

const AvroOptions& AvroDecoder::options() const { return impl_->options(); }

}  // namespace sluice::format
