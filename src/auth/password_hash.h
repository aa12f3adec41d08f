#pragma once
// The hashes accounts are kept by. Nothing here can give the password back.
#include <string>
#include <string_view>

namespace sluice::auth {

// SHA1(SHA1(password)): what mysql_native_password checks a scramble against.
std::string NativeStage2(std::string_view password);
// SHA256(SHA256(password)): what caching_sha2_password's fast path checks a scramble against.
std::string Sha2Stage2(std::string_view password);
// A salted, slow hash for caching_sha2_password accounts (PBKDF2-HMAC-SHA256), as text:
// "pbkdf2-sha256$<iterations>$<salt hex>$<hash hex>".
std::string SaltedHash(std::string_view password);
bool VerifySaltedHash(std::string_view salted_hash, std::string_view password);
// Constant-time equality of two byte strings.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

std::string HexEncode(std::string_view bytes);
std::string HexDecode(std::string_view hex);  // empty on malformed input

}  // namespace sluice::auth
