#pragma once
// What a CSV source looks like: the Routine Load properties COLUMNS TERMINATED BY, ROWS TERMINATED BY, enclose,
// escape and trim_space, plus the number of fields a row must have. The caller has already unescaped the
// separators ("\\x01" -> one 0x01 byte).
#include <cstddef>
#include <optional>
#include <string>

#include "common/status.h"

namespace sluice::format {

struct CsvOptions {
  static constexpr size_t kMaxSeparatorBytes = 50;  // StarRocks' limit for both separators

  std::string column_separator = "\t";  // 1..50 bytes, multi-byte allowed ("||", "\x01")
  std::string row_delimiter = "\n";     // 1..50 bytes
  std::optional<char> enclose;          // e.g. '"': a field starting with it runs to the closing one
  std::optional<char> escape;           // e.g. '\\': the next byte is literal, inside or outside enclose
  bool trim_space = false;              // strip spaces and tabs around fields (outside enclose)
  size_t num_columns = 0;               // a row with another field count is rejected...
  // ...unless this is set (fill_mismatch_column_with = null, as in StarRocks): a short row gets NULLs for its
  // missing fields and a long row's fields past num_columns are ignored.
  bool fill_mismatch_with_null = false;
  // With fill_mismatch_with_null, strict_mode still rejects a short row (StarRocks reports it as an error).
  bool strict_mode = false;
};

// Rejects configurations that cannot be decoded unambiguously, with a message naming the property:
// an empty or over-long separator, a separator and row delimiter that overlap (one a part of the other, or
// one's end the other's start), an enclose or escape byte that is part of a separator, no columns.
Status ValidateCsvOptions(const CsvOptions& options);

}  // namespace sluice::format
