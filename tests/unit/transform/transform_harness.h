#pragma once
// Runs compiled transforms against a real DuckDB over a real sluice_batch, so every generated SQL is checked by
// the engine that will run it.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/text_batch.h"
#include "storage/batch_table_function.h"
#include "storage/database.h"
#include "transform/compiler.h"

namespace sluice::transform::testing {

using Cell = std::optional<std::string>;
using Rows = std::vector<std::vector<Cell>>;

// The SELECT's result with every value rendered by DuckDB as VARCHAR, addressable by column name.
struct Output {
  std::vector<std::string> columns;
  std::vector<Row> rows;

  Cell Get(size_t row, const std::string& column) const {
    for (size_t c = 0; c < columns.size(); c++) {
      if (columns[c] == column) return rows.at(row).at(c);
    }
    ADD_FAILURE() << "no column " << column;
    return std::nullopt;
  }
  std::string Text(size_t row, const std::string& column) const { return Get(row, column).value_or("<NULL>"); }
  bool Good(size_t row) const { return !Get(row, kErrorColumn).has_value(); }
  bool Selected(size_t row) const { return Get(row, kSelectedColumn) == Cell("true"); }
};

class TransformHarness : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = storage::Database::Open("");
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    auto con = db_->Connect();
    ASSERT_TRUE(con.ok()) << con.status().ToString();
    con_ = std::move(*con);
    ASSERT_TRUE(storage::RegisterBatchTableFunction(*con_).ok());
  }

  static TextBatch MakeBatch(const std::vector<std::string>& names, const Rows& rows) {
    TextBatch batch(names);
    for (size_t r = 0; r < rows.size(); r++) {
      batch.BeginRow();
      for (size_t c = 0; c < names.size() && c < rows[r].size(); c++) {
        if (rows[r][c]) batch.SetField(c, *rows[r][c]);
        else batch.SetNull(c);
      }
      batch.FinishRow({0, static_cast<int64_t>(r)});
    }
    return batch;
  }

  // Runs an already compiled transform; values come back as DuckDB's VARCHAR rendering, ordered by row.
  Result<Output> RunCompiled(const CompiledTransform& compiled, const std::vector<std::string>& names,
                             const Rows& rows) {
    TextBatch batch = MakeBatch(names, rows);
    storage::BatchHandle handle(batch);
    std::string sql = "SELECT CAST(COLUMNS(*) AS VARCHAR) FROM (" + compiled.Bind(handle.id()) +
                      ") ORDER BY CAST(__sluice_row AS BIGINT)";
    auto res = con_->Query(sql);
    if (!res.ok()) return Status(res.status().code(), res.status().message() + "\nSQL:\n" + compiled.sql);
    Output out;
    for (const auto& c : res->result_set->columns) out.columns.push_back(c.name);
    out.rows = std::move(res->result_set->rows);
    return out;
  }

  Result<Output> Run(const TransformSpec& spec, const Rows& rows) {
    auto compiled = Compile(spec);
    if (!compiled.ok()) return compiled.status();
    return RunCompiled(*compiled, spec.source_columns, rows);
  }

  std::unique_ptr<storage::Database> db_;
  std::unique_ptr<storage::Connection> con_;
};

}  // namespace sluice::transform::testing
