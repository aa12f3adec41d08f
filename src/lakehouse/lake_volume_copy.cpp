#include "lakehouse/lake_volume_copy.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include <nlohmann/json.hpp>

#include "catalog/load_history.h"
#include "catalog/volume_store.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/test_points.h"
#include "iceberg/table_operations.h"
#include "iceberg/types.h"
#include "lakehouse/lake_append.h"
#include "load/volume_row_checks.h"
#include "sql/parser.h"

namespace sluice::lakehouse {

namespace {

constexpr const char* kStage = "__sluice_lake_volume_stage";

// Drops the statement's stage however it ends.
struct StageTable {
  storage::Connection& con;
  ~StageTable() {
    if (Status st = con.Execute(std::string("DROP TABLE IF EXISTS temp.") + kStage); !st.ok())
      log::Warn("copy", "could not drop the stage of a COPY INTO an Iceberg table: {}", st.message());
  }
};

// One-shot COPY INTO statements write the records of earlier COPY commits that lack them (a crash came between
// the commit and the records: RecordMissingFileLoads); a statement of this server between its own commit and its
// records must not be taken for one, or its files would be recorded twice. Held by a COPY from its commit to its
// records, and while it looks for missing ones.
std::mutex& CopyRecordsMutex(const std::string& table) {
  static std::mutex guard;
  static std::map<std::string, std::unique_ptr<std::mutex>> by_table;
  std::lock_guard<std::mutex> lock(guard);
  auto& m = by_table[table];
  if (!m) m = std::make_unique<std::mutex>();
  return *m;
}

std::string IdentityKey(const source::VolumeFile& file, const std::string& location_url) {
  return catalog::VolumeStore::FileIdentityKey(location_url + file.path, file.size, file.last_modified_ms, file.etag);
}

std::string IdentityKey(const catalog::FileLoadRecord& r) {
  return catalog::VolumeStore::FileIdentityKey(r.file_url, r.size, r.last_modified_ms, r.etag);
}

// A file a snapshot lists, and when that snapshot was committed.
struct ListedFile {
  catalog::FileLoadRecord record;  // file_url, size, last_modified_ms, etag, rows_loaded
  int64_t committed_ms = 0;
  int64_t snapshot_id = 0;
};

// Every file listed under `key` (or, with `prefix`, any key starting with it) on the current snapshot's ancestry,
// newest snapshot first.
Result<std::vector<ListedFile>> ListedFiles(const iceberg::TableMetadata& metadata, const std::string& key,
                                            bool prefix) {
  std::vector<ListedFile> out;
  std::set<int64_t> seen;  // a malformed parent loop must not spin
  const iceberg::Snapshot* s = metadata.CurrentSnapshot();
  while (s != nullptr && seen.insert(s->snapshot_id).second) {
    for (auto it = s->summary.lower_bound(key);
         it != s->summary.end() && (prefix ? it->first.rfind(key, 0) == 0 : it->first == key); ++it) {
      try {
        for (const auto& f : nlohmann::json::parse(it->second)) {
          ListedFile l;
          l.record.file_url = f.at("url").get<std::string>();
          l.record.size = f.at("size").get<int64_t>();
          l.record.last_modified_ms = f.value("mtime", int64_t{0});
          l.record.etag = f.value("etag", std::string());
          l.record.rows_loaded = f.value("rows", int64_t{0});
          l.record.error_rows = f.value("errors", int64_t{0});
          l.record.status = l.record.error_rows > 0 ? "PARTIALLY_LOADED" : "LOADED";
          l.committed_ms = s->timestamp_ms;
          l.snapshot_id = s->snapshot_id;
          out.push_back(std::move(l));
        }
      } catch (const std::exception& e) {
        return Status::Internal("snapshot " + std::to_string(s->snapshot_id) + " holds " + it->first +
                                ", which is not a JSON list of files {url, size, etag, mtime} (" + e.what() + ")");
      }
    }
    s = s->parent_snapshot_id ? metadata.FindSnapshot(*s->parent_snapshot_id) : nullptr;
  }
  return out;
}

// The local load records and load_history rows of files a commit holds (status LOADED, or PARTIALLY_LOADED when
// ON_ERROR = CONTINUE skipped rows of the file), in one transaction.
Status RecordLoads(storage::Connection& con, const load::VolumeLoadTarget& t,
                   const std::vector<catalog::FileLoadRecord>& records, int64_t start_ms, int64_t end_ms) {
  return storage::InTransaction(con, [&]() -> Status {
    for (catalog::FileLoadRecord r : records) {
      r.target = t.db + "." + t.table;
      if (r.status.empty()) r.status = r.error_rows > 0 ? "PARTIALLY_LOADED" : "LOADED";
      RETURN_IF_ERROR(catalog::VolumeStore::RecordFileLoad(con, r, end_ms));
      catalog::LoadHistoryEntry h = load::FileLoadHistory(t, r.file_url, start_ms, end_ms);
      h.loaded_rows = r.rows_loaded;
      h.error_rows = r.error_rows;
      h.first_error = r.first_error;
      h.status = r.status;
      RETURN_IF_ERROR(catalog::RecordLoadHistory(con, h));
    }
    return Status::Ok();
  });
}

}  // namespace

Result<std::set<std::string>> FilesInTableHistory(const iceberg::TableMetadata& metadata) {
  ASSIGN_OR_RETURN(auto listed, ListedFiles(metadata, kFilesSummaryPrefix, /*prefix=*/true));
  std::set<std::string> out;
  for (const auto& l : listed) out.insert(IdentityKey(l.record));
  return out;
}

Result<std::vector<load::CommittedFile>> CommittedFilesOf(const iceberg::TableMetadata& metadata,
                                                          const std::string& files_key) {
  ASSIGN_OR_RETURN(auto listed, ListedFiles(metadata, files_key, /*prefix=*/false));
  // ListedFiles is newest snapshot first: its snapshots' runs taken backwards (each run in its list's order) meet
  // each file's first commit first.
  std::vector<load::CommittedFile> out;
  std::set<std::string> seen;
  size_t end = listed.size();
  while (end > 0) {
    size_t begin = end - 1;
    while (begin > 0 && listed[begin - 1].snapshot_id == listed[end - 1].snapshot_id) begin--;
    for (size_t i = begin; i < end; i++)
      if (seen.insert(IdentityKey(listed[i].record)).second) out.push_back({listed[i].record, listed[i].committed_ms});
    end = begin;
  }
  return out;
}

Status RecordMissingFileLoads(storage::Connection& con, const iceberg::TableMetadata& metadata,
                              const std::string& files_key, const load::VolumeLoadTarget& t) {
  ASSIGN_OR_RETURN(auto listed, ListedFiles(metadata, files_key, /*prefix=*/false));
  if (listed.empty()) return Status::Ok();
  ASSIGN_OR_RETURN(std::set<std::string> recorded,
                   catalog::VolumeStore::LoadedFileKeys(con, "", t.db + "." + t.table));
  // By commit, so each gets its snapshot's time (a later compaction may carry a list again: recorded once).
  // (The files' rejected rows were written before the commit; the summary's "errors" counts them.)
  std::map<int64_t, std::vector<catalog::FileLoadRecord>> missing;
  for (const auto& l : listed)
    if (recorded.insert(IdentityKey(l.record)).second) missing[l.committed_ms].push_back(l.record);
  for (const auto& [committed_ms, records] : missing) {
    log::Info("pipe", "{}.{}: {} file(s) of a commit at {} had no local load records (the server stopped right "
              "after the commit); recorded now", t.db, t.table, records.size(), committed_ms);
    RETURN_IF_ERROR(RecordLoads(con, t, records, committed_ms, committed_ms));
  }
  return Status::Ok();
}

Result<load::VolumeFilesCommit> CommitVolumeFiles(LakeConnection& conn, storage::Connection& con,
                                                  const LakeTableRef& target, source::VolumeReader& reader,
                                                  const catalog::ResolvedVolume& volume,
                                                  const std::vector<source::VolumeFile>& candidates,
                                                  const load::VolumeLoadTarget& load_target,
                                                  const LakeFilesRequest& request, const std::string& work_dir) {
  const std::string name = target.ToString();
  ASSIGN_OR_RETURN(iceberg::LoadedTable table, LoadLakeTable(conn, target));
  std::vector<std::string> names;
  std::string stage_columns;
  load::VolumeLoadTarget t = load_target;
  t.db = target.catalog + "." + target.db;  // load_history and the load records name the table catalog.db.table
  t.table = target.table;
  t.stage_sql = std::string("temp.") + kStage;
  t.stage_columns.clear();
  for (const auto& f : table.metadata.CurrentSchema()->fields) {
    t.stage_columns.emplace_back(f.name, iceberg::DuckDbTypeName(f.type));
    names.push_back(f.name);
    // A required column is NOT NULL in the stage too, so a file with a NULL there fails on its own (its
    // transaction), not the commit of every file.
    stage_columns += (stage_columns.empty() ? "" : ", ") + sql::QuoteIdentifier(f.name) + " " +
                     t.stage_columns.back().second + (f.required ? " NOT NULL" : "");
  }
  // Under ON_ERROR = CONTINUE a NULL for a required column is a rejected row (the file's other rows load), as for a
  // NOT NULL column of a DuckDB table: the file is read into a stage without the constraint first.
  if (t.continue_on_error)
    t.row_checks = load::VolumeRowChecksFor(LakeTableMeta(target, *table.metadata.CurrentSchema()));
  // A one-shot COPY first writes the records of files its earlier statements committed but a crash kept from being
  // recorded (a pipe's task does so when it lists: LakeVolumeFiles::LoadedFiles).
  if (!request.listing_task) {
    std::lock_guard<std::mutex> records_lock(CopyRecordsMutex(name));
    if (Status st = RecordMissingFileLoads(con, table.metadata, request.files_key, t); !st.ok())
      log::Warn("copy", "{}: could not record the files earlier commits hold: {}", request.what, st.message());
  }
  const std::string& url = volume.location.url;
  // Another load committing some of the same files between this one's listing and its commit sends it round
  // again without them; a few rounds at most.
  constexpr int kRounds = 3;
  for (int round = 1; round <= kRounds; round++) {
    std::set<std::string> in_table;
    if (!request.force) {
      ASSIGN_OR_RETURN(in_table, FilesInTableHistory(table.metadata));
    }
    std::vector<source::VolumeFile> todo;
    for (const auto& file : candidates) {
      const std::string key = IdentityKey(file, url);
      if (request.force || (!request.recorded.count(key) && !in_table.count(key))) todo.push_back(file);
    }
    load::VolumeFilesCommit out;
    if (todo.empty()) return out;
    RETURN_IF_ERROR(con.Execute(std::string("CREATE OR REPLACE TEMP TABLE ") + kStage + " (" + stage_columns + ")"));
    StageTable stage{con};
    const int64_t start_ms = WallClockMs();
    nlohmann::json identities = nlohmann::json::array();
    std::set<std::string> keys;
    for (size_t i = 0; i < todo.size(); i++) {
      const source::VolumeFile& file = todo[i];
      if (request.keep_going && !request.keep_going(i)) {
        out.stopped_early = true;
        break;
      }
      auto outcome = load::LoadVolumeFile(con, reader, volume, file, t, /*force=*/true);
      if (outcome.ok() && outcome->status == load::kFileChanged) {
        if (request.listing_task) {
          // Gone or replaced since the listing: nothing of it was read; the next listing sees what is there then.
          log::Info("pipe", "{}: {} changed since it was listed, left to the next listing: {}", request.what,
                    file.path, outcome->first_error);
          out.changed++;
          continue;
        }
        outcome = Status::NotFound(outcome->first_error);
      }
      if (!outcome.ok()) {
        const Status& st = outcome.status();
        const bool store_fault = st.retriable() || st.code() == StatusCode::kAccessDenied;
        // The store, not the file, under a pipe: the task ends and is tried again (or the pipe fails on a 403).
        if (store_fault && request.listing_task) return load::VolumeStatus(volume, st);
        if (Status h = load::RecordFileLoadFailure(con, volume, file, t, st.message(), start_ms); !h.ok())
          log::Warn("copy", "could not record the failed load of {} in load_history: {}", file.path, h.message());
        // ON_ERROR is about the files' contents: a store that cannot be reached or refuses access stops a COPY
        // whatever it says (every file after would fail the same, each after its retries).
        if (request.stop_at_failed_file || store_fault)
          return Status(st.code(), request.what + " stopped at file '" + file.path + "' of volume " +
                                       volume.info.name + "; nothing of the statement was committed: " + st.message() +
                                       (st.retriable() ? ". Run the COPY again once the store answers" : ""));
        out.failed.emplace_back(file, st);
        continue;
      }
      nlohmann::json identity = {{"url", url + file.path}, {"size", file.size}, {"etag", file.etag},
                                 {"mtime", file.last_modified_ms}, {"rows", outcome->rows_loaded}};
      // Rows ON_ERROR = CONTINUE skipped: the file is loaded (PARTIALLY_LOADED) and never loaded again.
      if (outcome->error_rows > 0) identity["errors"] = outcome->error_rows;
      identities.push_back(std::move(identity));
      keys.insert(IdentityKey(file, url));
      out.loaded.emplace_back(file, *outcome);
    }
    if (out.loaded.empty()) return out;  // every file failed, changed or was left: nothing to commit
    // Asked again in `prepare`; here too, so a pipe paused while its files were staged uploads nothing.
    const auto moved_on = [&] {
      return Status::Conflict(request.what + " moved on while its task ran (paused, altered or dropped); its files "
                              "are not committed");
    };
    if (request.still_current && !request.still_current()) return moved_on();
    const std::string files_json = identities.dump();
    // Under ON_ERROR = CONTINUE the files' rejected rows are written now, before the commit, so that a crash right
    // after it keeps them (the load records follow the commit). Rows an earlier attempt at the same files left
    // (its commit never came) go first; if this commit fails, its own go too.
    std::vector<std::string> urls;
    for (const auto& [file, outcome] : out.loaded) urls.push_back(url + file.path);
    const int64_t rejects_ms = WallClockMs();
    if (t.continue_on_error) {
      RETURN_IF_ERROR(storage::InTransaction(con, [&]() -> Status {
        RETURN_IF_ERROR(catalog::VolumeStore::DeleteRejectedRowsSinceLastLoad(con, t.db + "." + t.table, urls));
        for (const auto& [file, outcome] : out.loaded)
          RETURN_IF_ERROR(catalog::VolumeStore::RecordRejectedRows(con, t.db + "." + t.table, url + file.path,
                                                                   outcome.rejected, rejects_ms));
        return Status::Ok();
      }));
      for (auto& [file, outcome] : out.loaded) std::vector<catalog::RejectedFileRow>().swap(outcome.rejected);
    }
    bool lost_race = false;
    AppendRequest append;
    append.query = std::string("SELECT * FROM temp.") + kStage;
    append.columns = names;
    append.commit_when_empty = true;  // files without rows are loaded files too
    append.after_stage = [] { return TestPoint("iceberg_load.after_upload"); };
    append.prepare = [&](const iceberg::LoadedTable& base) -> Result<FencedCommit> {
      if (!request.force) {
        ASSIGN_OR_RETURN(auto now_in_table, FilesInTableHistory(base.metadata));
        for (const auto& key : keys)
          if (now_in_table.count(key)) {
            lost_race = true;
            return Status::Conflict("another load committed some of the files to " + name + " first");
          }
      }
      if (request.still_current && !request.still_current()) return moved_on();
      FencedCommit fenced;
      if (request.fence) {
        ASSIGN_OR_RETURN(fenced, request.fence());
        RETURN_IF_ERROR(TestPoint("iceberg_load.after_fence"));
      }
      for (const auto& [k, v] : request.extra_summary) fenced.summary.emplace(k, v);
      fenced.summary[request.files_key] = files_json;
      return fenced;
    };
    std::unique_lock<std::mutex> records_lock;
    if (!request.listing_task) records_lock = std::unique_lock<std::mutex>(CopyRecordsMutex(name));
    auto appended = AppendRows(conn, target, con, append, work_dir);
    if (!appended.ok() && t.continue_on_error) {
      if (Status d = catalog::VolumeStore::DeleteRejectedRowsWrittenAt(con, t.db + "." + t.table, urls, rejects_ms);
          !d.ok())
        log::Warn("copy", "{}: the commit failed, and the rejected rows written for it could not be removed: {}",
                  request.what, d.message());
    }
    if (!appended.ok()) {
      if (lost_race && round < kRounds) {
        ASSIGN_OR_RETURN(table, LoadLakeTable(conn, target));
        continue;
      }
      return appended.status();
    }
    log::Info("copy", "{} FROM VOLUME {}: {} file(s), {} row(s) in snapshot {}", request.what, volume.info.name,
              out.loaded.size(), appended->rows, appended->snapshot_id);
    RETURN_IF_ERROR(TestPoint("iceberg_load.after_commit"));
    // The table holds the truth now; the local records keep the files loaded once the snapshot that lists them
    // has expired. If they cannot be written, the table's history still skips the files (and a pipe's next task
    // writes them: RecordMissingFileLoads).
    std::vector<catalog::FileLoadRecord> records;
    for (const auto& [file, outcome] : out.loaded) {
      catalog::FileLoadRecord r;
      r.file_url = url + file.path;
      r.size = file.size;
      r.last_modified_ms = file.last_modified_ms;
      r.etag = file.etag;
      r.rows_loaded = outcome.rows_loaded;
      r.error_rows = outcome.error_rows;
      r.first_error = outcome.first_error;
      r.status = outcome.status;
      records.push_back(std::move(r));
    }
    if (Status local = RecordLoads(con, t, records, start_ms, WallClockMs()); !local.ok())
      log::Warn("copy", "{}: committed, but the files' local load records were not written: {}", request.what,
                local.message());
    return out;
  }
  return Status::Conflict(request.what + ": other loads kept committing the same files first; the files left are "
                          "loaded by the next try");
}

Result<ResultSet> CopyIntoLakeFromVolume(LakeCatalogs& lakes, storage::Connection& con, const LakeTableRef& target,
                                         const load::VolumeCopyRequest& request, const std::string& work_dir) {
  const std::string name = target.ToString();
  ASSIGN_OR_RETURN(auto conn, lakes.Connect(target.catalog));
  const catalog::ResolvedVolume& volume = request.volume;
  ASSIGN_OR_RETURN(auto reader, source::OpenVolume(volume.location, volume.credentials));
  ASSIGN_OR_RETURN(std::vector<source::VolumeFile> chosen, load::ChooseVolumeFiles(*reader, request));
  LakeFilesRequest files;
  files.what = "COPY INTO " + name;
  files.files_key = kCopyFilesKey;
  files.force = request.force;
  // ON_ERROR = CONTINUE: a file that cannot be loaded at all is LOAD_FAILED and left out; the others commit.
  files.stop_at_failed_file = !request.target.continue_on_error;
  if (!request.force) {
    ASSIGN_OR_RETURN(files.recorded, catalog::VolumeStore::LoadedFileKeys(con, volume.location.url, name));
  }
  ASSIGN_OR_RETURN(load::VolumeFilesCommit committed,
                   CommitVolumeFiles(*conn, con, target, *reader, volume, chosen, request.target, files, work_dir));
  // One row per file tried, in the order they were loaded (by path), as into a DuckDB table.
  std::vector<std::pair<std::string, Row>> rows;
  for (const auto& [file, o] : committed.loaded)
    rows.push_back({file.path, {file.path, o.status, std::to_string(o.rows_loaded), std::to_string(o.error_rows),
                                o.first_error.empty() ? std::nullopt : std::optional<std::string>(o.first_error),
                                o.first_error_line ? std::optional<std::string>(std::to_string(o.first_error_line))
                                                   : std::nullopt}});
  for (const auto& [file, st] : committed.failed)
    rows.push_back({file.path, {file.path, std::string("LOAD_FAILED"), std::string("0"), std::string("0"),
                                st.message(), std::nullopt}});
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  ResultSet rs = load::CopyResultColumns();
  for (auto& [path, row] : rows) rs.rows.push_back(std::move(row));
  return rs;
}

}  // namespace sluice::lakehouse
