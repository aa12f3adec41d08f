#pragma once
// UPDATE through the front door may not change a partition column of a RANGE / LIST partitioned table: the row
// would move to another partition, or to none. StarRocks refuses it too (partition columns of its key tables are
// key columns, which UPDATE cannot set, and its other tables have no UPDATE). DELETE the row and INSERT it anew.
#include <string>
#include <string_view>

#include "catalog/catalog.h"
#include "common/status.h"

namespace sluice {

// Ok unless `sql` is `UPDATE [db.]t ... SET ...` whose SET list names a partition column of t.
Status CheckPartitionUpdate(catalog::Catalog& catalog, const std::string& current_db, std::string_view sql);

}  // namespace sluice
