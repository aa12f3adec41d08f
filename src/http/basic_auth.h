#pragma once
// HTTP Basic authentication (RFC 7617): reading the credentials from an Authorization header, and the growing delay
// that makes guessing passwords over HTTP slow.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace sluice::http {

struct BasicCredentials {
  std::string user;
  std::string password;
};

// `Basic <base64(user:password)>` (the scheme is case-insensitive); nothing when the header is absent, of another
// scheme, or not valid base64 with a colon.
std::optional<BasicCredentials> ParseBasicAuthorization(std::string_view header);
// Strict base64 (RFC 4648, with padding); nothing on any other character.
std::optional<std::string> DecodeBase64(std::string_view text);

// Failed logins per client address. Each failure makes the next failed answer to that address wait longer:
// 250 ms after the first, doubling up to 5 s; an address is forgotten 10 minutes after its last failure. A
// success is never delayed, so a user who mistyped once is not slowed down; the delay is taken before the 401 is
// sent, so a guesser learns nothing by hanging up early. A login being checked or waiting holds a connection
// thread, so one address with failures on record gets at most kMaxWaiting at once: further logins from it are
// refused (429) without trying the password until one is answered. An address without failures (a browser with a
// few dashboard tabs, Prometheus and scripts behind one NAT address, each request checked in milliseconds) gets
// kMaxCheckingClean: enough for them, while a guesser's first burst holds at most that many threads once before
// its failures bring it down to kMaxWaiting. Thread-safe.
class FailedLoginDelay {
 public:
  static constexpr std::chrono::milliseconds kFirst{250};
  static constexpr std::chrono::milliseconds kMax{5000};
  static constexpr std::chrono::minutes kForget{10};
  static constexpr size_t kMaxAddresses = 65536;
  static constexpr uint32_t kMaxWaiting = 4;
  static constexpr uint32_t kMaxCheckingClean = 32;

  // Takes one of `client`'s slots (kMaxWaiting with failures on record, else kMaxCheckingClean) for a login about
  // to be checked; false when all are taken.
  bool Enter(std::string_view client, std::chrono::steady_clock::time_point now);
  // Gives the slot back once the login is answered.
  void Leave(std::string_view client);
  // Counts a failure from `client` and returns how long to wait before answering it.
  std::chrono::milliseconds Fail(std::string_view client, std::chrono::steady_clock::time_point now);
  size_t failures(std::string_view client) const;

 private:
  struct Entry {
    uint32_t failures = 0;
    uint32_t waiting = 0;
    std::chrono::steady_clock::time_point last{};
  };
  void MakeRoom(std::chrono::steady_clock::time_point now);

  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace sluice::http
