#pragma once
// A decoded batch of source rows, columnar and untyped: every field is text (or NULL), exactly as the format
// found it. Decoders (format/) fill it without copying a field more than once, DuckDB reads it through a table
// function (storage/batch_table_function.h), and the transform casts the text to the table's types there.
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
};

class TextBatch {
 public:
  static constexpr uint32_t kNull = UINT32_MAX;

  explicit TextBatch(std::vector<std::string> column_names = {}) : names_(std::move(column_names)), cells_(names_.size()) {}

  const std::vector<std::string>& column_names() const { return names_; }
  size_t num_columns() const { return names_.size(); }
  size_t num_rows() const { return origins_.size(); }

  // Appending a row: call SetField/SetNull for the columns it has (others stay NULL), then FinishRow.
  void SetField(size_t column, std::string_view value) {
    pending_[column] = {static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(value.size())};
    arena_.append(value.data(), value.size());
  }
  void SetNull(size_t column) { pending_[column] = {0, kNull}; }
  void BeginRow() { pending_.assign(names_.size(), Cell{0, kNull}); }
  void FinishRow(RowOrigin origin) {
    for (size_t c = 0; c < names_.size(); c++) cells_[c].push_back(pending_[c]);
    origins_.push_back(origin);
  }
  // Sets one column of the finished rows first_row..num_rows()-1 to the same value, stored once (the metadata of
  // a message that decoded into several rows).
  void SetFieldOfRows(size_t column, size_t first_row, std::string_view value) {
    Cell cell{static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(value.size())};
    arena_.append(value.data(), value.size());
    for (size_t r = first_row; r < origins_.size(); r++) cells_[column][r] = cell;
  }
  // Drops a row begun with BeginRow (a decode error mid-row).
  void AbandonRow() { pending_.clear(); }

  bool IsNull(size_t column, size_t row) const { return cells_[column][row].length == kNull; }
  std::string_view Field(size_t column, size_t row) const {
    const Cell& c = cells_[column][row];
    return c.length == kNull ? std::string_view() : std::string_view(arena_.data() + c.offset, c.length);
  }
  const RowOrigin& origin(size_t row) const { return origins_[row]; }

  std::vector<RejectedRow>& rejected() { return rejected_; }
  const std::vector<RejectedRow>& rejected() const { return rejected_; }
  size_t arena_bytes() const { return arena_.size(); }

  void Clear() {
    for (auto& c : cells_) c.clear();
    origins_.clear();
    rejected_.clear();
    arena_.clear();
  }

 private:
  struct Cell {
    uint32_t offset;
    uint32_t length;
  };
  std::vector<std::string> names_;
  std::vector<std::vector<Cell>> cells_;
  std::vector<Cell> pending_;
  std::vector<RowOrigin> origins_;
  std::vector<RejectedRow> rejected_;
  std::string arena_;
};

}  // namespace sluice
