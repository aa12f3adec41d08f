#pragma once
// Scan pruning: whether a data file may hold rows that satisfy a conjunction of simple column predicates, judged
// from what the manifest says about the file without opening it: its partition tuple (through the partition
// transform) and its column metrics (lower/upper bounds, value and null counts). The answer errs on one side only:
// "false" means no row of the file can match; anything not understood, absent or of a type whose order Sluice does
// not model here (float, double, timestamptz, uuid, binary, time) is "may match".
#include <vector>

#include "iceberg/manifest.h"
#include "iceberg/table_model.h"
#include "iceberg/value.h"

namespace sluice::iceberg {

enum class PredicateOp { kEq, kLt, kLe, kGt, kGe, kIn, kIsNull, kIsNotNull };

// `column <op> value(s)`; values are typed as the column (same Type), never null. kIn holds one or more values;
// kIsNull / kIsNotNull hold none.
struct ColumnPredicate {
  int field_id = 0;
  PredicateOp op = PredicateOp::kEq;
  std::vector<Value> values;
};

// Whether the column types of this kind can be pruned on: boolean, int, long, decimal, date, timestamp, string.
bool PrunableType(const Type& type);

// Whether some row of `file` (written with `spec` over `schema`) may satisfy every predicate.
bool FileMayMatch(const Schema& schema, const PartitionSpec& spec, const DataFile& file,
                  const std::vector<ColumnPredicate>& predicates);

}  // namespace sluice::iceberg
