#pragma once
// One task of a volume pipe (CREATE PIPE ... AS COPY INTO t FROM VOLUME vol ...): list the volume, leave out what
// was loaded before (one query for the whole listing), load new files with LoadVolumeFile (each file's rows, load
// record and load_history row in one transaction; under ON_ERROR = ABORT without a transform, CSV and JSON files in
// groups with LoadVolumeGroup, falling back to file by file), and under INGEST_MODE = 'LIST_PURGE' delete each file
// once its load committed. A file whose load committed but whose delete failed (or a crash came in between) is not
// loaded again: the next listing finds its load record and deletes it then. The scheduler runs these tasks and
// decides what follows (scheduler/volume_pipes.cpp).
#include <chrono>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "catalog/routine_load_job.h"
#include "catalog/volume_store.h"
#include "common/status.h"
#include "load/commit_sink.h"
#include "load/volume_copy.h"
#include "storage/database.h"

namespace sluice::load {

// What the pipe's COPY loads into, with its file format validated (an error names the bad option).
Result<VolumeLoadTarget> VolumePipeTarget(const catalog::RoutineLoadDefinition& def, const std::string& scratch_dir);

struct VolumePipeLimits {
  size_t max_files = 1000;                             // files loaded per task
  std::chrono::milliseconds max_time{20000};           // no new file starts after this
};

struct VolumePipeTaskResult {
  int64_t listed_files = 0;     // after hidden names, SUBDIRECTORY and REGEXP
  int64_t loaded_files = 0;     // committed by this task
  int64_t rows_loaded = 0;
  int64_t error_rows = 0;
  int64_t pending_files = 0;    // listed, not loaded yet, after this task
  int64_t pending_bytes = 0;
  int64_t purged_files = 0;     // deleted (LIST_PURGE), including deletes retried from earlier loads
  std::string last_file;        // the last file loaded, and when
  int64_t last_load_ms = 0;
  // Files that could not be loaded (nothing of them committed; each has a FAILED load_history row): the first's
  // reason, naming the file.
  int64_t failed_files = 0;
  std::string failure;
  // Files gone or replaced between the listing and their download: not loaded, not failed; the next listing decides.
  int64_t changed_files = 0;
  // The first delete that failed under LIST_PURGE (the file is loaded; the next listing deletes it), naming the file.
  std::string purge_failure;
  bool more = false;            // stopped at a limit with files left: run again without waiting
};

// A volume pipe into a table outside DuckDB (an Iceberg table: lakehouse/lake_volume_pipe.h) loads all of a task's
// new files in ONE commit of that target, which also holds the files' identities: the target is the truth of what
// was loaded, and the local load records are written after its commit. The scheduler is handed one through
// LoadTargets::OpenVolumeFiles; load/ does not know Iceberg.
struct VolumeFilesCommit {
  // The files committed, in the order given, each with its outcome.
  std::vector<std::pair<source::VolumeFile, FileLoadOutcome>> loaded;
  // Files that could not be loaded (nothing of them committed; each has a FAILED load_history row): the file and
  // why.
  std::vector<std::pair<source::VolumeFile, Status>> failed;
  int64_t changed = 0;       // gone or replaced since the listing: left to the next listing
  bool stopped_early = false;  // `keep_going` said stop while files were left: they wait for the next task
};

// A file a commit of the target lists (url, size, etag, mtime, rows, errors), and when that commit was made.
struct CommittedFile {
  catalog::FileLoadRecord record;
  int64_t committed_ms = 0;
};

class VolumeFilesSink {
 public:
  virtual ~VolumeFilesSink() = default;
  // For log lines and errors: "Iceberg table lake.db.t".
  virtual std::string Describe() const = 0;
  // FileIdentityKey of every file of `volume` loaded into the target, by this pipe or any other load. UnknownTable
  // when the target was dropped.
  virtual Result<std::set<std::string>> LoadedFiles(storage::Connection& con, const catalog::ResolvedVolume& volume,
                                                    const VolumeLoadTarget& target) = 0;
  // Loads `files` (none of them loaded yet) and commits those that loaded in one commit. `keep_going(n)` is asked
  // before the n-th file (0-based): false leaves it and the rest to the next task. `still_current` is asked before
  // the commit: false commits nothing (Conflict). A store that cannot be reached or refuses access fails it all
  // (the error names the volume), as does a failed commit; a file that cannot be loaded is left out (failed).
  virtual Result<VolumeFilesCommit> Commit(storage::Connection& con, source::VolumeReader& reader,
                                           const catalog::ResolvedVolume& volume,
                                           const std::vector<source::VolumeFile>& files,
                                           const VolumeLoadTarget& target,
                                           const std::function<bool(size_t)>& keep_going,
                                           const std::function<bool()>& still_current) = 0;
  // Every file this pipe's commits list in the target, each once (the first commit that lists it), oldest first:
  // what the pipe loaded, whichever node committed it (a cluster pipe's PIPE_FILES and DESC PIPE EXTENDED).
  virtual Result<std::vector<CommittedFile>> CommittedFiles() = 0;
  // A cluster pipe's fence (scheduler/cluster_jobs.cpp): asked right before every compare-and-swap attempt; an
  // error commits nothing, and the entries it returns go into the commit's summary (sluice.epochs.<pipe id>).
  void set_commit_fence(CommitFence fence) { fence_ = std::move(fence); }

 protected:
  CommitFence fence_;
};

// `still_current` is asked before each file: false (the pipe was paused, altered or dropped) stops the task.
// Errors: the table was dropped (UnknownTable), the volume cannot be listed or a file fetched: retriable when the
// store is unreachable, times out, answers 5xx or breaks off a download (after S3Client's own retries);
// AccessDenied when it refuses the credentials. Files loaded before the error stay loaded (and purged).
// With `files_sink` the new files go to it (one commit per task) instead of into the DuckDB table target.db.table.
Result<VolumePipeTaskResult> RunVolumePipeTask(storage::Connection& con, const catalog::ResolvedVolume& volume,
                                               const catalog::VolumePipeSpec& spec, const VolumeLoadTarget& target,
                                               const VolumePipeLimits& limits,
                                               const std::function<bool()>& still_current,
                                               VolumeFilesSink* files_sink = nullptr);

}  // namespace sluice::load
