#include "server/connection.h"

#include "common/secret_redaction.h"

#include <poll.h>
#include <sys/socket.h>

#include <exception>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/log.h"
#include "server/binary_row.h"
#include "server/error_mapping.h"
#include "server/handshake.h"
#include "server/login.h"
#include "server/ok_err.h"
#include "server/protocol.h"
#include "server/result_encoder.h"
#include "sql/parser.h"

namespace sluice::server {

namespace {
// A handshake response is a few hundred bytes; connection attributes are capped at 64 KiB by MySQL too. A small
// limit here also turns garbage (an HTTP request reads as a multi-megabyte length) into an immediate error.
constexpr size_t kMaxHandshakePacket = 64 * 1024;
constexpr uint16_t kSecureTransportRequired = 3159;  // ER_SECURE_TRANSPORT_REQUIRED

bool IsBlank(std::string_view s) {
  for (char c : s) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') return false;
  }
  return true;
}
}  // namespace

std::string ForLog(std::string_view text, size_t max_length) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < max_length; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (text.size() > max_length) out += "...";
  return out;
}

Connection::Connection(Transport& transport, SessionFactory& sessions, const ConnectionConfig& config,
                       ServerCounters& counters, uint32_t connection_id, std::string peer_host, std::string scramble,
                       LoginSlots* slots)
    : sessions_(sessions),
      config_(config),
      slots_(slots),
      counters_(counters),
      id_(connection_id),
      peer_host_(std::move(peer_host)),
      scramble_(std::move(scramble)),
      channel_(transport, kMaxHandshakePacket, config.write_timeout) {}

uint16_t Connection::StatusFlags() const { return status_flag::kAutocommit; }

uint32_t Connection::OfferedCapabilities() const {
  return cap::kServerDefault | (config_.tls != nullptr ? cap::kSsl : 0);
}

Status Connection::SendOk(uint64_t affected_rows, uint64_t last_insert_id, uint16_t warnings, std::string_view info) {
  OkFields ok;
  ok.affected_rows = affected_rows;
  ok.last_insert_id = last_insert_id;
  ok.status_flags = StatusFlags();
  ok.warnings = warnings;
  ok.info = info;
  return channel_.Write(EncodeOk(ok));
}

Status Connection::SendError(uint16_t code, std::string_view sqlstate, std::string_view message) {
  counters_.CountError(code);
  return channel_.Write(EncodeErr(code, sqlstate, message));
}

Status Connection::SendError(const Status& status) {
  MysqlError e = ToMysqlError(status);
  return SendError(e.code, e.sqlstate, e.message);
}

bool Connection::Run() {
  if (!Handshake()) {
    (void)channel_.Flush();  // best effort: the client may be gone already
    return true;
  }
  channel_.set_max_payload(config_.max_packet_bytes);
  for (;;) {
    Result<Packet> packet = channel_.Read(Clock::now() + config_.idle_timeout);
    if (!packet.ok()) {
      switch (channel_.violation()) {
        case FrameViolation::kTooLarge:
          (void)SendError(er::kPacketTooLarge, "08S01", packet.status().message());
          break;
        case FrameViolation::kOutOfOrder:
          (void)SendError(er::kPacketsOutOfOrder, "08S01", packet.status().message());
          break;
        case FrameViolation::kNone:
          log::Debug("server", "conn {}: {}", id_, packet.status().message());
          // Peer gone (closed or reset): nothing more will come.
          if (packet.status().code() != StatusCode::kTimeout) return false;
          break;
      }
      (void)channel_.Flush();
      return true;
    }
    Result<Command> cmd = ParseCommand(packet->payload, capabilities_);
    bool quit = cmd.ok() && cmd->code == static_cast<uint8_t>(CommandCode::kQuit);
    Status st = cmd.ok() ? Dispatch(*cmd) : SendError(er::kMalformedPacket, "HY000", cmd.status().message());
    if (st.ok()) st = channel_.Flush();
    if (!st.ok()) {
      log::Debug("server", "conn {}: {}", id_, st.message());
      (void)channel_.Flush();
      return !quit;
    }
    if (session_ && session_->killed()) {
      log::Debug("server", "conn {}: killed", id_);
      return false;
    }
  }
}

