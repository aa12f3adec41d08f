#include "storage/text_row_stream.h"

#include <string>
#include <utility>

#include "storage/plan_transaction.h"
#include "storage/result_conversion.h"

namespace sluice::storage {

namespace {

class TextRowStream final : public ResultRowStream {
 public:
  TextRowStream(duckdb_result result, std::vector<ColumnInfo> columns, std::shared_ptr<StorageHealth> health,
                std::shared_ptr<PlanTransaction> transaction)
      : result_(result), columns_(std::move(columns)), health_(std::move(health)),
        transaction_(std::move(transaction)) {}
  ~TextRowStream() override {
    duckdb_destroy_result(&result_);
    if (transaction_) transaction_->End();
  }
  TextRowStream(const TextRowStream&) = delete;
  TextRowStream& operator=(const TextRowStream&) = delete;

  Result<bool> Next(std::vector<Row>* rows) override {
    rows->clear();
    if (done_) return false;
    duckdb_data_chunk chunk = duckdb_fetch_chunk(result_);
    if (!chunk) {
      done_ = true;
      if (transaction_) transaction_->End();
      // NULL is both the end and a failure (an interrupt, an error in a later part of the query).
      const char* error = duckdb_result_error(&result_);
      if (error && *error) {
        Status failed = ErrorFromResult(&result_);
        return health_ ? health_->Observe(std::move(failed)) : failed;
      }
      return false;
    }
    const idx_t size = duckdb_data_chunk_get_size(chunk);
    const idx_t ncols = duckdb_data_chunk_get_column_count(chunk);
    rows->assign(size, Row(columns_.size()));
    for (idx_t c = 0; c < ncols && c < columns_.size(); c++) {
      duckdb_vector vector = duckdb_data_chunk_get_vector(chunk, c);
      auto* data = static_cast<duckdb_string_t*>(duckdb_vector_get_data(vector));
      uint64_t* validity = duckdb_vector_get_validity(vector);
      // MySQL prints a whole double as 895, DuckDB as 895.0; clients and scripts expect MySQL's form.
      const bool trim_zero = columns_[c].type == ValueType::kDouble || columns_[c].type == ValueType::kFloat;
      for (idx_t r = 0; r < size; r++) {
        if (validity && !duckdb_validity_row_is_valid(validity, r)) continue;
        std::string value(duckdb_string_t_data(&data[r]), duckdb_string_t_length(data[r]));
        if (trim_zero && value.size() > 2 && value.compare(value.size() - 2, 2, ".0") == 0) value.resize(value.size() - 2);
        (*rows)[r][c] = std::move(value);
      }
    }
    duckdb_destroy_data_chunk(&chunk);
    if (size == 0) {
      done_ = true;
      if (transaction_) transaction_->End();
      return false;
    }
    return true;
  }

 private:
  duckdb_result result_;
  std::vector<ColumnInfo> columns_;
  std::shared_ptr<StorageHealth> health_;
  std::shared_ptr<PlanTransaction> transaction_;
  bool done_ = false;
};

}  // namespace

std::shared_ptr<ResultRowStream> MakeTextRowStream(duckdb_result result, std::vector<ColumnInfo> columns,
                                                   std::shared_ptr<StorageHealth> health,
                                                   std::shared_ptr<PlanTransaction> transaction) {
  return std::make_shared<TextRowStream>(result, std::move(columns), std::move(health), std::move(transaction));
}

}  // namespace sluice::storage
