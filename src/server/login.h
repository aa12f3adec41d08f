#pragma once
// One login attempt, at the handshake or by COM_CHANGE_USER: the account store's gate (locked accounts,
// brute-force delay), the auth plugin's exchange with the client -- switching it to the account's plugin when it
// started with another -- and the verdict. What is checked:
//   mysql_native_password   the scramble against the account's SHA1(SHA1(password));
//   caching_sha2_password   the fast path against SHA256(SHA256(password)) when the store has it cached; else a
//                           full authentication with the cleartext password, over TLS only (no RSA key exchange);
//   REQUIRE SSL             an account that requires TLS is refused (1045) on a plain connection.
// An unknown user goes through the same exchange against a stand-in account, so the answer takes about as long
// as for a wrong password. AfterLogin is called once per attempt (locked ones included, with false); a failed
// attempt waits the gate's delay before its ERR, holding no lock. Nothing derived from a password is logged.
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "auth/authenticator.h"
#include "common/status.h"
#include "server/error_mapping.h"
#include "server/packet_io.h"

namespace sluice::server {

struct LoginAttempt {
  std::string_view user;
  std::string_view client_plugin;  // what auth_response was made for; empty: mysql_native_password
  std::string_view auth_response;  // never logged
  bool secure = false;             // the connection is TLS
  bool can_switch_plugin = true;   // the client has CLIENT_PLUGIN_AUTH (it understands AuthSwitchRequest)
};

struct LoginVerdict {
  bool accepted = false;
  auth::AccountCredentials account;  // when accepted: the account logged in as
  MysqlError error{0, "", ""};       // when refused: the ERR to send (not sent yet)
};

class Login {
 public:
  // Every read from the client must arrive before `deadline`. `stopping` (may be null) cuts the failure delay
  // short when the server stops.
  Login(PacketChannel& channel, auth::Authenticator& authenticator, std::string_view scramble,
        std::string_view peer_host, uint32_t connection_id, Deadline deadline,
        const std::atomic<bool>* stopping = nullptr);

  // The verdict; a failed Result when the connection broke (nothing more can be sent).
  Result<LoginVerdict> Run(const LoginAttempt& attempt);

 private:
  enum class Check { kPassed, kWrongPassword, kNeedsTls, kPluginUnsupported };
  // The plugin exchange and the password check for `account`; `used_password`: the client's answer was not empty.
  Result<Check> Authenticate(const auth::AccountCredentials& account, const LoginAttempt& attempt,
                             bool* used_password);
  Result<Check> CachingSha2(const auth::AccountCredentials& account, const LoginAttempt& attempt,
                            std::string_view response, bool switched);
  // Sends one packet and reads the client's answer.
  Result<std::string> RoundTrip(std::string_view payload);
  Status Send(std::string_view payload);
  void Delay(std::chrono::milliseconds delay) const;
  MysqlError Denied(std::string_view user, bool used_password) const;

  PacketChannel& channel_;
  auth::Authenticator& authenticator_;
  std::string_view scramble_;
  std::string_view peer_host_;
  uint32_t connection_id_;
  Deadline deadline_;
  const std::atomic<bool>* stopping_;
};

// The account an unknown user is checked against: same plugin as the client started with (so the exchange looks
// the same), a random hash no response can match.
auth::AccountCredentials StandInAccount(std::string_view user, std::string_view client_plugin);

}  // namespace sluice::server