bool Connection::Handshake() {
  GreetingFields g;
  g.connection_id = id_;
  g.server_version = config_.server_version;
  g.scramble = scramble_;
  g.capabilities = OfferedCapabilities();
  g.status_flags = StatusFlags();
  g.charset = static_cast<uint8_t>(charset::kUtf8mb4GeneralCi);
  channel_.set_next_seq(0);
  if (!channel_.Write(EncodeGreeting(g)).ok() || !channel_.Flush().ok()) return false;

  // One deadline for the whole exchange (TLS and auth switches included), so a client dribbling bytes cannot
  // hold its slot for long.
  Deadline deadline = Clock::now() + config_.handshake_timeout;
  Result<HandshakeResponse> resp = Status::Internal("no handshake response yet");
  for (int round = 0; round < 2; ++round) {
    Result<Packet> packet = channel_.Read(deadline);
    if (!packet.ok()) {
      log::Debug("server", "conn {}: handshake failed: {}", id_, packet.status().message());
      if (channel_.violation() != FrameViolation::kNone) {
        (void)SendError(er::kHandshakeError, "08S01", "Bad handshake");
      }
      return false;
    }
    resp = ParseHandshakeResponse(packet->payload);
    if (!resp.ok()) {
      log::Debug("server", "conn {}: bad handshake response: {}", id_, resp.status().message());
      if (resp.status().code() == StatusCode::kNotSupported) {
        (void)SendError(er::kNotSupportedAuthMode, "08004", resp.status().message());
      } else {
        (void)SendError(er::kHandshakeError, "08S01", "Bad handshake");
      }
      return false;
    }
    if (!resp->ssl_request) break;
    // An SSLRequest: TLS first, then the real HandshakeResponse comes encrypted (only once).
    if (config_.tls == nullptr) {
      (void)SendError(er::kHandshakeError, "08S01",
                      "Bad handshake: this server does not offer TLS; connect without SSL (e.g. --skip-ssl)");
      return false;
    }
    if (tls_transport_ != nullptr) {
      (void)SendError(er::kHandshakeError, "08S01", "Bad handshake: a second SSLRequest");
      return false;
    }
    if (!StartTls(deadline)) return false;
  }
  if (resp->ssl_request) return false;  // unreachable: the loop refuses a second SSLRequest

  if (config_.require_secure_transport && tls_transport_ == nullptr) {
    log::Info("server", "conn {}: refused a login without TLS from {} (require_secure_transport is on)", id_,
              peer_host_);
    (void)SendError(kSecureTransportRequired, "HY000",
                    "Connections using insecure transport are prohibited while --require_secure_transport=ON.");
    return false;
  }
  capabilities_ = resp->capabilities & OfferedCapabilities();
  multi_statements_ = (capabilities_ & cap::kMultiStatements) != 0;
  if (!(capabilities_ & cap::kSecureConnection) && !(capabilities_ & cap::kPluginAuth)) {
    // Only the pre-4.1 password hash is left, which is broken; MySQL refuses such clients the same way.
    (void)SendError(er::kNotSupportedAuthMode, "08004",
                    "Client does not support authentication protocol requested by server; consider upgrading "
                    "MySQL client");
    return false;
  }
  bool broken = false;
  std::optional<auth::AccountCredentials> account =
      LogIn(resp->user, resp->auth_plugin, resp->auth_response, deadline, &broken);
  if (!account) return false;
  if (!OpenSession(resp->user, resp->database)) return false;
  return SendOk().ok() && channel_.Flush().ok();
}

