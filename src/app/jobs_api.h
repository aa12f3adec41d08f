#pragma once
// The JSON API over the jobs (docs/monitoring.md), which the dashboard at / reads (dashboard_endpoint.h):
//   GET  /api/jobs                        every job the user sees: kind, db, name, table, state, reason, rows, lag
//   GET  /api/jobs/{db}/{name}            one job: definition (secrets masked), state and reason, progress and lag
//                                         per partition, recent tasks, recent rejected rows   (?kind=pipe for a pipe
//                                         that shares its name with a routine load)
//   POST /api/jobs/{db}/{name}/pause      PAUSE ROUTINE LOAD, or ALTER PIPE ... SET PIPE_EXECUTION_PAUSED = true
//   POST /api/jobs/{db}/{name}/resume     RESUME ROUTINE LOAD, or ALTER PIPE ... SET PIPE_EXECUTION_PAUSED = false
// Every job carries may_control: whether the user may pause and resume it (what the dashboard offers).
// The actions run as SQL statements in a session of the HTTP user, so privileges, errors and logs are exactly
// those of the MySQL port.
#include "executor/engine.h"
#include "http/http_server.h"

namespace sluice {

void AddJobsApi(http::HttpServer& http, Engine& engine);

}  // namespace sluice
