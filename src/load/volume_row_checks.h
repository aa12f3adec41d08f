#pragma once
// Rows of a volume file that DuckDB would refuse for the whole INSERT, and which StarRocks filters one by one as
// error rows: a value longer than its VARCHAR(n)/CHAR(n) column's n bytes, NULL into a NOT NULL column, a row in
// none of the table's RANGE/LIST partitions. Under ON_ERROR = CONTINUE a volume load (COPY INTO, volume pipes)
// reads the file into a constraint-free stage shaped like the table, records these rows as rejected rows and
// inserts the rest; under ABORT the table's own constraints fail the file, as before.
#include <string>
#include <vector>

#include "catalog/table_meta.h"

namespace sluice::load {

struct VolumeRowCheck {
  std::string column;      // the column named by the rejected row ("" for a row in no partition)
  std::string bad_sql;     // true for a row that must not load; columns named as in the table
  std::string reason_sql;  // VARCHAR: why, with the offending value
};

struct VolumeRowChecks {
  // The stage's column list, "<name> <DuckDB type> [DEFAULT ...]" in the table's order: what an INSERT into the
  // table fills, defaults included, without the constraints the checks stand for.
  std::string stage_columns_sql;
  std::vector<VolumeRowCheck> checks;

  bool empty() const { return checks.empty(); }
};

VolumeRowChecks VolumeRowChecksFor(const catalog::TableMeta& table);

}  // namespace sluice::load
