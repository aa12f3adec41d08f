// metadata.json v2: what Sluice writes reads back the same, carries the spec's required fields, and a file another
// engine wrote (with keys Sluice does not model) keeps those keys through a rewrite.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "iceberg/metadata_json.h"
#include "iceberg/table_builder.h"
#include "iceberg/table_operations.h"

namespace sluice::iceberg {
namespace {

TableMetadata Sample() {
  auto schema = SchemaFromColumns({{"id", "BIGINT", true}, {"name", "VARCHAR"}, {"ts", "TIMESTAMPTZ"},
                                   {"price", "DECIMAL(12,3)"}});
  auto spec = PartitionSpecFromTerms(*schema, {"day(ts)", "truncate(4, name)"});
  TableMetadata m = NewTableMetadata(*schema, *spec, "s3://lake/wh/db/t/", {{"owner", "sluice"}}, 1700000000000);
  Snapshot s;
  s.snapshot_id = 123456789012345;
  s.sequence_number = 1;
  s.timestamp_ms = 1700000001000;
  s.manifest_list = "s3://lake/wh/db/t/metadata/snap-1.avro";
  s.summary = {{"operation", "append"}, {"sluice.offsets.job1", R"({"0":41,"1":7})"}};
  s.schema_id = 0;
  m.snapshots.push_back(s);
  Snapshot s2 = s;
  s2.snapshot_id = 222;
  s2.parent_snapshot_id = s.snapshot_id;
  s2.sequence_number = 2;
  s2.summary = {{"operation", "append"}};
  m.snapshots.push_back(s2);
  m.current_snapshot_id = 222;
  m.last_sequence_number = 2;
  m.refs["main"] = SnapshotRef{222, "branch", ""};
  m.snapshot_log = {{1700000001000, s.snapshot_id}, {1700000002000, 222}};
  m.metadata_log = {{1700000000000, "s3://lake/wh/db/t/metadata/00000-a.metadata.json"}};
  return m;
}

TEST(MetadataJsonTest, RoundTrip) {
  TableMetadata m = Sample();
  std::string text = WriteMetadataJson(m);
  auto back = ParseMetadataJson(text, "t");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(WriteMetadataJson(*back), text);
  EXPECT_EQ(back->location, "s3://lake/wh/db/t");
  EXPECT_EQ(back->last_column_id, 4);
  EXPECT_EQ(back->last_partition_id, 1001);
  ASSERT_EQ(back->CurrentSchema()->fields.size(), 4u);
  EXPECT_EQ(back->CurrentSchema()->fields[3].type, DecimalType(12, 3));
  EXPECT_TRUE(back->CurrentSchema()->fields[0].required);
  EXPECT_EQ(back->DefaultSpec()->fields[0].transform.ToString(), "day");
  EXPECT_EQ(back->DefaultSpec()->fields[0].name, "ts_day");
  EXPECT_EQ(back->DefaultSpec()->fields[1].transform.ToString(), "truncate[4]");
  EXPECT_EQ(back->CurrentSnapshot()->snapshot_id, 222);
  EXPECT_EQ(*back->CurrentSnapshot()->parent_snapshot_id, 123456789012345);
}

TEST(MetadataJsonTest, WritesTheFieldsTheSpecRequires) {
  auto j = nlohmann::json::parse(WriteMetadataJson(Sample()));
  for (const char* key : {"format-version", "table-uuid", "location", "last-sequence-number", "last-updated-ms",
                          "last-column-id", "schemas", "current-schema-id", "partition-specs", "default-spec-id",
                          "last-partition-id", "properties", "current-snapshot-id", "snapshots", "snapshot-log",
                          "metadata-log", "sort-orders", "default-sort-order-id", "refs"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["format-version"], 2);
  EXPECT_EQ(j["schemas"][0]["type"], "struct");
  EXPECT_EQ(j["schemas"][0]["fields"][2]["type"], "timestamptz");
  EXPECT_EQ(j["schemas"][0]["fields"][3]["type"], "decimal(12, 3)");
  EXPECT_EQ(j["refs"]["main"]["snapshot-id"], 222);
  EXPECT_EQ(j["refs"]["main"]["type"], "branch");
  EXPECT_EQ(j["snapshots"][0]["summary"]["sluice.offsets.job1"], R"({"0":41,"1":7})");
  EXPECT_EQ(j["table-uuid"].get<std::string>().size(), 36u);

  TableMetadata empty = Sample();
  empty.snapshots.clear();
  empty.current_snapshot_id.reset();
  EXPECT_EQ(nlohmann::json::parse(WriteMetadataJson(empty))["current-snapshot-id"], -1);
}

TEST(MetadataJsonTest, KeepsWhatOtherEnginesWrote) {
  // Trimmed from a table Spark wrote: "statistics" and a ref's retention are not Sluice's, and survive.
  const char* spark = R"({
    "format-version": 2, "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1", "location": "s3://b/t",
    "last-sequence-number": 1, "last-updated-ms": 1602638573590, "last-column-id": 2, "current-schema-id": 0,
    "schemas": [{"type": "struct", "schema-id": 0, "fields": [
      {"id": 1, "name": "x", "required": true, "type": "long"}, {"id": 2, "name": "y", "required": false, "type": "string", "doc": "comment"}]}],
    "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": [{"name": "x_bucket", "transform": "bucket[4]", "source-id": 1, "field-id": 1000}]}],
    "last-partition-id": 1000, "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}],
    "properties": {"write.parquet.compression-codec": "zstd"}, "current-snapshot-id": 3051729675574597004,
    "refs": {"main": {"snapshot-id": 3051729675574597004, "type": "branch", "max-ref-age-ms": 1000}},
    "snapshots": [{"sequence-number": 1, "snapshot-id": 3051729675574597004, "timestamp-ms": 1515100955770,
      "summary": {"operation": "append", "spark.app.id": "local-1"}, "manifest-list": "s3://b/t/metadata/snap-1.avro", "schema-id": 0}],
    "statistics": [{"snapshot-id": 3051729675574597004, "statistics-path": "s3://b/t/stats.puffin", "file-size-in-bytes": 413, "file-footer-size-in-bytes": 42, "blob-metadata": []}],
    "snapshot-log": [{"timestamp-ms": 1515100955770, "snapshot-id": 3051729675574597004}], "metadata-log": []
  })";
  auto m = ParseMetadataJson(spark, "spark.json");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->CurrentSchema()->fields[1].doc, "comment");
  EXPECT_EQ(m->DefaultSpec()->fields[0].transform.param, 4);
  auto j = nlohmann::json::parse(WriteMetadataJson(*m));
  EXPECT_EQ(j["statistics"][0]["file-size-in-bytes"], 413);
  EXPECT_EQ(j["refs"]["main"]["max-ref-age-ms"], 1000);
  EXPECT_EQ(j["properties"]["write.parquet.compression-codec"], "zstd");

  EXPECT_FALSE(ParseMetadataJson("{", "x").ok());
  EXPECT_FALSE(ParseMetadataJson(R"({"format-version": 3})", "x").ok());
}

TEST(SummaryChainTest, FindsTheNewestValueOnTheAncestry) {
  TableMetadata m = Sample();
  auto v = ReadSummaryChain(m, "sluice.offsets.job1");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->value, R"({"0":41,"1":7})");
  EXPECT_EQ(v->snapshot_id, 123456789012345);
  EXPECT_FALSE(ReadSummaryChain(m, "sluice.offsets.other").has_value());
  m.snapshots[1].summary["sluice.offsets.job1"] = R"({"0":50})";
  EXPECT_EQ(ReadSummaryChain(m, "sluice.offsets.job1")->value, R"({"0":50})");
  EXPECT_EQ(MetadataVersion("s3://b/t/metadata/00012-abc.metadata.json"), 12);
  EXPECT_EQ(MetadataVersion("s3://b/t/metadata/v3.metadata.json"), 3);
}

}  // namespace
}  // namespace sluice::iceberg
