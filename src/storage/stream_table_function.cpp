#include "storage/stream_table_function.h"

#include <duckdb.h>

#include <mutex>

#include "storage/table_function_scan.h"

namespace sluice::storage {

namespace {

struct FunctionData {
  std::vector<std::string> columns;
  RowStreamFactory factory;
};

struct BindData {
  std::unique_ptr<RowStream> stream;
  size_t num_columns = 0;
};

struct ScanState {
  std::vector<idx_t> projected;
  bool done = false;
};

void Bind(duckdb_bind_info info) {
  auto* fn = static_cast<FunctionData*>(duckdb_bind_get_extra_info(info));
  std::vector<std::string> args;
  idx_t n = duckdb_bind_get_parameter_count(info);
  for (idx_t i = 0; i < n; i++) {
    duckdb_value v = duckdb_bind_get_parameter(info, i);
    char* text = duckdb_is_null_value(v) ? nullptr : duckdb_get_varchar(v);
    args.emplace_back(text ? text : "");
    if (text) duckdb_free(text);
    duckdb_destroy_value(&v);
  }
  auto stream = fn->factory(args);
  if (!stream.ok()) {
    duckdb_bind_set_error(info, stream.status().message().c_str());
    return;
  }
  duckdb_logical_type varchar = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
  for (const auto& c : fn->columns) duckdb_bind_add_result_column(info, c.c_str(), varchar);
  duckdb_destroy_logical_type(&varchar);
  auto* data = new BindData{std::move(stream).value(), fn->columns.size()};
  duckdb_bind_set_bind_data(info, data, [](void* p) { delete static_cast<BindData*>(p); });
}

void Init(duckdb_init_info info) { internal::InitProjectedScan<ScanState>(info); }

void Scan(duckdb_function_info info, duckdb_data_chunk output) {
  auto* bind = static_cast<BindData*>(duckdb_function_get_bind_data(info));
  auto* state = static_cast<ScanState*>(duckdb_function_get_init_data(info));
  if (state->done) {
    duckdb_data_chunk_set_size(output, 0);
    return;
  }
  std::vector<StreamRow> rows;
  Status st = bind->stream->Next(duckdb_vector_size(), rows);
  if (!st.ok()) {
    duckdb_function_set_error(info, st.message().c_str());
    return;
  }
  if (rows.empty()) state->done = true;
  for (size_t out_col = 0; out_col < state->projected.size(); out_col++) {
    idx_t col = state->projected[out_col];
    duckdb_vector vec = duckdb_data_chunk_get_vector(output, out_col);
    if (col >= bind->num_columns) continue;  // DuckDB's virtual row-id column
    uint64_t* validity = nullptr;
    for (size_t r = 0; r < rows.size(); r++) {
      const auto& cell = col < rows[r].size() ? rows[r][col] : std::nullopt;
      if (!cell) {
        if (!validity) {
          duckdb_vector_ensure_validity_writable(vec);
          validity = duckdb_vector_get_validity(vec);
        }
        duckdb_validity_set_row_invalid(validity, r);
        continue;
      }
      duckdb_vector_assign_string_element_len(vec, r, cell->data(), cell->size());
    }
  }
  duckdb_data_chunk_set_size(output, rows.size());
}

}  // namespace

Status RegisterStreamTableFunction(Connection& con, const std::string& name, size_t num_args,
                                   const std::vector<std::string>& columns, RowStreamFactory factory) {
  static std::mutex register_mu;
  std::lock_guard<std::mutex> lock(register_mu);
  duckdb_table_function fn = duckdb_create_table_function();
  duckdb_table_function_set_name(fn, name.c_str());
  duckdb_logical_type varchar = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
  for (size_t i = 0; i < num_args; i++) duckdb_table_function_add_parameter(fn, varchar);
  duckdb_destroy_logical_type(&varchar);
  duckdb_table_function_set_extra_info(fn, new FunctionData{columns, std::move(factory)},
                                       [](void* p) { delete static_cast<FunctionData*>(p); });
  duckdb_table_function_set_bind(fn, Bind);
  duckdb_table_function_set_init(fn, Init);
  duckdb_table_function_set_function(fn, Scan);
  duckdb_table_function_supports_projection_pushdown(fn, true);
  duckdb_state st = duckdb_register_table_function(con.raw(), fn);
  duckdb_destroy_table_function(&fn);
  if (st != DuckDBSuccess) {
    auto probe = con.Query("SELECT count(*) FROM duckdb_functions() WHERE function_name = '" + name + "'");
    if (!probe.ok() || !probe->result_set || probe->result_set->rows.empty() ||
        probe->result_set->rows[0][0] == std::optional<std::string>("0"))
      return Status::Internal("cannot register the " + name + " table function");
  }
  return Status::Ok();
}

}  // namespace sluice::storage
