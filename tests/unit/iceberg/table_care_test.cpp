// Table care on a table in a local folder with an in-memory catalog (the Catalog interface's compare-and-swap,
// nothing else): expire_snapshots deletes exactly what no kept snapshot references -- here a data file and its
// manifest dropped by an overwrite, plus the expired manifest lists -- and remove_orphan_files deletes only old,
// unreferenced files of Iceberg's kinds; a replace (compaction's commit) swaps files, keeps the writers' summary
// keys, rebases on an append that won the race, refuses files that left the table, and lets expiry delete the
// replaced files.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "iceberg/ids.h"
#include "iceberg/manifest_list.h"
#include "iceberg/manifest.h"
#include "iceberg/metadata_json.h"
#include "iceberg/replace_files.h"
#include "iceberg/snapshot_files.h"
#include "iceberg/table_builder.h"
#include "iceberg/table_care.h"
#include "iceberg/time_travel.h"

namespace sluice::iceberg {
namespace {

namespace fs = std::filesystem;

class MemoryCatalog : public Catalog {
 public:
  Result<std::string> LoadTable(const TableIdent& t) override {
    auto it = tables_.find(t.ToString());
    if (it == tables_.end()) return Status::UnknownTable(t.ToString());
    return it->second;
  }
  Status CreateTable(const TableIdent& t, const std::string& location) override {
    tables_[t.ToString()] = location;
    return Status::Ok();
  }
  Result<CommitOutcome> CommitTable(const TableIdent& t, const std::string& expected,
                                    const std::string& next) override {
    if (tables_[t.ToString()] != expected) return CommitOutcome::kConflict;
    tables_[t.ToString()] = next;
    return CommitOutcome::kCommitted;
  }
  Status CreateNamespace(const std::vector<std::string>&) override { return Status::Ok(); }
  Result<bool> NamespaceExists(const std::vector<std::string>&) override { return true; }
  Result<std::vector<std::string>> ListNamespaces() override { return std::vector<std::string>{}; }
  Status DropNamespace(const std::vector<std::string>&) override { return Status::Ok(); }
  Result<std::vector<TableIdent>> ListTables(const std::vector<std::string>&) override {
    return std::vector<TableIdent>{};
  }
  Status DropTable(const TableIdent&) override { return Status::Ok(); }

 private:
  std::map<std::string, std::string> tables_;
};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Path(const std::string& location) { return location.substr(std::string("file://").size()); }

class TableCare : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = (fs::temp_directory_path() / ("sluice-care-" + NewUuid())).string();
    fs::create_directories(root_);
    location_ = "file://" + root_ + "/t";
    auto schema = *SchemaFromColumns({{"id", "BIGINT"}});
    auto created = ops_.Create(ident_, schema, *PartitionSpecFromTerms(schema, {}), location_, {});
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  void TearDown() override { fs::remove_all(root_); }

  // Appends one file; returns its location.
  std::string Append(const std::string& bytes, const Summary& summary = {}) {
    const std::string local = root_ + "/local-" + NewUuid();
    std::ofstream(local) << bytes;
    DataFile f;
    f.record_count = 1;
    auto base = ops_.Load(ident_);
    EXPECT_TRUE(base.ok());
    auto r = ops_.Append(*base, {FileToAppend{local, f}}, summary);
    EXPECT_TRUE(r.ok() && r->outcome == CommitOutcome::kCommitted);
    auto files = ListLiveDataFiles(&store_, r->table.metadata);
    return files->front().file.file_path;  // the new manifest comes first
  }

  // A snapshot that keeps only the newest manifest of the current one (another engine's overwrite).
  int64_t OverwriteKeepingNewest() {
    auto base = *ops_.Load(ident_);
    const Snapshot* cur = base.metadata.CurrentSnapshot();
    auto manifests = *ReadManifestList(*store_.Get(cur->manifest_list), "list");
    manifests.resize(1);
    TableMetadata next = base.metadata;
    Snapshot s;
    s.snapshot_id = NewSnapshotId();
    s.parent_snapshot_id = cur->snapshot_id;
    s.sequence_number = next.last_sequence_number + 1;
    s.timestamp_ms = NowMs();
    s.manifest_list = location_ + "/metadata/snap-" + std::to_string(s.snapshot_id) + ".avro";
    s.summary = {{"operation", "overwrite"}};
    EXPECT_TRUE(store_.Put(s.manifest_list, *WriteManifestList(manifests, s.snapshot_id, cur->snapshot_id,
                                                                 s.sequence_number)).ok());
    next.snapshots.push_back(s);
    next.current_snapshot_id = s.snapshot_id;
    next.last_sequence_number = s.sequence_number;
    next.snapshot_log.push_back({s.timestamp_ms, s.snapshot_id});
    next.refs["main"].snapshot_id = s.snapshot_id;
    next.metadata_log.push_back({base.metadata.last_updated_ms, base.metadata_location});
    next.last_updated_ms = s.timestamp_ms;
    const std::string meta = location_ + "/metadata/00099-" + NewUuid() + ".metadata.json";
    EXPECT_TRUE(store_.Put(meta, WriteMetadataJson(next)).ok());
    EXPECT_EQ(*catalog_.CommitTable(ident_, base.metadata_location, meta), CommitOutcome::kCommitted);
    return s.snapshot_id;
  }

