#pragma once
// The one list of secret names. Whether a property, option or keyword names a secret is decided here and nowhere
// else: the catalog seals what it names before writing it into the database file (catalog/secret_box.h), SHOW /
// DESC output shows kSecretMask in its place, and RedactSecrets (secret_redaction.h) masks its values in logged or
// echoed text. Adding a name here covers all three.
#include <string_view>
#include <vector>

namespace sluice {

// What a masked secret shows as.
inline constexpr const char* kSecretMask = "******";

// The patterns, lowercase; a name is secret when it contains one of them (case-insensitive). Substrings rather than
// a list of exact keys, so the same key under any prefix ("property.", "kafka.") and keys added by newer client
// versions are covered: "sasl.password", "ssl.key.password", "ssl.keystore.password", "sasl.oauthbearer.config",
// "sasl.oauthbearer.client.secret", "sasl.jaas.config", "ssl.key.pem", "aws_secret_access_key", "session_token",
// "basic.auth.user.info" (a schema registry's key:secret) ...
const std::vector<std::string_view>& SecretNamePatterns();

// True when `name` (a Kafka property, a READ_KAFKA setting, a storage connection option, a SQL keyword such as
// ACCESS_KEY or PASSWORD) names a secret.
bool IsSecretName(std::string_view name);

}  // namespace sluice
