#pragma once
// The ResultRowStream over a DuckDB streaming result whose columns DuckDB already rendered as VARCHAR
// (Connection::QueryStreaming): each duckdb_fetch_chunk becomes up to 2048 rows of text.
#include <duckdb.h>

#include <memory>
#include <vector>

#include "common/result_set.h"

namespace sluice::storage {

// Takes ownership of `result`. `columns` are the types the client sees (one per result column).
std::shared_ptr<ResultRowStream> MakeTextRowStream(duckdb_result result, std::vector<ColumnInfo> columns);

}  // namespace sluice::storage
