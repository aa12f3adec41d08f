#include "server/native_password.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <array>
#include <cstdint>
#include <random>

#include "server/protocol.h"

namespace sluice::server {

namespace {
using Digest = std::array<unsigned char, 20>;

Digest Sha1(std::string_view a, std::string_view b = {}) {
  Digest d{};
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  unsigned int len = 0;
  // SHA1 cannot fail for in-memory input short of allocation failure; a zero digest then fails every check.
  if (ctx && EVP_DigestInit_ex(ctx, EVP_sha1(), nullptr) == 1 && EVP_DigestUpdate(ctx, a.data(), a.size()) == 1 &&
      EVP_DigestUpdate(ctx, b.data(), b.size()) == 1) {
    EVP_DigestFinal_ex(ctx, d.data(), &len);
  }
  EVP_MD_CTX_free(ctx);
  return d;
}

std::string_view View(const Digest& d) { return {reinterpret_cast<const char*>(d.data()), d.size()}; }
}  // namespace

std::string NativePasswordResponse(std::string_view password, std::string_view scramble) {
  if (password.empty()) return {};
  Digest stage1 = Sha1(password);
  Digest stage2 = Sha1(View(stage1));
  Digest mask = Sha1(scramble, View(stage2));
  std::string out(20, '\0');
  for (size_t i = 0; i < 20; ++i) out[i] = static_cast<char>(stage1[i] ^ mask[i]);
  return out;
}

bool VerifyNativePassword(std::string_view stage2, std::string_view scramble, std::string_view response) {
  if (stage2.size() != 20 || response.size() != 20) return false;
  Digest mask = Sha1(scramble, stage2);
  std::string candidate(20, '\0');
  for (size_t i = 0; i < 20; ++i) candidate[i] = static_cast<char>(static_cast<unsigned char>(response[i]) ^ mask[i]);
  Digest check = Sha1(candidate);
  return CRYPTO_memcmp(check.data(), stage2.data(), 20) == 0;
}

std::string NewScramble() {
  std::string out;
  out.reserve(kScrambleLength);
  unsigned char buf[64];
  while (out.size() < kScrambleLength) {
    if (RAND_bytes(buf, sizeof buf) != 1) {
      // OpenSSL's generator failed (should not happen); the kernel's is as good for a per-connection nonce.
      std::random_device rd;
      for (auto& b : buf) b = static_cast<unsigned char>(rd());
    }
    for (unsigned char b : buf) {
      unsigned char c = b & 0x7f;
      if (c == 0 || c == '$') continue;
      out.push_back(static_cast<char>(c));
      if (out.size() == kScrambleLength) break;
    }
  }
  return out;
}

}  // namespace sluice::server
