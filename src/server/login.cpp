#include "server/login.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <algorithm>
#include <optional>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "common/log.h"
#include "server/caching_sha2_password.h"
#include "server/connection.h"  // ForLog
#include "server/handshake.h"
#include "server/native_password.h"
#include "server/protocol.h"

namespace sluice::server {

namespace {
constexpr uint16_t kAccountLocked = 3118;  // ER_ACCOUNT_HAS_BEEN_LOCKED

std::string_view ClientPlugin(std::string_view plugin) {
  return plugin.empty() ? kNativePasswordPlugin : plugin;
}

}  // namespace

auth::AccountCredentials StandInAccount(std::string_view user, std::string_view client_plugin) {
  auth::AccountCredentials account;
  account.user = std::string(user);
  account.host = "%";
  account.plugin = ClientPlugin(client_plugin) == kCachingSha2Plugin ? auth::AuthPlugin::kCachingSha2Password
                                                                    : auth::AuthPlugin::kNativePassword;
  account.native_stage2.assign(20, '\0');
  RAND_bytes(reinterpret_cast<unsigned char*>(account.native_stage2.data()), 20);
  return account;
}

Login::Login(PacketChannel& channel, auth::Authenticator& authenticator, std::string_view scramble,
             std::string_view peer_host, uint32_t connection_id, Deadline deadline,
             const std::atomic<bool>* stopping)
    : channel_(channel),
      authenticator_(authenticator),
      scramble_(scramble),
      peer_host_(peer_host),
      connection_id_(connection_id),
      deadline_(deadline),
      stopping_(stopping) {}

MysqlError Login::Denied(std::string_view user, bool used_password) const {
  return MysqlError{er::kAccessDenied, "28000",
                    fmt::format("Access denied for user '{}'@'{}' (using password: {})", user, peer_host_,
                                used_password ? "YES" : "NO")};
}

void Login::Delay(std::chrono::milliseconds delay) const {
  // In slices, so Stop() need not wait for a long brute-force delay to run out.
  auto end = Clock::now() + delay;
  while (Clock::now() < end) {
    if (stopping_ && stopping_->load()) return;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
    std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(100)));
  }
}

Status Login::Send(std::string_view payload) {
  RETURN_IF_ERROR(channel_.Write(payload));
  return channel_.Flush();
}

Result<std::string> Login::RoundTrip(std::string_view payload) {
  RETURN_IF_ERROR(Send(payload));
  ASSIGN_OR_RETURN(Packet reply, channel_.Read(deadline_));
  return std::move(reply.payload);
}

Result<LoginVerdict> Login::Run(const LoginAttempt& attempt) {
  const std::string user(attempt.user);
  const std::string host(peer_host_);
  LoginVerdict verdict;
  bool used_password = !attempt.auth_response.empty();

  auth::LoginGate gate = authenticator_.BeforeLogin(user, host);
  if (gate.locked) {
    authenticator_.AfterLogin(user, host, false);
    log::Info("server", "conn {}: login refused for user '{}' from {}: the account is locked", connection_id_,
              ForLog(user), host);
    Delay(gate.delay);
    verdict.error = MysqlError{kAccountLocked, "HY000",
                               gate.message.empty()
                                   ? fmt::format("Access denied for user '{}'@'{}'. Account is locked.", user, host)
                                   : gate.message};
    return verdict;
  }

  std::optional<auth::AccountCredentials> found = authenticator_.FindAccount(user, host);
  const bool known = found.has_value();
  auth::AccountCredentials account = known ? std::move(*found) : StandInAccount(user, attempt.client_plugin);
  Result<Check> check = Authenticate(account, attempt, &used_password);
  if (!check.ok()) {
    // The client went away or timed out mid-exchange: a failure of this attempt all the same.
    authenticator_.AfterLogin(user, host, false);
    return check.status();
  }
  bool proven = known && *check == Check::kPassed;
  authenticator_.AfterLogin(user, host, proven);

  std::string why;
  if (!known) {
    why = "no such account";
  } else if (*check == Check::kWrongPassword) {
    why = "wrong password";
  } else if (*check == Check::kNeedsTls) {
    why = "caching_sha2_password needs a full authentication, which needs TLS";
  } else if (*check == Check::kPluginUnsupported) {
    why = "the client cannot switch to the account's authentication plugin";
  } else if (account.require_ssl && !attempt.secure) {
    why = "the account requires TLS";
  }
  if (why.empty()) {
    verdict.accepted = true;
    verdict.account = std::move(account);
    return verdict;
  }
  log::Info("server", "conn {}: access denied for user '{}' from {} (using password: {}): {}", connection_id_,
            ForLog(user), host, used_password ? "YES" : "NO", why);
  Delay(gate.delay);
  if (*check == Check::kNeedsTls) {  // the same for a stand-in: the answer does not tell who exists
    verdict.error = MysqlError{
        er::kAccessDenied, "28000",
        fmt::format("Access denied for user '{}'@'{}': caching_sha2_password needs a full authentication, which "
                    "Sluice does only over TLS (it offers no RSA key exchange). Connect with TLS (mariadb --ssl, "
                    "pymysql ssl={{...}}); after one such login the fast path also works without TLS until the "
                    "server restarts",
                    user, host)};
  } else if (*check == Check::kPluginUnsupported) {
    verdict.error = MysqlError{er::kNotSupportedAuthMode, "08004",
                               "Client does not support authentication protocol requested by server; consider "
                               "upgrading MySQL client"};
  } else {
    verdict.error = Denied(user, used_password);
  }
  return verdict;
}

