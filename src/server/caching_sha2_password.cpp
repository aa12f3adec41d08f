#include "server/caching_sha2_password.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

namespace sluice::server {

namespace {
std::string Sha256(std::string_view a, std::string_view b = {}) {
  unsigned char out[SHA256_DIGEST_LENGTH] = {};
  unsigned int len = 0;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  // Fails only when allocation fails; a zero digest then fails every check.
  if (ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) == 1 && EVP_DigestUpdate(ctx, a.data(), a.size()) == 1 &&
      EVP_DigestUpdate(ctx, b.data(), b.size()) == 1) {
    EVP_DigestFinal_ex(ctx, out, &len);
  }
  EVP_MD_CTX_free(ctx);
  return std::string(reinterpret_cast<char*>(out), sizeof out);
}

std::string Xor(std::string_view a, std::string_view b) {
  std::string out(a.size(), '\0');
  for (size_t i = 0; i < a.size(); ++i) out[i] = static_cast<char>(a[i] ^ b[i]);
  return out;
}
}  // namespace

std::string CachingSha2Response(std::string_view password, std::string_view nonce) {
  if (password.empty()) return {};
  std::string stage1 = Sha256(password);
  return Xor(stage1, Sha256(Sha256(stage1), nonce));
}

bool VerifyCachingSha2Password(std::string_view stage2, std::string_view nonce, std::string_view response) {
  if (stage2.size() != SHA256_DIGEST_LENGTH || response.size() != SHA256_DIGEST_LENGTH) return false;
  std::string candidate = Xor(response, Sha256(stage2, nonce));  // SHA256(password), if the client knows it
  std::string check = Sha256(candidate);
  return CRYPTO_memcmp(check.data(), stage2.data(), SHA256_DIGEST_LENGTH) == 0;
}

}  // namespace sluice::server
