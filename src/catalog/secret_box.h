#pragma once
// SecretBox: seals secrets (a storage connection's access key) before they are written into the database file, with
// AES-256-GCM under a key kept outside it (<data dir>/secrets.key, created on first use, mode 0600). Reading the
// __sluice tables through SQL, or the database file alone, then shows no usable secret.
#include <memory>
#include <string>

#include "common/status.h"

namespace sluice::catalog {

class SecretBox {
 public:
  // Loads the key file, creating it with a fresh random key when it does not exist. An empty path keeps a random key
  // in memory only (in-memory databases, tests).
  static Result<std::unique_ptr<SecretBox>> Open(const std::string& key_file);

  // "sealed:v1:<hex of nonce | ciphertext | tag>".
  std::string Seal(const std::string& plaintext) const;
  // Values that were never sealed come back as they are.
  Result<std::string> Unseal(const std::string& sealed) const;

 private:
  explicit SecretBox(std::string key, std::string key_file) : key_(std::move(key)), key_file_(std::move(key_file)) {}
  std::string key_;  // 32 bytes
  std::string key_file_;
};

}  // namespace sluice::catalog