Result<Login::Check> Login::Authenticate(const auth::AccountCredentials& account, const LoginAttempt& attempt,
                                         bool* used_password) {
  std::string_view plugin = auth::PluginName(account.plugin);
  std::string response(attempt.auth_response);
  bool switched = false;
  if (ClientPlugin(attempt.client_plugin) != plugin) {
    if (!attempt.can_switch_plugin) {
      return account.plugin == auth::AuthPlugin::kNativePassword ? Check::kWrongPassword : Check::kPluginUnsupported;
    }
    // e.g. a MySQL 8 client starting with caching_sha2_password for a mysql_native_password account, or the
    // reverse: ask again with the account's plugin, for the same scramble.
    ASSIGN_OR_RETURN(response, RoundTrip(EncodeAuthSwitchRequest(plugin, scramble_)));
    switched = true;
  }
  *used_password = !response.empty();  // what the error message reports, as MySQL: the answer actually checked
  if (account.empty_password) return response.empty() ? Check::kPassed : Check::kWrongPassword;
  if (response.empty()) return Check::kWrongPassword;
  if (account.plugin == auth::AuthPlugin::kNativePassword) {
    return VerifyNativePassword(account.native_stage2, scramble_, response) ? Check::kPassed : Check::kWrongPassword;
  }
  return CachingSha2(account, attempt, response, switched);
}

Result<Login::Check> Login::CachingSha2(const auth::AccountCredentials& account, const LoginAttempt& attempt,
                                        std::string_view response, bool switched) {
  if (!account.sha2_stage2.empty()) {
    // The AuthSwitchRequest carries the scramble with a trailing NUL (libmysqlclient and Connector/C insist on
    // 21 bytes); PyMySQL then hashes all 21 as the nonce. Both nonces are the server's own, so both are fine.
    std::string with_nul = std::string(scramble_) + '\0';
    if (VerifyCachingSha2Password(account.sha2_stage2, scramble_, response) ||
        (switched && VerifyCachingSha2Password(account.sha2_stage2, with_nul, response))) {
      std::string more{static_cast<char>(kAuthMoreData), static_cast<char>(kFastAuthSuccess)};
      RETURN_IF_ERROR(Send(more));
      return Check::kPassed;
    }
    // A cached hash that does not match: without TLS there is nothing more to try.
    if (!attempt.secure) return Check::kWrongPassword;
  }
  if (!attempt.secure) return Check::kNeedsTls;
  // Full authentication, as MySQL: the client sends the password itself, which TLS protects on the wire.
  std::string more{static_cast<char>(kAuthMoreData), static_cast<char>(kPerformFullAuthentication)};
  ASSIGN_OR_RETURN(std::string password, RoundTrip(more));
  if (!password.empty() && password.back() == '\0') password.pop_back();
  bool ok = !password.empty() && authenticator_.VerifyPassword(attempt.user, peer_host_, password);
  OPENSSL_cleanse(password.data(), password.size());
  return ok ? Check::kPassed : Check::kWrongPassword;
}

}  // namespace sluice::server
