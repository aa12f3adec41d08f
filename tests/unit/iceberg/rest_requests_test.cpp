// The REST commit body derived from two table versions: the requirements that make it a compare-and-swap
// (assert-table-uuid, assert-ref-snapshot-id on main: null for a table without snapshots) and the updates an
// append and an expiry produce; changes a REST commit cannot carry are refused.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "iceberg/rest_requests.h"
#include "iceberg/table_builder.h"

namespace sluice::iceberg {
namespace {

using json = nlohmann::json;

TableMetadata NewTable() {
  auto schema = SchemaFromColumns({ColumnDef{"id", "BIGINT", true}});
  EXPECT_TRUE(schema.ok());
  auto spec = PartitionSpecFromTerms(*schema, {});
  EXPECT_TRUE(spec.ok());
  TableMetadata m = NewTableMetadata(*schema, *spec, "s3://b/wh/db/t", {{"owner", "sluice"}}, 1000);
  m.table_uuid = "0f0e0d0c-0000-4000-8000-000000000001";
  return m;
}

TableMetadata WithSnapshot(TableMetadata m, int64_t id) {
  Snapshot s;
  s.snapshot_id = id;
  if (m.current_snapshot_id) s.parent_snapshot_id = *m.current_snapshot_id;
  s.sequence_number = m.last_sequence_number + 1;
  s.timestamp_ms = 2000 + id;
  s.manifest_list = "s3://b/wh/db/t/metadata/snap-" + std::to_string(id) + ".avro";
  s.summary = {{"operation", "append"}, {"sluice.offsets.1", "{\"0\":10}"}};
  m.snapshots.push_back(s);
  m.last_sequence_number = s.sequence_number;
  m.current_snapshot_id = id;
  m.refs["main"] = SnapshotRef{id, "branch", ""};
  return m;
}

TEST(RestRequests, FirstAppendAssertsNoMainAndAddsTheSnapshot) {
  TableMetadata base = NewTable();
  TableMetadata next = WithSnapshot(base, 7);
  auto body = RestCommitBody(TableIdent{{"db"}, "t"}, base, next);
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  json j = json::parse(*body);
  EXPECT_EQ(j["identifier"], json::parse(R"({"namespace":["db"],"name":"t"})"));
  EXPECT_EQ(j["requirements"], json::parse(R"([{"type":"assert-table-uuid","uuid":"0f0e0d0c-0000-4000-8000-000000000001"},
                                               {"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null}])"));
  ASSERT_EQ(j["updates"].size(), 2u);
  EXPECT_EQ(j["updates"][0]["action"], "add-snapshot");
  EXPECT_EQ(j["updates"][0]["snapshot"]["snapshot-id"], 7);
  EXPECT_EQ(j["updates"][0]["snapshot"]["sequence-number"], 1);
  EXPECT_EQ(j["updates"][0]["snapshot"]["summary"]["sluice.offsets.1"], "{\"0\":10}");
  EXPECT_EQ(j["updates"][1], json::parse(R"({"action":"set-snapshot-ref","ref-name":"main","snapshot-id":7,"type":"branch"})"));
}

TEST(RestRequests, LaterAppendAssertsTheSnapshotItStartedFrom) {
  TableMetadata base = WithSnapshot(NewTable(), 7);
  TableMetadata next = WithSnapshot(base, 8);
  json j = json::parse(*RestCommitBody(TableIdent{{"db"}, "t"}, base, next));
  EXPECT_EQ(j["requirements"][1]["snapshot-id"], 7);
  EXPECT_EQ(j["updates"][0]["snapshot"]["parent-snapshot-id"], 7);
  EXPECT_EQ(j["updates"][1]["snapshot-id"], 8);
}

TEST(RestRequests, ExpiryRemovesSnapshotsAndPropertiesChange) {
  TableMetadata base = WithSnapshot(WithSnapshot(NewTable(), 7), 8);
  TableMetadata next = base;
  next.snapshots.erase(next.snapshots.begin());
  next.properties.erase("owner");
  next.properties["history.expire.max-snapshot-age-ms"] = "1000";
  json j = json::parse(*RestCommitBody(TableIdent{{"db"}, "t"}, base, next));
  EXPECT_EQ(j["requirements"][1]["snapshot-id"], 8);
  EXPECT_EQ(j["updates"], json::parse(R"([{"action":"remove-snapshots","snapshot-ids":[7]},
      {"action":"set-properties","updates":{"history.expire.max-snapshot-age-ms":"1000"}},
      {"action":"remove-properties","removals":["owner"]}])"));
}

TEST(RestRequests, SchemaChangesAreRefused) {
  TableMetadata base = NewTable();
  TableMetadata next = base;
  next.schemas[0].fields[0].name = "renamed";
  auto body = RestCommitBody(TableIdent{{"db"}, "t"}, base, next);
  EXPECT_EQ(body.status().code(), StatusCode::kNotSupported);
}

TEST(RestRequests, NamespacesInPathsUseTheUnitSeparator) {
  EXPECT_EQ(RestNamespacePath({"a", "b c"}), "a%1Fb%20c");
  EXPECT_EQ(RestEscape("x/y"), "x%2Fy");
}

TEST(RestRequests, CreateTableCarriesSchemaSpecAndLocation) {
  json j = json::parse(RestCreateTableBody("t", NewTable(), "s3://b/wh/db/t"));
  EXPECT_EQ(j["name"], "t");
  EXPECT_EQ(j["location"], "s3://b/wh/db/t");
  EXPECT_EQ(j["schema"]["fields"][0]["name"], "id");
  EXPECT_EQ(j["partition-spec"]["fields"], json::array());
  EXPECT_FALSE(json::parse(RestCreateTableBody("t", NewTable(), "")).contains("location"));
}

}  // namespace
}  // namespace sluice::iceberg
