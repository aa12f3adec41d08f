#pragma once
// One client connection from greeting to goodbye: the handshake (TLS after an SSLRequest), the login (login.h),
// then the command loop (COM_QUERY and friends), each statement handed to a Session from the SessionFactory.
// Runs on the thread the server gives it and returns when the client quits, misbehaves, times out or goes away.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <optional>

#include "auth/authenticator.h"
#include "common/status.h"
#include "common/version.h"
#include "executor/session.h"
#include "server/command.h"
#include "server/error_mapping.h"
#include "server/packet_io.h"
#include "server/prepared_statements.h"
#include "server/server_counters.h"
#include "server/transport.h"

namespace sluice::server {

struct ConnectionConfig {
  std::string server_version = kMysqlServerVersion;
  auth::Authenticator* authenticator = nullptr;  // who may log in; without one, every login is refused
  ssl_ctx_st* tls = nullptr;                     // TLS is offered (CLIENT_SSL) when set
  bool require_secure_transport = false;         // refuse logins without TLS (ERR 3159)
  const std::atomic<bool>* stopping = nullptr;   // set when the server stops: cuts login delays short
  size_t max_packet_bytes = 64u << 20;
  std::chrono::milliseconds handshake_timeout{5'000};
  std::chrono::milliseconds idle_timeout{28'800'000};
  std::chrono::milliseconds write_timeout{60'000};
};


// The server's count of logged-in connections, asked once a client proved who it is (and again when it changes
// user). MysqlServer implements it.
class LoginSlots {
 public:
  virtual ~LoginSlots() = default;
  // Takes a logged-in slot of `account` for connection `connection_id`, giving back the one it held for an
  // earlier account. Refused (the ERR to send) over max_connections -- administrators may take one more, as
  // MySQL's extra SUPER connection -- or over the account's max_user_connections.
  virtual std::optional<MysqlError> Claim(uint32_t connection_id, const auth::AccountCredentials& account) = 0;
};

class Connection {
 public:
  // `slots` may be null: no connection limits (tests, the fuzzer).
  Connection(Transport& transport, SessionFactory& sessions, const ConnectionConfig& config,
             ServerCounters& counters, uint32_t connection_id, std::string peer_host, std::string scramble,
             LoginSlots* slots = nullptr);

  // Returns true when the server ended the conversation (an error, a timeout) while the client may still be
  // sending, false when the client quit or went away.
  bool Run();
  // The socket under the transport. With it, a statement is cancelled when the client hangs up mid-way, and
  // KILL CONNECTION from another session closes this one. Without it (tests driving a Connection from memory),
  // neither happens.
  void WatchSocket(int fd) { socket_fd_ = fd; }

 private:
  // The greeting, the client's response, authentication, the session. False: the connection is over.
  bool Handshake();
  // After an SSLRequest: the TLS handshake, then the channel goes on encrypted. False: the connection is over.
  bool StartTls(Deadline deadline);
  // Authenticates (login.h) and takes a logged-in slot. The account, or nullopt once the refusal is sent (or
  // the connection broke: then `broken` is set).
  std::optional<auth::AccountCredentials> LogIn(std::string_view user, std::string_view plugin,
                                                std::string_view auth_response, Deadline deadline, bool* broken);

  // One command. A failed Status (including after COM_QUIT) ends the connection.
  Status Dispatch(const Command& cmd);
  Status HandleQuery(std::string_view text);
  Status HandleFieldList(std::string_view table);
  Status HandleStatistics();
  Status HandleChangeUser(const ChangeUserRequest& req);
  Status HandleResetConnection();
  // Prepared statements (prepared_commands.cpp): the statement runs as text with its parameters bound as
  // literals, and its rows go out in the binary protocol.
  Status HandleStmtPrepare(std::string_view sql);
  // The result columns a prepare announces: the session's description with every marker bound as NULL (none when
  // they cannot be known before the execute), or the error MySQL would report at prepare.
  Result<std::vector<ColumnInfo>> ResultColumnsAtPrepare(const PreparedStatement& statement);
  Status HandleStmtExecute(std::string_view body);
  void HandleStmtSendLongData(std::string_view body);
  Status HandleStmtReset(std::string_view body);
  void HandleStmtClose(std::string_view body);
  Status HandleStmtFetch(std::string_view body);
  // Runs one statement in the session, an exception becoming an error.
  Result<StatementResult> ExecuteInSession(std::string_view statement);
  // Sends a statement's result. A row stream that fails mid-way ends in an ERR packet and `*failed` is set; the
  // returned Status is about writing to the client.
  Status SendStatementResult(const StatementResult& result, uint16_t status_flags, bool* failed,
                             bool binary_rows = false);
  // Gives a new session its hooks: the socket checks and row streaming.
  void AttachSession();

  Status SendOk(uint64_t affected_rows = 0, uint64_t last_insert_id = 0, uint16_t warnings = 0,
                std::string_view info = {});
  Status SendError(uint16_t code, std::string_view sqlstate, std::string_view message);
  Status SendError(const Status& status);
  uint16_t StatusFlags() const;

  // Creates the session; false (after telling the client) when the factory refuses.
  bool OpenSession(std::string user, std::string database);
  // The factory call, with exceptions turned into a Status.
  Result<std::unique_ptr<Session>> NewSession(const std::string& user, const std::string& database);

  uint32_t OfferedCapabilities() const;

  SessionFactory& sessions_;
  const ConnectionConfig& config_;
  LoginSlots* slots_;
  ServerCounters& counters_;
  const uint32_t id_;
  const std::string peer_host_;
  const std::string scramble_;
  PacketChannel channel_;
  std::unique_ptr<Transport> tls_transport_;  // set once TLS started; the channel then reads and writes through it
  uint32_t capabilities_ = 0;  // what both sides support
  bool multi_statements_ = false;
  std::string user_;
  std::unique_ptr<Session> session_;
  PreparedStatements statements_;
  int socket_fd_ = -1;
};

// A bounded, printable copy of client-supplied text for log lines (user names, database names).
std::string ForLog(std::string_view text, size_t max_length = 64);

}  // namespace sluice::server
