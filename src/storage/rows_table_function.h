#pragma once
// Table functions whose rows come from C++: `SELECT * FROM name('argument')` calls a producer once when the query
// is bound and scans what it returned. DIRECTORY(volume) is one (the session rewrites it to
// sluice_directory('volume')); anything that lists something for SQL to filter, sort and count can be another.
#include <functional>
#include <string>
#include <vector>

#include "common/result_set.h"
#include "common/status.h"
#include "storage/database.h"

namespace sluice::storage {

// Supported column types: kVarchar; kBigInt (the row's value is the decimal text); kTimestamp (the row's value is
// microseconds since the epoch, as decimal text). NULL is nullopt.
struct RowsColumn {
  std::string name;
  ValueType type = ValueType::kVarchar;
};

// Called with the function's one VARCHAR argument; an error becomes the query's error.
using RowsProducer = std::function<Result<std::vector<Row>>(const std::string& argument)>;

// Registers `name(VARCHAR)` in the database `con` belongs to (once per database is enough: every connection sees
// it). The producer must stay valid for as long as the database is open.
Status RegisterRowsTableFunction(Connection& con, const std::string& name, std::vector<RowsColumn> columns,
                                 RowsProducer producer);

}  // namespace sluice::storage
