#pragma once
// CsvDecoder: Kafka message payloads in CSV -> rows of a TextBatch (DESIGN.md decision 5).
//
// One message holds one or more rows separated by the row delimiter. Rules, as in StarRocks Routine Load:
// - A trailing row delimiter does not make an empty row; more generally an empty row (zero bytes between two
//   delimiters) is skipped, never loaded as a row of one empty field.
// - Bytes are kept as they are: with the row delimiter "\n", a "\r\n" line ending leaves "\r" at the end of the
//   last field (StarRocks does the same); use ROWS TERMINATED BY "\r\n" for such data.
// - `\N` (exactly those two bytes, not enclosed, after trim_space) is NULL; an empty field is the empty string.
//   `\N` is recognised before escapes are applied, so with escape '\\' it is still NULL.
// - enclose: a field whose first byte (after trim_space) is the enclose byte runs to the closing enclose byte;
//   inside, separators and row delimiters are literal and a doubled enclose byte is one literal byte (RFC 4180).
//   Anything but a separator, a row delimiter or (with trim_space) blanks after the closing byte rejects the row.
// - escape: the next byte is literal, inside or outside enclose (an escaped separator does not split). An escape
//   byte equal to the enclose byte means RFC 4180 doubling only. A lone escape at the very end stays literal.
// - The row delimiter takes precedence over the column separator (the options forbid overlapping ones).
// - A row with a field count other than num_columns, or with an unterminated enclose, is a rejected row with
//   its reason and raw bytes; the other rows of the message still load. With fill_mismatch_with_null a short
//   row is padded with NULLs (still rejected under strict_mode) and a long row loads its first num_columns fields. An unterminated enclose rejects the
//   row up to the next row delimiter found as plain bytes, and decoding resumes after it.
//
// Not thread-safe: one decoder per task. Decoding allocates nothing per field once its buffers have grown.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/text_batch.h"
#include "format/byte_pattern.h"
#include "format/csv_options.h"

namespace sluice::format {

class CsvDecoder {
 public:
  // Validates the options (ValidateCsvOptions).
  static Result<CsvDecoder> Create(CsvOptions options);

  // Appends the rows of `message` to `out` (which must have options().num_columns columns) and its bad rows
  // to out.rejected(). Every row gets `origin`.
  void Decode(std::string_view message, RowOrigin origin, TextBatch& out);

  const CsvOptions& options() const { return options_; }

 private:
  // Where a decoded field's bytes are: in the message, in scratch_ (after unescaping), or nowhere (NULL).
  struct FieldRef {
    enum class Where : uint8_t { kMessage, kScratch, kNull };
    Where where;
    size_t begin;  // offset into the message or into scratch_
    size_t size;
  };
  // Why the general scanner gave up on a row.
  enum class RowError : uint8_t { kNone, kUnterminatedEnclose, kBytesAfterEnclose };

  explicit CsvDecoder(CsvOptions options);

  // No enclose and no escape: rows are split with memchr, then fields with memchr, and no byte is copied.
  void DecodePlain(std::string_view message, RowOrigin origin, TextBatch& out);
  // Enclose or escape configured: a byte scanner that stops only at bytes that may matter.
  void DecodeGeneral(std::string_view message, RowOrigin origin, TextBatch& out);

  // General scanner pieces. Each advances `pos`; the row ones return the row's end (its delimiter or the end).
  size_t ScanRow(std::string_view msg, size_t pos, RowError& error, size_t& error_column);
  void ScanUnenclosed(std::string_view msg, size_t& pos);
  bool ScanEnclosed(std::string_view msg, size_t& pos);  // false: no closing enclose byte
  bool AtBoundary(std::string_view msg, size_t pos) const {
    return delimiter_.MatchesAt(msg, pos) || separator_.MatchesAt(msg, pos);
  }

  void StartRow() {
    field_count_ = 0;
    scratch_.clear();
  }
  // Adds a field outside an enclose: `\N` becomes NULL, trim_space applies.
  void AddPlainField(std::string_view msg, size_t begin, size_t end);
  void AddField(FieldRef::Where where, size_t begin, size_t size) {
    if (field_count_ < fields_.size()) fields_[field_count_] = FieldRef{where, begin, size};
    field_count_++;
  }
  // Appends the row to `out`, or rejects it when its field count is wrong.
  void FinishRow(std::string_view msg, std::string_view raw, RowOrigin origin, TextBatch& out);
  std::string ColumnCountReason() const;
  std::string EncloseText() const;

  CsvOptions options_;
  BytePattern separator_;
  BytePattern delimiter_;
  std::optional<char> escape_;  // effective escape: unset when equal to enclose (doubling covers it)
  bool special_[256] = {};      // bytes the general scanner must look at: separator/delimiter starts, escape

  std::vector<FieldRef> fields_;  // num_columns slots, reused for every row
  size_t field_count_ = 0;        // fields seen in the current row (may exceed fields_.size())
  std::string scratch_;           // unescaped fields of the current row
};

}  // namespace sluice::format
