#include "storage/rows_table_function.h"

#include <duckdb.h>

#include <mutex>

namespace sluice::storage {

namespace {

struct FunctionInfo {
  std::vector<RowsColumn> columns;
  RowsProducer producer;
};

struct BindData {
  const FunctionInfo* info;
  std::vector<Row> rows;
};

struct ScanState {
  size_t next_row = 0;
};

duckdb_type DuckType(ValueType t) {
  switch (t) {
    case ValueType::kBigInt: return DUCKDB_TYPE_BIGINT;
    case ValueType::kTimestamp: return DUCKDB_TYPE_TIMESTAMP;
    default: return DUCKDB_TYPE_VARCHAR;
  }
}

void Bind(duckdb_bind_info info) {
  auto* fn = static_cast<FunctionInfo*>(duckdb_bind_get_extra_info(info));
  duckdb_value param = duckdb_bind_get_parameter(info, 0);
  char* text = duckdb_get_varchar(param);
  std::string argument = text ? text : "";
  if (text) duckdb_free(text);
  duckdb_destroy_value(&param);
  Result<std::vector<Row>> rows = fn->producer(argument);
  if (!rows.ok()) {
    duckdb_bind_set_error(info, rows.status().message().c_str());
    return;
  }
  for (const auto& c : fn->columns) {
    duckdb_logical_type t = duckdb_create_logical_type(DuckType(c.type));
    duckdb_bind_add_result_column(info, c.name.c_str(), t);
    duckdb_destroy_logical_type(&t);
  }
  duckdb_bind_set_cardinality(info, rows->size(), true);
  duckdb_bind_set_bind_data(info, new BindData{fn, std::move(rows).value()},
                            [](void* p) { delete static_cast<BindData*>(p); });
}

void Init(duckdb_init_info info) {
  duckdb_init_set_max_threads(info, 1);
  duckdb_init_set_init_data(info, new ScanState(), [](void* p) { delete static_cast<ScanState*>(p); });
}

void Scan(duckdb_function_info info, duckdb_data_chunk output) {
  auto* bind = static_cast<BindData*>(duckdb_function_get_bind_data(info));
  auto* state = static_cast<ScanState*>(duckdb_function_get_init_data(info));
  size_t start = state->next_row;
  size_t count = std::min<size_t>(duckdb_vector_size(), bind->rows.size() - start);
  const auto& columns = bind->info->columns;
  for (size_t c = 0; c < columns.size(); c++) {
    duckdb_vector vec = duckdb_data_chunk_get_vector(output, c);
    uint64_t* validity = nullptr;
    for (size_t r = 0; r < count; r++) {
      const Row& row = bind->rows[start + r];
      if (c >= row.size() || !row[c]) {
        if (!validity) {
          duckdb_vector_ensure_validity_writable(vec);
          validity = duckdb_vector_get_validity(vec);
        }
        duckdb_validity_set_row_invalid(validity, r);
        continue;
      }
      const std::string& v = *row[c];
      if (columns[c].type == ValueType::kBigInt || columns[c].type == ValueType::kTimestamp) {
        static_cast<int64_t*>(duckdb_vector_get_data(vec))[r] = std::stoll(v);
      } else {
        duckdb_vector_assign_string_element_len(vec, r, v.data(), v.size());
      }
    }
  }
  state->next_row += count;
  duckdb_data_chunk_set_size(output, count);
}

}  // namespace

Status RegisterRowsTableFunction(Connection& con, const std::string& name, std::vector<RowsColumn> columns,
                                 RowsProducer producer) {
  static std::mutex register_mu;  // see RegisterBatchTableFunction: registrations write DuckDB's catalog
  std::lock_guard<std::mutex> lock(register_mu);
  duckdb_table_function fn = duckdb_create_table_function();
  duckdb_table_function_set_name(fn, name.c_str());
  duckdb_logical_type varchar = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
  duckdb_table_function_add_parameter(fn, varchar);
  duckdb_destroy_logical_type(&varchar);
  duckdb_table_function_set_extra_info(fn, new FunctionInfo{std::move(columns), std::move(producer)},
                                       [](void* p) { delete static_cast<FunctionInfo*>(p); });
  duckdb_table_function_set_bind(fn, Bind);
  duckdb_table_function_set_init(fn, Init);
  duckdb_table_function_set_function(fn, Scan);
  duckdb_state st = duckdb_register_table_function(con.raw(), fn);
  duckdb_destroy_table_function(&fn);
  if (st != DuckDBSuccess) return Status::Internal("cannot register the table function " + name);
  return Status::Ok();
}

}  // namespace sluice::storage
