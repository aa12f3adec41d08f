#include "pgconn/bounded_exec.h"

#include <libpq-fe.h>
#include <poll.h>

#include <cerrno>

namespace sluice::pgconn {

namespace {

using Clock = std::chrono::steady_clock;

// Waits until the socket is ready for `events` or the deadline passes; false on the deadline.
bool WaitFor(PGconn* conn, short events, Clock::time_point until) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{PQsocket(conn), events, 0};
    int n = ::poll(&p, 1, static_cast<int>(left));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return true;  // let libpq find and report the socket's error
  }
}

// The results of a connection that broke: libpq answers them at once with its error (no wait on the socket).
PGresult* DrainBroken(PGconn* conn, PGresult* first) {
  while (PGresult* r = PQgetResult(conn)) {
    if (first == nullptr) first = r;
    else PQclear(r);
  }
  return first;
}

}  // namespace

void AddTcpBounds(std::vector<const char*>& keys, std::vector<const char*>& values) {
  for (auto [k, v] : {std::pair{"keepalives", "1"}, {"keepalives_idle", "5"}, {"keepalives_interval", "2"},
                      {"keepalives_count", "2"}, {"tcp_user_timeout", "10000"}}) {
    keys.push_back(k);
    values.push_back(v);
  }
}

BoundedConnection::~BoundedConnection() {
  if (conn_ != nullptr) PQfinish(conn_);
}

bool BoundedConnection::ok() const { return abandoned_pid_ == 0 && PQstatus(conn_) == CONNECTION_OK; }

bool BoundedConnection::Reset() {
  PQreset(conn_);  // closes the old socket; connecting is bounded by the connection's connect_timeout
  if (PQstatus(conn_) != CONNECTION_OK) return false;
  if (abandoned_pid_ != 0) {
    // The statement given up on may still be waiting in that session's socket (a stopped server runs it once it
    // wakes up): end the session and wait for it to be gone, so its outcome is final before the caller looks.
    const std::string pid = std::to_string(abandoned_pid_);
    abandoned_pid_ = 0;
    std::vector<const char*> params{pid.c_str()};
    bool timed_out = false;
    PGresult* r = Exec("SELECT pg_terminate_backend(pid, 4000) FROM pg_stat_activity WHERE pid = $1::int AND "
                       "usename = current_user", params, &timed_out);
    if (r != nullptr) PQclear(r);
    if (timed_out || PQstatus(conn_) != CONNECTION_OK) {
      abandoned_pid_ = std::stoi(pid);  // still unsettled: end it on the next connection
      return false;
    }
  }
  return true;
}

PGresult* BoundedConnection::Exec(const std::string& sql, const std::vector<const char*>& params, bool* timed_out) {
  *timed_out = false;
  const auto until = Clock::now() + deadline_;
  // Sends never block: a server that reads nothing fills the socket buffer, and the deadline must still hold.
  PQsetnonblocking(conn_, 1);
  if (!PQsendQueryParams(conn_, sql.c_str(), static_cast<int>(params.size()), nullptr, params.data(), nullptr,
                         nullptr, 0))
    return DrainBroken(conn_, nullptr);
  auto give_up = [&]() -> PGresult* {
    *timed_out = true;
    abandoned_pid_ = PQbackendPID(conn_);
    if (abandoned_pid_ == 0) abandoned_pid_ = -1;  // not known: still given up, nothing to end later
    return nullptr;
  };
  for (;;) {
    int f = PQflush(conn_);
    if (f == 0) break;
    if (f < 0) return DrainBroken(conn_, nullptr);
    if (!WaitFor(conn_, POLLOUT | POLLIN, until)) return give_up();
    if (!PQconsumeInput(conn_)) return DrainBroken(conn_, nullptr);
  }
  PGresult* first = nullptr;
  for (;;) {
    while (!PQisBusy(conn_)) {
      PGresult* r = PQgetResult(conn_);
      if (r == nullptr) return first;
      // One statement gives one result; should there be more, an error among them is the one that counts.
      if (first == nullptr) {
        first = r;
      } else if (PQresultStatus(r) == PGRES_FATAL_ERROR && PQresultStatus(first) != PGRES_FATAL_ERROR) {
        PQclear(first);
        first = r;
      } else {
        PQclear(r);
      }
    }
    if (!WaitFor(conn_, POLLIN, until)) {
      if (first != nullptr) PQclear(first);
      return give_up();
    }
    if (!PQconsumeInput(conn_)) return DrainBroken(conn_, first);
  }
}

}  // namespace sluice::pgconn
