#pragma once
// What the front doors (MySQL port, HTTP port) ask of the account store when a client logs in. The store
// (auth/account_store.h) implements it; the protocol code never sees how accounts are kept.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::auth {

enum class AuthPlugin { kNativePassword, kCachingSha2Password };

std::string_view PluginName(AuthPlugin plugin);  // "mysql_native_password" / "caching_sha2_password"

// One account's login data. Hashes only: the password itself is never kept.
struct AccountCredentials {
  std::string user;
  std::string host;  // the account's host pattern, e.g. '%' or '127.0.0.1'
  AuthPlugin plugin = AuthPlugin::kNativePassword;
  bool empty_password = false;  // logs in with an empty auth response
  // mysql_native_password: SHA1(SHA1(password)), 20 bytes (empty when the account uses caching_sha2_password).
  std::string native_stage2;
  // caching_sha2_password fast authentication: SHA256(SHA256(password)), 32 bytes, known only after a full
  // authentication since the server started (the cache). Empty: the client must authenticate in full (TLS).
  std::string sha2_stage2;
  bool require_ssl = false;       // REQUIRE SSL, or require_secure_transport for everyone
  int max_user_connections = 0;   // 0: only the server-wide limit applies
  bool administrator = false;     // may take the connection slot kept for administrators
};

// Whether a login may be tried now: a locked account is refused before its password is checked, and every
// login after a failed one waits a little longer (brute-force protection).
struct LoginGate {
  bool locked = false;
  std::string message;  // why, when locked: "Access denied ... Account is blocked for N day(s) ..."
  std::chrono::milliseconds delay{0};
};

class Authenticator {
 public:
  virtual ~Authenticator() = default;
  // The account a login of `user` from `host` uses (MySQL's matching: the most specific host first), or none.
  virtual std::optional<AccountCredentials> FindAccount(std::string_view user, std::string_view host) = 0;
  // Full authentication with the cleartext password (caching_sha2_password over TLS, HTTP Basic). On success
  // the caching_sha2 cache learns SHA256(SHA256(password)), so the next login can use the fast path.
  virtual bool VerifyPassword(std::string_view user, std::string_view host, std::string_view password) = 0;
  virtual LoginGate BeforeLogin(std::string_view user, std::string_view host) = 0;
  // Counts a failure for (user, host), or clears the count on success. Logged without any password.
  virtual void AfterLogin(std::string_view user, std::string_view host, bool succeeded) = 0;
};

}  // namespace sluice::auth
