#pragma once
// A table's StarRocks RANGE or LIST partitions as Sluice keeps them (in TableMeta), checked when they are declared
// (CREATE TABLE, ALTER TABLE ... ADD PARTITION) and turned into SQL by which every write path finds a row's
// partition: loads make a row that falls in no partition (or outside the partitions a load names) an error row,
// INSERT refuses it, DROP PARTITION deletes the partition's rows. DuckDB tables themselves are not partitioned.
//
// Values are kept canonical for the column's type: integers as decimal text, DATE "YYYY-MM-DD", DATETIME
// "YYYY-MM-DD HH:MM:SS", strings as they are. As in StarRocks, a NULL partition value counts as smaller than every
// value in a RANGE table (it lands in the partition that starts at MINVALUE), and in a LIST table only a partition
// that lists NULL takes it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "sql/ast.h"

namespace sluice::catalog {

struct ColumnMeta;

struct PartitionDef {
  int64_t id = 0;
  std::string name;
  // RANGE: [lower, upper), one value per partition column; an empty lower starts at MINVALUE, an empty upper
  // ends at MAXVALUE.
  std::vector<std::string> lower, upper;
  // LIST: the listed values, one tuple per value; nullopt is NULL.
  std::vector<std::vector<std::optional<std::string>>> values;
};

struct PartitionScheme {
  std::string kind;                       // "RANGE", "LIST", or empty: not partitioned
  std::vector<std::string> columns;
  std::vector<std::string> column_types;  // the columns' DuckDB types, for the SQL literals
  std::vector<PartitionDef> partitions;   // RANGE: ordered by bound
  int64_t next_id = 10001;

  bool partitioned() const { return !kind.empty(); }
  const PartitionDef* Find(const std::string& name) const;  // names compare ignoring ASCII case, as StarRocks'
};

// From PARTITION BY RANGE/LIST: the columns must exist, have a type partitions support (integers, DATE, DATETIME,
// strings) and, in PRIMARY/UNIQUE/AGGREGATE KEY tables, be key columns; values must suit the columns' types;
// names are unique, ranges do not overlap, a list value is in one partition only.
Result<PartitionScheme> BuildPartitionScheme(const sql::PartitionClause& clause, const std::vector<ColumnMeta>& columns,
                                             const std::string& key_model);
// ALTER TABLE ... ADD PARTITION, checked the same way against the partitions the table has.
Status AddPartition(PartitionScheme& scheme, const sql::PartitionItem& item);

// SQL that is true when the row whose partition columns read `values` (SQL expressions, in scheme.columns
// order) lies in one of `names` (empty: any partition of the table). Never NULL. Adjacent ranges are merged,
// so a table of daily partitions costs two comparisons per row.
std::string PartitionMembershipSql(const PartitionScheme& scheme, const std::vector<std::string>& values,
                                   const std::vector<std::string>& names = {});
// VARCHAR SQL naming the row's partition values: "column 'dt' = '2024-05-01'" (NULL as NULL).
std::string PartitionValuesReasonSql(const PartitionScheme& scheme, const std::vector<std::string>& values);

// The PARTITION BY clause that recreates the partitions (SHOW CREATE TABLE).
std::string RenderPartitionClause(const PartitionScheme& scheme);
// SHOW PARTITIONS' Range / List value of one partition.
std::string PartitionValuesText(const PartitionScheme& scheme, const PartitionDef& p);

}  // namespace sluice::catalog
