#include "load/volume_pipe_task.h"

#include <regex>
#include <set>
#include <vector>

#include "common/log.h"

namespace sluice::load {

namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<VolumeLoadTarget> VolumePipeTarget(const catalog::RoutineLoadDefinition& def, const std::string& scratch_dir) {
  if (!def.pipe || !def.pipe->volume) return Status::Internal("not a volume pipe");
  const catalog::VolumePipeSpec& spec = *def.pipe->volume;
  VolumeLoadTarget t;
  t.db = def.db;
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
                                               const std::function<bool()>& still_current) {
  const auto started = std::chrono::steady_clock::now();
  if (!con.TableExists(target.db, target.table))
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
  ASSIGN_OR_RETURN(auto listed, reader->List(spec.subdirectory, volume.info.recursive));
  const std::string target_name = target.db + "." + target.table;
  ASSIGN_OR_RETURN(std::set<std::string> loaded,
                   catalog::VolumeStore::LoadedFileKeys(con, volume.location.url, target_name));
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
  auto remove = [&](const source::VolumeFile& f) {
    Status st = reader->Delete(f);
    if (st.ok()) {
      r.purged_files++;
      return;
    }
    // The file stays listed with its load record: it is not loaded again, and the next listing deletes it.
    log::Warn("pipe", "pipe {}.{}: {} is loaded but could not be deleted (retried at the next listing): {}",
              target.db, target.job, f.path, st.message());
  };
  // Files loaded earlier whose delete failed (or was cut short by a crash) are deleted now.
  for (size_t i = 0; i < purge_again.size() && i < limits.max_files; i++) remove(purge_again[i]);
  for (const auto& f : todo) {
    r.pending_files++;
    r.pending_bytes += f.size;
  }
  for (size_t i = 0; i < todo.size(); i++) {
    const source::VolumeFile& f = todo[i];
    if (static_cast<size_t>(r.loaded_files + r.failed_files) >= limits.max_files ||
        std::chrono::steady_clock::now() - started >= limits.max_time) {
      r.more = true;
      break;
    }
    if (!still_current()) break;
    const int64_t start_ms = NowMs();
    auto outcome = LoadVolumeFile(con, *reader, volume, f, target, /*force=*/false);
    if (!outcome.ok()) {
      const Status& st = outcome.status();
      if (st.retriable() || st.code() == StatusCode::kUnknownTable) return st;
      std::string reason = "file '" + f.path + "' of volume " + volume.info.name + " could not be loaded: " +
                           ConciseLoadError(st.message());
      log::Warn("pipe", "pipe {}.{}: {}", target.db, target.job, reason);
      if (Status h = RecordFileLoadFailure(con, volume, f, target, st.message(), start_ms); !h.ok())
        log::Warn("pipe", "pipe {}.{}: could not record the failed load of {}: {}", target.db, target.job, f.path,
                  h.message());
      if (r.failure.empty()) r.failure = reason;
      r.failed_files++;
      continue;
    }
    r.pending_files--;
    r.pending_bytes -= f.size;
    if (outcome->status != "SKIPPED") {  // SKIPPED: another load of the same file committed meanwhile
      r.loaded_files++;
      r.rows_loaded += outcome->rows_loaded;
      r.error_rows += outcome->error_rows;
      r.last_file = volume.location.url + f.path;
      r.last_load_ms = NowMs();
    }
    if (purge) remove(f);
  }
  return r;
}

}  // namespace sluice::load
