#pragma once
// The server side of TLS: a certificate and key loaded into an OpenSSL context that every TLS connection of a
// port is accepted with. Either the operator's files (--tls-cert/--tls-key) or a pair Sluice made in the data
// directory (certificate_authority.h). The paths are kept so the HTTP port can serve the same certificate.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

struct ssl_ctx_st;  // OpenSSL's SSL_CTX, kept out of the header

namespace sluice::tls {

struct TlsOptions {
  std::string cert_file;  // PEM certificate, optionally followed by its chain; with key_file, or neither
  std::string key_file;   // PEM private key (unencrypted)
  std::string data_dir;   // when no files are given: the pair is made (or reused) in <data_dir>/tls/
  std::vector<std::string> hosts;  // names and addresses a generated certificate is valid for
};

class TlsContext {
 public:
  // The operator's files, or a generated pair when none are given.
  static Result<std::unique_ptr<TlsContext>> Create(const TlsOptions& options);
  // A certificate (chain) and key in PEM; `ca_file` is only remembered, for ca_file().
  static Result<std::unique_ptr<TlsContext>> FromFiles(const std::string& cert_file, const std::string& key_file,
                                                       const std::string& ca_file = "");
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  ssl_ctx_st* ssl_ctx() const { return ctx_; }
  const std::string& cert_file() const { return cert_file_; }
  const std::string& key_file() const { return key_file_; }
  // The CA clients verify the server with: <data dir>/tls/ca.pem when generated, empty for the operator's files.
  const std::string& ca_file() const { return ca_file_; }
  bool generated() const { return !ca_file_.empty(); }

 private:
  TlsContext(ssl_ctx_st* ctx, std::string cert_file, std::string key_file, std::string ca_file);
  ssl_ctx_st* ctx_;
  std::string cert_file_;
  std::string key_file_;
  std::string ca_file_;
};

// The names and addresses clients reach a server bound to `bind` by: the loopback ones (127.0.0.1, ::1,
// localhost), the bind address itself, and this machine's host name when bound to every interface.
std::vector<std::string> CertificateHosts(std::string_view bind);

}  // namespace sluice::tls
