#pragma once
// What Sluice's table functions (sluice_batch, READ_KAFKA's stream, DIRECTORY's rows) share: a scan state made on
// DuckDB's init call, read by one thread (the rows come from one producer, in order).
#include <duckdb.h>

#include <vector>

namespace sluice::storage::internal {

// `State` needs a `std::vector<idx_t> projected`: output column i reads the function's column projected[i].
// `fill` sets the rest of the state before DuckDB gets it.
template <typename State, typename Fill = void (*)(State&)>
void InitProjectedScan(duckdb_init_info info, Fill fill = [](State&) {}) {
  auto* state = new State();
  fill(*state);
  idx_t n = duckdb_init_get_column_count(info);
  for (idx_t i = 0; i < n; i++) state->projected.push_back(duckdb_init_get_column_index(info, i));
  duckdb_init_set_max_threads(info, 1);
  duckdb_init_set_init_data(info, state, [](void* p) { delete static_cast<State*>(p); });
}

}  // namespace sluice::storage::internal
