// libFuzzer target for format::JsonDecoder. The first byte of the input chooses the options (by name or
// jsonpaths, json_root, strip_outer_array); the rest is the message. Checks, besides "no crash, no hang":
// rejected rows keep at most kMaxRejectedRawBytes, and a reused decoder gives the same answer twice (its
// padded buffer and parser are recycled between messages).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "format/json_decoder.h"
#include "format/rejected_row.h"

namespace {

using sluice::RowOrigin;
using sluice::TextBatch;
using sluice::format::JsonDecoder;
using sluice::format::JsonOptions;

JsonOptions PickOptions(uint8_t selector) {
  JsonOptions o;
  o.columns = {"a", "b", "A", "c d", "x"};
  if (selector & 1) o.jsonpaths = {"$.a", "$.a.b", "$[0]", "$[\"c d\"][1].x", "$"};
  if (selector & 2) o.strip_outer_array = true;
  switch ((selector >> 2) & 3) {
    case 1: o.json_root = "$.a"; break;
    case 2: o.json_root = "$[1]"; break;
    case 3: o.json_root = "$.a[0].b"; break;
    default: break;
  }
  return o;
}

void CheckSame(const TextBatch& a, const TextBatch& b) {
  if (a.num_rows() != b.num_rows() || a.rejected().size() != b.rejected().size()) std::abort();
  for (size_t r = 0; r < a.num_rows(); r++) {
    for (size_t c = 0; c < a.num_columns(); c++) {
      if (a.IsNull(c, r) != b.IsNull(c, r) || a.Field(c, r) != b.Field(c, r)) std::abort();
    }
  }
  for (size_t i = 0; i < a.rejected().size(); i++) {
    if (a.rejected()[i].reason != b.rejected()[i].reason || a.rejected()[i].raw != b.rejected()[i].raw) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  JsonOptions options = PickOptions(data[0]);
  // The message is copied to a buffer of its exact size, so ASan sees any read past its end.
  const std::string message(reinterpret_cast<const char*>(data) + 1, size - 1);

  auto decoder = JsonDecoder::Create(options);
  if (!decoder.ok()) std::abort();
  TextBatch first(options.columns);
  decoder->Decode(message, RowOrigin{0, 1}, first);
  for (const auto& rejected : first.rejected()) {
    if (rejected.raw.size() > sluice::format::kMaxRejectedRawBytes) std::abort();
  }
  TextBatch second(options.columns);
  decoder->Decode("{\"a\": \"between\"}", RowOrigin{0, 2}, second);
  second.Clear();
  decoder->Decode(message, RowOrigin{0, 1}, second);
  CheckSame(first, second);
  return 0;
}
