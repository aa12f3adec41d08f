#pragma once
// The ResultRowStream over a DuckDB streaming result whose columns DuckDB already rendered as VARCHAR
// (Connection::QueryStreaming): each duckdb_fetch_chunk becomes up to 2048 rows of text.
#include <duckdb.h>

#include <memory>
#include <vector>

#include "common/result_set.h"
#include "storage/storage_health.h"

namespace sluice::storage {

class PlanTransaction;

// Takes ownership of `result`. `columns` are the types the client sees (one per result column). An error in a later
// chunk goes through `health` (when given), as a statement's error does: a full disk mid-result is reported as such.
// `transaction` (when given) is the query's own (plan_transaction.h): it ends when the last rows have been read or
// the stream is destroyed.
std::shared_ptr<ResultRowStream> MakeTextRowStream(duckdb_result result, std::vector<ColumnInfo> columns,
                                                   std::shared_ptr<StorageHealth> health,
                                                   std::shared_ptr<PlanTransaction> transaction = nullptr);

}  // namespace sluice::storage
