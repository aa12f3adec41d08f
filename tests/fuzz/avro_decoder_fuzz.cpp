// libFuzzer target for format::AvroDecoder. The first byte of the input picks the schema id (of a fixed set that
// covers every Avro type, a recursive record and a non-record) and whether columns are matched by name or through
// jsonpaths; the rest is the message body, framed with that id (so most inputs reach the body walk and avro-c).
// Checks, besides "no crash, no hang, no sanitizer report": rejected rows keep at most kMaxRejectedRawBytes, and
// a reused decoder gives the same answer twice (its per-id avro-c values are recycled between messages).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "format/avro_decoder.h"
#include "format/rejected_row.h"

namespace {

using sluice::Result;
using sluice::RowOrigin;
using sluice::Status;
using sluice::TextBatch;
using sluice::format::AvroDecoder;
using sluice::format::AvroOptions;

const char* const kSchemas[] = {
    R"({"type": "record", "name": "all", "fields": [
      {"name": "a", "type": "null"}, {"name": "b", "type": "boolean"}, {"name": "c", "type": "int"},
      {"name": "d", "type": "long"}, {"name": "e", "type": "float"}, {"name": "f", "type": "double"},
      {"name": "g", "type": "bytes"}, {"name": "h", "type": "string"},
      {"name": "i", "type": {"type": "fixed", "name": "f4", "size": 4}},
      {"name": "j", "type": {"type": "enum", "name": "e3", "symbols": ["X", "Y", "Z"]}},
      {"name": "k", "type": {"type": "array", "items": ["null", "string", "f4"]}},
      {"name": "l", "type": {"type": "map", "values": {"type": "array", "items": "null"}}},
      {"name": "m", "type": ["null", {"type": "record", "name": "in", "fields": [{"name": "x", "type": "e3"}]}]}]})",
    R"({"type": "record", "name": "Node", "fields": [
      {"name": "v", "type": "long"}, {"name": "next", "type": ["null", "Node"]},
      {"name": "kids", "type": {"type": "array", "items": "Node"}}]})",
    R"({"type": "array", "items": {"type": "map", "values": "double"}})",
};

AvroDecoder Make(bool paths) {
  AvroOptions o;
  o.columns = {"a", "B", "k", "l", "m", "v", "next"};
  if (paths) o.jsonpaths = {"$", "$.m.x", "$.k[1]", "$.l.q[0]", "$.next.next.v", "$[0].z", "$.kids[2].v"};
  o.schema_lookup = [](int32_t id) -> Result<std::string> {
    if (id >= 0 && id < static_cast<int32_t>(std::size(kSchemas))) return std::string(kSchemas[id]);
    if (id == 7) return Status::Unavailable("down");
    return Status::NotFound("unknown id");
  };
  auto decoder = AvroDecoder::Create(std::move(o));
  if (!decoder.ok()) std::abort();
  return std::move(decoder).value();
}

void CheckSame(const TextBatch& a, const TextBatch& b) {
  if (a.num_rows() != b.num_rows() || a.rejected().size() != b.rejected().size()) std::abort();
  for (size_t r = 0; r < a.num_rows(); r++)
    for (size_t c = 0; c < a.num_columns(); c++)
      if (a.IsNull(c, r) != b.IsNull(c, r) || a.Field(c, r) != b.Field(c, r)) std::abort();
  for (size_t i = 0; i < a.rejected().size(); i++)
    if (a.rejected()[i].reason != b.rejected()[i].reason) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static AvroDecoder by_name = Make(false);
  static AvroDecoder by_path = Make(true);
  const uint8_t selector = data[0];
  AvroDecoder& decoder = (selector & 0x80) ? by_path : by_name;
  std::string message;
  if ((selector & 0x40) == 0) {
    const int32_t id = selector & 0x07;
    message.assign(1, '\0');
    message += std::string("\0\0\0", 3);
    message += static_cast<char>(id);
  }
  message.append(reinterpret_cast<const char*>(data + 1), size - 1);
  TextBatch first(decoder.options().columns), second(decoder.options().columns);
  Status a = decoder.Decode(message, RowOrigin{0, 1}, first);
  Status b = decoder.Decode(message, RowOrigin{0, 2}, second);
  if (a.ok() != b.ok()) std::abort();
  for (const auto& r : first.rejected())
    if (r.raw.size() > sluice::format::kMaxRejectedRawBytes) std::abort();
  if (first.num_rows() + first.rejected().size() > 1) std::abort();
  CheckSame(first, second);
  return 0;
}
