#pragma once
// How long Sluice waits for PostgreSQL, on the node's own clock: connecting, and the answer to one statement, for
// the cluster's database (`--cluster`) and for Iceberg JDBC catalogs apart. Set once at start from `sluice serve`'s
// options (docs/cluster.md, "A PostgreSQL that hangs"), before any connection is opened; read by every connection
// as it is made (cluster/pg_client.*, iceberg/jdbc_catalog.*).
#include <chrono>
#include <string>

#include "common/status.h"

namespace sluice::pgconn {

struct Deadlines {
  std::chrono::seconds cluster_connect{3};         // --cluster-connect-timeout-seconds
  std::chrono::milliseconds cluster_answer{7000};  // --cluster-answer-deadline-seconds
  std::chrono::seconds catalog_connect{5};         // --catalog-connect-timeout-seconds
  std::chrono::milliseconds catalog_answer{6000};  // --catalog-answer-deadline-seconds

  // The server-side bounds of the cluster's sessions, kept below the answer deadline so that a server that runs
  // answers with its own error first: statement_timeout = the answer deadline less 2 s (at least 1 s; 5 s by
  // default), lock_timeout = 60 % of that (3 s by default).
  std::chrono::milliseconds cluster_statement_timeout() const;
  std::chrono::milliseconds cluster_lock_timeout() const;
};

// Whether the values can work: libpq's connect_timeout is at least 2 s; an answer deadline of at least 2 s.
// The message names the option to change.
Status CheckDeadlines(const Deadlines& d);
// At start, before any connection; not changed afterwards.
void SetDeadlines(const Deadlines& d);
const Deadlines& CurrentDeadlines();

}  // namespace sluice::pgconn
