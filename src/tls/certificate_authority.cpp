#include "tls/certificate_authority.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "common/log.h"
#include "tls/openssl_error.h"

namespace sluice::tls {

namespace {

constexpr int kCaDays = 3650;
constexpr int kServerDays = 825;  // what browsers accept at most; renewed at a start within 30 days of the end
constexpr long kRenewBeforeSeconds = 30L * 24 * 3600;

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using CertPtr = std::unique_ptr<X509, X509Free>;
using BioPtr = std::unique_ptr<BIO, BioFree>;

struct KeyPair {
  CertPtr cert;
  KeyPtr key;
};

bool IsIpAddress(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

// Host names go into an OpenSSL config string, where a comma would start a new entry: keep to what DNS allows.
bool IsPlainHostName(const std::string& host) {
  if (host.empty() || host.size() > 253) return false;
  for (char c : host) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_')) return false;
  }
  return true;
}

Result<KeyPtr> NewKey() {
  // P-256: every TLS client in use takes it, and making one is instant (an RSA key takes a noticeable moment).
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return Status::Internal(OpenSslError("cannot make a TLS key"));
  return key;
}

Status AddExtension(X509* cert, X509V3_CTX* ctx, int nid, const std::string& value) {
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, ctx, nid, value.c_str());
  if (ext == nullptr) return Status::Internal(OpenSslError(fmt::format("cannot make the extension '{}'", value)));
  int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  if (ok != 1) return Status::Internal(OpenSslError("cannot add a certificate extension"));
  return Status::Ok();
}

// A certificate for `subject_key`, signed by `issuer` (nullptr: self-signed with `subject_key`).
Result<CertPtr> Issue(EVP_PKEY* subject_key, const std::string& common_name, const KeyPair* issuer, bool ca,
                      const std::vector<std::string>& hosts, int days) {
  CertPtr cert(X509_new());
  if (!cert) return Status::Internal(OpenSslError("cannot make a certificate"));
  X509_set_version(cert.get(), 2);  // v3, for the extensions
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return Status::Internal(OpenSslError("no random serial number"));
  serial[0] &= 0x7f;  // a positive number
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);  // an hour back: clocks of clients differ
  X509_time_adj_ex(X509_getm_notAfter(cert.get()), days, 0, nullptr);
  X509_set_pubkey(cert.get(), subject_key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>("Sluice"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer->cert.get()) : name);

  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer ? issuer->cert.get() : cert.get(), cert.get(), nullptr, nullptr, 0);
  if (ca) {
    RETURN_IF_ERROR(AddExtension(cert.get(), &ctx, NID_basic_constraints, "critical,CA:TRUE,pathlen:0"));
    RETURN_IF_ERROR(AddExtension(cert.get(), &ctx, NID_key_usage, "critical,keyCertSign,cRLSign"));
  } else {
    RETURN_IF_ERROR(AddExtension(cert.get(), &ctx, NID_basic_constraints, "critical,CA:FALSE"));
    RETURN_IF_ERROR(AddExtension(cert.get(), &ctx, NID_key_usage, "critical,digitalSignature"));
    RETURN_IF_ERROR(AddExtension(cert.get(), &ctx, NID_ext_key_usage, "serverAuth"));
    std::string san;
    for (const std::string& host : hosts) {
      if (!san.empty()) san += ",";
      san += (IsIpAddress(host) ? "IP:" : "DNS:") + host;
    }
    if (!san.empty()) RETURN_IF_ERROR(AddExtension(cert.get(), &ctx, NID_subject_alt_name, san));
  }
  // The key identifiers let verifiers (Python's strict X.509 mode among them) link the certificate to its issuer.
  RETURN_IF_ERROR(AddExtension(cert.get(), &ctx, NID_subject_key_identifier, "hash"));
  RETURN_IF_ERROR(AddExtension(cert.get(), &ctx, NID_authority_key_identifier, "keyid:always"));
  EVP_PKEY* signer = issuer ? issuer->key.get() : subject_key;
  if (X509_sign(cert.get(), signer, EVP_sha256()) <= 0) {
    return Status::Internal(OpenSslError("cannot sign a certificate"));
  }
  return cert;
}

std::string Errno() { return std::strerror(errno); }

// Writes through a temporary file and a rename, so a crash never leaves half a key behind. The mode is set on
// the descriptor before any byte is written: a key is never readable by others, not even for a moment.
Status WriteFileAtomically(const std::string& path, const std::string& content, mode_t mode) {
  std::string tmp = path + ".tmp";
  ::unlink(tmp.c_str());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return Status::IoError(fmt::format("cannot create {}: {}", tmp, Errno()));
  Status st;
  if (::fchmod(fd, mode) != 0) st = Status::IoError(fmt::format("cannot set the mode of {}: {}", tmp, Errno()));
  std::string_view rest = content;
  while (st.ok() && !rest.empty()) {
    ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      st = Status::IoError(fmt::format("cannot write {}: {}", tmp, Errno()));
      break;
    }
    rest.remove_prefix(static_cast<size_t>(n));
  }
  if (st.ok() && ::fsync(fd) != 0) st = Status::IoError(fmt::format("cannot sync {}: {}", tmp, Errno()));
  ::close(fd);
  if (st.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) {
    st = Status::IoError(fmt::format("cannot rename {} to {}: {}", tmp, path, Errno()));
  }
  if (!st.ok()) ::unlink(tmp.c_str());
  return st;
}

Result<std::string> ToPem(X509* cert, EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  int ok = cert ? PEM_write_bio_X509(bio.get(), cert)
                : PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  if (!bio || ok != 1) return Status::Internal(OpenSslError("cannot encode PEM"));
  char* data = nullptr;
  long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(len));
}

