#pragma once
// GET /api/routine_load/errors?db=D&job=J[&limit=N]: the rejected rows of a job as text, one per line — what
// the ErrorLogUrls column of SHOW ROUTINE LOAD links to; with &kind=pipe, of the pipe J (Kafka or volume).
// Rejected rows are loaded data, so only users who may see the job get them.
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "http/http_server.h"
#include "scheduler/routine_load_manager.h"

namespace sluice {

// Whether `user` may read the rejected rows of routine load `db`.`job` (the privilege check of the caller).
using MayReadJob = std::function<bool(std::string_view user, std::string_view db, std::string_view job, bool pipe)>;

http::HttpReply RejectedRowsReply(scheduler::RoutineLoadManager& manager, const http::HttpRequest& request,
                                  const MayReadJob& may_read);

}  // namespace sluice
