#include "lakehouse/lake_volume_copy.h"

#include <nlohmann/json.hpp>

#include "catalog/load_history.h"
#include "catalog/volume_store.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/test_points.h"
#include "iceberg/table_operations.h"
#include "iceberg/types.h"
#include "lakehouse/lake_append.h"
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

std::string IdentityKey(const source::VolumeFile& file, const std::string& location_url) {
  return catalog::VolumeStore::FileIdentityKey(location_url + file.path, file.size, file.last_modified_ms, file.etag);
}

}  // namespace

Result<std::set<std::string>> FilesInTableHistory(const iceberg::TableMetadata& metadata) {
  std::set<std::string> out;
  std::set<int64_t> seen;  // a malformed parent loop must not spin
  const iceberg::Snapshot* s = metadata.CurrentSnapshot();
  while (s != nullptr && seen.insert(s->snapshot_id).second) {
    for (auto it = s->summary.lower_bound(kFilesSummaryPrefix);
         it != s->summary.end() && it->first.rfind(kFilesSummaryPrefix, 0) == 0; ++it) {
      try {
        for (const auto& f : nlohmann::json::parse(it->second))
          out.insert(catalog::VolumeStore::FileIdentityKey(f.at("url").get<std::string>(), f.at("size").get<int64_t>(),
                                                           f.value("mtime", int64_t{0}), f.value("etag", std::string())));
      } catch (const std::exception& e) {
        return Status::Internal("snapshot " + std::to_string(s->snapshot_id) + " holds " + it->first +
                                ", which is not a JSON list of files {url, size, etag, mtime} (" + e.what() + ")");
      }
    }
    s = s->parent_snapshot_id ? metadata.FindSnapshot(*s->parent_snapshot_id) : nullptr;
  }
  return out;
}

