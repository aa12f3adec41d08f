#include "catalog/secret_box.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

namespace sluice::catalog {

namespace {

constexpr const char* kPrefix = "sealed:v1:";
constexpr size_t kKeySize = 32;
constexpr size_t kNonceSize = 12;
constexpr size_t kTagSize = 16;

std::string ToHex(const std::string& bytes) {
  static const char* k = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += k[c >> 4];
    out += k[c & 15];
  }
  return out;
}

bool FromHex(const std::string& hex, std::string* out) {
  if (hex.size() % 2) return false;
  auto val = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  out->clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = val(hex[i]), lo = val(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

std::string RandomBytes(size_t n) {
  std::string out(n, '\0');
  RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n));
  return out;
}

}  // namespace

Result<std::unique_ptr<SecretBox>> SecretBox::Open(const std::string& key_file) {
  if (key_file.empty()) return std::unique_ptr<SecretBox>(new SecretBox(RandomBytes(kKeySize), ""));
  std::ifstream in(key_file, std::ios::binary);
  if (in) {
    std::string key((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (key.size() != kKeySize)
      return Status::IoError("the secrets key file '" + key_file + "' is damaged (" + std::to_string(key.size()) +
                             " bytes, expected 32); restore it from a backup of the data directory");
    return std::unique_ptr<SecretBox>(new SecretBox(std::move(key), key_file));
  }
  std::string key = RandomBytes(kKeySize);
  std::string tmp = key_file + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return Status::IoError("cannot create the secrets key file '" + key_file + "'");
  bool ok = ::write(fd, key.data(), key.size()) == static_cast<ssize_t>(key.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), key_file.c_str()) != 0)
    return Status::IoError("cannot write the secrets key file '" + key_file + "'");
  return std::unique_ptr<SecretBox>(new SecretBox(std::move(key), key_file));
}

std::string SecretBox::Seal(const std::string& plaintext) const {
  std::string nonce = RandomBytes(kNonceSize);
  std::string cipher(plaintext.size(), '\0');
  unsigned char tag[kTagSize];
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  int len = 0;
  EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nullptr, reinterpret_cast<const unsigned char*>(key_.data()),
                     reinterpret_cast<const unsigned char*>(nonce.data()));
  EVP_EncryptUpdate(ctx, reinterpret_cast<unsigned char*>(cipher.data()), &len,
                    reinterpret_cast<const unsigned char*>(plaintext.data()), static_cast<int>(plaintext.size()));
  EVP_EncryptFinal_ex(ctx, reinterpret_cast<unsigned char*>(cipher.data()) + len, &len);
  EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, kTagSize, tag);
  EVP_CIPHER_CTX_free(ctx);
  return std::string(kPrefix) + ToHex(nonce + cipher + std::string(reinterpret_cast<char*>(tag), kTagSize));
}

Result<std::string> SecretBox::Unseal(const std::string& sealed) const {
  const std::string prefix = kPrefix;
  if (sealed.compare(0, prefix.size(), prefix) != 0) return sealed;
  std::string raw;
  if (!FromHex(sealed.substr(prefix.size()), &raw) || raw.size() < kNonceSize + kTagSize)
    return Status::Internal("a sealed secret in the database is damaged");
  std::string nonce = raw.substr(0, kNonceSize);
  std::string tag = raw.substr(raw.size() - kTagSize);
  std::string cipher = raw.substr(kNonceSize, raw.size() - kNonceSize - kTagSize);
  std::string plain(cipher.size(), '\0');
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  int len = 0;
  EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nullptr, reinterpret_cast<const unsigned char*>(key_.data()),
                     reinterpret_cast<const unsigned char*>(nonce.data()));
  EVP_DecryptUpdate(ctx, reinterpret_cast<unsigned char*>(plain.data()), &len,
                    reinterpret_cast<const unsigned char*>(cipher.data()), static_cast<int>(cipher.size()));
  EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, kTagSize, tag.data());
  int ok = EVP_DecryptFinal_ex(ctx, reinterpret_cast<unsigned char*>(plain.data()) + len, &len);
  EVP_CIPHER_CTX_free(ctx);
  if (ok <= 0)
    return Status::InvalidArgument("a stored secret cannot be decrypted with the key in '" +
                                   (key_file_.empty() ? std::string("memory") : key_file_) +
                                   "' (was the key file replaced?): recreate the storage connection");
  return plain;
}

}  // namespace sluice::catalog