bool Connection::StartTls(Deadline deadline) {
  // The client sends its TLS hello right after the SSLRequest: bytes read past it belong to TLS.
  std::string received = channel_.TakeUnconsumed();
  Result<std::unique_ptr<Transport>> tls = channel_.transport().StartTls(config_.tls, received, deadline);
  if (!tls.ok()) {
    log::Info("server", "conn {}: TLS handshake with {} failed: {}", id_, peer_host_, tls.status().message());
    return false;
  }
  tls_transport_ = std::move(*tls);
  channel_.set_transport(*tls_transport_);
  log::Debug("server", "conn {}: TLS started ({})", id_, tls_transport_->TlsDescription());
  return true;
}

std::optional<auth::AccountCredentials> Connection::LogIn(std::string_view user, std::string_view plugin,
                                                          std::string_view auth_response, Deadline deadline,
                                                          bool* broken) {
  if (config_.authenticator == nullptr) {
    log::Error("server", "conn {}: no authenticator configured; refusing every login", id_);
    (void)SendError(er::kAccessDenied, "28000", "Access denied: the server has no accounts configured");
    return std::nullopt;
  }
  Login login(channel_, *config_.authenticator, scramble_, peer_host_, id_, deadline, config_.stopping);
  LoginAttempt attempt;
  attempt.user = user;
  attempt.client_plugin = plugin;
  attempt.auth_response = auth_response;
  attempt.secure = tls_transport_ != nullptr;
  attempt.can_switch_plugin = (capabilities_ & cap::kPluginAuth) != 0;
  Result<LoginVerdict> verdict = login.Run(attempt);
  if (!verdict.ok()) {
    log::Debug("server", "conn {}: login broke off: {}", id_, verdict.status().message());
    *broken = true;
    return std::nullopt;
  }
  if (!verdict->accepted) {
    (void)SendError(verdict->error.code, verdict->error.sqlstate, verdict->error.message);
    return std::nullopt;
  }
  if (slots_ != nullptr) {
    if (std::optional<MysqlError> refused = slots_->Claim(id_, verdict->account)) {
      log::Info("server", "conn {}: login of '{}' from {} refused: {}", id_, ForLog(user), peer_host_,
                refused->message);
      (void)SendError(refused->code, refused->sqlstate, refused->message);
      return std::nullopt;
    }
  }
  return std::move(verdict->account);
}

Result<std::unique_ptr<Session>> Connection::NewSession(const std::string& user, const std::string& database) {
  try {
    return sessions_.NewSession(id_, user, peer_host_, database);
  } catch (const std::exception& e) {
    log::Error("server", "conn {}: opening a session threw: {}", id_, e.what());
    return Status::Internal(fmt::format("could not open a session: {}", e.what()));
  }
}

bool Connection::OpenSession(std::string user, std::string database) {
  Result<std::unique_ptr<Session>> session = NewSession(user, database);
  if (!session.ok()) {
    log::Debug("server", "conn {}: no session: {}", id_, session.status().message());
    (void)SendError(session.status());
    return false;
  }
  user_ = std::move(user);
  session_ = std::move(*session);
  AttachSession();
  return true;
}

void Connection::AttachSession() {
  session_->EnableRowStreaming();
  if (socket_fd_ < 0) return;
  const int fd = socket_fd_;
  // Both run on other threads while this connection (and so its descriptor) is open; see Session::AttachClient.
  auto close = [fd] { ::shutdown(fd, SHUT_RDWR); };
  auto client_gone = [fd] {
    // A hang-up, not readable data: a client may well send its next command before this result is complete.
    pollfd p{fd, POLLRDHUP, 0};
    return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
  };
  session_->AttachClient(close, client_gone);
}

