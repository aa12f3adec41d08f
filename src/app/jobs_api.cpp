#include "app/jobs_api.h"

#include <atomic>
#include <chrono>

#include <nlohmann/json.hpp>

#include "app/http_wiring.h"
#include "app/job_visibility.h"
#include "common/log.h"
#include "sql/parser.h"

namespace sluice {

using nlohmann::json;

namespace {

// Sessions of the HTTP API get connection ids of their own, apart from the MySQL port's (which count from 1).
std::atomic<uint32_t> next_http_session{0x80000000u};

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

http::HttpReply JsonReply(int status, const json& body) {
  http::HttpReply reply;
  reply.status = status;
  reply.body = Dump(body) + "\n";
  return reply;
}

http::HttpReply ErrorReply(int status, const std::string& message) {
  return JsonReply(status, json{{"error", message}, {"status", status}});
}

int HttpStatusOf(const Status& st) {
  switch (st.code()) {
    case StatusCode::kAccessDenied: return 403;
    case StatusCode::kNotFound:
    case StatusCode::kUnknownDatabase:
    case StatusCode::kUnknownTable: return 404;
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotSupported: return 409;  // e.g. resuming a job that is not paused
    case StatusCode::kUnavailable:
    case StatusCode::kDiskFull: return 503;
    default: return 500;
  }
}

// The server's clock, so a page can tell how old last_commit_ms and the task times are without trusting its own.
int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t Lag(const scheduler::JobStatus& s) {
  int64_t lag = 0;
  bool known = false;
  for (const auto& p : s.partitions)
    if (p.lag >= 0) lag += p.lag, known = true;
  return known ? lag : -1;
}

json Summary(const scheduler::JobStatus& s) {
  const auto& a = s.activity;
  json j = {{"kind", s.kind},
            {"db", s.db},
            {"name", s.name},
            {"table", s.table},
            {"state", s.state},
            {"reason", s.reason},
            {"other_msg", s.other_msg},
            {"rows_loaded", a.rows_loaded},
            {"rows_filtered", a.rows_filtered},
            {"rows_error", a.rows_error},
            {"tasks_committed", a.tasks_committed},
            {"tasks_aborted", a.tasks_aborted},
            {"last_commit_ms", a.last_commit_ms},
            {"current_tasks", s.current_tasks}};
  j["lag"] = s.kind == "volume_pipe" ? json(nullptr) : json(Lag(s));
  j["freshness_seconds"] = s.freshness_seconds >= 0 ? json(s.freshness_seconds) : json(nullptr);
  if (s.kind == "volume_pipe") {
    j["files_pending"] = s.pending_files;
    j["bytes_pending"] = s.pending_bytes;
    j["files_loaded"] = a.files_loaded;
    j["files_failed"] = a.files_failed;
  }
  return j;
}

// The job named by the path: a routine load first, unless ?kind=pipe (or no routine load has that name).
const scheduler::JobStatus* FindJob(const std::vector<scheduler::JobStatus>& all, const std::string& db,
                                    const std::string& name, bool want_pipe) {
  const scheduler::JobStatus* found = nullptr;
  for (const auto& s : all) {
    if (s.db != db || s.name != name) continue;
    bool pipe = s.kind != "routine_load";
    if (pipe != want_pipe && found) continue;
    if (!found || pipe == want_pipe) found = &s;
  }
  return found;
}

http::HttpReply ListJobs(Engine& engine, const http::HttpRequest& request) {
  auto all = engine.routine_loads().Statuses();
  JobVisibility visibility(engine.accounts(), request.user);
  json jobs = json::array();
  for (const auto& s : all) {
    if (!visibility.Sees(s)) continue;
    json j = Summary(s);
    j["may_control"] = visibility.MayControl(s);
    jobs.push_back(std::move(j));
  }
  return JsonReply(200, json{{"user", request.user}, {"now_ms", NowMs()}, {"jobs", jobs}});
}

http::HttpReply ShowJob(Engine& engine, const http::HttpRequest& request) {
  const std::string& db = request.path_params.at(0);
  const std::string& name = request.path_params.at(1);
  auto kind = request.query.find("kind");
  bool want_pipe = kind != request.query.end() && kind->second == "pipe";
  auto all = engine.routine_loads().Statuses(/*definitions=*/true);
  JobVisibility visibility(engine.accounts(), request.user);
  const scheduler::JobStatus* s = FindJob(all, db, name, want_pipe);
  // A job the user may not see answers as one that does not exist.
  if (!s || !visibility.Sees(*s)) return ErrorReply(404, "no job '" + name + "' in database '" + db + "' that user '" +
                                                             request.user + "' may see");
  json j = Summary(*s);
  j["may_control"] = visibility.MayControl(*s);
  j["user"] = request.user;
  j["now_ms"] = NowMs();
  j["id"] = s->id;
  j["definition"] = s->definition;
  j["create_time_ms"] = s->create_time_ms;
  j["pause_time_ms"] = s->pause_time_ms;
  j["end_time_ms"] = s->end_time_ms;
  json parts = json::array();
  for (const auto& p : s->partitions) {
    parts.push_back({{"partition", p.partition},
                     {"next_offset", p.next_offset >= 0 ? json(p.next_offset) : json(nullptr)},
                     {"high_watermark", p.high_watermark >= 0 ? json(p.high_watermark) : json(nullptr)},
                     {"lag", p.lag >= 0 ? json(p.lag) : json(nullptr)},
                     {"last_message_ms", p.last_message_ms}});
  }
  j["partitions"] = parts;
  json tasks = json::array();
  for (const auto& t : s->tasks)
    tasks.push_back({{"task_id", t.task_id}, {"status", t.status}, {"started_ms", t.started_ms},
                     {"message", t.message}, {"partitions", t.partitions}});
  j["tasks"] = tasks;
  if (s->kind == "volume_pipe") {
    j["last_listing_ms"] = s->last_listing_ms;
    j["last_load_ms"] = s->last_load_ms;
    j["last_loaded_file"] = s->last_loaded_file;
  }
  // Rejected rows are loaded data: the same visibility as the job (SELECT on its table, or the pipe's own).
  json errors = json::array();
  auto rows = engine.routine_loads().RejectedRows(s->db, s->name, 20, s->kind != "routine_load");
  if (rows.ok()) {
    for (const auto& r : rows->rows)  // TaskId, Partition, Offset, Reason, RawData, CreateTime
      errors.push_back({{"task_id", r[0].value_or("")}, {"partition", r[1] ? json(*r[1]) : json(nullptr)},
                        {"offset", r[2] ? json(*r[2]) : json(nullptr)}, {"reason", r[3].value_or("")},
                        {"raw_data", r[4].value_or("")}, {"time", r[5].value_or("")}});
  }
  j["recent_errors"] = errors;
  return JsonReply(200, j);
}

http::HttpReply ControlJob(Engine& engine, const http::HttpRequest& request) {
  const std::string& db = request.path_params.at(0);
  const std::string& name = request.path_params.at(1);
  const std::string& action = request.path_params.at(2);
  auto kind = request.query.find("kind");
  bool want_pipe = kind != request.query.end() && kind->second == "pipe";
  auto all = engine.routine_loads().Statuses();
  JobVisibility visibility(engine.accounts(), request.user);
  const scheduler::JobStatus* s = FindJob(all, db, name, want_pipe);
  if (!s || !visibility.Sees(*s)) return ErrorReply(404, "no job '" + name + "' in database '" + db + "' that user '" +
                                                             request.user + "' may see");
  bool pause = action == "pause";
  std::string target = sql::BacktickIdentifier(db) + "." + sql::BacktickIdentifier(name);
  std::string statement = s->kind == "routine_load"
                              ? std::string(pause ? "PAUSE" : "RESUME") + " ROUTINE LOAD FOR " + target
                              : "ALTER PIPE " + target + " SET PIPE_EXECUTION_PAUSED = " + (pause ? "true" : "false");
  auto session = engine.NewSession(next_http_session.fetch_add(1), request.user, request.client_ip, "");
  if (!session.ok()) return ErrorReply(HttpStatusOf(session.status()), session.status().message());
  auto result = (*session)->Execute(statement);
  if (!result.ok()) return ErrorReply(HttpStatusOf(result.status()), result.status().message());
  log::Info("http", "user '{}' from {}: {}", request.user, request.client_ip, statement);
  // The state after the statement, as SHOW shows it.
  for (const auto& now : engine.routine_loads().Statuses())
    if (now.id == s->id) return JsonReply(200, json{{"statement", statement}, {"job", Summary(now)}});
  return JsonReply(200, json{{"statement", statement}});
}

}  // namespace

void AddJobsApi(http::HttpServer& http, Engine& engine) {
  // Reasons, task messages and errors name the data directory only to administrators (http_wiring.h).
  auto shown = [&engine](http::HttpHandler handler) {
    return WithoutServerPaths(std::move(handler), engine.accounts(), engine.storage_health());
  };
  http.Get("/api/jobs", shown([&engine](const http::HttpRequest& r) { return ListJobs(engine, r); }));
  http.Get(R"(/api/jobs/([^/]+)/([^/]+))", shown([&engine](const http::HttpRequest& r) { return ShowJob(engine, r); }));
  http.Post(R"(/api/jobs/([^/]+)/([^/]+)/(pause|resume))",
            shown([&engine](const http::HttpRequest& r) { return ControlJob(engine, r); }));
}

}  // namespace sluice
