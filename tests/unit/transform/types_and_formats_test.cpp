// The small translation tables: MySQL date formats, time zones, DuckDB type names.
#include <gtest/gtest.h>

#include "transform/sql_type.h"
#include "transform/time_format.h"
#include "transform/time_zone.h"

namespace sluice::transform {
namespace {

std::string Format(const std::string& mysql) {
  auto f = ToDuckDBTimeFormat(mysql);
  return f.ok() ? *f : "ERROR: " + f.status().message();
}

TEST(TimeFormatTest, MySqlSpecifiersBecomeDuckDBOnes) {
  EXPECT_EQ(Format("%Y-%m-%d %H:%i:%s"), "%Y-%m-%d %H:%M:%S");
  EXPECT_EQ(Format("%Y%m%d"), "%Y%m%d");
  EXPECT_EQ(Format("%y %c %e %k %l %h %I %p %S %f"), "%y %-m %-d %-H %-I %I %I %p %S %f");
  EXPECT_EQ(Format("%M %b %W %a %j %w %U %u %v %x"), "%B %b %A %a %j %w %U %W %V %G");
  EXPECT_EQ(Format("%T|%r"), "%H:%M:%S|%I:%M:%S %p");
  EXPECT_EQ(Format("100%% at %H"), "100%% at %H");
  EXPECT_EQ(Format("%Q"), "Q");  // MySQL: an unknown specifier is the letter itself
  EXPECT_EQ(Format("trailing %"), "trailing %%");
  EXPECT_EQ(Format("yyyyMMdd"), "%Y%m%d");
  EXPECT_EQ(Format("yyyy-MM-dd"), "%Y-%m-%d");
  EXPECT_EQ(Format("yyyy-MM-dd HH:mm:ss"), "%Y-%m-%d %H:%M:%S");
  EXPECT_EQ(Format("%D"), "ERROR: the date format specifier %D is not supported; see the transform function list for "
                          "the supported ones");
  EXPECT_EQ(Format("%X"), "ERROR: the date format specifier %X is not supported; see the transform function list for "
                          "the supported ones");
}

TEST(TimeFormatTest, TimeOfDayDecidesDateOrDatetime) {
  EXPECT_FALSE(TimeFormatHasTimeOfDay("%Y-%m-%d"));
  EXPECT_FALSE(TimeFormatHasTimeOfDay("%d/%M/%Y %W"));
  EXPECT_FALSE(TimeFormatHasTimeOfDay("100%%s"));
  EXPECT_TRUE(TimeFormatHasTimeOfDay("%Y-%m-%d %H"));
  EXPECT_TRUE(TimeFormatHasTimeOfDay("%T"));
  EXPECT_TRUE(TimeFormatHasTimeOfDay("%i"));
  EXPECT_TRUE(TimeFormatHasTimeOfDay("yyyy-MM-dd HH:mm:ss"));
}

TEST(TimeZoneTest, NamesOffsetsAndAliases) {
  auto tz = TimeZone::Parse("");
  ASSERT_TRUE(tz.ok());
  EXPECT_EQ(tz->name(), "UTC");
  EXPECT_EQ(tz->ToLocal("x"), "timezone('UTC', x)");
  tz = TimeZone::Parse("Asia/Shanghai");
  ASSERT_TRUE(tz.ok());
  EXPECT_EQ(tz->ToLocal("now()"), "timezone('Asia/Shanghai', now())");
  EXPECT_EQ(tz->FromLocal("ts"), "timezone('Asia/Shanghai', ts)");
  tz = TimeZone::Parse("cst");
  ASSERT_TRUE(tz.ok());
  EXPECT_EQ(tz->name(), "Asia/Shanghai");
  tz = TimeZone::Parse("+08:00");
  ASSERT_TRUE(tz.ok());
  EXPECT_EQ(tz->ToLocal("x"), "(timezone('UTC', x) + INTERVAL '08:00:00')");
  EXPECT_EQ(tz->FromLocal("y"), "timezone('UTC', y - INTERVAL '08:00:00')");
  tz = TimeZone::Parse("-0530");
  ASSERT_TRUE(tz.ok());
  EXPECT_EQ(tz->ToLocal("x"), "(timezone('UTC', x) + INTERVAL '-05:30:00')");
  tz = TimeZone::Parse("+8");
  ASSERT_TRUE(tz.ok());
  EXPECT_EQ(tz->ToLocal("x"), "(timezone('UTC', x) + INTERVAL '08:00:00')");
  EXPECT_FALSE(TimeZone::Parse("+14:30").ok());
  EXPECT_FALSE(TimeZone::Parse("+08:60").ok());
  EXPECT_FALSE(TimeZone::Parse("+08:0").ok());
  EXPECT_FALSE(TimeZone::Parse("Europe/Paris'").ok());
  EXPECT_FALSE(TimeZone::Parse("1Zone").ok());
}

TEST(SqlTypeTest, ClassifiesDuckDBTypes) {
  EXPECT_EQ(ClassifyDuckDBType("BIGINT").cls, TypeClass::kInteger);
  EXPECT_EQ(ClassifyDuckDBType("hugeint").cls, TypeClass::kInteger);
  EXPECT_EQ(ClassifyDuckDBType("hugeint").duckdb, "HUGEINT");
  EXPECT_EQ(ClassifyDuckDBType("DOUBLE").cls, TypeClass::kFloat);
  EXPECT_EQ(ClassifyDuckDBType("DECIMAL(10,2)").cls, TypeClass::kDecimal);
  EXPECT_EQ(ClassifyDuckDBType("DECIMAL(10,2)").duckdb, "DECIMAL(10,2)");
  SqlType v = ClassifyDuckDBType("varchar(26)");
  EXPECT_EQ(v.cls, TypeClass::kVarchar);
  EXPECT_EQ(v.duckdb, "VARCHAR");
  EXPECT_EQ(v.max_length, 26);
  EXPECT_EQ(ClassifyDuckDBType("VARCHAR").max_length, std::nullopt);
  EXPECT_EQ(ClassifyDuckDBType("DATETIME").duckdb, "TIMESTAMP");
  EXPECT_EQ(ClassifyDuckDBType("TIMESTAMP WITH TIME ZONE").cls, TypeClass::kTimestampTz);
  EXPECT_EQ(ClassifyDuckDBType("TIMESTAMPTZ").cls, TypeClass::kTimestampTz);
  EXPECT_EQ(ClassifyDuckDBType("JSON").cls, TypeClass::kJson);
  EXPECT_EQ(ClassifyDuckDBType("INTEGER[]").cls, TypeClass::kList);
  EXPECT_EQ(ClassifyDuckDBType("MAP(VARCHAR, INTEGER)").cls, TypeClass::kMap);
  SqlType s = ClassifyDuckDBType("STRUCT(\"Mixed\" INTEGER)");
  EXPECT_EQ(s.cls, TypeClass::kStruct);
  EXPECT_EQ(s.duckdb, "STRUCT(\"Mixed\" INTEGER)");  // field names keep their case
  EXPECT_EQ(ClassifyDuckDBType("BLOB").cls, TypeClass::kOther);
  EXPECT_EQ(ListElementType("INTEGER[][]"), "INTEGER[]");
  EXPECT_EQ(ListElementType("INTEGER"), "");
  EXPECT_EQ(MapKeyType("MAP(VARCHAR, STRUCT(a INTEGER, b VARCHAR))"), "VARCHAR");
  EXPECT_EQ(MapValueType("MAP(VARCHAR, STRUCT(a INTEGER, b VARCHAR))"), "STRUCT(a INTEGER, b VARCHAR)");
}

TEST(SqlTypeTest, CastTargetsUseStarRocksNames) {
  auto type = [](const std::string& name, std::vector<int64_t> params = {}) {
    auto t = CastTargetType(TypeName{name, std::move(params)});
    return t.ok() ? t->duckdb : "ERROR";
  };
  EXPECT_EQ(type("INT"), "INTEGER");
  EXPECT_EQ(type("SIGNED"), "BIGINT");
  EXPECT_EQ(type("UNSIGNED"), "UBIGINT");
  EXPECT_EQ(type("LARGEINT"), "HUGEINT");
  EXPECT_EQ(type("STRING"), "VARCHAR");
  EXPECT_EQ(type("VARCHAR", {10}), "VARCHAR");
  EXPECT_EQ(type("DATETIME"), "TIMESTAMP");
  EXPECT_EQ(type("DECIMAL"), "DECIMAL(10,0)");
  EXPECT_EQ(type("DECIMAL64", {18, 4}), "DECIMAL(18,4)");
  EXPECT_EQ(type("DECIMAL", {5, 6}), "ERROR");
  EXPECT_EQ(type("JSONB"), "JSON");
  EXPECT_EQ(type("VARBINARY"), "BLOB");
  EXPECT_EQ(type("MONEY"), "ERROR");
}

}  // namespace
}  // namespace sluice::transform
