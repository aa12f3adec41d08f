#pragma once
// PgClient: one libpq connection to the cluster's PostgreSQL database, with text parameters and text results.
// A lost connection is re-established on the next statement (once per call), so callers see one Unavailable
// error per failed call and nothing more; they decide whether to retry. Not thread-safe by itself: each user
// (the heartbeat thread, SHOW NODES) owns its own client, or guards it with its own mutex.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "pgconn/bounded_exec.h"

struct pg_conn;

namespace sluice::cluster {

struct PgRows {
  std::vector<std::vector<std::optional<std::string>>> rows;
  int64_t affected = 0;  // rows an INSERT / UPDATE / DELETE touched
  std::string command;   // PostgreSQL's command tag: "UPDATE 1", "COMMIT", "ROLLBACK", ...
};

class PgClient {
 public:
  // `uri`: a libpq connection string or URI ("host=10.0.0.5 port=5432 dbname=sluice user=sluice",
  // "postgresql://sluice@10.0.0.5/sluice"). The password may come from the URI, PGPASSWORD or ~/.pgpass: the URI
  // is the operator's, so libpq's usual sources apply. Fails with Unavailable when PostgreSQL cannot be reached.
  static Result<std::unique_ptr<PgClient>> Connect(const std::string& uri);
  // Whether libpq can read `uri` at all (checked once at start, so a typo stops the server instead of being
  // retried forever). The message never repeats the URI, which may hold a password.
  static Status CheckUri(const std::string& uri);
  // host:port/dbname of a URI, for messages and logs (never the user or password).
  static std::string Describe(const std::string& uri);
  ~PgClient();
  PgClient(const PgClient&) = delete;
  PgClient& operator=(const PgClient&) = delete;

  // One statement with $1..$n text parameters, answered within deadline() on the client's clock (a PostgreSQL
  // that hangs -- stopped, a blackhole -- is given up on like one that is down). Errors: Unavailable when the
  // connection is lost or no answer came (and it could not be re-established), Conflict for a serialization failure or a lock timeout, Internal for anything else.
  // Outside a transaction a statement that failed because the connection broke is run once more on a new
  // connection; inside one (after Begin) it is not, and every statement until Commit/Rollback fails: the rest of
  // the transaction must not run on a fresh connection in autocommit (a fence's row lock would be gone).
  Result<PgRows> Exec(const std::string& sql, const std::vector<std::string>& params = {});
  // A transaction on this connection: what a fenced commit runs its fence and its catalog update in.
  Status Begin();
  // Unavailable when the connection was lost inside the transaction (nothing was committed), Conflict when
  // PostgreSQL refused the commit (serialization).
  Status Commit();
  void Rollback();
  const std::string& where() const { return where_; }

  // How long a statement waits for PostgreSQL's answer (--cluster-answer-deadline-seconds, 7 s by default,
  // pgconn/deadlines.h): above the server's statement_timeout (2 s less), so a server that runs answers with its
  // own error first, and a server that hangs is given up on after this.
  std::chrono::milliseconds deadline() const { return db_.deadline(); }

 private:
  PgClient(pg_conn* conn, std::string where, std::chrono::milliseconds deadline)
      : db_(conn, deadline), where_(std::move(where)) {}
  pgconn::BoundedConnection db_;
  std::string where_;
  bool in_transaction_ = false;
  bool transaction_lost_ = false;  // the connection broke inside the transaction: only Commit/Rollback answer
};

}  // namespace sluice::cluster
