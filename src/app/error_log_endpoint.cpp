#include "app/error_log_endpoint.h"

namespace sluice {

http::HttpReply RejectedRowsReply(scheduler::RoutineLoadManager& manager, const http::HttpRequest& request,
                                  const MayReadJob& may_read) {
  const auto& query = request.query;
  http::HttpReply reply;
  reply.content_type = "text/plain; charset=utf-8";
  auto db = query.find("db");
  auto job = query.find("job");
  if (db == query.end() || job == query.end()) {
    reply.status = 400;
    reply.body = "give the job as ?db=<database>&job=<job name>\n";
    return reply;
  }
  auto kind = query.find("kind");
  bool pipe = kind != query.end() && kind->second == "pipe";
  const char* what = pipe ? "pipe " : "routine load ";
  // Checked before the job is looked up, so the answer does not tell whether a job the user may not see exists.
  if (!may_read || !may_read(request.user, db->second, job->second, pipe)) {
    reply.status = 403;
    reply.body = "user '" + request.user + "' may not read the rejected rows of " + what + db->second + "." +
                 job->second + "\n";
    return reply;
  }
  int64_t limit = 1000;
  if (auto l = query.find("limit"); l != query.end()) limit = std::max<int64_t>(1, std::atoll(l->second.c_str()));
  auto rows = manager.RejectedRows(db->second, job->second, limit, pipe);
  if (!rows.ok()) {
    reply.status = 404;
    reply.body = rows.status().message() + "\n";
    return reply;
  }
  // Columns: TaskId, Partition, Offset, Reason, RawData, CreateTime (newest first).
  for (const auto& r : rows->rows) {
    reply.body += "Error: " + r[3].value_or("") + ". partition: " + r[1].value_or("-") + ", offset: " +
                  r[2].value_or("-") + ", task: " + r[0].value_or("-") + ", at: " + r[5].value_or("") +
                  ". Row: [" + r[4].value_or("") + "]\n";
  }
  if (rows->rows.empty()) reply.body = "no rejected rows\n";
  return reply;
}

}  // namespace sluice
