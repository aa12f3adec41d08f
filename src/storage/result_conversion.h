#pragma once
// Turns DuckDB results and errors into Sluice's ResultSet and Status.
#include <duckdb.h>

#include <vector>

#include "common/result_set.h"
#include "common/status.h"

namespace sluice::storage {

Status ErrorFromResult(duckdb_result* result);
// The same for a message without its error type (duckdb_pending_error): the type is read from DuckDB's prefix.
Status ErrorFromMessage(const std::string& msg);
// `columns`, when not empty, replaces the result's own column names and types (see Connection::Query).
Result<StatementResult> ConvertResult(duckdb_result* result, const std::vector<ColumnInfo>& columns);
ValueType ValueTypeOf(duckdb_type type);
ColumnInfo DescribeColumn(const char* name, duckdb_logical_type type);

}  // namespace sluice::storage