Status Save(const KeyPair& pair, const std::string& cert_path, const std::string& key_path) {
  // The key first: a certificate on disk without its key would be taken for a usable pair.
  ASSIGN_OR_RETURN(std::string key_pem, ToPem(nullptr, pair.key.get()));
  RETURN_IF_ERROR(WriteFileAtomically(key_path, key_pem, 0600));
  ASSIGN_OR_RETURN(std::string cert_pem, ToPem(pair.cert.get(), nullptr));
  return WriteFileAtomically(cert_path, cert_pem, 0644);
}

// The pair in the two files, or why it cannot be used.
Result<KeyPair> Load(const std::string& cert_path, const std::string& key_path) {
  std::error_code ec;
  if (!std::filesystem::exists(cert_path, ec) || !std::filesystem::exists(key_path, ec)) {
    return Status::NotFound("missing");
  }
  KeyPair pair;
  if (BioPtr bio(BIO_new_file(cert_path.c_str(), "r")); bio) {
    pair.cert.reset(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  }
  if (BioPtr bio(BIO_new_file(key_path.c_str(), "r")); bio) {
    pair.key.reset(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  }
  if (!pair.cert || !pair.key) return Status::InvalidArgument(OpenSslError("unreadable"));
  if (X509_check_private_key(pair.cert.get(), pair.key.get()) != 1) {
    ClearOpenSslErrors();
    return Status::InvalidArgument("the key does not belong to the certificate");
  }
  time_t soon = std::time(nullptr) + kRenewBeforeSeconds;
  if (X509_cmp_time(X509_get0_notAfter(pair.cert.get()), &soon) < 0) {
    return Status::InvalidArgument("expires within 30 days");
  }
  // A key others can read is no secret any more; keep it to the server's user, as it was written.
  struct stat st {};
  if (::stat(key_path.c_str(), &st) == 0 && (st.st_mode & 077) != 0) {
    log::Warn("tls", "{} was readable by other users; setting its mode to 0600", key_path);
    ::chmod(key_path.c_str(), 0600);
  }
  return pair;
}

bool Covers(X509* cert, const std::string& host) {
  if (IsIpAddress(host)) return X509_check_ip_asc(cert, host.c_str(), 0) == 1;
  return X509_check_host(cert, host.c_str(), host.size(), 0, nullptr) == 1;
}

// Why an existing server certificate must be issued again, or empty when it can stay.
std::string WhyReissue(const KeyPair& server, const KeyPair& ca, const std::vector<std::string>& hosts) {
  if (X509_verify(server.cert.get(), ca.key.get()) != 1) {
    ClearOpenSslErrors();
    return "it is not signed by the CA in ca.pem";
  }
  for (const std::string& host : hosts) {
    if (!Covers(server.cert.get(), host)) return fmt::format("it does not cover '{}'", host);
  }
  return {};
}

}  // namespace

Result<GeneratedTlsFiles> EnsureGeneratedCertificates(const std::string& data_dir,
                                                      const std::vector<std::string>& hosts) {
  GeneratedTlsFiles files;
  files.dir = data_dir + "/tls";
  files.ca_cert = files.dir + "/ca.pem";
  files.ca_key = files.dir + "/ca-key.pem";
  files.server_cert = files.dir + "/server-cert.pem";
  files.server_key = files.dir + "/server-key.pem";
  std::error_code ec;
  std::filesystem::create_directories(files.dir, ec);
  if (ec) return Status::IoError(fmt::format("cannot create {}: {}", files.dir, ec.message()));

  std::vector<std::string> names;
  for (const std::string& host : hosts) {
    if (IsIpAddress(host) || IsPlainHostName(host)) {
      names.push_back(host);
    } else {
      log::Warn("tls", "'{}' is not a host name or address; the generated certificate leaves it out", host);
    }
  }

  Result<KeyPair> ca = Load(files.ca_cert, files.ca_key);
  bool new_ca = false;
  if (!ca.ok()) {
    if (ca.status().code() != StatusCode::kNotFound) {
      log::Warn("tls", "the CA in {} cannot be used ({}); making a new one: clients must trust the new ca.pem",
                files.dir, ca.status().message());
    }
    ASSIGN_OR_RETURN(KeyPtr key, NewKey());
    ASSIGN_OR_RETURN(CertPtr cert, Issue(key.get(), "Sluice CA", nullptr, /*ca=*/true, {}, kCaDays));
    ca = KeyPair{std::move(cert), std::move(key)};
    RETURN_IF_ERROR(Save(*ca, files.ca_cert, files.ca_key));
    new_ca = true;
    log::Info("tls", "made a TLS certificate authority in {}: clients verify the server with --ssl-ca={}",
              files.dir, files.ca_cert);
  }

  Result<KeyPair> server = Load(files.server_cert, files.server_key);
  std::string why;
  if (new_ca) {
    why = "the CA is new";
  } else if (!server.ok()) {
    why = server.status().code() == StatusCode::kNotFound ? "" : server.status().message();
    if (why.empty()) why = "there is none";
  } else {
    why = WhyReissue(*server, *ca, names);
  }
  if (!why.empty()) {
    ASSIGN_OR_RETURN(KeyPtr key, NewKey());
    std::string cn = names.empty() ? "localhost" : names.front();
    ASSIGN_OR_RETURN(CertPtr cert, Issue(key.get(), cn, &*ca, /*ca=*/false, names, kServerDays));
    RETURN_IF_ERROR(Save(KeyPair{std::move(cert), std::move(key)}, files.server_cert, files.server_key));
    log::Info("tls", "issued a server certificate in {} ({})", files.server_cert, why);
  }
  return files;
}

}  // namespace sluice::tls
