#include "format/csv_decoder.h"

#include <fmt/format.h>

#include <cassert>
#include <algorithm>
#include <cstring>
#include <utility>

#include "format/quoted_bytes.h"
#include "format/rejected_row.h"

namespace sluice::format {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

bool IsNullMarker(std::string_view field) { return field.size() == 2 && field[0] == '\\' && field[1] == 'N'; }

}  // namespace

Result<CsvDecoder> CsvDecoder::Create(CsvOptions options) {
  RETURN_IF_ERROR(ValidateCsvOptions(options));
  return CsvDecoder(std::move(options));
}

CsvDecoder::CsvDecoder(CsvOptions options)
    : options_(std::move(options)),
      separator_(options_.column_separator),
      delimiter_(options_.row_delimiter),
      fields_(options_.num_columns) {
  if (options_.escape && options_.escape != options_.enclose) escape_ = options_.escape;
  special_[separator_.first()] = true;
  special_[delimiter_.first()] = true;
  if (escape_) special_[static_cast<unsigned char>(*escape_)] = true;
}

void CsvDecoder::Decode(std::string_view message, RowOrigin origin, TextBatch& out) {
  assert(out.num_columns() == options_.num_columns);
  if (options_.enclose || escape_) {
    DecodeGeneral(message, origin, out);
  } else {
    DecodePlain(message, origin, out);
  }
}

void CsvDecoder::DecodePlain(std::string_view msg, RowOrigin origin, TextBatch& out) {
  const size_t n = msg.size();
  size_t pos = 0;
  while (pos < n) {
    size_t end = delimiter_.Find(msg, pos);
    if (end == BytePattern::npos) end = n;
    if (end > pos) {
      StartRow();
      // Fields are searched for inside the row only, so the delimiter always wins over the separator.
      const std::string_view row_text(msg.data(), end);
      size_t field_begin = pos;
      for (;;) {
        const size_t sep = separator_.Find(row_text, field_begin);
        if (sep == BytePattern::npos) {
          AddPlainField(msg, field_begin, end);
          break;
        }
        AddPlainField(msg, field_begin, sep);
        field_begin = sep + separator_.size();
      }
      FinishRow(msg, msg.substr(pos, end - pos), origin, out);
    }
    pos = end == n ? n : end + delimiter_.size();
  }
}

void CsvDecoder::DecodeGeneral(std::string_view msg, RowOrigin origin, TextBatch& out) {
  const size_t n = msg.size();
  size_t pos = 0;
  while (pos < n) {
    if (delimiter_.MatchesAt(msg, pos)) {  // an empty row
      pos += delimiter_.size();
      continue;
    }
    StartRow();
    RowError error = RowError::kNone;
    size_t error_column = 0;
    const size_t row_end = ScanRow(msg, pos, error, error_column);
    const std::string_view raw = msg.substr(pos, row_end - pos);
    switch (error) {
      case RowError::kNone:
        FinishRow(msg, raw, origin, out);
        break;
      case RowError::kUnterminatedEnclose:
        AddRejectedRow(out, origin, fmt::format("unterminated enclose {} in column {}", EncloseText(), error_column), raw);
        break;
      case RowError::kBytesAfterEnclose:
        AddRejectedRow(out, origin,
                       fmt::format("unexpected bytes after the closing enclose {} in column {}", EncloseText(),
                                   error_column),
                       raw);
        break;
    }
    pos = row_end == n ? n : row_end + delimiter_.size();
  }
}

size_t CsvDecoder::ScanRow(std::string_view msg, size_t pos, RowError& error, size_t& error_column) {
  const size_t n = msg.size();
  for (;;) {
    if (options_.trim_space) {
      while (pos < n && IsBlank(msg[pos]) && !AtBoundary(msg, pos)) pos++;
    }
    if (options_.enclose && pos < n && msg[pos] == *options_.enclose) {
      const size_t open = pos;
      if (!ScanEnclosed(msg, pos)) {
        // Without a closing byte the rest of the message would be one field; reject just this row as far as
        // the next plain delimiter so that the rows after it still load.
        error = RowError::kUnterminatedEnclose;
        error_column = field_count_ + 1;
        const size_t end = delimiter_.Find(msg, open + 1);
        return end == BytePattern::npos ? n : end;
      }
      if (options_.trim_space) {
        while (pos < n && IsBlank(msg[pos]) && !AtBoundary(msg, pos)) pos++;
      }
      if (pos < n && !AtBoundary(msg, pos)) {
        if (error == RowError::kNone) {
          error = RowError::kBytesAfterEnclose;
          error_column = field_count_;
        }
        // Skip the stray bytes like an unenclosed field so that the row still ends at its real delimiter.
        ScanUnenclosed(msg, pos);
        field_count_--;  // the skipped bytes are part of the rejected field, not a field of their own
      }
    } else {
      ScanUnenclosed(msg, pos);
    }
    if (pos >= n) return n;
    if (delimiter_.MatchesAt(msg, pos)) return pos;
    pos += separator_.size();  // fields end only at a boundary or at the end, so this is a separator
  }
}

