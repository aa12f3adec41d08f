#pragma once
// What `sluice serve` gives the HTTP port: who may log in, and which certificate HTTPS uses.
#include <string>
#include <string_view>

#include "app/serve_command.h"
#include "common/status.h"
#include "http/http_server.h"

namespace sluice {

// Until accounts exist, the only HTTP user is root with the server's root password (the one the MySQL port
// checks); compared in constant time so the answer's timing does not leak how much of a guess was right.
http::Authenticator RootPasswordAuthenticator(std::string root_password);
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// Fills the HTTP options' TLS files when --http-tls is given: --tls-cert/--tls-key, or else the certificate Sluice
// keeps in <data dir>/tls/ (server-cert.pem, server-key.pem). Fails saying which flag to give when neither exists.
Status ResolveHttpTls(const ServeOptions& options, http::HttpOptions& http);

}  // namespace sluice
