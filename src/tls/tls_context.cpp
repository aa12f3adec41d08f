#include "tls/tls_context.h"

#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "tls/certificate_authority.h"
#include "tls/openssl_error.h"

namespace sluice::tls {

TlsContext::TlsContext(SSL_CTX* ctx, std::string cert_file, std::string key_file, std::string ca_file)
    : ctx_(ctx), cert_file_(std::move(cert_file)), key_file_(std::move(key_file)), ca_file_(std::move(ca_file)) {}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

Result<std::unique_ptr<TlsContext>> TlsContext::FromFiles(const std::string& cert_file, const std::string& key_file,
                                                          const std::string& ca_file) {
  ClearOpenSslErrors();
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return Status::Internal(OpenSslError("cannot make a TLS context"));
  auto fail = [&](std::string what) -> Status {
    Status st = Status::InvalidArgument(OpenSslError(what));
    SSL_CTX_free(ctx);
    return st;
  };
  // TLS 1.0 and 1.1 are broken and refused by current clients anyway.
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_COMPRESSION);
  // Clients of a database connect once and stay: session tickets would only cost a write per connection.
  SSL_CTX_set_num_tickets(ctx, 0);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1) {
    return fail(fmt::format("cannot load the TLS certificate {} (a PEM file, as --tls-cert wants)", cert_file));
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
      return fail(fmt::format("the key {} does not belong to the certificate {}", key_file, cert_file));
    }
    return fail(fmt::format("cannot load the TLS key {} (an unencrypted PEM file, as --tls-key wants)", key_file));
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return fail(fmt::format("the key {} does not belong to the certificate {}", key_file, cert_file));
  }
  return std::unique_ptr<TlsContext>(new TlsContext(ctx, cert_file, key_file, ca_file));
}

Result<std::unique_ptr<TlsContext>> TlsContext::Create(const TlsOptions& options) {
  if (options.cert_file.empty() != options.key_file.empty()) {
    return Status::InvalidArgument("give both --tls-cert and --tls-key, or neither (then Sluice makes a pair)");
  }
  if (!options.cert_file.empty()) return FromFiles(options.cert_file, options.key_file);
  if (options.data_dir.empty()) return Status::InvalidArgument("no TLS certificate given and no data directory");
  ASSIGN_OR_RETURN(GeneratedTlsFiles files, EnsureGeneratedCertificates(options.data_dir, options.hosts));
  return FromFiles(files.server_cert, files.server_key, files.ca_cert);
}

std::vector<std::string> CertificateHosts(std::string_view bind) {
  std::vector<std::string> hosts = {"127.0.0.1", "::1", "localhost"};
  auto add = [&](std::string host) {
    if (!host.empty() && std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(std::move(host));
  };
  if (bind == "0.0.0.0" || bind == "::" || bind.empty()) {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) == 0) add(name);
  } else {
    add(std::string(bind));
  }
  return hosts;
}

}  // namespace sluice::tls