Result<ResultSet> CopyIntoLakeFromVolume(LakeCatalogs& lakes, storage::Connection& con, const LakeTableRef& target,
                                         const load::VolumeCopyRequest& request, const std::string& work_dir) {
  const std::string name = target.ToString();
  if (request.target.continue_on_error)
    return Status::NotSupported("COPY INTO " + name + " FROM VOLUME: ON_ERROR = CONTINUE is not supported yet for "
                                "Iceberg tables; under ON_ERROR = ABORT (the default) a bad row fails the statement "
                                "and nothing of it is committed");
  ASSIGN_OR_RETURN(auto conn, lakes.Connect(target.catalog));
  ASSIGN_OR_RETURN(iceberg::LoadedTable table, LoadLakeTable(*conn, target));
  std::vector<std::pair<std::string, std::string>> columns;
  std::vector<std::string> names;
  std::string stage_columns;
  for (const auto& f : table.metadata.CurrentSchema()->fields) {
    columns.emplace_back(f.name, iceberg::DuckDbTypeName(f.type));
    names.push_back(f.name);
    stage_columns += (stage_columns.empty() ? "" : ", ") + sql::QuoteIdentifier(f.name) + " " + columns.back().second;
  }
  const catalog::ResolvedVolume& volume = request.volume;
  const std::string& url = volume.location.url;
  ASSIGN_OR_RETURN(auto reader, source::OpenVolume(volume.location, volume.credentials));
  ASSIGN_OR_RETURN(std::vector<source::VolumeFile> chosen, load::ChooseVolumeFiles(*reader, request));
  std::set<std::string> recorded;
  if (!request.force) {
    ASSIGN_OR_RETURN(recorded, catalog::VolumeStore::LoadedFileKeys(con, url, name));
  }
  load::VolumeLoadTarget t = request.target;
  t.db = target.catalog + "." + target.db;  // load_history names the table catalog.db.table
  t.table = target.table;
  t.stage_sql = std::string("temp.") + kStage;
  t.stage_columns = columns;

  ResultSet rs;
  rs.AddColumn("file");
  rs.AddColumn("status");
  rs.AddColumn("rows_loaded", ValueType::kBigInt);
  rs.AddColumn("error_rows", ValueType::kBigInt);
  rs.AddColumn("first_error");
  rs.AddColumn("first_error_line", ValueType::kBigInt);
  // Another statement committing some of the same files between this one's listing and its commit sends it round
  // again without them; a few rounds at most.
  constexpr int kRounds = 3;
  for (int round = 1; round <= kRounds; round++) {
    std::set<std::string> in_table;
    if (!request.force) {
      ASSIGN_OR_RETURN(in_table, FilesInTableHistory(table.metadata));
    }
    std::vector<source::VolumeFile> todo;
    for (const auto& file : chosen) {
      const std::string key = IdentityKey(file, url);
      if (!recorded.count(key) && !in_table.count(key)) todo.push_back(file);
    }
    if (todo.empty()) return rs;
    RETURN_IF_ERROR(con.Execute(std::string("CREATE OR REPLACE TEMP TABLE ") + kStage + " (" + stage_columns + ")"));
    StageTable stage{con};
    const int64_t start_ms = WallClockMs();
    std::vector<load::FileLoadOutcome> outcomes;
    nlohmann::json identities = nlohmann::json::array();
    std::set<std::string> keys;
    for (const auto& file : todo) {
      auto outcome = load::LoadVolumeFile(con, *reader, volume, file, t, /*force=*/true);
      if (outcome.ok() && outcome->status == load::kFileChanged) outcome = Status::NotFound(outcome->first_error);
      if (!outcome.ok()) {
        const Status& st = outcome.status();
        if (Status h = load::RecordFileLoadFailure(con, volume, file, t, st.message(), start_ms); !h.ok())
          log::Warn("copy", "could not record the failed load of {} in load_history: {}", file.path, h.message());
        return Status(st.code(), "COPY INTO " + name + " stopped at file '" + file.path + "' of volume " +
                                     volume.info.name + "; nothing of the statement was committed: " + st.message());
      }
      outcomes.push_back(*outcome);
      identities.push_back({{"url", url + file.path}, {"size", file.size}, {"etag", file.etag},
                            {"mtime", file.last_modified_ms}});
      keys.insert(IdentityKey(file, url));
    }
    const std::string files_json = identities.dump();
    bool lost_race = false;
    AppendRequest append;
    append.query = std::string("SELECT * FROM temp.") + kStage;
    append.columns = names;
    append.commit_when_empty = true;  // files without rows are loaded files too
    append.after_stage = [] { return TestPoint("iceberg_load.after_upload"); };
    append.prepare = [&](const iceberg::LoadedTable& base) -> Result<iceberg::Summary> {
      if (!request.force) {
        ASSIGN_OR_RETURN(auto now_in_table, FilesInTableHistory(base.metadata));
        for (const auto& key : keys)
          if (now_in_table.count(key)) {
            lost_race = true;
            return Status::Conflict("another statement committed some of the files to " + name + " first");
          }
      }
      iceberg::Summary summary;
      summary[kCopyFilesKey] = files_json;
      return summary;
    };
    auto appended = AppendRows(*conn, target, con, append, work_dir);
    if (!appended.ok()) {
      if (lost_race && round < kRounds) {
        ASSIGN_OR_RETURN(table, LoadLakeTable(*conn, target));
        continue;
      }
      return appended.status();
    }
    log::Info("copy", "COPY INTO {} FROM VOLUME {}: {} file(s), {} row(s) in snapshot {}", name, volume.info.name,
              todo.size(), appended->rows, appended->snapshot_id);
    RETURN_IF_ERROR(TestPoint("iceberg_load.after_commit"));
    // The table holds the truth now; the local records keep the files loaded once the snapshot that lists them
    // has expired. If they cannot be written, the table's history still skips the files.
    const int64_t now = WallClockMs();
    Status local = storage::InTransaction(con, [&]() -> Status {
      for (size_t i = 0; i < todo.size(); i++) {
        catalog::FileLoadRecord r;
        r.file_url = url + todo[i].path;
        r.target = name;
        r.size = todo[i].size;
        r.last_modified_ms = todo[i].last_modified_ms;
        r.etag = todo[i].etag;
        r.rows_loaded = outcomes[i].rows_loaded;
        r.status = "LOADED";
        RETURN_IF_ERROR(catalog::VolumeStore::RecordFileLoad(con, r, now));
        catalog::LoadHistoryEntry h;
        h.db = t.db;
        h.table = t.table;
        h.job = t.job;
        h.job_kind = t.job_kind;
        h.file_url = r.file_url;
        h.start_ms = start_ms;
        h.end_ms = now;
        h.loaded_rows = r.rows_loaded;
        h.status = "LOADED";
        RETURN_IF_ERROR(catalog::RecordLoadHistory(con, h));
      }
      return Status::Ok();
    });
    if (!local.ok())
      log::Warn("copy", "COPY INTO {}: committed, but the files' local load records were not written: {}", name,
                local.message());
    for (size_t i = 0; i < todo.size(); i++)
      rs.rows.push_back({todo[i].path, std::string("LOADED"), std::to_string(outcomes[i].rows_loaded),
                         std::string("0"), std::nullopt, std::nullopt});
    return rs;
  }
  return Status::Conflict("COPY INTO " + name + ": other statements kept committing the same files first; run it "
                          "again to load what is left");
}

}  // namespace sluice::lakehouse
