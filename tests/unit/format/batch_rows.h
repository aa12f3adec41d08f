#pragma once
// Test helper: a TextBatch as plain rows, so expectations read like the data.
#include <optional>
#include <string>
#include <vector>

#include "common/text_batch.h"

namespace sluice::format::testing {

using Row = std::vector<std::optional<std::string>>;

inline std::vector<Row> Rows(const TextBatch& batch) {
  std::vector<Row> rows;
  for (size_t r = 0; r < batch.num_rows(); r++) {
    Row row;
    for (size_t c = 0; c < batch.num_columns(); c++) {
      if (batch.IsNull(c, r)) {
        row.push_back(std::nullopt);
      } else {
        row.push_back(std::string(batch.Field(c, r)));
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

inline std::vector<std::string> ColumnNames(size_t n) {
  std::vector<std::string> names;
  for (size_t i = 0; i < n; i++) names.push_back("c" + std::to_string(i));
  return names;
}

}  // namespace sluice::format::testing
