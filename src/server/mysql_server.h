#pragma once
// The MySQL-protocol front door: a listening socket, an accept thread, and one thread per client connection
// (each running a Connection). Stop() closes the listener and every connection and joins all threads.
// Connections are counted in two pools: those still logging in (capped; when full, the oldest of them is
// dropped to make room, so idle sockets cannot keep a real client out) and those logged in (max_connections,
// one more for an administrator, and per account max_user_connections).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "auth/authenticator.h"
#include "common/status.h"
#include "common/version.h"
#include "executor/session.h"
#include "server/connection.h"
#include "tls/tls_context.h"

namespace sluice::server {

class MysqlServer final : private LoginSlots {
 public:
  struct Options {
    std::string bind = "127.0.0.1";  // an IPv4/IPv6 address or a host name
    uint16_t port = 9030;            // 0: pick a free port (see port())
    auth::Authenticator* authenticator = nullptr;  // required: who may log in; must outlive the server
    const tls::TlsContext* tls = nullptr;  // TLS is offered when set; must outlive the server
    bool require_secure_transport = false;  // logins without TLS get ERR 3159
    // Logged-in connections; an administrator account may take one more; beyond, ERR 1040 "Too many connections".
    size_t max_connections = 1024;
    // Connections that have not logged in yet. When full, the oldest of them is closed for a new one.
    size_t max_unauthenticated_connections = 256;
    size_t max_packet_bytes = 64u << 20;  // max_allowed_packet: bigger packets get ERR 1153 and a close
    int idle_timeout_s = 28800;      // wait_timeout: an idle connection is closed after this
    int handshake_timeout_s = 5;     // connect_timeout: a client must log in within this (TLS included)
    int write_timeout_s = 60;        // net_write_timeout: a client that stops reading results is dropped
    std::string server_version = kMysqlServerVersion;  // what the greeting announces; @@version agrees
  };

  MysqlServer(Options options, SessionFactory& sessions);
  ~MysqlServer();  // Stop()s
  MysqlServer(const MysqlServer&) = delete;
  MysqlServer& operator=(const MysqlServer&) = delete;

  // Binds, listens and starts accepting. Fails when the address cannot be bound (e.g. the port is taken).
  Status Start();
  // Closes the listener and all connections, interrupts every running statement (SessionFactory::
  // StopAllStatements), then joins every thread. Idempotent.
  void Stop();

  // The port listened on; the one the kernel picked when Options.port was 0.
  uint16_t port() const { return port_; }
  // Connections currently open (for tests and metrics).
  size_t active_connections() const;
  // Of those, the ones logged in.
  size_t logged_in_connections() const;
  // Statements, errors and connections counted since the start (GET /metrics).
  const ServerCounters& counters() const { return counters_; }

 private:
  struct Worker {
    uint32_t id = 0;
    int fd = -1;  // closed (and -1) once the connection is over; guarded by mu_
    std::thread thread;
    // Guarded by mu_:
    uint64_t accepted = 0;     // order of acceptance: the oldest unauthenticated connection is dropped first
    bool logged_in = false;
    bool evicted = false;      // dropped to make room; no longer counted as unauthenticated
    std::string account_key;   // user@host of the account, when logged in
  };

  std::optional<MysqlError> Claim(uint32_t connection_id, const auth::AccountCredentials& account) override;
  // Closes the oldest connection that has not logged in yet. Needs mu_.
  void EvictOldestUnauthenticatedLocked();

  void AcceptLoop();
  void Serve(Worker* worker, std::string peer_host, uint16_t peer_port);
  // Joins the threads of connections that ended.
  void ReapFinished();
  // ERR 1040 to a client over the connection cap, then close.
  static void Reject(int fd);

  Options options_;
  SessionFactory& sessions_;
  ConnectionConfig config_;
  ServerCounters counters_;

  int listen_fd_ = -1;
  int wake_pipe_[2] = {-1, -1};  // written by Stop() to wake the accept loop
  uint16_t port_ = 0;
  std::thread accept_thread_;
  std::atomic<bool> stopping_{false};
  bool started_ = false;
  uint32_t next_id_ = 1;

  mutable std::mutex mu_;
  std::unordered_map<uint32_t, std::unique_ptr<Worker>> workers_;
  std::vector<uint32_t> finished_;
  size_t active_ = 0;           // threads running a connection
  size_t unauthenticated_ = 0;  // of those, not logged in (nor evicted)
  size_t logged_in_ = 0;
  std::unordered_map<std::string, size_t> per_account_;  // logged-in connections per account
  uint64_t accept_seq_ = 0;
  uint64_t evictions_ = 0;
};

}  // namespace sluice::server