Status Connection::Dispatch(const Command& cmd) {
  switch (static_cast<CommandCode>(cmd.code)) {
    case CommandCode::kQuit:
      return Status::Unavailable("the client quit");
    case CommandCode::kPing:
      return SendOk();
    case CommandCode::kQuery:
      return HandleQuery(cmd.text);
    case CommandCode::kInitDb: {
      Status st = session_->UseDatabase(cmd.text);
      return st.ok() ? SendOk() : SendError(st);
    }
    case CommandCode::kFieldList:
      return HandleFieldList(cmd.text);
    case CommandCode::kStatistics:
      return HandleStatistics();
    case CommandCode::kSetOption:
      if (cmd.option > 1) return SendError(er::kUnknownCommand, "08S01", "Unknown command");
      multi_statements_ = cmd.option == 0;  // MYSQL_OPTION_MULTI_STATEMENTS_ON is 0
      return channel_.Write(EncodeEndOfRows(capabilities_, 0, StatusFlags()));
    case CommandCode::kResetConnection:
      return HandleResetConnection();
    case CommandCode::kChangeUser:
      return HandleChangeUser(*cmd.change_user);
    case CommandCode::kStmtPrepare:
      return HandleStmtPrepare(cmd.text);
    case CommandCode::kStmtExecute:
      return HandleStmtExecute(cmd.text);
    case CommandCode::kStmtSendLongData:  // the protocol has no reply to these two
      HandleStmtSendLongData(cmd.text);
      return Status::Ok();
    case CommandCode::kStmtClose:
      HandleStmtClose(cmd.text);
      return Status::Ok();
    case CommandCode::kStmtReset:
      return HandleStmtReset(cmd.text);
    case CommandCode::kStmtFetch:
      return HandleStmtFetch(cmd.text);
    default:
      return SendError(er::kUnknownCommand, "08S01", "Unknown command");
  }
}

Status Connection::HandleQuery(std::string_view text) {
  counters_.questions.fetch_add(1, std::memory_order_relaxed);
  // Full text only at debug level: statements may carry secrets (passwords of connections, keys).
  if (log::Enabled(log::Level::kDebug))
    log::Debug("server", "conn {}: query: {}", id_, ForLog(RedactSecrets(text), 1024));
  if (IsBlank(text)) return SendError(er::kEmptyQuery, "42000", "Query was empty");
  std::vector<std::string> statements = sql::SplitStatements(text);
  if (statements.empty()) return SendError(er::kEmptyQuery, "42000", "Query was empty");
  if (statements.size() > 1 && !multi_statements_) {
    return SendError(er::kSyntaxError, "42000",
                     "You have an error in your SQL syntax: several statements in one query need the client "
                     "flag CLIENT_MULTI_STATEMENTS (mariadb/mysql CLI: on by default; pymysql: "
                     "client_flag=CLIENT.MULTI_STATEMENTS)");
  }
  for (size_t i = 0; i < statements.size(); ++i) {
    Result<StatementResult> result = ExecuteInSession(statements[i]);
    // An error ends the chain: later statements do not run.
    if (!result.ok()) return SendError(result.status());
    uint16_t flags = StatusFlags();
    if (i + 1 < statements.size()) flags |= status_flag::kMoreResultsExist;
    bool failed = false;
    RETURN_IF_ERROR(SendStatementResult(*result, flags, &failed));
    if (failed) return Status::Ok();
  }
  return Status::Ok();
}

Result<StatementResult> Connection::ExecuteInSession(std::string_view statement) {
  counters_.CountStatement(statement);
  try {
    return session_->Execute(statement);
  } catch (const std::exception& e) {
    log::Error("server", "conn {}: statement failed with an exception: {}", id_, e.what());
    return Status::Internal(fmt::format("internal error: {}", e.what()));
  }
}

