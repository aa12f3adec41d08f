#include "storage/batch_table_function.h"

#include <duckdb.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "storage/table_function_scan.h"

namespace sluice::storage {

namespace {

std::mutex g_mu;
std::unordered_map<int64_t, const TextBatch*> g_batches;
std::atomic<int64_t> g_next_id{1};

const TextBatch* FindBatch(int64_t id) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_batches.find(id);
  return it == g_batches.end() ? nullptr : it->second;
}

struct BindData {
  int64_t id;
  size_t columns;  // the batch's columns when the statement was bound
};

struct ScanState {
  const TextBatch* batch = nullptr;
  size_t next_row = 0;
  std::vector<idx_t> projected;  // output column i reads batch column projected[i]; num_columns() = the row id
};

// DuckDB keeps a string of at most 12 bytes inside its 16-byte duckdb_string_t (length, then the bytes,
// zero-padded: DuckDB compares inlined strings as whole 16 bytes). Writing it there directly costs a few
// instructions, where duckdb_vector_assign_string_element_len spent about 75 per value (callgrind, a CSV load);
// longer strings still go through the C API, which copies them into the vector's own heap.
constexpr size_t kInlinedStringBytes = sizeof(duckdb_string_t::value.inlined.inlined);

void AssignString(duckdb_vector vec, duckdb_string_t* strings, idx_t row, std::string_view v) {
  if (v.size() > kInlinedStringBytes) {
    duckdb_vector_assign_string_element_len(vec, row, v.data(), v.size());
    return;
  }
  duckdb_string_t s;
  std::memset(&s, 0, sizeof(s));
  s.value.inlined.length = static_cast<uint32_t>(v.size());
  if (!v.empty()) std::memcpy(s.value.inlined.inlined, v.data(), v.size());
  strings[row] = s;
}

void Bind(duckdb_bind_info info) {
  duckdb_value param = duckdb_bind_get_parameter(info, 0);
  int64_t id = duckdb_get_int64(param);
  duckdb_destroy_value(&param);
  const TextBatch* batch = FindBatch(id);
  if (!batch) {
    duckdb_bind_set_error(info, ("no batch with id " + std::to_string(id)).c_str());
    return;
  }
  duckdb_logical_type varchar = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
  for (const auto& name : batch->column_names()) duckdb_bind_add_result_column(info, name.c_str(), varchar);
  duckdb_destroy_logical_type(&varchar);
  duckdb_logical_type bigint = duckdb_create_logical_type(DUCKDB_TYPE_BIGINT);
  duckdb_bind_add_result_column(info, kBatchRowColumn, bigint);
  duckdb_destroy_logical_type(&bigint);
  // An estimate only: a prepared statement runs again over other batches of the slot.
  duckdb_bind_set_cardinality(info, batch->num_rows(), false);
  duckdb_bind_set_bind_data(info, new BindData{id, batch->num_columns()},
                            [](void* p) { delete static_cast<BindData*>(p); });
}

void Init(duckdb_init_info info) {
  auto* bind = static_cast<BindData*>(duckdb_init_get_bind_data(info));
  const TextBatch* batch = FindBatch(bind->id);
  if (!batch) {
    duckdb_init_set_error(info, ("no batch with id " + std::to_string(bind->id)).c_str());
    return;
  }
  if (batch->num_columns() != bind->columns) {
    duckdb_init_set_error(info, ("the batch under id " + std::to_string(bind->id) +
                                 " has other columns than when the statement was prepared").c_str());
    return;
  }
  internal::InitProjectedScan<ScanState>(info, [batch](ScanState& state) { state.batch = batch; });
}

void Scan(duckdb_function_info info, duckdb_data_chunk output) {
  auto* state = static_cast<ScanState*>(duckdb_function_get_init_data(info));
  const TextBatch& batch = *state->batch;
  size_t start = state->next_row;
  size_t count = std::min<size_t>(duckdb_vector_size(), batch.num_rows() - start);
  for (size_t out_col = 0; out_col < state->projected.size(); out_col++) {
    idx_t col = state->projected[out_col];
    duckdb_vector vec = duckdb_data_chunk_get_vector(output, out_col);
    if (col == batch.num_columns()) {  // the row id column
      auto* data = static_cast<int64_t*>(duckdb_vector_get_data(vec));
      for (size_t r = 0; r < count; r++) data[r] = static_cast<int64_t>(start + r);
      continue;
    }
    if (col > batch.num_columns()) continue;  // DuckDB's virtual row-id column: never asked of a load
    uint64_t* validity = nullptr;
    auto* strings = static_cast<duckdb_string_t*>(duckdb_vector_get_data(vec));
    for (size_t r = 0; r < count; r++) {
      if (batch.IsNull(col, start + r)) {
        if (!validity) {
          duckdb_vector_ensure_validity_writable(vec);
          validity = duckdb_vector_get_validity(vec);
        }
        duckdb_validity_set_row_invalid(validity, r);
        continue;
      }
      AssignString(vec, strings, r, batch.Field(col, start + r));
    }
  }
  state->next_row += count;
  duckdb_data_chunk_set_size(output, count);
}

}  // namespace

int64_t NewBatchId() { return g_next_id++; }

BatchHandle::BatchHandle(const TextBatch& batch) : BatchHandle(batch, NewBatchId()) {}

BatchHandle::BatchHandle(const TextBatch& batch, int64_t slot) : id_(slot) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_batches[id_] = &batch;
}

BatchHandle::~BatchHandle() {
  std::lock_guard<std::mutex> lock(g_mu);
  g_batches.erase(id_);
}

Status RegisterBatchTableFunction(Connection& con) {
  // Registration writes DuckDB's catalog; two connections registering at once conflict, and the loser would not
  // yet see the winner's function. One at a time, each sees the last one's committed registration.
  static std::mutex register_mu;
  std::lock_guard<std::mutex> lock(register_mu);
  duckdb_table_function fn = duckdb_create_table_function();
  duckdb_table_function_set_name(fn, kBatchFunctionName);
  duckdb_logical_type bigint = duckdb_create_logical_type(DUCKDB_TYPE_BIGINT);
  duckdb_table_function_add_parameter(fn, bigint);
  duckdb_destroy_logical_type(&bigint);
  duckdb_table_function_set_bind(fn, Bind);
  duckdb_table_function_set_init(fn, Init);
  duckdb_table_function_set_function(fn, Scan);
  duckdb_table_function_supports_projection_pushdown(fn, true);
  duckdb_state st = duckdb_register_table_function(con.raw(), fn);
  duckdb_destroy_table_function(&fn);
  // Registering again (another connection of the same database) fails harmlessly: the function is there.
  if (st != DuckDBSuccess) {
    auto probe = con.Query(std::string("SELECT count(*) FROM duckdb_functions() WHERE function_name = '") +
                           kBatchFunctionName + "'");
    if (!probe.ok() || !probe->result_set || probe->result_set->rows.empty() ||
        probe->result_set->rows[0][0] == std::optional<std::string>("0"))
      return Status::Internal("cannot register the sluice_batch table function");
  }
  return Status::Ok();
}

}  // namespace sluice::storage
