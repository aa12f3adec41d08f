#pragma once
// Statements may carry secrets ("property.sasl.password" = "...", ACCESS_KEY '...'); anything that logs or echoes
// statement text passes it through here first. Which names are secret is common/secret_names.h's one list.
#include <string>
#include <string_view>

namespace sluice {

// Masks with '******' (kSecretMask) the value of every secret name (IsSecretName) in `text`, in every form a
// statement, an error or a client library's message writes it:
//   'key' = 'value', "key" = "value", 'key': 'value' (MAP {...}), map('key', 'value', ...) (READ_KAFKA's settings),
//   KEY 'value' / KEY = 'value' / KEY('value') for a secret keyword (PASSWORD, ACCESS_KEY, SECRET_KEY), ACCESS_ID
//   'id', IDENTIFIED BY 'x', IDENTIFIED WITH plugin AS 'hash',
//   key=value, key="value", key='value' inside any text or string (URL queries, JAAS configs, librdkafka errors),
// and the `user:secret@` of any URL (`http://******@host`). Quotes may be escaped by doubling or a backslash.
// Everything else is kept.
std::string RedactSecrets(std::string_view text);

// `scheme://key:secret@host/...` without its `key:secret@`, for showing a URL (a schema registry's, say). A URL
// without credentials comes back unchanged.
std::string StripUrlCredentials(const std::string& url);

}  // namespace sluice
