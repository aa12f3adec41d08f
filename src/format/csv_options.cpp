#include "format/csv_options.h"

#include <fmt/format.h>

#include <string_view>

#include "format/quoted_bytes.h"

namespace sluice::format {
namespace {

Status CheckLength(std::string_view name, std::string_view value) {
  if (value.empty() || value.size() > CsvOptions::kMaxSeparatorBytes) {
    return Status::InvalidArgument(fmt::format("{} must be 1 to {} bytes, got {} bytes", name,
                                               CsvOptions::kMaxSeparatorBytes, value.size()));
  }
  return Status::Ok();
}

// True when an occurrence of `a` and an occurrence of `b` can share bytes in some text: one contains the
// other, or a proper suffix of one is a prefix of the other. Only then could the decoder's "row delimiter
// first" rule split a row differently depending on where scanning started.
bool CanOverlap(std::string_view a, std::string_view b) {
  if (a.find(b) != std::string_view::npos || b.find(a) != std::string_view::npos) return true;
  for (size_t k = 1; k < a.size() && k < b.size(); k++) {
    if (a.substr(a.size() - k) == b.substr(0, k)) return true;
    if (b.substr(b.size() - k) == a.substr(0, k)) return true;
  }
  return false;
}

Status CheckSpecialByte(std::string_view name, std::optional<char> byte, const CsvOptions& o) {
  if (!byte) return Status::Ok();
  const std::string_view b(&*byte, 1);
  if (o.column_separator.find(*byte) != std::string::npos || o.row_delimiter.find(*byte) != std::string::npos) {
    return Status::InvalidArgument(fmt::format("{} {} must not be part of the column separator {} or the row delimiter {}",
                                               name, QuoteBytes(b), QuoteBytes(o.column_separator),
                                               QuoteBytes(o.row_delimiter)));
  }
  return Status::Ok();
}

}  // namespace

Status ValidateCsvOptions(const CsvOptions& options) {
  RETURN_IF_ERROR(CheckLength("column_separator", options.column_separator));
  RETURN_IF_ERROR(CheckLength("row_delimiter", options.row_delimiter));
  if (CanOverlap(options.column_separator, options.row_delimiter)) {
    return Status::InvalidArgument(fmt::format(
        "column_separator {} and row_delimiter {} overlap (one contains the other, or one ends with the start of the "
        "other), so a row could be split in two ways; choose separators that do not overlap",
        QuoteBytes(options.column_separator), QuoteBytes(options.row_delimiter)));
  }
  RETURN_IF_ERROR(CheckSpecialByte("enclose", options.enclose, options));
  RETURN_IF_ERROR(CheckSpecialByte("escape", options.escape, options));
  if (options.num_columns == 0) return Status::InvalidArgument("a CSV source needs at least one column");
  return Status::Ok();
}

}  // namespace sluice::format
