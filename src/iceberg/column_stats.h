#pragma once
// Column metrics of a Parquet data file, from what DuckDB's parquet_metadata() reports per column chunk (one row
// per row group and column): Iceberg's value_counts, null_value_counts, column_sizes and lower/upper bounds in the
// single-value serialization, strings and binaries truncated to 16 as Iceberg's default metrics mode does. The
// file's partition tuple is derived from the same ranges: for a monotonic transform, a file lies in one partition
// when the transform of its minimum equals that of its maximum.
//
// This module does not run DuckDB: the caller runs ParquetMetadataQuery() on its own connection and hands the rows
// over (the load path has its connection; the test tool has its own DuckDB).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/manifest.h"
#include "iceberg/table_model.h"

namespace sluice::iceberg {

// One row of parquet_metadata(), the columns ParquetMetadataQuery selects.
struct ParquetChunkStats {
  int64_t row_group_id = 0;
  int64_t row_group_num_rows = 0;
  std::string path_in_schema;  // the column's name for a top-level column
  int64_t num_values = 0;      // including nulls
  std::optional<int64_t> null_count;
  std::optional<std::string> min_text;  // DuckDB's rendering of the logical value
  std::optional<std::string> max_text;
  bool min_is_exact = true;
  bool max_is_exact = true;
  int64_t total_compressed_size = 0;
};

// SELECT row_group_id, row_group_num_rows, path_in_schema, num_values, stats_null_count, stats_min_value,
// stats_max_value, min_is_exact, max_is_exact, total_compressed_size FROM parquet_metadata('<path>') ...
std::string ParquetMetadataQuery(const std::string& local_path);

// Full (untruncated) value ranges of a file's columns, by field id; absent when the column had no non-null value
// or no usable statistics.
struct ColumnRanges {
  std::map<int, Value> min;
  std::map<int, Value> max;
};

// Fills `file`'s record_count, column_sizes, value_counts, null_value_counts and bounds from the chunks. Columns the
// schema does not have (by name) are skipped; a value DuckDB renders that cannot be parsed loses its bound only.
Result<ColumnRanges> FillColumnMetrics(const Schema& schema, const std::vector<ParquetChunkStats>& chunks,
                                       DataFile* file);

// The partition tuple of a file with these ranges. InvalidArgument naming the column when the file spans more than
// one partition (write one file per partition) or the transform (bucket) cannot be derived from a range and
// `given` (partition field index -> the value its writer computed for every row of the file) has no value for it.
Result<std::vector<Value>> PartitionFromRanges(const Schema& schema, const PartitionSpec& spec,
                                               const ColumnRanges& ranges, const DataFile& file,
                                               const std::map<size_t, Value>& given = {});

}  // namespace sluice::iceberg
