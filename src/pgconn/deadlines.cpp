#include "pgconn/deadlines.h"

#include <algorithm>

namespace sluice::pgconn {

namespace {
Deadlines g_deadlines;
}  // namespace

std::chrono::milliseconds Deadlines::cluster_statement_timeout() const {
  return std::max(std::chrono::milliseconds(1000), cluster_answer - std::chrono::milliseconds(2000));
}

std::chrono::milliseconds Deadlines::cluster_lock_timeout() const {
  return std::chrono::milliseconds(cluster_statement_timeout().count() * 3 / 5);
}

Status CheckDeadlines(const Deadlines& d) {
  // libpq reads connect_timeout in whole seconds and takes 1 as 2.
  if (d.cluster_connect < std::chrono::seconds(2) || d.cluster_connect > std::chrono::seconds(600))
    return Status::InvalidArgument("--cluster-connect-timeout-seconds must be from 2 to 600");
  if (d.catalog_connect < std::chrono::seconds(2) || d.catalog_connect > std::chrono::seconds(600))
    return Status::InvalidArgument("--catalog-connect-timeout-seconds must be from 2 to 600");
  if (d.cluster_answer < std::chrono::seconds(2) || d.cluster_answer > std::chrono::seconds(3600))
    return Status::InvalidArgument("--cluster-answer-deadline-seconds must be from 2 to 3600");
  if (d.catalog_answer < std::chrono::seconds(2) || d.catalog_answer > std::chrono::seconds(3600))
    return Status::InvalidArgument("--catalog-answer-deadline-seconds must be from 2 to 3600");
  return Status::Ok();
}

void SetDeadlines(const Deadlines& d) { g_deadlines = d; }
const Deadlines& CurrentDeadlines() { return g_deadlines; }

}  // namespace sluice::pgconn
