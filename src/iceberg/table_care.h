#pragma once
// Table care: the upkeep an Iceberg table needs so that its history and its folder do not grow forever.
//
// ExpireSnapshots drops snapshots older than a time from the metadata (keeping the newest `retain_last` of the
// current snapshot's ancestry, every branch or tag head, and the current snapshot whatever the arguments say),
// commits that by the catalog's compare-and-swap, and only then deletes the manifest lists, manifests and data
// files that the dropped snapshots referenced and no kept snapshot does. Time travel to a dropped snapshot then
// fails with "no snapshot" (time_travel.h).
//
// RemoveOrphanFiles deletes files under the table's location that no metadata references -- uploads of a load
// that crashed before its commit, a lost commit race's leftovers -- and that are older than a safety time, so a
// commit under way (its files uploaded but not yet referenced) keeps them. Only the kinds of file Iceberg writers
// put there are considered (data files .parquet/.orc/.avro under data/, .avro and .metadata.json under metadata/);
// anything else is left alone.
//
// Both read every kept snapshot's manifest list and manifests first; if any of them cannot be read, nothing is
// deleted.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/catalog.h"
#include "iceberg/object_store.h"
#include "iceberg/table_operations.h"

namespace sluice::iceberg {

struct ExpireResult {
  int64_t expired_snapshots = 0;
  int64_t deleted_manifest_lists = 0;
  int64_t deleted_manifests = 0;
  int64_t deleted_data_files = 0;
};

// `older_than_ms`: snapshots committed before it may go; `retain_last` (>= 1): how many of the current
// snapshot's ancestry stay regardless.
Result<ExpireResult> ExpireSnapshots(Catalog* catalog, ObjectStore* store, const TableIdent& ident,
                                     int64_t older_than_ms, int retain_last, int64_t now_ms);

struct OrphanResult {
  int64_t removed_files = 0;
  int64_t kept_recent_files = 0;  // unreferenced, but younger than the safety time
  std::vector<std::string> removed;
};

Result<OrphanResult> RemoveOrphanFiles(Catalog* catalog, ObjectStore* store, const TableIdent& ident,
                                       int64_t older_than_ms);

// Sets table properties (Spark's ALTER TABLE ... SET TBLPROPERTIES): one metadata-only commit, rebased on
// whatever another writer committed meanwhile (properties conflict with no append). Values already in place are
// not committed again: `changed` counts the others (0: no new metadata).
struct PropertiesResult {
  int64_t changed = 0;
};
Result<PropertiesResult> SetTableProperties(Catalog* catalog, ObjectStore* store, const TableIdent& ident,
                                            const std::map<std::string, std::string>& properties, int64_t now_ms);

// "bucket/key" for "s3://bucket/key", "s3a://bucket/key" and "/path" for "file:///path": one spelling per file.
std::string NormalizedLocation(const std::string& location);

}  // namespace sluice::iceberg
