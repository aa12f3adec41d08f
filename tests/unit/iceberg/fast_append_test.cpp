// The next table version of a fast append: sequence numbers, the snapshot and its summary counters, the parent's
// manifests carried forward, refs and logs; and the manifest-list entry's partition summaries.
#include <gtest/gtest.h>

#include "iceberg/fast_append.h"
#include "iceberg/single_value.h"
#include "iceberg/table_builder.h"

namespace sluice::iceberg {
namespace {

TableMetadata Table() {
  auto schema = *SchemaFromColumns({{"id", "BIGINT"}, {"ts", "TIMESTAMP"}});
  auto spec = *PartitionSpecFromTerms(schema, {"day(ts)"});
  return NewTableMetadata(schema, spec, "s3://b/t", {{"write.metadata.previous-versions-max", "2"}}, 1000);
}

DataFile File(const std::string& path, int64_t rows, int32_t day) {
  DataFile f;
  f.file_path = path;
  f.record_count = rows;
  f.file_size_in_bytes = rows * 10;
  f.partition = {Value{MakeType(TypeId::kDate), day}};
  return f;
}

TEST(FastAppendTest, SnapshotsChainAndCarryManifestsForward) {
  TableMetadata t0 = Table();
  std::vector<DataFile> files = {File("a", 10, 100), File("b", 5, 102)};
  auto added = AddedManifestEntry(t0, "s3://b/t/metadata/m1.avro", 500, files, 11, 1);
  ASSERT_TRUE(added.ok());
  ASSERT_TRUE(added->partitions.has_value());
  EXPECT_EQ(*added->partitions->at(0).lower_bound, *EncodeSingleValue(Value{MakeType(TypeId::kDate), int32_t{100}}));
  EXPECT_EQ(*added->partitions->at(0).upper_bound, *EncodeSingleValue(Value{MakeType(TypeId::kDate), int32_t{102}}));
  EXPECT_FALSE(added->partitions->at(0).contains_null);
  EXPECT_EQ(added->added_rows_count, 15);

  auto p1 = PlanFastAppend(t0, "s3://b/t/metadata/00000-x.metadata.json", {}, *added, files,
                           {{"sluice.offsets.j", "{\"0\":9}"}}, 11, "s3://b/t/metadata/snap-11.avro", 2000);
  ASSERT_TRUE(p1.ok()) << p1.status().ToString();
  const TableMetadata& t1 = p1->metadata;
  EXPECT_EQ(t1.last_sequence_number, 1);
  EXPECT_EQ(*t1.current_snapshot_id, 11);
  EXPECT_EQ(t1.refs.at("main").snapshot_id, 11);
  EXPECT_FALSE(t1.CurrentSnapshot()->parent_snapshot_id.has_value());
  EXPECT_EQ(t1.CurrentSnapshot()->summary.at("operation"), "append");
  EXPECT_EQ(t1.CurrentSnapshot()->summary.at("added-records"), "15");
  EXPECT_EQ(t1.CurrentSnapshot()->summary.at("total-records"), "15");
  EXPECT_EQ(t1.CurrentSnapshot()->summary.at("changed-partition-count"), "2");
  EXPECT_EQ(t1.CurrentSnapshot()->summary.at("sluice.offsets.j"), "{\"0\":9}");
  EXPECT_EQ(t1.metadata_log.size(), 1u);
  EXPECT_EQ(t1.snapshot_log.size(), 1u);
  EXPECT_EQ(p1->manifests.size(), 1u);

  std::vector<DataFile> more = {File("c", 7, 103)};
  auto added2 = AddedManifestEntry(t1, "s3://b/t/metadata/m2.avro", 400, more, 22, 2);
  auto p2 = PlanFastAppend(t1, "s3://b/t/metadata/00001-y.metadata.json", p1->manifests, *added2, more, {}, 22,
                           "s3://b/t/metadata/snap-22.avro", 1500);  // a clock that went back
  ASSERT_TRUE(p2.ok());
  const TableMetadata& t2 = p2->metadata;
  EXPECT_EQ(t2.last_sequence_number, 2);
  EXPECT_EQ(*t2.CurrentSnapshot()->parent_snapshot_id, 11);
  EXPECT_EQ(t2.CurrentSnapshot()->timestamp_ms, 2000) << "never before the version it follows";
  EXPECT_EQ(t2.CurrentSnapshot()->summary.at("total-records"), "22");
  EXPECT_EQ(t2.CurrentSnapshot()->summary.at("total-data-files"), "3");
  ASSERT_EQ(p2->manifests.size(), 2u);
  EXPECT_EQ(p2->manifests[0].manifest_path, "s3://b/t/metadata/m2.avro");
  EXPECT_EQ(p2->manifests[0].sequence_number, 2);
  EXPECT_EQ(p2->manifests[1].manifest_path, "s3://b/t/metadata/m1.avro");
  EXPECT_EQ(p2->manifests[1].sequence_number, 1) << "the parent's manifest is carried as it was";
  EXPECT_EQ(t2.snapshots.size(), 2u);
  EXPECT_EQ(t2.CurrentSnapshot()->summary.at("sluice.offsets.j"), "{\"0\":9}")
      << "an append without the job's key carries its offsets forward, so expiring snapshot 11 cannot lose them";

  auto p3 = PlanFastAppend(t2, "s3://b/t/metadata/00002-z.metadata.json", p2->manifests, *added2, more, {}, 33,
                           "s3://b/t/metadata/snap-33.avro", 3000);
  ASSERT_TRUE(p3.ok());
  ASSERT_EQ(p3->metadata.metadata_log.size(), 2u) << "write.metadata.previous-versions-max = 2";
  auto p4 = PlanFastAppend(p3->metadata, "s3://b/t/metadata/00003-w.metadata.json", p2->manifests, *added2, more,
                           {{"sluice.offsets.j", "{\"0\":12}"}, {"sluice.offsets.k", "{\"1\":3}"}}, 44,
                           "s3://b/t/metadata/snap-44.avro", 4000);
  ASSERT_TRUE(p4.ok());
  EXPECT_EQ(p4->metadata.CurrentSnapshot()->summary.at("sluice.offsets.j"), "{\"0\":12}") << "the writer's own value wins";
  EXPECT_EQ(p4->metadata.CurrentSnapshot()->summary.at("sluice.offsets.k"), "{\"1\":3}");
  EXPECT_EQ(p3->metadata.metadata_log.back().metadata_file, "s3://b/t/metadata/00002-z.metadata.json");
}

TEST(FastAppendTest, TotalsOfAParentWithoutThemAreSummedFromItsManifests) {
  TableMetadata t = Table();
  Snapshot other;  // another engine's snapshot without total-* keys
  other.snapshot_id = 5;
  other.sequence_number = 1;
  other.manifest_list = "s3://b/t/metadata/snap-5.avro";
  other.summary = {{"operation", "append"}};
  t.snapshots.push_back(other);
  t.current_snapshot_id = 5;
  t.last_sequence_number = 1;
  ManifestFile theirs;
  theirs.manifest_path = "s3://b/t/metadata/theirs.avro";
  theirs.added_rows_count = 40;
  theirs.existing_rows_count = 2;
  theirs.added_files_count = 3;
  std::vector<DataFile> files = {File("d", 8, 1)};
  auto added = AddedManifestEntry(t, "s3://b/t/metadata/m.avro", 1, files, 6, 2);
  auto p = PlanFastAppend(t, "", {theirs}, *added, files, {}, 6, "s3://b/t/metadata/snap-6.avro", 5000);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->metadata.CurrentSnapshot()->summary.at("total-records"), "50");
  EXPECT_EQ(p->metadata.CurrentSnapshot()->summary.at("total-data-files"), "4");
  EXPECT_EQ(p->metadata.CurrentSnapshot()->sequence_number, 2);

  TableMetadata v1 = Table();
  v1.format_version = 1;
  EXPECT_EQ(PlanFastAppend(v1, "", {}, *added, files, {}, 7, "x", 1).status().code(), StatusCode::kNotSupported);
}

}  // namespace
}  // namespace sluice::iceberg
