#pragma once
// sluice_iceberg_bucket(text, duckdb_type, n): Iceberg's bucket[n] transform of one value, inside DuckDB, so an
// append can split its rows by bucket the way it splits them by day or truncate: one data file per bucket, with the
// bucket number as the file's partition value. The value comes as DuckDB's text form of the column (CAST AS VARCHAR)
// and its DuckDB type name, and is hashed exactly as the spec says (murmur3 x86-32 of its single-value bytes:
// 8 little-endian bytes for int, long, date, time and timestamps, UTF-8 for strings, the unscaled two's complement
// for decimals) by the same code partition pruning uses (iceberg/partition_transform), so a file is written to the
// bucket pruning looks for. NULL in, NULL out. A pure function: harmless for user SQL to call.
#include <string>

#include "common/status.h"
#include "iceberg/table_model.h"
#include "storage/database.h"

namespace sluice::lakehouse {

inline constexpr const char* kIcebergBucketFunction = "sluice_iceberg_bucket";

// Registers the function in the database of `con` (every connection of that database sees it).
Status RegisterIcebergBucketFunction(storage::Connection& con);

// The DuckDB expression of bucket[n](column) for a column of `type` (quoted column name given); NotSupported for
// types Sluice does not hash (binary, fixed, uuid, time).
Result<std::string> BucketExpressionSql(const std::string& quoted_column, const iceberg::Type& type, int n);

}  // namespace sluice::lakehouse
