#pragma once
// The DuckDB statement that writes a table's data file: the rows of a query, each column cast to the DuckDB type
// whose Parquet form is what Iceberg expects for the column's type (a SMALLINT becomes int32, a VARCHAR a UTF-8
// byte array), tagged with the column's field id (FIELD_IDS), so any Iceberg reader maps the columns by id. Columns
// come out in the schema's order; the query must have a column of each name.
#include <string>

#include "iceberg/table_model.h"

namespace sluice::iceberg {

// COPY (SELECT CAST("id" AS BIGINT) AS "id", ... FROM (<select_sql>)) TO '<path>' (FORMAT parquet, FIELD_IDS {...})
std::string ParquetCopySql(const Schema& schema, const std::string& select_sql, const std::string& local_path);

}  // namespace sluice::iceberg
