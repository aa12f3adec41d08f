#pragma once
// TableOperations: what a writer does to an Iceberg table through a catalog and an object store. Create a table,
// load its current version, and append Parquet files DuckDB wrote in one snapshot:
//
//   1. StageFiles uploads the files under <location>/data/ and writes one manifest listing them. Its entries leave
//      snapshot id and sequence numbers null (inherited from the manifest list), so the same manifest serves any
//      later attempt.
//   2. CommitStaged writes the manifest list (the new manifest, then the parent's manifests: a fast append) and the
//      next metadata.json, then asks the catalog to swap the table's metadata location from the version the
//      writer started from to the new one. A catalog that writes the metadata itself (REST) is handed both
//      versions instead (Catalog::CommitChange) and sends the difference; its answer is the new version.
//
// "conflict" means another writer committed first: the unreferenced manifest list and metadata.json are deleted,
// the table is reloaded and handed back, and the caller decides (a stale task drops its staged files; otherwise it
// calls CommitStaged again on the reloaded table, which reuses the staged files). An error from the catalog during
// the swap leaves the outcome unknown: nothing is deleted, and the caller reloads and looks for its own summary
// keys (ReadSummaryChain) to learn whether it committed.
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/catalog.h"
#include "iceberg/manifest.h"
#include "iceberg/object_store.h"
#include "iceberg/table_model.h"

namespace sluice::iceberg {

struct LoadedTable {
  TableIdent ident;
  std::string metadata_location;
  TableMetadata metadata;
};

// A Parquet file to append: written locally by DuckDB with the table's field ids. `data_file` carries its metrics
// and partition tuple (column_stats.h); StageFiles sets its file_path and file_size_in_bytes.
struct FileToAppend {
  std::string local_path;
  DataFile data_file;
};

struct StagedAppend {
  int spec_id = 0;
  std::vector<DataFile> files;       // as uploaded, with their table locations
  std::string manifest_location;
  int64_t manifest_length = 0;
};

struct AppendResult {
  CommitOutcome outcome = CommitOutcome::kConflict;
  LoadedTable table;        // committed: the new version; conflict: the reloaded current version
  int64_t snapshot_id = 0;  // of the new snapshot, when committed
  std::string refused;      // outcome kRefused: the guard's reason (nothing committed, `table` not reloaded)
};

class TableOperations {
 public:
  TableOperations(Catalog* catalog, ObjectStore* store) : catalog_(catalog), store_(store) {}

  Result<LoadedTable> Load(const TableIdent& ident);
  // Writes <location>/metadata/00000-<uuid>.metadata.json and records the table in the catalog.
  Result<LoadedTable> Create(const TableIdent& ident, const Schema& schema, const PartitionSpec& spec,
                             const std::string& location, const std::map<std::string, std::string>& properties);
  Result<StagedAppend> StageFiles(const LoadedTable& table, std::vector<FileToAppend> files);
  // `guards` (Catalog::RunsGuards): conditions the catalog's swap must meet; one that fails refuses the commit
  // (outcome kRefused), and what this attempt wrote besides the staged files is deleted.
  Result<AppendResult> CommitStaged(const LoadedTable& base, const StagedAppend& staged, const Summary& summary,
                                    const std::vector<CommitGuard>& guards = {});
  Catalog* catalog() const { return catalog_; }
  // StageFiles then CommitStaged once.
  Result<AppendResult> Append(const LoadedTable& base, std::vector<FileToAppend> files, const Summary& summary);
  // Deletes staged files a writer gives up (a stale task's).
  Status DiscardStaged(const StagedAppend& staged);

 private:
  std::string DataDir(const TableMetadata& m) const;
  std::string MetadataDir(const TableMetadata& m) const;

  Catalog* catalog_;
  ObjectStore* store_;
};

// The version number in a metadata file name ("00003-<uuid>.metadata.json" -> 3), -1 when it has none.
int MetadataVersion(const std::string& metadata_location);

struct SummaryValue {
  std::string value;
  int64_t snapshot_id = 0;
};
// The newest value of summary key `key` on the current snapshot's ancestry (current, its parent, ...), as a restart
// reads back the offsets it committed. nullopt when no ancestor still in the metadata has the key.
std::optional<SummaryValue> ReadSummaryChain(const TableMetadata& metadata, const std::string& key);

}  // namespace sluice::iceberg
