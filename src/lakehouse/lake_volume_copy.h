#pragma once
// Volume files loaded into an Iceberg table exactly once, with the table as the truth: what one-shot COPY INTO
// catalog.db.t FROM VOLUME v ... and the tasks of volume pipes into Iceberg tables (lake_volume_pipe.h) share.
// Each new file is read into a TEMP stage of the table's columns (load::LoadVolumeFile with
// VolumeLoadTarget::stage_sql), then the stage is appended by ONE commit (AppendRows) whose snapshot summary lists
// the commit's files under one key: `sluice.files.copy` for COPY INTO, `sluice.files.<pipe id>` for a pipe's task.
// The value is a JSON list of {url, size, etag, mtime, rows[, errors]}: the file's identity as
// catalog::VolumeStore::FileIdentityKey makes it, the rows it loaded and, under ON_ERROR = CONTINUE, how many rows
// it rejected (a file with rejected rows is loaded, PARTIALLY_LOADED, like any other; the rows themselves go into
// the local volume_rejected_rows just before the commit, so a crash right after it keeps them, and an attempt whose
// commit never came has its rows removed by the next). A file counts as loaded when a snapshot of
// the table's current ancestry lists it under any `sluice.files.*` key or the local volume_loads records have it
// (written only after the commit, so snapshots that expire_snapshots removed do not make files load again). Before
// every commit attempt, and each retry after another writer committed first, the ancestry is read again: a file
// another load committed meanwhile abandons the attempt (its rows are in the uploaded files), and the load starts
// over without it.
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "common/result_set.h"
#include "common/status.h"
#include "iceberg/table_model.h"
#include "lakehouse/lake_catalogs.h"
#include "load/volume_copy.h"
#include "load/volume_pipe_task.h"
#include "storage/database.h"

namespace sluice::lakehouse {

// The summary key prefix of loaded files' identities; a one-shot COPY INTO writes kCopyFilesKey, a volume pipe
// kFilesSummaryPrefix + its job id.
inline constexpr const char* kFilesSummaryPrefix = "sluice.files.";
inline constexpr const char* kCopyFilesKey = "sluice.files.copy";

// FileIdentityKey of every file listed under a sluice.files.* key on the current snapshot's ancestry.
Result<std::set<std::string>> FilesInTableHistory(const iceberg::TableMetadata& metadata);

// Every file listed under exactly `files_key` on the current ancestry, each once, oldest commit first: a file a
// later snapshot lists again (compaction carries the sluice.* keys forward) keeps the first commit's time. Exact
// for what the table holds; a snapshot expire_snapshots removed takes its files' listing with it.
Result<std::vector<load::CommittedFile>> CommittedFilesOf(const iceberg::TableMetadata& metadata,
                                                          const std::string& files_key);

// Files listed under exactly `files_key` on the current ancestry that the local volume_loads records of `t`'s table
// lack (a crash came between the commit and the records): their load records and LOADED load_history rows (job and
// kind from `t`, the rows from the summary, the snapshot's time) are written now, so load_history and the pipe
// views agree with the table again.
Status RecordMissingFileLoads(storage::Connection& con, const iceberg::TableMetadata& metadata,
                              const std::string& files_key, const load::VolumeLoadTarget& t);

// How one commit of volume files treats its files, and what its snapshot carries.
struct LakeFilesRequest {
  std::string what;                   // for errors and the log: "COPY INTO lake.db.t", "pipe shop.p"
  std::string files_key;              // the summary key of the commit's files
  iceberg::Summary extra_summary;     // more summary properties (a pipe's sluice.job)
  bool force = false;                 // COPY ... FORCE = TRUE: files the table has load again
  std::set<std::string> recorded;     // loaded as the local records say: skipped unless `force`
  // ON_ERROR = ABORT's COPY INTO: the first file that cannot be loaded fails everything (nothing commits).
  // Otherwise (a pipe, COPY INTO ... ON_ERROR = CONTINUE) such a file is left out with a FAILED load_history row and
  // the others commit; a store that cannot be reached or refuses access still fails everything.
  bool stop_at_failed_file = true;
  // A pipe's task: a file gone or replaced since the listing waits for the next listing (not a failure), and a
  // store fault ends the task with the volume named (load::VolumeStatus) for the scheduler to retry.
  bool listing_task = false;
  std::function<bool(size_t)> keep_going;  // asked before the n-th file of an attempt; empty: every file
  std::function<bool()> still_current;     // asked before each commit attempt; false commits nothing (Conflict)
  // A cluster pipe's lease fence: asked after still_current before each commit attempt; an error commits nothing,
  // the entries it returns (sluice.epochs.<pipe id>) join the summary.
  load::CommitFence fence;
};

// Loads the files of `candidates` that are not loaded yet (per the table and `request.recorded`) into the table
// `target` of `conn` in one commit, then writes their local load records and load_history rows (job and kind from
// `load_target`). A COPY first writes the records of earlier COPY commits a crash left out (RecordMissingFileLoads). A commit that loses races to other writers of the same files a few times in a row is Conflict.
Result<load::VolumeFilesCommit> CommitVolumeFiles(LakeConnection& conn, storage::Connection& con,
                                                  const LakeTableRef& target, source::VolumeReader& reader,
                                                  const catalog::ResolvedVolume& volume,
                                                  const std::vector<source::VolumeFile>& candidates,
                                                  const load::VolumeLoadTarget& load_target,
                                                  const LakeFilesRequest& request, const std::string& work_dir);

// `request.target.db` / `.table` name the Iceberg table's namespace and table (the catalog is `target.catalog`).
// The result has COPY INTO's columns, one row per file tried (LOADED, PARTIALLY_LOADED: ON_ERROR = CONTINUE skipped
// rows of it, recorded in volume_rejected_rows; LOAD_FAILED: under CONTINUE, a file that could not be loaded at all);
// an error loads nothing of the statement.
Result<ResultSet> CopyIntoLakeFromVolume(LakeCatalogs& lakes, storage::Connection& con, const LakeTableRef& target,
                                         const load::VolumeCopyRequest& request, const std::string& work_dir);

}  // namespace sluice::lakehouse
