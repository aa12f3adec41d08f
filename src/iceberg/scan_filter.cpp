#include "iceberg/scan_filter.h"

#include "iceberg/single_value.h"

namespace sluice::iceberg {

namespace {

// Whether some value v with lower <= v <= upper may satisfy `v op c` (a missing side is unbounded).
bool RangeMayMatch(const std::optional<Value>& lower, const std::optional<Value>& upper, PredicateOp op,
                   const Value& c) {
  switch (op) {
    case PredicateOp::kEq:
    case PredicateOp::kIn:
      return !(lower && CompareValues(*lower, c) > 0) && !(upper && CompareValues(*upper, c) < 0);
    case PredicateOp::kLt: return !(lower && CompareValues(*lower, c) >= 0);
    case PredicateOp::kLe: return !(lower && CompareValues(*lower, c) > 0);
    case PredicateOp::kGt: return !(upper && CompareValues(*upper, c) <= 0);
    case PredicateOp::kGe: return !(upper && CompareValues(*upper, c) < 0);
    default: return true;
  }
}

bool AnyValueMayMatch(const std::optional<Value>& lower, const std::optional<Value>& upper,
                      const ColumnPredicate& p) {
  for (const auto& c : p.values) {
    if (RangeMayMatch(lower, upper, p.op, c)) return true;
  }
  return p.values.empty();
}

std::optional<Value> Bound(const std::map<int, std::string>& bounds, int id, const Type& type) {
  auto it = bounds.find(id);
  if (it == bounds.end()) return std::nullopt;
  auto v = DecodeSingleValue(type, it->second);
  if (!v.ok() || v->is_null() || !(v->type == type)) return std::nullopt;
  return *v;
}

std::optional<int64_t> Count(const std::map<int, int64_t>& counts, int id) {
  auto it = counts.find(id);
  if (it == counts.end()) return std::nullopt;
  return it->second;
}

// The column metrics' verdict for one predicate.
bool MetricsMayMatch(const Field& field, const DataFile& file, const ColumnPredicate& p) {
  const auto nulls = Count(file.null_value_counts, field.id);
  const auto values = Count(file.value_counts, field.id);
  const bool all_null = nulls && values && *nulls == *values;
  if (p.op == PredicateOp::kIsNull) return !(nulls && *nulls == 0);
  if (p.op == PredicateOp::kIsNotNull) return !all_null;
  // A comparison is never true for a null: a file of nulls only has no match.
  if (all_null && file.record_count > 0) return false;
  return AnyValueMayMatch(Bound(file.lower_bounds, field.id, field.type), Bound(file.upper_bounds, field.id, field.type),
                          p);
}

// The partition tuple's verdict for one predicate, through one partition field on the predicate's column. For a
// monotonic transform T, v < c implies T(v) <= T(c): a file whose partition value p lies beyond T(c) cannot match.
bool PartitionMayMatch(const PartitionField& pf, const Value& p, const ColumnPredicate& pred) {
  const Transform& t = pf.transform;
  if (t.kind == TransformKind::kVoid) return true;
  // A null source gives a null partition value and only a null source does (every transform but void).
  if (pred.op == PredicateOp::kIsNull) return p.is_null();
  if (pred.op == PredicateOp::kIsNotNull) return !p.is_null();
  if (p.is_null()) return false;
  for (const auto& c : pred.values) {
    auto tc = t.Apply(c);
    if (!tc.ok() || tc->is_null() || !(tc->type == p.type)) return true;  // not understood: may match
    const int cmp = CompareValues(p, *tc);
    bool may = true;
    if (!t.monotonic()) {
      may = (pred.op != PredicateOp::kEq && pred.op != PredicateOp::kIn) || cmp == 0;
    } else {
      switch (pred.op) {
        case PredicateOp::kEq:
        case PredicateOp::kIn: may = cmp == 0; break;
        case PredicateOp::kLt:
        case PredicateOp::kLe: may = cmp <= 0; break;
        case PredicateOp::kGt:
        case PredicateOp::kGe: may = cmp >= 0; break;
        default: may = true;
      }
    }
    if (may) return true;
  }
  return pred.values.empty();
}

}  // namespace

bool PrunableType(const Type& type) {
  switch (type.id) {
    case TypeId::kBoolean:
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kDecimal:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kString: return true;
    default: return false;  // float/double (NaN is not in the bounds), timestamptz (session zone), uuid, binary, time
  }
}

bool FileMayMatch(const Schema& schema, const PartitionSpec& spec, const DataFile& file,
                  const std::vector<ColumnPredicate>& predicates) {
  for (const auto& pred : predicates) {
    const Field* field = schema.FindById(pred.field_id);
    if (field == nullptr || !PrunableType(field->type)) continue;
    bool typed = true;
    for (const auto& v : pred.values) typed = typed && v.type == field->type && !v.is_null();
    if (!typed) continue;
    if (!MetricsMayMatch(*field, file, pred)) return false;
    for (size_t i = 0; i < spec.fields.size() && i < file.partition.size(); i++) {
      if (spec.fields[i].source_id != pred.field_id) continue;
      if (!PartitionMayMatch(spec.fields[i], file.partition[i], pred)) return false;
    }
  }
  return true;
}

}  // namespace sluice::iceberg
