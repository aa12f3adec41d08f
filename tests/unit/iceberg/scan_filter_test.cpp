// Scan pruning from manifest metadata: partition values through each transform, column bounds, null counts, and
// the "may match" answer for everything not understood.
#include <gtest/gtest.h>

#include "iceberg/scan_filter.h"
#include "iceberg/single_value.h"

namespace sluice::iceberg {
namespace {

Value V(const Type& t, const std::string& text) {
  auto v = ParseValueText(t, text);
  EXPECT_TRUE(v.ok()) << text;
  return *v;
}

std::string Enc(const Value& v) { return *EncodeSingleValue(v); }

struct Fixture {
  Schema schema;
  Type ts = MakeType(TypeId::kTimestamp), id = MakeType(TypeId::kLong), name = MakeType(TypeId::kString),
       amount = MakeType(TypeId::kDouble);
  Fixture() {
    schema.fields = {{1, "id", false, id, ""}, {2, "name", false, name, ""}, {3, "ts", false, ts, ""},
                     {4, "amount", false, amount, ""}};
  }
  // A file of ids lo..hi, names a..b, one day of ts, no nulls.
  DataFile File(const std::string& lo, const std::string& hi, const std::string& day) const {
    DataFile f;
    f.record_count = 10;
    for (int c : {1, 2, 3, 4}) {
      f.value_counts[c] = 10;
      f.null_value_counts[c] = 0;
    }
    f.lower_bounds[1] = Enc(V(id, lo));
    f.upper_bounds[1] = Enc(V(id, hi));
    f.lower_bounds[3] = Enc(V(ts, day + " 00:00:00"));
    f.upper_bounds[3] = Enc(V(ts, day + " 23:00:00"));
    f.lower_bounds[2] = Enc(V(name, "apple"));
    f.upper_bounds[2] = Enc(V(name, "cherry"));
    return f;
  }
  ColumnPredicate P(int field, PredicateOp op, std::vector<std::string> texts) const {
    const Type& t = field == 1 ? id : field == 2 ? name : field == 3 ? ts : amount;
    ColumnPredicate p{field, op, {}};
    for (const auto& x : texts) p.values.push_back(V(t, x));
    return p;
  }
};

TEST(ScanFilter, ColumnBounds) {
  Fixture fx;
  PartitionSpec none;
  DataFile f = fx.File("10", "20", "2024-05-01");
  auto may = [&](ColumnPredicate p) { return FileMayMatch(fx.schema, none, f, {p}); };
  EXPECT_TRUE(may(fx.P(1, PredicateOp::kEq, {"10"})));
  EXPECT_TRUE(may(fx.P(1, PredicateOp::kEq, {"20"})));
  EXPECT_FALSE(may(fx.P(1, PredicateOp::kEq, {"9"})));
  EXPECT_FALSE(may(fx.P(1, PredicateOp::kEq, {"21"})));
  EXPECT_FALSE(may(fx.P(1, PredicateOp::kLt, {"10"})));
  EXPECT_TRUE(may(fx.P(1, PredicateOp::kLe, {"10"})));
  EXPECT_FALSE(may(fx.P(1, PredicateOp::kGt, {"20"})));
  EXPECT_TRUE(may(fx.P(1, PredicateOp::kGe, {"20"})));
  EXPECT_FALSE(may(fx.P(1, PredicateOp::kIn, {"1", "2", "30"})));
  EXPECT_TRUE(may(fx.P(1, PredicateOp::kIn, {"1", "15"})));
  EXPECT_TRUE(may(fx.P(2, PredicateOp::kEq, {"banana"})));
  EXPECT_FALSE(may(fx.P(2, PredicateOp::kGt, {"cherry"})));
  EXPECT_FALSE(may(fx.P(2, PredicateOp::kLt, {"apple"})));
  EXPECT_FALSE(may(fx.P(1, PredicateOp::kIsNull, {})));    // null count 0
  EXPECT_TRUE(may(fx.P(1, PredicateOp::kIsNotNull, {})));
  // ANDed predicates: one that cannot hold rules the file out (each is judged on its own)
  EXPECT_FALSE(FileMayMatch(fx.schema, none, f, {fx.P(1, PredicateOp::kGe, {"15"}), fx.P(2, PredicateOp::kGt, {"cherry"})}));
  EXPECT_TRUE(FileMayMatch(fx.schema, none, f, {fx.P(1, PredicateOp::kGe, {"15"}), fx.P(1, PredicateOp::kLt, {"12"})}));
}

TEST(ScanFilter, MissingMetricsAndUnprunableTypesMayMatch) {
  Fixture fx;
  PartitionSpec none;
  DataFile f;  // nothing known
  f.record_count = 5;
  EXPECT_TRUE(FileMayMatch(fx.schema, none, f, {fx.P(1, PredicateOp::kEq, {"1"})}));
  EXPECT_TRUE(FileMayMatch(fx.schema, none, f, {fx.P(1, PredicateOp::kIsNull, {})}));
  // double bounds are not trusted (NaN is in no bound): never pruned on
  DataFile d = fx.File("1", "2", "2024-05-01");
  d.lower_bounds[4] = Enc(V(fx.amount, "1.0"));
  d.upper_bounds[4] = Enc(V(fx.amount, "2.0"));
  EXPECT_TRUE(FileMayMatch(fx.schema, none, d, {fx.P(4, PredicateOp::kGt, {"100.0"})}));
  // a predicate typed unlike its column is ignored
  ColumnPredicate wrong{1, PredicateOp::kEq, {V(fx.name, "x")}};
  EXPECT_TRUE(FileMayMatch(fx.schema, none, d, {wrong}));
  // a column of nulls only matches no comparison, but matches IS NULL
  DataFile nulls = fx.File("1", "2", "2024-05-01");
  nulls.lower_bounds.erase(1);
  nulls.upper_bounds.erase(1);
  nulls.null_value_counts[1] = 10;
  EXPECT_FALSE(FileMayMatch(fx.schema, none, nulls, {fx.P(1, PredicateOp::kEq, {"1"})}));
  EXPECT_TRUE(FileMayMatch(fx.schema, none, nulls, {fx.P(1, PredicateOp::kIsNull, {})}));
  EXPECT_FALSE(FileMayMatch(fx.schema, none, nulls, {fx.P(1, PredicateOp::kIsNotNull, {})}));
}

TEST(ScanFilter, PartitionTransforms) {
  Fixture fx;
  auto spec_of = [&](int source, const std::string& transform) {
    PartitionSpec s;
    s.fields.push_back({source, 1000, "p", *Transform::Parse(transform)});
    return s;
  };
  auto file_in = [&](const PartitionSpec& s, const Value& source_value) {
    DataFile f;  // no column metrics: only the partition decides
    f.record_count = 3;
    f.partition.push_back(*s.fields[0].transform.Apply(source_value));
    return f;
  };
  for (const std::string t : {"day", "month", "year", "hour", "identity"}) {
    PartitionSpec s = spec_of(3, t);
    DataFile f = file_in(s, V(fx.ts, "2024-05-10 12:30:00"));
    auto may = [&](PredicateOp op, const std::string& x) { return FileMayMatch(fx.schema, s, f, {fx.P(3, op, {x})}); };
    EXPECT_TRUE(may(PredicateOp::kEq, "2024-05-10 12:30:00")) << t;
    EXPECT_FALSE(may(PredicateOp::kEq, "2023-01-01 00:00:00")) << t;
    EXPECT_FALSE(may(PredicateOp::kGe, "2025-06-01 00:00:00")) << t;
    EXPECT_FALSE(may(PredicateOp::kLt, "2023-01-01 00:00:00")) << t;
    EXPECT_TRUE(may(PredicateOp::kLe, "2024-05-10 12:30:00")) << t;
    EXPECT_TRUE(may(PredicateOp::kGt, "2024-05-10 12:29:00")) << t;
    EXPECT_FALSE(FileMayMatch(fx.schema, s, f, {fx.P(3, PredicateOp::kIsNull, {})})) << t;
  }
  // day: any time of the same day may match an equality (the partition only knows the day)
  PartitionSpec day = spec_of(3, "day");
  DataFile f = file_in(day, V(fx.ts, "2024-05-10 12:30:00"));
  EXPECT_TRUE(FileMayMatch(fx.schema, day, f, {fx.P(3, PredicateOp::kEq, {"2024-05-10 23:59:59"})}));
  EXPECT_FALSE(FileMayMatch(fx.schema, day, f, {fx.P(3, PredicateOp::kGe, {"2024-05-11 00:00:00"})}));
  EXPECT_TRUE(FileMayMatch(fx.schema, day, f, {fx.P(3, PredicateOp::kLt, {"2024-05-10 00:00:01"})}));
  // truncate on strings and longs
  PartitionSpec tr = spec_of(2, "truncate[2]");
  DataFile g = file_in(tr, V(fx.name, "banana"));  // partition "ba"
  EXPECT_TRUE(FileMayMatch(fx.schema, tr, g, {fx.P(2, PredicateOp::kEq, {"bazaar"})}));
  EXPECT_FALSE(FileMayMatch(fx.schema, tr, g, {fx.P(2, PredicateOp::kEq, {"cherry"})}));
  EXPECT_FALSE(FileMayMatch(fx.schema, tr, g, {fx.P(2, PredicateOp::kLt, {"apple"})}));
  EXPECT_TRUE(FileMayMatch(fx.schema, tr, g, {fx.P(2, PredicateOp::kGt, {"b"})}));
  PartitionSpec tl = spec_of(1, "truncate[10]");
  DataFile h = file_in(tl, V(fx.id, "25"));  // partition 20: ids 20..29
  EXPECT_TRUE(FileMayMatch(fx.schema, tl, h, {fx.P(1, PredicateOp::kEq, {"29"})}));
  EXPECT_FALSE(FileMayMatch(fx.schema, tl, h, {fx.P(1, PredicateOp::kEq, {"30"})}));
  EXPECT_FALSE(FileMayMatch(fx.schema, tl, h, {fx.P(1, PredicateOp::kGe, {"30"})}));
  EXPECT_TRUE(FileMayMatch(fx.schema, tl, h, {fx.P(1, PredicateOp::kLt, {"21"})}));
  // bucket: equality and IN only
  PartitionSpec b = spec_of(1, "bucket[16]");
  DataFile k = file_in(b, V(fx.id, "7"));
  EXPECT_TRUE(FileMayMatch(fx.schema, b, k, {fx.P(1, PredicateOp::kEq, {"7"})}));
  int other = 8;
  while (CompareValues(*b.fields[0].transform.Apply(V(fx.id, std::to_string(other))), k.partition[0]) == 0 &&
         other < 100)
    other++;
  EXPECT_FALSE(FileMayMatch(fx.schema, b, k, {fx.P(1, PredicateOp::kEq, {std::to_string(other)})}));
  EXPECT_TRUE(FileMayMatch(fx.schema, b, k, {fx.P(1, PredicateOp::kGt, {"1000"})}));
  // a null partition value: only IS NULL matches
  DataFile n = file_in(day, Value::Null(fx.ts));
  EXPECT_TRUE(FileMayMatch(fx.schema, day, n, {fx.P(3, PredicateOp::kIsNull, {})}));
  EXPECT_FALSE(FileMayMatch(fx.schema, day, n, {fx.P(3, PredicateOp::kGt, {"2000-01-01 00:00:00"})}));
}

}  // namespace
}  // namespace sluice::iceberg