Status Connection::SendStatementResult(const StatementResult& result, uint16_t status_flags, bool* failed,
                                       bool binary_rows) {
  auto emit = [this](std::string_view packet) { return channel_.Write(packet); };
  auto encode_row = binary_rows ? &EncodeBinaryRow : &EncodeTextRow;
  // The protocol cannot express a result set without columns; that is an OK.
  if (result.result_set && !result.result_set->columns.empty() && !result.stream && !binary_rows) {
    return EncodeResultSet(*result.result_set, capabilities_, status_flags, result.warnings, emit);
  }
  if (result.result_set && !result.result_set->columns.empty()) {
    // Rows go out as the stream yields them; the channel writes whenever 64 KiB are queued (with the write
    // timeout), so a client that reads slowly slows the query down instead of filling memory.
    const std::vector<ColumnInfo>& columns = result.result_set->columns;
    RETURN_IF_ERROR(EncodeResultSetHead(columns, capabilities_, status_flags, emit));
    for (const Row& row : result.result_set->rows) RETURN_IF_ERROR(emit(encode_row(columns, row)));
    std::vector<Row> rows;
    while (result.stream) {
      Result<bool> more = result.stream->Next(&rows);
      if (!more.ok()) {
        // ERR in place of the end marker: clients report it as the statement's error.
        *failed = true;
        return SendError(more.status());
      }
      if (!*more) break;
      for (const Row& row : rows) RETURN_IF_ERROR(emit(encode_row(columns, row)));
    }
    return emit(EncodeEndOfRows(capabilities_, result.warnings, status_flags));
  }
  OkFields ok;
  ok.affected_rows = result.affected_rows;
  ok.last_insert_id = result.last_insert_id;
  ok.status_flags = status_flags;
  ok.warnings = result.warnings;
  ok.info = result.info;
  return channel_.Write(EncodeOk(ok));
}

Status Connection::HandleFieldList(std::string_view table) {
  Result<ResultSet> columns = session_->FieldList(table);
  if (!columns.ok()) return SendError(columns.status());
  for (const ColumnInfo& c : columns->columns) {
    RETURN_IF_ERROR(channel_.Write(EncodeColumnDefinition(c, table, /*for_field_list=*/true)));
  }
  return channel_.Write(EncodeEndOfRows(capabilities_, 0, StatusFlags()));
}

Status Connection::HandleStatistics() {
  auto uptime = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - counters_.started).count();
  uint64_t questions = counters_.questions.load(std::memory_order_relaxed);
  double qps = uptime > 0 ? static_cast<double>(questions) / static_cast<double>(uptime) : 0.0;
  // COM_STATISTICS answers with a bare string, not an OK packet.
  return channel_.Write(fmt::format(
      "Uptime: {}  Threads: {}  Questions: {}  Slow queries: 0  Opens: 0  Flush tables: 0  Open tables: 0  "
      "Queries per second avg: {:.3f}",
      uptime, counters_.connections.load(std::memory_order_relaxed), questions, qps));
}

Status Connection::HandleChangeUser(const ChangeUserRequest& req) {
  bool broken = false;
  std::optional<auth::AccountCredentials> account = LogIn(req.user, req.auth_plugin, req.auth_response,
                                                          Clock::now() + config_.handshake_timeout, &broken);
  // MySQL closes the connection after a refused COM_CHANGE_USER too.
  if (!account) return Status::AccessDenied("change user refused");
  // The old session goes first: whatever it held (an open transaction) must not leak into the new user's.
  session_.reset();
  statements_.Clear();
  if (!OpenSession(req.user, req.database)) return Status::Unavailable("no session after change user");
  return SendOk();
}

Status Connection::HandleResetConnection() {
  std::string database = session_->current_database();
  statements_.Clear();  // COM_RESET_CONNECTION closes prepared statements, as in MySQL
  session_.reset();
  Result<std::unique_ptr<Session>> session = NewSession(user_, database);
  // The database may have been dropped meanwhile; a reset connection without one is still useful.
  if (!session.ok() && session.status().code() == StatusCode::kUnknownDatabase) session = NewSession(user_, "");
  if (!session.ok()) {
    (void)SendError(session.status());
    return Status::Unavailable("no session after reset");
  }
  session_ = std::move(*session);
  AttachSession();
  return SendOk();
}

}  // namespace sluice::server
