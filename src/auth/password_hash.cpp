#include "auth/password_hash.h"

#include "auth/authenticator.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <cstdlib>
#include <vector>

namespace sluice::auth {

namespace {
constexpr int kIterations = 10000;  // ~5 ms a check: cheap for a login, slow for a guesser holding the file
constexpr size_t kSaltBytes = 16;
constexpr size_t kHashBytes = 32;

std::string Sha1(std::string_view in) {
  unsigned char out[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(in.data()), in.size(), out);
  return std::string(reinterpret_cast<char*>(out), sizeof out);
}
std::string Sha256(std::string_view in) {
  unsigned char out[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(in.data()), in.size(), out);
  return std::string(reinterpret_cast<char*>(out), sizeof out);
}
std::string Pbkdf2(std::string_view password, std::string_view salt, int iterations) {
  std::string out(kHashBytes, '\0');
  PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                    reinterpret_cast<const unsigned char*>(salt.data()), static_cast<int>(salt.size()), iterations,
                    EVP_sha256(), static_cast<int>(out.size()), reinterpret_cast<unsigned char*>(out.data()));
  return out;
}
}  // namespace


std::string NativeStage2(std::string_view password) { return Sha1(Sha1(password)); }
std::string Sha2Stage2(std::string_view password) { return Sha256(Sha256(password)); }

std::string SaltedHash(std::string_view password) {
  std::string salt(kSaltBytes, '\0');
  RAND_bytes(reinterpret_cast<unsigned char*>(salt.data()), static_cast<int>(salt.size()));
  return "pbkdf2-sha256$" + std::to_string(kIterations) + "$" + HexEncode(salt) + "$" +
         HexEncode(Pbkdf2(password, salt, kIterations));
}

bool VerifySaltedHash(std::string_view salted_hash, std::string_view password) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= salted_hash.size(); i++) {
    if (i == salted_hash.size() || salted_hash[i] == '$') {
      parts.push_back(salted_hash.substr(start, i - start));
      start = i + 1;
    }
  }
  if (parts.size() != 4 || parts[0] != "pbkdf2-sha256") return false;
  int iterations = std::atoi(std::string(parts[1]).c_str());
  if (iterations <= 0 || iterations > 10'000'000) return false;
  std::string salt = HexDecode(parts[2]);
  std::string expected = HexDecode(parts[3]);
  if (salt.empty() || expected.size() != kHashBytes) return false;
  return ConstantTimeEquals(Pbkdf2(password, salt, iterations), expected);
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string HexEncode(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

std::string HexDecode(std::string_view hex) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2) return {};
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return {};
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

std::string_view PluginName(AuthPlugin plugin) {
  return plugin == AuthPlugin::kCachingSha2Password ? "caching_sha2_password" : "mysql_native_password";
}

}  // namespace sluice::auth
