#pragma once
// Building a new table's model: a schema from Sluice column definitions (ids 1..n in order), a partition spec from
// Iceberg-style terms ("ts", "day(ts)", "bucket(16, id)", "truncate(4, name)"), and the first metadata.json of a
// table (no snapshot yet).
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/table_model.h"

namespace sluice::iceberg {

struct ColumnDef {
  std::string name;
  std::string duckdb_type;  // "BIGINT", "VARCHAR", "DECIMAL(10,2)" ...
  bool not_null = false;
};

Result<Schema> SchemaFromColumns(const std::vector<ColumnDef>& columns);
// Partition field names follow Iceberg's Java defaults: identity keeps the column name, others append _year,
// _month, _day, _hour, _bucket, _trunc. Field ids start at 1000.
Result<PartitionSpec> PartitionSpecFromTerms(const Schema& schema, const std::vector<std::string>& terms);
// `location`: where the table's data/ and metadata/ live, without a trailing '/'.
TableMetadata NewTableMetadata(const Schema& schema, const PartitionSpec& spec, const std::string& location,
                               const std::map<std::string, std::string>& properties, int64_t now_ms);
// The default location of a table in a warehouse, as Iceberg's JDBC catalog picks it: <warehouse>/<ns...>/<table>.
std::string DefaultTableLocation(const std::string& warehouse, const std::vector<std::string>& ns,
                                 const std::string& table);

}  // namespace sluice::iceberg
