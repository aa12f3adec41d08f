// information_schema.PIPES and PIPE_FILES, as StarRocks 3.2 has them, for both kinds of pipe (docs/pipes.md).
// PIPES takes its values from SHOW PIPES and DESC PIPE EXTENDED (so they agree with them, and hold no secret: the
// COPY statement is not shown); PIPE_FILES lists the files a volume pipe loaded or could not load, as
// load_history keeps them (load_history_retention_days), with the identity volume_loads recorded. A cluster
// volume pipe's loaded files come from its Iceberg table's commits instead (any node answers the same). A Kafka pipe
// reads no files: it has no rows in PIPE_FILES (its batches are in LOADS). A user sees the pipes SHOW PIPES shows
// them.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "executor/information_schema_views.h"
#include "load/volume_pipe_task.h"
#include "scheduler/routine_load_manager.h"
#include "sql/parser.h"

namespace sluice::information_schema {

namespace {

using nlohmann::json;

struct VisiblePipe {
  const scheduler::JobStatus* status = nullptr;  // id, table, kind, pending files
  std::map<std::string, std::optional<std::string>> show;  // its row of SHOW PIPES, by column
  std::map<std::string, std::string> desc;         // DESC PIPE EXTENDED, info_name -> info_value
};

const scheduler::JobStatus* FindPipeStatus(InformationSchemaReader& r, const std::string& db, const std::string& name) {
  for (const auto& s : r.JobStatuses())
    if (s.kind != "routine_load" && s.db == db && s.name == name) return &s;
  return nullptr;
}

// Every live pipe the session may see, by database then name; `describe`: also DESC PIPE EXTENDED of each.
Result<std::vector<VisiblePipe>> VisiblePipes(InformationSchemaReader& r, bool describe) {
  const auto& s = r.source();
  std::vector<VisiblePipe> out;
  if (!s.jobs) return out;
  ASSIGN_OR_RETURN(auto dbs, r.AllDatabases());
  for (const auto& db : dbs) {
    sql::ShowPipes show;
    show.db = db;
    auto rs = s.jobs->ShowPipes(show, db);
    if (!rs.ok()) continue;
    int name_col = ColumnIndex(*rs, "name");
    if (name_col < 0) continue;
    for (auto& row : rs->rows) {
      if (!row[name_col] || !s.sees_pipe(db, *row[name_col])) continue;
      VisiblePipe p;
      p.status = FindPipeStatus(r, db, *row[name_col]);
      if (!p.status) continue;  // dropped meanwhile
      if (describe) {
        sql::DescPipe desc;
        desc.db = db;
        desc.name = *row[name_col];
        desc.extended = true;
        auto d = s.jobs->DescPipe(desc, db);
        if (!d.ok()) continue;
        for (const auto& kv : d->rows)
          if (kv.size() == 2 && kv[0]) p.desc[*kv[0]] = kv[1].value_or("");
      }
      for (size_t i = 0; i < rs->columns.size() && i < row.size(); i++) p.show[rs->columns[i].name] = row[i];
      out.push_back(std::move(p));
    }
  }
  return out;
}

std::optional<std::string> ShowValue(const VisiblePipe& p, const std::string& column) {
  auto it = p.show.find(column);
  return it == p.show.end() ? kNull : it->second;
}

int64_t Count(const std::map<std::string, std::string>& desc, const std::string& key) {
  auto it = desc.find(key);
  if (it == desc.end() || it->second.empty()) return 0;
  try {
    return std::stoll(it->second);
  } catch (...) {
    return 0;
  }
}

// StarRocks' LOAD_STATUS: what the pipe has loaded, as JSON. Counts come from DESC PIPE EXTENDED (for a volume
// pipe, within load_history's retention; for a Kafka pipe, its whole life).
std::string LoadStatus(const VisiblePipe& p) {
  json j = json::object();
  const auto& st = *p.status;
  if (st.kind == "volume_pipe") {
    j["loadedFiles"] = Count(p.desc, "loaded_files");
    j["failedFiles"] = Count(p.desc, "failed_loads");
    j["loadingFiles"] = st.pending_files;
    j["loadingBytes"] = st.pending_bytes;
    j["loadedRows"] = Count(p.desc, "loaded_rows");
    j["errorRows"] = Count(p.desc, "error_rows");
    j["lastLoadedTime"] = scheduler::FormatTimeMs(st.last_load_ms);
  } else {
    j["loadedRows"] = Count(p.desc, "loaded_rows");
    j["errorRows"] = Count(p.desc, "error_rows");
    j["filteredRows"] = Count(p.desc, "filtered_rows");
    j["committedBatches"] = Count(p.desc, "committed_batches");
    j["receivedBytes"] = Count(p.desc, "received_bytes");
  }
  return j.dump();
}

Result<std::vector<Row>> PipeRows(InformationSchemaReader& r) {
  ASSIGN_OR_RETURN(auto pipes, VisiblePipes(r, true));
  std::vector<Row> rows;
  for (const auto& p : pipes) {
    const auto& st = *p.status;
    auto props = p.desc.find("properties");
    // An Iceberg target is named with its catalog (catalog.db.table), as DESC PIPE's output_name does.
    const std::string table = st.target_db != st.db ? st.target_db + "." + st.table : st.table;
    rows.push_back({st.db, Number(st.id), st.name, ShowValue(p, "status"), table,
                    ShowValue(p, "pipe_kind"), Text(LoadStatus(p)), ShowValue(p, "last_error"),
                    TimestampFromText(ShowValue(p, "created_time")),
                    props == p.desc.end() ? kNull : Text(props->second), ShowValue(p, "comment")});
  }
  return rows;
}

// StarRocks' LOAD_STATE of a file: FINISHED (loaded, some rows may have been rejected) or ERROR.
constexpr const char* kFileRowsSql =
    "SELECT h.source, v.etag, v.size, v.last_modified, CASE WHEN h.status = 'FAILED' THEN 'ERROR' ELSE 'FINISHED' "
    "END, h.start_time, h.end_time, h.first_error, h.loaded_rows, h.error_rows FROM __sluice.load_history h LEFT "
    "JOIN __sluice.volume_loads v ON v.file_url = h.source AND v.target = h.db || '.' || h.table_name AND "
    "v.loaded_at = h.end_time WHERE h.job_kind = 'PIPE' AND NOT starts_with(h.source, 'kafka://') ";

// A cluster volume pipe's committed files, as its table's commits list them (load::CommittedFile): FINISHED at
// the commit's time. The table knows no first error: a file with rejected rows says how many.
Row CommittedFileRow(const scheduler::JobStatus& st, const load::CommittedFile& f) {
  const auto& rec = f.record;
  auto at = TimestampFromMs(f.committed_ms);
  std::optional<std::string> error = rec.error_rows > 0 ? Text(std::to_string(rec.error_rows) + " row(s) rejected")
                                                        : Text("");
  return {st.db, Number(st.id), st.name, rec.file_url, Text(rec.etag), Number(rec.size),
          TimestampFromMs(rec.last_modified_ms), Text("FINISHED"), at, at, at, error, Number(rec.rows_loaded),
          Number(rec.error_rows)};
}

Result<std::vector<Row>> PipeFileRows(InformationSchemaReader& r) {
  ASSIGN_OR_RETURN(auto pipes, VisiblePipes(r, false));
  std::vector<Row> rows;
  for (const auto& p : pipes) {
    const auto& st = *p.status;
    if (st.kind != "volume_pipe") continue;
    // A cluster pipe is loaded by whichever node holds it: its committed files come from its table, each once,
    // the same on every node; this node's load_history adds only the files that failed here and never committed.
    std::optional<std::vector<load::CommittedFile>> committed;
    if (r.source().jobs) {
      auto in_table = r.source().jobs->PipeFiles(st.db, st.name);
      if (!in_table.ok() && in_table.status().code() == StatusCode::kNotFound) continue;  // dropped meanwhile
      if (!in_table.ok()) return in_table.status();
      committed = std::move(in_table).value();
    }
    std::set<std::string> committed_urls;
    if (committed) {
      std::stable_sort(committed->begin(), committed->end(), [](const auto& a, const auto& b) {
        return a.committed_ms != b.committed_ms ? a.committed_ms < b.committed_ms : a.record.file_url < b.record.file_url;
      });
      for (const auto& f : *committed) {
        rows.push_back(CommittedFileRow(st, f));
        committed_urls.insert(f.record.file_url);
      }
    }
    using sql::QuoteLiteral;
    ASSIGN_OR_RETURN(auto files, r.InternalQuery(std::string(kFileRowsSql) + "AND h.db = " + QuoteLiteral(st.target_db) +
                                                 " AND h.job_name = " + QuoteLiteral(st.name) +
                                                 " AND h.table_name = " + QuoteLiteral(st.table) +
                                                 " AND h.start_time >= " + std::to_string(st.create_time_ms) +
                                                 (committed ? " AND h.status = 'FAILED'" : "") +
                                                 " ORDER BY h.end_time, h.source"));
    for (auto& f : files) {
      if (committed && f[0] && committed_urls.count(*f[0])) continue;  // it failed here, then loaded
      auto ms = [&](size_t i) { return f[i] ? TimestampFromMs(std::stoll(*f[i])) : kNull; };
      rows.push_back({st.db, Number(st.id), st.name, f[0], f[1], f[2], ms(3), f[4], ms(5), ms(5),
                      *f[4] == "ERROR" ? kNull : ms(6), f[7], f[8], f[9]});
    }
  }
  return rows;
}

}  // namespace

InformationSchemaView Pipes() {
  return {"pipes",
          {Varchar("DATABASE_NAME"), BigInt("PIPE_ID"), Varchar("PIPE_NAME"), Varchar("STATE"), Varchar("TABLE_NAME"),
           Varchar("PIPE_KIND"), Varchar("LOAD_STATUS"), Varchar("LAST_ERROR"), Timestamp("CREATED_TIME"),
           Varchar("PROPERTIES"), Varchar("COMMENT")},
          PipeRows};
}

InformationSchemaView PipeFiles() {
  return {"pipe_files",
          {Varchar("DATABASE_NAME"), BigInt("PIPE_ID"), Varchar("PIPE_NAME"), Varchar("FILE_NAME"),
           Varchar("FILE_VERSION"), BigInt("FILE_SIZE"), Timestamp("LAST_MODIFIED"), Varchar("LOAD_STATE"),
           Timestamp("STAGED_TIME"), Timestamp("START_LOAD_TIME"), Timestamp("FINISH_LOAD_TIME"), Varchar("ERROR_MSG"),
           BigInt("LOADED_ROWS"), BigInt("ERROR_ROWS")},
          PipeFileRows};
}

}  // namespace sluice::information_schema