  std::string root_, location_;
  TableIdent ident_{{"db"}, "t"};
  MemoryCatalog catalog_;
  LocalObjectStore store_;
  TableOperations ops_{&catalog_, &store_};
};

TEST_F(TableCare, ExpireDeletesOnlyWhatNoKeptSnapshotReferences) {
  const std::string a = Append("A");
  const int64_t first = ops_.Load(ident_)->metadata.current_snapshot_id.value();
  const std::string b = Append("B");
  OverwriteKeepingNewest();  // keeps b's manifest only: a is referenced by the two older snapshots alone
  ASSERT_TRUE(fs::exists(Path(a)) && fs::exists(Path(b)));

  // nothing older than the cut: nothing changes
  auto none = ExpireSnapshots(&catalog_, &store_, ident_, 0, 1, NowMs());
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->expired_snapshots, 0);

  auto r = ExpireSnapshots(&catalog_, &store_, ident_, NowMs() + 60000, 1, NowMs());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->expired_snapshots, 2);
  EXPECT_EQ(r->deleted_manifest_lists, 2);
  EXPECT_EQ(r->deleted_manifests, 1);
  EXPECT_EQ(r->deleted_data_files, 1);
  EXPECT_FALSE(fs::exists(Path(a)));
  EXPECT_TRUE(fs::exists(Path(b)));
  auto table = *ops_.Load(ident_);
  EXPECT_EQ(table.metadata.snapshots.size(), 1u);
  auto files = ListLiveDataFiles(&store_, table.metadata);
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ(files->front().file.file_path, b);
  auto gone = SnapshotById(table.metadata, first);
  EXPECT_FALSE(gone.ok());
  EXPECT_NE(gone.status().message().find("expired"), std::string::npos);
  EXPECT_FALSE(SnapshotAsOfTime(table.metadata, 0).ok());
  EXPECT_EQ(ExpireSnapshots(&catalog_, &store_, ident_, NowMs(), 0, NowMs()).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(TableCare, RemoveOrphanFilesTakesOldUnreferencedIcebergFilesOnly) {
  const std::string a = Append("A");
  auto old = fs::file_time_type::clock::now() - std::chrono::hours(72);
  auto put = [&](const std::string& rel, bool backdate) {
    const std::string p = root_ + "/t/" + rel;
    fs::create_directories(fs::path(p).parent_path());
    std::ofstream(p) << "x";
    if (backdate) fs::last_write_time(p, old);
    return p;
  };
  const std::string orphan = put("data/orphan.parquet", true);
  const std::string orphan_manifest = put("metadata/lost-m0.avro", true);
  const std::string young = put("data/young.parquet", false);
  const std::string other = put("data/notes.txt", true);
  fs::last_write_time(Path(a), old);  // referenced: stays however old
  auto r = RemoveOrphanFiles(&catalog_, &store_, ident_, NowMs() - 3600 * 1000);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->removed_files, 2);
  EXPECT_FALSE(fs::exists(orphan));
  EXPECT_FALSE(fs::exists(orphan_manifest));
  EXPECT_TRUE(fs::exists(young));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_TRUE(fs::exists(Path(a)));
  auto table = *ops_.Load(ident_);
  EXPECT_TRUE(ListLiveDataFiles(&store_, table.metadata).ok());
}

