#pragma once
// mysql_native_password: the client proves it knows the password without sending it.
//   response = SHA1(password) XOR SHA1(scramble + SHA1(SHA1(password)))
// The server keeps only stage2 = SHA1(SHA1(password)) and checks a response with it:
//   candidate = response XOR SHA1(scramble + stage2); the response is right when SHA1(candidate) == stage2.
// An empty password is sent as an empty response (the account says whether its password is empty).
#include <string>
#include <string_view>

namespace sluice::server {

// What a client sends for `password` and the server's 20-byte scramble (used by tests and the test client too).
std::string NativePasswordResponse(std::string_view password, std::string_view scramble);

// True when `response` proves knowledge of the password whose SHA1(SHA1()) is `stage2` (20 bytes).
// Compares in constant time; a response or stage2 of the wrong size is refused.
bool VerifyNativePassword(std::string_view stage2, std::string_view scramble, std::string_view response);

// A fresh scramble: 20 random bytes in 1..127 without '$' -- MySQL's alphabet, since some clients read the
// scramble's second part as a NUL-terminated string.
std::string NewScramble();

}  // namespace sluice::server
