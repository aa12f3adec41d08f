#pragma once
// Statements may carry secrets ("property.sasl.password" = "...", ACCESS_KEY '...'); anything that logs or echoes
// statement text passes it through here first.
#include <string>
#include <string_view>

namespace sluice {

// Replaces the value of every quoted `"key" = "value"` whose key names a secret (password, secret, token, SASL JAAS
// config, private keys, access keys) with '******', and the literal after ACCESS_KEY / ACCESS_ID / PASSWORD /
// IDENTIFIED BY, and the `key:secret@` of a URL (`http://******@host`). Everything else is kept.
std::string RedactSecrets(std::string_view sql);

// `scheme://key:secret@host/...` without its `key:secret@`, for showing a URL (a schema registry's, say). A URL
// without credentials comes back unchanged.
std::string StripUrlCredentials(const std::string& url);

}  // namespace sluice
