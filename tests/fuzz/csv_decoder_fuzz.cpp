// libFuzzer target for format::CsvDecoder. The first bytes of the input choose the options (separators,
// enclose, escape, trim_space, column count); the rest is the message. Checks, besides "no crash, no hang":
// rejected rows keep at most kMaxRejectedRawBytes, and the memchr fast path (no enclose, no escape) decodes
// exactly like the general scanner does when the enclose byte never occurs in the message.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "format/csv_decoder.h"
#include "format/rejected_row.h"

namespace {

using sluice::RowOrigin;
using sluice::TextBatch;
using sluice::format::CsvDecoder;
using sluice::format::CsvOptions;

// Small alphabets make separators, quotes and escapes collide with the message often.
constexpr char kSeparatorBytes[] = {',', '|', '\t', '\n', '\r', ' ', '"', '\\', 'a', '\x01'};

std::string PickSeparator(uint8_t selector) {
  std::string s;
  const size_t length = 1 + selector % 3;
  for (size_t i = 0; i < length; i++) {
    s.push_back(kSeparatorBytes[(selector >> (2 + i)) % sizeof(kSeparatorBytes)]);
  }
  return s;
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

void CheckBounds(const TextBatch& batch) {
  for (const auto& rejected : batch.rejected()) {
    if (rejected.raw.size() > sluice::format::kMaxRejectedRawBytes) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  CsvOptions options;
  options.column_separator = PickSeparator(data[0]);
  options.row_delimiter = PickSeparator(data[1]);
  const uint8_t flags = data[2];
  if (flags & 1) options.enclose = (flags & 2) ? '"' : '\'';
  if (flags & 4) options.escape = (flags & 8) ? '\\' : '"';
  options.trim_space = (flags & 16) != 0;
  options.num_columns = 1 + data[3] % 6;
  const std::string_view message(reinterpret_cast<const char*>(data) + 4, size - 4);

  auto decoder = CsvDecoder::Create(options);
  if (!decoder.ok()) return 0;
  TextBatch batch(std::vector<std::string>(options.num_columns, "c"));
  decoder->Decode(message, RowOrigin{0, 1}, batch);
  CheckBounds(batch);

  // Differential check of the two scanners.
  if (!options.enclose && !options.escape) {
    bool present[256] = {};
    for (char c : message) present[static_cast<unsigned char>(c)] = true;
    for (char c : options.column_separator) present[static_cast<unsigned char>(c)] = true;
    for (char c : options.row_delimiter) present[static_cast<unsigned char>(c)] = true;
    for (int b = 0; b < 256; b++) {
      if (present[b]) continue;
      CsvOptions general = options;
      general.enclose = static_cast<char>(b);
      auto other = CsvDecoder::Create(general);
      if (!other.ok()) std::abort();
      TextBatch other_batch(std::vector<std::string>(options.num_columns, "c"));
      other->Decode(message, RowOrigin{0, 1}, other_batch);
      CheckSame(batch, other_batch);
      break;
    }
  }
  return 0;
}
