#include "common/secret_names.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "common/ascii.h"

namespace sluice {

const std::vector<std::string_view>& SecretNamePatterns() {
  static const std::vector<std::string_view> kPatterns = {
      "password",            // sasl.password, ssl.key.password, ssl.keystore.password, ssl.truststore.password
      "passwd",
      "secret",              // sasl.oauthbearer.client.secret, aws_secret_access_key, SECRET_KEY
      "token",               // session tokens, bearer tokens
      "jaas",                // sasl.jaas.config carries username="..." password="..."
      "oauthbearer.config",  // librdkafka's sasl.oauthbearer.config may carry clientSecret=...
      "ssl.key.pem",         // a private key in PEM
      "private.key",
      "private_key",
      "credential",
      "access_key",          // a storage connection's ACCESS_KEY
      "access.key",
      "accesskey",
      "user.info",           // basic.auth.user.info: a schema registry's key:secret
      "api.key",
      "apikey",
  };
  return kPatterns;
}

bool IsSecretName(std::string_view name) {
  std::string lower = AsciiLower(name);
  const auto& patterns = SecretNamePatterns();
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](std::string_view p) { return lower.find(p) != std::string::npos; });
}

}  // namespace sluice
