#pragma once
// GET /api/routine_load/errors?db=D&job=J[&limit=N]: the rejected rows of a job as text, one per line — what
// the ErrorLogUrls column of SHOW ROUTINE LOAD links to.
#include <map>
#include <string>

#include "http/http_server.h"
#include "scheduler/routine_load_manager.h"

namespace sluice {

http::HttpReply RejectedRowsReply(scheduler::RoutineLoadManager& manager, const std::map<std::string, std::string>& query);

}  // namespace sluice
