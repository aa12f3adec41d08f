#pragma once
// libpq with a client-side bound on every wait. PostgreSQL's own timeouts (statement_timeout, lock_timeout) only
// help while the server runs; TCP keepalives and tcp_user_timeout only while the peer's kernel stops answering.
// A server that hangs with its kernel still up -- SIGSTOP, a stuck disk, a blackhole behind a proxy, and on
// loopback always -- acknowledges every packet and answers nothing, so a blocking PQexec waits forever. Here the
// statement is sent asynchronously and its answer awaited with poll() against a deadline; when the deadline
// passes the connection is given up, and the server session that may still run the statement is ended
// (pg_terminate_backend, waiting for it to go) on the next connection before anything else runs, so that a
// statement whose answer never came cannot land after the caller has looked at what it did.
#include <chrono>
#include <string>
#include <vector>

#include "common/status.h"

struct pg_conn;
struct pg_result;

namespace sluice::pgconn {

// TCP bounds for a libpq connection (keepalives after 5 s idle, every 2 s, 2 missed; unacknowledged data for
// 10 s), appended to PQconnectdbParams' keys and values. They notice a peer whose machine or network is gone.
void AddTcpBounds(std::vector<const char*>& keys, std::vector<const char*>& values);

// One libpq connection whose statements wait at most a deadline for their answer.
class BoundedConnection {
 public:
  // `conn` is a connection PQconnectdbParams made (owned from here on, PQfinish'ed by the destructor).
  // `connect_timeout` must be among its parameters: PQreset is bounded by it.
  BoundedConnection(pg_conn* conn, std::chrono::milliseconds deadline) : conn_(conn), deadline_(deadline) {}
  ~BoundedConnection();
  BoundedConnection(const BoundedConnection&) = delete;
  BoundedConnection& operator=(const BoundedConnection&) = delete;

  pg_conn* get() const { return conn_; }
  // Whether the connection is usable: libpq says so and no statement was given up on it.
  bool ok() const;
  // Connects again (bounded by connect_timeout); first ends the server session of a statement given up on, so
  // it cannot commit after this returns true. False when PostgreSQL still cannot be reached (PQerrorMessage).
  bool Reset();
  // One statement with text parameters. The result (free it with PQclear; may be an error result), or nullptr
  // with `*timed_out` true when no answer came within the deadline (the connection is then given up: ok() is
  // false until Reset()), or nullptr with `*timed_out` false when the connection broke (PQerrorMessage says why).
  pg_result* Exec(const std::string& sql, const std::vector<const char*>& params, bool* timed_out);
  std::chrono::milliseconds deadline() const { return deadline_; }

 private:
  pg_conn* conn_;
  std::chrono::milliseconds deadline_;
  int abandoned_pid_ = 0;  // the server process of a statement given up on, ended at the next Reset()
};

}  // namespace sluice::pgconn
