#pragma once
// caching_sha2_password, as MySQL 8 does it. The fast path proves knowledge of the password without sending it:
//   response = SHA256(password) XOR SHA256(SHA256(SHA256(password)) + nonce)
// and the server checks it with stage2 = SHA256(SHA256(password)), which it knows only after a full
// authentication (the cleartext password, sent over TLS) since it started: its cache. The server answers the
// fast path with AuthMoreData 0x03 (fast_auth_success) or 0x04 (perform_full_authentication).
#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::server {

inline constexpr std::string_view kCachingSha2Plugin = "caching_sha2_password";
inline constexpr uint8_t kAuthMoreData = 0x01;       // first byte of an AuthMoreData packet
inline constexpr uint8_t kFastAuthSuccess = 0x03;
inline constexpr uint8_t kPerformFullAuthentication = 0x04;

// What a client sends on the fast path (used by tests and the test client).
std::string CachingSha2Response(std::string_view password, std::string_view nonce);

// True when `response` (32 bytes) proves knowledge of the password whose SHA256(SHA256()) is `stage2`.
// Compares in constant time.
bool VerifyCachingSha2Password(std::string_view stage2, std::string_view nonce, std::string_view response);

}  // namespace sluice::server