TEST_F(TableCare, ReplaceSwapsFilesKeepsOffsetsAndRebasesOnAnAppend) {
  const std::string a = Append("A", {{"sluice.offsets.7", "{\"0\":10}"}});
  const std::string b = Append("B", {{"sluice.job", "d.j"}});
  auto base = *ops_.Load(ident_);
  const std::string local = root_ + "/merged";
  std::ofstream(local) << "AB";
  DataFile merged;
  merged.record_count = 2;
  auto staged = ops_.StageFiles(base, {FileToAppend{local, merged}});
  ASSERT_TRUE(staged.ok()) << staged.status().ToString();
  const std::string c = Append("C", {{"sluice.offsets.7", "{\"0\":11}"}});  // a load commits meanwhile

  const std::set<std::string> replaced = {a, b};
  const Summary carried = CarriedSummaryKeys(base.metadata, "sluice.");
  EXPECT_EQ(carried.at("sluice.offsets.7"), "{\"0\":10}");
  EXPECT_EQ(carried.at("sluice.job"), "d.j");
  auto lost = CommitReplace(&catalog_, &store_, base, replaced, *staged, carried, NowMs());
  ASSERT_TRUE(lost.ok()) << lost.status().ToString();
  ASSERT_EQ(lost->outcome, CommitOutcome::kConflict);
  auto won = CommitReplace(&catalog_, &store_, lost->table, replaced, *staged,
                           CarriedSummaryKeys(lost->table.metadata, "sluice."), NowMs());
  ASSERT_TRUE(won.ok()) << won.status().ToString();
  ASSERT_EQ(won->outcome, CommitOutcome::kCommitted);

  auto table = *ops_.Load(ident_);
  const Snapshot* s = table.metadata.CurrentSnapshot();
  EXPECT_EQ(s->summary.at("operation"), "replace");
  EXPECT_EQ(s->summary.at("sluice.offsets.7"), "{\"0\":11}") << "the load's newer offsets, not the stale ones";
  EXPECT_EQ(s->summary.at("sluice.job"), "d.j");
  EXPECT_EQ(s->summary.at("deleted-data-files"), "2");
  EXPECT_EQ(s->summary.at("added-data-files"), "1");
  EXPECT_EQ(s->summary.at("total-records"), "3");
  EXPECT_EQ(s->summary.at("total-data-files"), "2");
  auto live = *ListLiveDataFiles(&store_, table.metadata);
  std::set<std::string> paths;
  for (const auto& f : live) paths.insert(f.file.file_path);
  EXPECT_EQ(paths, (std::set<std::string>{staged->files[0].file_path, c}));
  // The replaced entries are DELETED with this snapshot's id and their own sequence numbers, spelt out.
  auto manifests = *ReadManifestList(*store_.Get(s->manifest_list), "list");
  const Schema& schema = *table.metadata.CurrentSchema();
  const PartitionSpec& spec = *table.metadata.DefaultSpec();
  int deleted = 0;
  for (const auto& mf : manifests) {
    auto entries = ReadManifest(*store_.Get(mf.manifest_path), schema, spec, "m");
    ASSERT_TRUE(entries.ok()) << entries.status().ToString();
    for (const auto& e : *entries) {
      if (e.status != EntryStatus::kDeleted) continue;
      deleted++;
      EXPECT_EQ(e.snapshot_id, s->snapshot_id);
      ASSERT_TRUE(e.sequence_number && e.file_sequence_number);
      EXPECT_LT(*e.sequence_number, s->sequence_number);
      EXPECT_EQ(mf.deleted_files_count, 1);
    }
  }
  EXPECT_EQ(deleted, 2);

  // Those files left the table: replacing them again is a conflict, and changes nothing.
  auto again = CommitReplace(&catalog_, &store_, table, {a}, *staged, {}, NowMs());
  EXPECT_EQ(again.status().code(), StatusCode::kConflict);
  EXPECT_EQ(ops_.Load(ident_)->metadata_location, table.metadata_location);

  // Expiring the snapshots that read them deletes the replaced files; the live ones stay.
  auto r = ExpireSnapshots(&catalog_, &store_, ident_, NowMs() + 60000, 1, NowMs());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->deleted_data_files, 2);
  EXPECT_FALSE(fs::exists(Path(a)));
  EXPECT_FALSE(fs::exists(Path(b)));
  EXPECT_TRUE(fs::exists(Path(c)));
  EXPECT_TRUE(fs::exists(Path(staged->files[0].file_path)));
  EXPECT_EQ(ListLiveDataFiles(&store_, ops_.Load(ident_)->metadata)->size(), 2u);
}

}  // namespace
}  // namespace sluice::iceberg