void CsvDecoder::ScanUnenclosed(std::string_view msg, size_t& pos) {
  const size_t n = msg.size();
  const size_t start = pos;
  size_t p = pos;
  size_t segment = p;          // start of the bytes not yet copied to scratch_
  bool unescaped = false;      // whether the field lives in scratch_
  const size_t scratch_begin = scratch_.size();
  size_t keep = scratch_begin;  // trim_space must not remove escaped bytes
  while (p < n) {
    const char c = msg[p];
    if (!special_[static_cast<unsigned char>(c)]) {
      ++p;
      continue;
    }
    if (escape_ && c == *escape_) {
      scratch_.append(msg.data() + segment, p - segment);
      unescaped = true;
      if (p + 1 < n) {
        scratch_.push_back(msg[p + 1]);
        p += 2;
      } else {
        scratch_.push_back(c);  // nothing left to escape: keep the byte
        p += 1;
      }
      keep = scratch_.size();
      segment = p;
      continue;
    }
    if (AtBoundary(msg, p)) break;
    ++p;
  }
  pos = p;
  if (!unescaped) {
    AddPlainField(msg, start, p);
    return;
  }
  std::string_view raw = msg.substr(start, p - start);
  if (options_.trim_space) {
    while (!raw.empty() && IsBlank(raw.back())) raw.remove_suffix(1);
  }
  if (IsNullMarker(raw)) {  // `\N` wins over the escape that would make it "N"
    scratch_.resize(scratch_begin);
    AddField(FieldRef::Where::kNull, 0, 0);
    return;
  }
  scratch_.append(msg.data() + segment, p - segment);
  if (options_.trim_space) {
    while (scratch_.size() > keep && IsBlank(scratch_.back())) scratch_.pop_back();
  }
  AddField(FieldRef::Where::kScratch, scratch_begin, scratch_.size() - scratch_begin);
}

bool CsvDecoder::ScanEnclosed(std::string_view msg, size_t& pos) {
  const size_t n = msg.size();
  const char quote = *options_.enclose;
  size_t p = pos + 1;
  size_t segment = p;
  bool unescaped = false;
  const size_t scratch_begin = scratch_.size();
  for (;;) {
    size_t hit;
    if (!escape_) {
      const void* found = std::memchr(msg.data() + p, quote, n - p);
      if (found == nullptr) return false;
      hit = static_cast<size_t>(static_cast<const char*>(found) - msg.data());
    } else {
      hit = p;
      while (hit < n && msg[hit] != quote && msg[hit] != *escape_) hit++;
      if (hit == n) return false;
    }
    if (escape_ && msg[hit] == *escape_) {
      if (hit + 1 >= n) return false;
      scratch_.append(msg.data() + segment, hit - segment);
      scratch_.push_back(msg[hit + 1]);
      unescaped = true;
      p = segment = hit + 2;
      continue;
    }
    if (hit + 1 < n && msg[hit + 1] == quote) {  // a doubled enclose byte is one literal byte
      scratch_.append(msg.data() + segment, hit + 1 - segment);
      unescaped = true;
      p = segment = hit + 2;
      continue;
    }
    if (unescaped) {
      scratch_.append(msg.data() + segment, hit - segment);
      AddField(FieldRef::Where::kScratch, scratch_begin, scratch_.size() - scratch_begin);
    } else {
      AddField(FieldRef::Where::kMessage, pos + 1, hit - pos - 1);
    }
    pos = hit + 1;
    return true;
  }
}

void CsvDecoder::AddPlainField(std::string_view msg, size_t begin, size_t end) {
  if (options_.trim_space) {
    while (begin < end && IsBlank(msg[begin])) begin++;
    while (end > begin && IsBlank(msg[end - 1])) end--;
  }
  if (IsNullMarker(msg.substr(begin, end - begin))) {
    AddField(FieldRef::Where::kNull, 0, 0);
  } else {
    AddField(FieldRef::Where::kMessage, begin, end - begin);
  }
}

void CsvDecoder::FinishRow(std::string_view msg, std::string_view raw, RowOrigin origin, TextBatch& out) {
  // Fields past the count were not stored (AddField), so a long row keeps its first num_columns fields.
  size_t present = std::min(field_count_, fields_.size());
  if (field_count_ != fields_.size()) {
    const bool padded = options_.fill_mismatch_with_null && !(field_count_ < fields_.size() && options_.strict_mode);
    if (!padded) {
      AddRejectedRow(out, origin, ColumnCountReason(), raw);
      return;
    }
  }
  out.BeginRow();
  for (size_t c = 0; c < present; c++) {
    const FieldRef& f = fields_[c];
    switch (f.where) {
      case FieldRef::Where::kMessage:
        out.SetField(c, msg.substr(f.begin, f.size));
        break;
      case FieldRef::Where::kScratch:
        out.SetField(c, std::string_view(scratch_).substr(f.begin, f.size));
        break;
      case FieldRef::Where::kNull:
        break;  // BeginRow starts every column as NULL
    }
  }
  out.FinishRow(origin);
}

std::string CsvDecoder::EncloseText() const {
  return options_.enclose ? QuoteBytes(std::string_view(&*options_.enclose, 1)) : std::string();
}

std::string CsvDecoder::ColumnCountReason() const {
  return fmt::format("column count mismatch: expected {} column{}, got {} (separator {})", fields_.size(),
                     fields_.size() == 1 ? "" : "s", field_count_, QuoteBytes(options_.column_separator));
}

}  // namespace sluice::format
