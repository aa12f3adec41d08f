#pragma once
// A decoded batch of source rows, columnar and untyped: every field is text (or NULL), exactly as the format
// found it. Decoders (format/) fill it without copying a field more than once, DuckDB reads it through a table
// function (storage/batch_table_function.h), and the transform casts the text to the table's types there.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

// Where a row came from, so an error row can name it: topic/partition/offset, or file and line.
struct RowOrigin {
  int32_t partition = -1;   // -1 for files
  int64_t offset = -1;      // Kafka offset, or line number in a file
};

// A row the decoder or the transform rejected.
struct RejectedRow {
  RowOrigin origin;
  std::string reason;
  std::string raw;          // the source bytes (truncated to a few KB)
  // The whole message could not be parsed (invalid JSON, an array where a row was needed, an Avro body that does
  // not decode): pause_on_fatal_parse_error decides whether it pauses the job or is skipped.
  bool fatal = false;
};

class TextBatch {
 public:
  static constexpr uint32_t kNull = UINT32_MAX;

  explicit TextBatch(std::vector<std::string> column_names = {}) : names_(std::move(column_names)) {}

  const std::vector<std::string>& column_names() const { return names_; }
  size_t num_columns() const { return names_.size(); }
  size_t num_rows() const { return origins_.size(); }

  // Room for `rows` rows and `bytes` bytes of field text, so that a large batch is not copied as it grows.
  void Reserve(size_t rows, size_t bytes) {
    cells_.reserve(rows * names_.size());
    origins_.reserve(rows);
    arena_.reserve(bytes);
  }

  // Appending a row: call BeginRow, then SetField/SetNull for the columns it has (others stay NULL), then
  // FinishRow. The row's cells are written in place (rows are stored one after the other), so appending a row
  // copies nothing but its fields' bytes. A row begun and not finished is dropped by the next BeginRow.
  void BeginRow() {
    const size_t n = names_.size();
    cells_.resize(origins_.size() * n + n);
    std::fill(cells_.end() - static_cast<std::ptrdiff_t>(n), cells_.end(), Cell{0, kNull});
  }
  void SetField(size_t column, std::string_view value) {
    OpenCell(column) = {static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(value.size())};
    arena_.append(value.data(), value.size());
  }
  void SetNull(size_t column) { OpenCell(column) = {0, kNull}; }
  void FinishRow(RowOrigin origin) { origins_.push_back(origin); }
  // Sets one column of the finished rows first_row..num_rows()-1 to the same value, stored once (the metadata of
  // a message that decoded into several rows).
  void SetFieldOfRows(size_t column, size_t first_row, std::string_view value) {
    Cell cell{static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(value.size())};
    arena_.append(value.data(), value.size());
    for (size_t r = first_row; r < origins_.size(); r++) cells_[r * names_.size() + column] = cell;
  }
  // Drops a row begun with BeginRow (a decode error mid-row).
  void AbandonRow() { cells_.resize(origins_.size() * names_.size()); }

  bool IsNull(size_t column, size_t row) const { return cells_[row * names_.size() + column].length == kNull; }
  std::string_view Field(size_t column, size_t row) const {
    const Cell& c = cells_[row * names_.size() + column];
    return c.length == kNull ? std::string_view() : std::string_view(arena_.data() + c.offset, c.length);
  }
  const RowOrigin& origin(size_t row) const { return origins_[row]; }

  std::vector<RejectedRow>& rejected() { return rejected_; }
  const std::vector<RejectedRow>& rejected() const { return rejected_; }
  size_t arena_bytes() const { return arena_.size(); }

  void Clear() {
    cells_.clear();
    origins_.clear();
    rejected_.clear();
    arena_.clear();
  }

 private:
  struct Cell {
    uint32_t offset;
    uint32_t length;
  };
  Cell& OpenCell(size_t column) { return cells_[origins_.size() * names_.size() + column]; }

  std::vector<std::string> names_;
  std::vector<Cell> cells_;  // row-major: row r's cells are [r * num_columns(), (r + 1) * num_columns())
  std::vector<RowOrigin> origins_;
  std::vector<RejectedRow> rejected_;
  std::string arena_;
};

}  // namespace sluice
