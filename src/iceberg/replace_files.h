#pragma once
// Replace (Iceberg's RewriteFiles, snapshot operation "replace"): the next table version swaps live data files for
// others holding exactly the same rows -- what compaction (rewrite_data_files) commits. Readers see the same rows
// before and after; only the files change.
//
// The new snapshot's manifest list is:
//   1. the staged manifest of the new files (entries ADDED, snapshot id and sequence numbers inherited), as an
//      append writes it (TableOperations::StageFiles);
//   2. every parent manifest that lists a replaced file, rewritten: the replaced files as DELETED (with this
//      snapshot's id and their original sequence numbers), the others as EXISTING with theirs spelt out; entries
//      already DELETED in the parent are dropped (they belong to the parent's history, not this one's);
//   3. every other parent manifest, unchanged -- but for one that lists only DELETED entries (a previous
//      replace's), which is dropped.
// The summary has Iceberg's replace counters (added/deleted data files, records and sizes, totals) plus the
// caller's keys; the caller carries the writers' own keys forward (sluice.offsets.<job> ...), so a load into the
// table resumes from the same offsets after a compaction.
//
// Every replaced file must still be live in `base`: if another writer removed one (a concurrent rewrite, an
// overwrite), the result is Conflict and nothing was written. A lost compare-and-swap deletes what this attempt
// wrote (rewritten manifests, manifest list, metadata.json) and hands back the reloaded table, on which the caller
// tries again: an append committed meanwhile only added manifests, which the next attempt carries as they are.
#include <cstdint>
#include <set>
#include <string>

#include "common/status.h"
#include "iceberg/catalog.h"
#include "iceberg/object_store.h"
#include "iceberg/table_operations.h"

namespace sluice::iceberg {

// `replaced`: file paths exactly as the manifests spell them; `added`: StageFiles' result for the new files.
Result<AppendResult> CommitReplace(Catalog* catalog, ObjectStore* store, const LoadedTable& base,
                                   const std::set<std::string>& replaced, const StagedAppend& added,
                                   const Summary& extra_summary, int64_t now_ms);

}  // namespace sluice::iceberg
