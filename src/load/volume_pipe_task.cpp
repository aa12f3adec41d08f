#include "load/volume_pipe_task.h"

#include <regex>
#include <set>
#include <vector>

#include "common/clock.h"
#include "common/log.h"
#include "common/test_points.h"

namespace sluice::load {

Result<VolumeLoadTarget> VolumePipeTarget(const catalog::RoutineLoadDefinition& def, const std::string& scratch_dir) {
  if (!def.pipe || !def.pipe->volume) return Status::Internal("not a volume pipe");
  const catalog::VolumePipeSpec& spec = *def.pipe->volume;
  VolumeLoadTarget t;
  // Into an Iceberg table, load_history and the load records name it catalog.db.table (as COPY INTO does).
  t.db = def.iceberg_target() ? def.lake_catalog + "." + def.lake_db : def.db;
  t.table = def.table;
  t.file_columns = spec.file_columns;
  ASSIGN_OR_RETURN(t.format, BuildFileFormat(spec.format, spec.options));
  t.select_list = spec.select_list;
  t.where = spec.where;
  t.continue_on_error = spec.continue_on_error;
  t.scratch_dir = scratch_dir;
  t.job = def.name;
  t.job_kind = "PIPE";
  return t;
}

Result<VolumePipeTaskResult> RunVolumePipeTask(storage::Connection& con, const catalog::ResolvedVolume& volume,
                                               const catalog::VolumePipeSpec& spec, const VolumeLoadTarget& target,
                                               const VolumePipeLimits& limits,
                                               const std::function<bool()>& still_current,
                                               VolumeFilesSink* files_sink) {
  const auto started = std::chrono::steady_clock::now();
  if (!files_sink && !con.TableExists(target.db, target.table))
    return Status::UnknownTable("table '" + target.table + "' does not exist in database '" + target.db + "'");
  std::optional<std::regex> re;
  if (!spec.regexp.empty()) {
    try {
      re = std::regex(spec.regexp, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return Status::InvalidArgument("REGEXP '" + spec.regexp + "' is not a valid regular expression: " + e.what());
    }
  }
  ASSIGN_OR_RETURN(auto reader, source::OpenVolume(volume.location, volume.credentials));
  // Hidden names (any component starting with '.' or '_temporary') are left out by the listing itself.
  auto listing = reader->List(spec.subdirectory, volume.info.recursive);
  if (!listing.ok()) return VolumeStatus(volume, listing.status());
  auto listed = std::move(*listing);
  const std::string target_name = target.db + "." + target.table;
  std::set<std::string> loaded;
  if (files_sink) {
    ASSIGN_OR_RETURN(loaded, files_sink->LoadedFiles(con, volume, target));
  } else {
    ASSIGN_OR_RETURN(loaded, catalog::VolumeStore::LoadedFileKeys(con, volume.location.url, target_name));
  }
  const bool purge = spec.ingest_mode != "LIST";
  VolumePipeTaskResult r;
  std::vector<source::VolumeFile> todo, purge_again;
  for (auto& f : listed) {
    if (re && !std::regex_match(f.path, *re)) continue;
    r.listed_files++;
    bool done = loaded.count(catalog::VolumeStore::FileIdentityKey(volume.location.url + f.path, f.size,
                                                                   f.last_modified_ms, f.etag)) > 0;
    if (!done) todo.push_back(std::move(f));
    else if (purge) purge_again.push_back(std::move(f));
  }
  // Only ever called for a file with a committed load record (loaded now, or found loaded in the listing), so
  // LIST_PURGE never deletes a file whose load did not commit.
  bool deletes_unavailable = false;
  auto remove = [&](const source::VolumeFile& f) {
    if (deletes_unavailable) return;  // the next listing deletes what is left
    Status st = TestPoint("volume_pipe.before_purge");  // a crash here: loaded, not deleted (deleted next listing)
    if (st.ok()) st = reader->Delete(f);
    if (st.ok()) {
      r.purged_files++;
      return;
    }
    // The file stays listed with its load record: it is not loaded again, and the next listing deletes it.
    log::Warn("pipe", "pipe {}.{}: {} is loaded but could not be deleted (retried at the next listing): {}",
              target.db, target.job, f.path, st.message());
    if (r.purge_failure.empty())
      r.purge_failure =
          "file '" + f.path + "' is loaded but could not be deleted: " + VolumeStatus(volume, st).message();
    // A store that is down, or refuses deletes (no s3:DeleteObject), refuses the next one too: one try per task.
    if (st.retriable() || st.code() == StatusCode::kAccessDenied) deletes_unavailable = true;
  };
  // Files loaded earlier whose delete failed (or was cut short by a crash) are deleted now.
  for (size_t i = 0; i < purge_again.size() && i < limits.max_files; i++) remove(purge_again[i]);
  for (const auto& f : todo) {
    r.pending_files++;
    r.pending_bytes += f.size;
  }
  // A file whose load committed (or that another load committed meanwhile: SKIPPED); deleted under LIST_PURGE.
  auto loaded_one = [&](const source::VolumeFile& f, const FileLoadOutcome& outcome) {
    r.pending_files--;
    r.pending_bytes -= f.size;
    if (outcome.status != "SKIPPED") {
      r.loaded_files++;
      r.rows_loaded += outcome.rows_loaded;
      r.error_rows += outcome.error_rows;
      r.last_file = volume.location.url + f.path;
      r.last_load_ms = WallClockMs();
    }
    if (purge) remove(f);
  };
  auto within_limits = [&](size_t tried) {
    return tried < limits.max_files && std::chrono::steady_clock::now() - started < limits.max_time;
  };
  if (files_sink) {
    // All of the task's new files in one commit of the target (its records are written by the sink).
    if (todo.empty()) return r;
    ASSIGN_OR_RETURN(VolumeFilesCommit commit,
                     files_sink->Commit(con, *reader, volume, todo, target,
                                        [&](size_t tried) { return within_limits(tried) && still_current(); },
                                        still_current));
    for (const auto& [f, st] : commit.failed) {
      std::string reason = "file '" + f.path + "' of volume " + volume.info.name + " could not be loaded: " +
                           ConciseLoadError(st.message());
      log::Warn("pipe", "pipe {}.{}: {}", target.db, target.job, reason);
      if (r.failure.empty()) r.failure = reason;
      r.failed_files++;
    }
    r.changed_files = commit.changed;
    for (const auto& [f, outcome] : commit.loaded) loaded_one(f, outcome);
    r.more = commit.stopped_early && still_current();
    return r;
  }
  // One file in its own transaction. False when the task must end (an error to return is put in `stop`).
  Status stop = Status::Ok();
  auto load_one = [&](const source::VolumeFile& f) -> bool {
    const int64_t start_ms = WallClockMs();
    auto outcome = LoadVolumeFile(con, *reader, volume, f, target, /*force=*/false);
    if (!outcome.ok()) {
      const Status& st = outcome.status();
      // The store, not the file: unreachable (retried with backoff) or refusing access (the pipe fails).
      if (st.retriable() || st.code() == StatusCode::kAccessDenied) {
        stop = VolumeStatus(volume, st);
        return false;
      }
      if (st.code() == StatusCode::kUnknownTable) {
        stop = st;
        return false;
      }
      std::string reason = "file '" + f.path + "' of volume " + volume.info.name + " could not be loaded: " +
                           ConciseLoadError(st.message());
      log::Warn("pipe", "pipe {}.{}: {}", target.db, target.job, reason);
      if (Status h = RecordFileLoadFailure(con, volume, f, target, st.message(), start_ms); !h.ok())
        log::Warn("pipe", "pipe {}.{}: could not record the failed load of {}: {}", target.db, target.job, f.path,
                  h.message());
      if (r.failure.empty()) r.failure = reason;
      r.failed_files++;
      return true;
    }
    if (outcome->status == kFileChanged) {
      // Gone or replaced since the listing (another writer, or the listing changed under its pages): nothing of it
      // was loaded and nothing is wrong with it; the next listing sees what is there then.
      log::Info("pipe", "pipe {}.{}: {} changed since it was listed, left to the next listing: {}", target.db,
                target.job, f.path, outcome->first_error);
      r.changed_files++;
      return true;
    }
    loaded_one(f, *outcome);
    return true;
  };
  const bool groups = GroupLoadFits(target);
  size_t next = 0;
  while (next < todo.size()) {
    size_t tried = r.loaded_files + r.failed_files + r.changed_files;
    size_t budget = limits.max_files - std::min<size_t>(limits.max_files, tried);
    if (!within_limits(tried)) {
      r.more = true;
      break;
    }
    if (!still_current()) break;
    // Under ON_ERROR = ABORT without a transform, CSV and JSON files load in groups: one INSERT and every file's
    // record in one transaction. A group that fails is loaded again file by file, which finds the failing file.
    std::vector<source::VolumeFile> group;
    int64_t bytes = 0;
    if (groups) {
      while (next + group.size() < todo.size() && group.size() < std::min(budget, kVolumeGroupMaxFiles) &&
             (group.empty() || bytes + todo[next + group.size()].size <= kVolumeGroupMaxBytes)) {
        bytes += todo[next + group.size()].size;
        group.push_back(todo[next + group.size()]);
      }
    }
    if (group.size() >= 2) {
      auto outcomes = LoadVolumeGroup(con, *reader, volume, group, target, /*force=*/false);
      if (outcomes.ok()) {
        for (size_t i = 0; i < group.size(); i++) loaded_one(group[i], (*outcomes)[i]);
      } else {
        const Status& st = outcomes.status();
        if (st.retriable() || st.code() == StatusCode::kAccessDenied) return VolumeStatus(volume, st);
        log::Info("pipe", "pipe {}.{}: loading {} files at once failed ({}); loading them one by one", target.db,
                  target.job, group.size(), ConciseLoadError(outcomes.status().message()));
        for (const auto& f : group) {
          if (!still_current()) break;
          if (!load_one(f)) return stop;
        }
      }
      next += group.size();
      continue;
    }
    if (!load_one(todo[next])) return stop;
    next++;
  }
  return r;
}

}  // namespace sluice::load
