// Single-value serialization of bounds, the partition transforms (with the Iceberg spec's bucket hash vectors),
// the DuckDB type mapping, and column metrics from parquet_metadata() rows.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "iceberg/column_stats.h"
#include "iceberg/parquet_write_sql.h"
#include "iceberg/partition_transform.h"
#include "iceberg/single_value.h"
#include "iceberg/table_builder.h"

namespace sluice::iceberg {
namespace {

std::string Hex(const std::string& s) {
  std::string out;
  for (unsigned char c : s) out += fmt::format("{:02x}", c);
  return out;
}

std::string Bound(const Type& t, const std::string& text) {
  auto v = ParseValueText(t, text);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status().ToString();
  auto b = EncodeSingleValue(*v);
  EXPECT_TRUE(b.ok());
  auto back = DecodeSingleValue(t, *b);
  EXPECT_TRUE(back.ok());
  EXPECT_EQ(CompareValues(*back, *v), 0) << text;
  return Hex(*b);
}

TEST(SingleValueTest, BoundsEncodingOfTheCommonTypes) {
  EXPECT_EQ(Bound(MakeType(TypeId::kBoolean), "true"), "01");
  EXPECT_EQ(Bound(MakeType(TypeId::kInt), "1"), "01000000");
  EXPECT_EQ(Bound(MakeType(TypeId::kInt), "-2"), "feffffff");
  EXPECT_EQ(Bound(MakeType(TypeId::kLong), "258"), "0201000000000000");
  EXPECT_EQ(Bound(MakeType(TypeId::kDouble), "1.5"), "000000000000f83f");
  EXPECT_EQ(Bound(MakeType(TypeId::kFloat), "-2.5"), "000020c0");
  EXPECT_EQ(Bound(MakeType(TypeId::kDate), "1970-01-02"), "01000000");
  EXPECT_EQ(Bound(MakeType(TypeId::kDate), "2024-05-01"), Hex(std::string("\x84\x4d\0\0", 4)));  // 19844
  // 2024-05-01 10:00:00 UTC = 1714557600000000 µs
  EXPECT_EQ(Bound(MakeType(TypeId::kTimestamp), "2024-05-01 10:00:00"), "00e8b18c61170600");
  EXPECT_EQ(Bound(MakeType(TypeId::kTimestampTz), "2024-05-01 12:00:00+02"), "00e8b18c61170600");
  EXPECT_EQ(Bound(MakeType(TypeId::kTimestamp), "1970-01-01 00:00:00.000001"), "0100000000000000");
  EXPECT_EQ(Bound(MakeType(TypeId::kTime), "00:00:01"), "40420f0000000000");
  EXPECT_EQ(Bound(MakeType(TypeId::kString), "iceberg"), "69636562657267");
  // Decimals: the unscaled value, big-endian two's complement in the fewest bytes.
  EXPECT_EQ(Bound(DecimalType(10, 2), "12.34"), "04d2");
  EXPECT_EQ(Bound(DecimalType(10, 2), "-1.00"), "9c");
  EXPECT_EQ(Bound(DecimalType(10, 2), "1.28"), "0080");
  EXPECT_EQ(Bound(DecimalType(10, 2), "12.3"), "04ce");
  EXPECT_EQ(Bound(MakeType(TypeId::kUuid), "f79c3e09-677c-4bbd-a479-3f349cb785e7"), "f79c3e09677c4bbda4793f349cb785e7");
  EXPECT_FALSE(ParseValueText(MakeType(TypeId::kInt), "1.5").ok());
  EXPECT_FALSE(ParseValueText(MakeType(TypeId::kDate), "yesterday").ok());
}

TEST(SingleValueTest, StringBoundsAreTruncatedTo16) {
  Value long_text{MakeType(TypeId::kString), std::string("abcdefghijklmnopqrstuvwxyz")};
  EXPECT_EQ(std::get<std::string>(TruncateLowerBound(long_text, 16).v), "abcdefghijklmnop");
  EXPECT_EQ(std::get<std::string>(TruncateUpperBound(long_text, 16)->v), "abcdefghijklmnoq");
  Value short_text{MakeType(TypeId::kString), std::string("abc")};
  EXPECT_EQ(std::get<std::string>(TruncateUpperBound(short_text, 16)->v), "abc");
  Value multibyte{MakeType(TypeId::kString), std::string("ééééééééééééééééé")};  // 17 code points
  EXPECT_EQ(std::get<std::string>(TruncateLowerBound(multibyte, 16).v).size(), 32u);
  EXPECT_EQ(std::get<std::string>(TruncateUpperBound(multibyte, 16)->v), std::string("ééééééééééééééé") + "ê");
}

TEST(PartitionTransformTest, BucketHashMatchesTheSpec) {
  // Iceberg table spec, Appendix B: hash values for the bucket transform.
  auto hash = [](const Value& v) { return Murmur3Hash32(*BucketHashBytes(v)); };
  EXPECT_EQ(hash(Value{MakeType(TypeId::kInt), int32_t{34}}), 2017239379);
  EXPECT_EQ(hash(Value{MakeType(TypeId::kLong), int64_t{34}}), 2017239379);
  EXPECT_EQ(hash(*ParseValueText(DecimalType(4, 2), "14.20")), -500754589);
  EXPECT_EQ(hash(*ParseValueText(MakeType(TypeId::kDate), "2017-11-16")), -653330422);
  EXPECT_EQ(hash(*ParseValueText(MakeType(TypeId::kTimestamp), "2017-11-16 22:31:08")), -2047944441);
  EXPECT_EQ(hash(Value{MakeType(TypeId::kString), std::string("iceberg")}), 1210000089);
  EXPECT_EQ(hash(*ParseValueText(MakeType(TypeId::kUuid), "f79c3e09-677c-4bbd-a479-3f349cb785e7")), 1488055340);
}

TEST(PartitionTransformTest, TemporalAndTruncate) {
  Value ts = *ParseValueText(MakeType(TypeId::kTimestamp), "2024-05-01 10:30:00");
  auto apply = [&](const char* t, const Value& v) { return *Transform::Parse(t)->Apply(v); };
  EXPECT_EQ(ValueToText(apply("day", ts)), "2024-05-01");
  EXPECT_EQ(std::get<int32_t>(apply("hour", ts).v), 476266);
  EXPECT_EQ(std::get<int32_t>(apply("month", ts).v), (2024 - 1970) * 12 + 4);
  EXPECT_EQ(std::get<int32_t>(apply("year", ts).v), 54);
  Value before_epoch = *ParseValueText(MakeType(TypeId::kTimestamp), "1969-12-31 23:59:59");
  EXPECT_EQ(std::get<int32_t>(apply("day", before_epoch).v), -1);
  EXPECT_EQ(std::get<int32_t>(apply("truncate[10]", Value{MakeType(TypeId::kInt), int32_t{-1}}).v), -10);
  EXPECT_EQ(std::get<std::string>(apply("truncate[3]", Value{MakeType(TypeId::kString), std::string("iceberg")}).v), "ice");
  EXPECT_TRUE(std::get<Int128>(apply("truncate[50]", *ParseValueText(DecimalType(9, 2), "10.65")).v) == 1050);
  EXPECT_FALSE(Transform::Parse("day")->ResultType(MakeType(TypeId::kString)).ok());
  EXPECT_FALSE(Transform::Parse("squash").ok());
}

TEST(TypeMappingTest, DuckDbTypes) {
  EXPECT_EQ(TypeFromDuckDb("BIGINT")->ToString(), "long");
  EXPECT_EQ(TypeFromDuckDb("SMALLINT")->ToString(), "int");
  EXPECT_EQ(TypeFromDuckDb("VARCHAR")->ToString(), "string");
  EXPECT_EQ(TypeFromDuckDb("DECIMAL(18,3)")->ToString(), "decimal(18, 3)");
  EXPECT_EQ(TypeFromDuckDb("TIMESTAMP WITH TIME ZONE")->ToString(), "timestamptz");
  EXPECT_EQ(TypeFromDuckDb("blob")->ToString(), "binary");
  EXPECT_EQ(TypeFromDuckDb("HUGEINT").status().code(), StatusCode::kNotSupported);
  EXPECT_EQ(TypeFromDuckDb("INTEGER[]").status().code(), StatusCode::kNotSupported);
  EXPECT_EQ(*Type::Parse("decimal(10, 2)"), DecimalType(10, 2));
  EXPECT_EQ(Type::Parse("fixed[16]")->length, 16);
}

TEST(ColumnStatsTest, MetricsAndPartitionFromParquetMetadataRows) {
  auto schema = *SchemaFromColumns({{"id", "BIGINT"}, {"name", "VARCHAR"}, {"ts", "TIMESTAMP"}, {"n", "INTEGER"}});
  // Two row groups, as parquet_metadata() reports them.
  std::vector<ParquetChunkStats> chunks = {
      {0, 2, "id", 2, 0, "5", "9", true, true, 40},
      {0, 2, "name", 2, 0, "b", "zzzzzzzzzzzzzzzzzzzz", true, true, 30},
      {0, 2, "ts", 2, 0, "2024-05-01 10:00:00", "2024-05-01 11:00:00", true, true, 41},
      {0, 2, "n", 2, 2, std::nullopt, std::nullopt, true, true, 20},
      {1, 1, "id", 1, 0, "1", "1", true, true, 20},
      {1, 1, "name", 1, 1, std::nullopt, std::nullopt, true, true, 10},
      {1, 1, "ts", 1, 0, "2024-05-01 23:59:59", "2024-05-01 23:59:59", true, true, 21},
      {1, 1, "n", 1, 1, std::nullopt, std::nullopt, true, true, 10},
  };
  DataFile f;
  auto ranges = FillColumnMetrics(schema, chunks, &f);
  ASSERT_TRUE(ranges.ok()) << ranges.status().ToString();
  EXPECT_EQ(f.record_count, 3);
  EXPECT_EQ(f.value_counts.at(1), 3);
  EXPECT_EQ(f.null_value_counts.at(2), 1);
  EXPECT_EQ(f.null_value_counts.at(4), 3);
  EXPECT_EQ(f.column_sizes.at(1), 60);
  EXPECT_EQ(Hex(f.lower_bounds.at(1)), "0100000000000000");
  EXPECT_EQ(Hex(f.upper_bounds.at(1)), "0900000000000000");
  EXPECT_EQ(f.lower_bounds.at(2), "b");
  EXPECT_EQ(f.upper_bounds.at(2), "zzzzzzzzzzzzzzz{");  // 16 code points, the last one incremented
  EXPECT_EQ(f.lower_bounds.count(4), 0u);  // all null: no bounds

  auto day = *PartitionSpecFromTerms(schema, {"day(ts)"});
  auto p = PartitionFromRanges(schema, day, *ranges, f);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(ValueToText((*p)[0]), "2024-05-01");
  auto hour = *PartitionSpecFromTerms(schema, {"hour(ts)"});
  EXPECT_EQ(PartitionFromRanges(schema, hour, *ranges, f).status().code(), StatusCode::kInvalidArgument);
  auto by_n = *PartitionSpecFromTerms(schema, {"n"});
  EXPECT_TRUE(PartitionFromRanges(schema, by_n, *ranges, f)->at(0).is_null());
  auto by_name = *PartitionSpecFromTerms(schema, {"name"});
  EXPECT_FALSE(PartitionFromRanges(schema, by_name, *ranges, f).ok());  // nulls and values
  EXPECT_NE(ParquetMetadataQuery("/tmp/it's.parquet").find("'/tmp/it''s.parquet'"), std::string::npos);
}

TEST(ParquetWriteSqlTest, CastsToTheIcebergPhysicalTypesAndTagsFieldIds) {
  auto schema = *SchemaFromColumns({{"id", "SMALLINT"}, {"we\"ird", "VARCHAR"}, {"amount", "NUMERIC(9,2)"}});
  EXPECT_EQ(ParquetCopySql(schema, "SELECT * FROM t", "/tmp/o'k.parquet"),
            "COPY (SELECT CAST(\"id\" AS INTEGER) AS \"id\", CAST(\"we\"\"ird\" AS VARCHAR) AS \"we\"\"ird\", "
            "CAST(\"amount\" AS DECIMAL(9,2)) AS \"amount\" FROM (SELECT * FROM t)) TO '/tmp/o''k.parquet' "
            "(FORMAT parquet, FIELD_IDS {\"id\": 1, \"we\"\"ird\": 2, \"amount\": 3})");
}

}  // namespace
}  // namespace sluice::iceberg
