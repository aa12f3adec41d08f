#include "app/http_wiring.h"

#include <filesystem>

namespace sluice {

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  // Runs over the longer input whatever the contents; only the lengths' equality is visible in the time taken.
  size_t n = std::max(a.size(), b.size());
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= x ^ y;
  }
  return diff == 0;
}

http::Authenticator RootPasswordAuthenticator(std::string root_password) {
  return [root_password = std::move(root_password)](std::string_view user, std::string_view password,
                                                    std::string_view) -> std::optional<std::string> {
    bool password_ok = ConstantTimeEquals(password, root_password);
    if (user == "root" && password_ok) return std::string("root");
    return std::nullopt;
  };
}

Status ResolveHttpTls(const ServeOptions& options, http::HttpOptions& http) {
  if (!options.http_tls) return Status::Ok();
  std::string cert = options.tls_cert, key = options.tls_key;
  if (cert.empty() != key.empty())
    return Status::InvalidArgument("--tls-cert and --tls-key go together: give both, or neither to use the "
                                   "certificate in " + options.data_dir + "/tls/");
  if (cert.empty()) {
    cert = options.data_dir + "/tls/server-cert.pem";
    key = options.data_dir + "/tls/server-key.pem";
    std::error_code ec;
    if (!std::filesystem::exists(cert, ec) || !std::filesystem::exists(key, ec))
      return Status::InvalidArgument("--http-tls needs a certificate: give --tls-cert and --tls-key (PEM files), or "
                                     "put server-cert.pem and server-key.pem in " + options.data_dir + "/tls/");
  }
  http.tls_cert_file = cert;
  http.tls_key_file = key;
  return Status::Ok();
}

}  // namespace sluice
