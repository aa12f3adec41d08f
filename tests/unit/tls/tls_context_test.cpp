// The generated CA and server certificate: files and modes, reuse across starts, a new server certificate (same
// CA) when the hosts change, and verification as a client does it (OpenSSL's own chain and name checks).
#include "tls/tls_context.h"

#include <sys/stat.h>

#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "tls/certificate_authority.h"

namespace sluice::tls {
namespace {

class TlsContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    dir_ = (std::filesystem::temp_directory_path() / ("sluice-tls-test-" + std::to_string(rd()))).string();
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::string Read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static unsigned Mode(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
    return st.st_mode & 0777;
  }
  static X509* LoadCert(const std::string& path) {
    BIO* bio = BIO_new_file(path.c_str(), "r");
    X509* cert = bio ? PEM_read_bio_X509(bio, nullptr, nullptr, nullptr) : nullptr;
    BIO_free(bio);
    return cert;
  }
  // What a client checks: the chain up to the CA and that the certificate names `host`.
  static bool Verifies(const GeneratedTlsFiles& f, const std::string& host) {
    X509* ca = LoadCert(f.ca_cert);
    X509* server = LoadCert(f.server_cert);
    X509_STORE* store = X509_STORE_new();
    X509_STORE_add_cert(store, ca);
    X509_STORE_CTX* ctx = X509_STORE_CTX_new();
    X509_STORE_CTX_init(ctx, store, server, nullptr);
    X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx);
    X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_X509_STRICT);
    if (X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str()) != 1) {
      X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size());
    }
    bool ok = X509_verify_cert(ctx) == 1;
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    X509_free(ca);
    X509_free(server);
    return ok;
  }

  std::string dir_;
};

TEST_F(TlsContextTest, GeneratesACaAndAServerCertificateForTheHosts) {
  auto files = EnsureGeneratedCertificates(dir_, CertificateHosts("127.0.0.1"));
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_EQ(files->ca_cert, dir_ + "/tls/ca.pem");
  EXPECT_EQ(files->server_cert, dir_ + "/tls/server-cert.pem");
  EXPECT_EQ(files->server_key, dir_ + "/tls/server-key.pem");
  EXPECT_EQ(Mode(files->server_key), 0600u);
  EXPECT_EQ(Mode(files->ca_key), 0600u);
  EXPECT_EQ(Mode(files->ca_cert), 0644u);
  for (const char* host : {"127.0.0.1", "::1", "localhost"}) EXPECT_TRUE(Verifies(*files, host)) << host;
  EXPECT_FALSE(Verifies(*files, "example.com"));
  EXPECT_FALSE(Verifies(*files, "10.1.2.3"));
}

TEST_F(TlsContextTest, LaterStartsReuseTheFiles) {
  auto first = EnsureGeneratedCertificates(dir_, {"127.0.0.1"});
  ASSERT_TRUE(first.ok());
  std::string ca = Read(first->ca_cert), cert = Read(first->server_cert), key = Read(first->server_key);
  auto second = EnsureGeneratedCertificates(dir_, {"127.0.0.1"});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(Read(second->ca_cert), ca);
  EXPECT_EQ(Read(second->server_cert), cert);
  EXPECT_EQ(Read(second->server_key), key);
}

TEST_F(TlsContextTest, NewBindHostGetsANewServerCertificateFromTheSameCa) {
  auto first = EnsureGeneratedCertificates(dir_, {"127.0.0.1"});
  ASSERT_TRUE(first.ok());
  std::string ca = Read(first->ca_cert), cert = Read(first->server_cert);
  EXPECT_FALSE(Verifies(*first, "192.0.2.7"));
  auto second = EnsureGeneratedCertificates(dir_, {"127.0.0.1", "192.0.2.7", "db.internal"});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(Read(second->ca_cert), ca);  // clients keep trusting the same CA
  EXPECT_NE(Read(second->server_cert), cert);
  EXPECT_TRUE(Verifies(*second, "192.0.2.7"));
  EXPECT_TRUE(Verifies(*second, "db.internal"));
}

TEST_F(TlsContextTest, BrokenFilesAreMadeAgainAndLooseKeyModesFixed) {
  auto first = EnsureGeneratedCertificates(dir_, {"127.0.0.1"});
  ASSERT_TRUE(first.ok());
  std::ofstream(first->server_key) << "not a key";
  ::chmod(first->ca_key.c_str(), 0644);
  auto second = EnsureGeneratedCertificates(dir_, {"127.0.0.1"});
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(Verifies(*second, "127.0.0.1"));
  EXPECT_EQ(Mode(second->ca_key), 0600u);
  EXPECT_EQ(Mode(second->server_key), 0600u);
  EXPECT_TRUE(TlsContext::FromFiles(second->server_cert, second->server_key).ok());
}

TEST_F(TlsContextTest, CreateUsesGivenFilesOrGenerates) {
  auto generated = TlsContext::Create({"", "", dir_, {"127.0.0.1"}});
  ASSERT_TRUE(generated.ok()) << generated.status().ToString();
  EXPECT_TRUE((*generated)->generated());
  EXPECT_EQ((*generated)->ca_file(), dir_ + "/tls/ca.pem");
  EXPECT_EQ((*generated)->cert_file(), dir_ + "/tls/server-cert.pem");
  EXPECT_EQ((*generated)->key_file(), dir_ + "/tls/server-key.pem");
  EXPECT_NE((*generated)->ssl_ctx(), nullptr);

  auto given = TlsContext::Create({dir_ + "/tls/server-cert.pem", dir_ + "/tls/server-key.pem", "", {}});
  ASSERT_TRUE(given.ok()) << given.status().ToString();
  EXPECT_FALSE((*given)->generated());
  EXPECT_TRUE((*given)->ca_file().empty());
}

TEST_F(TlsContextTest, BadGivenFilesAreClearErrors) {
  auto only_cert = TlsContext::Create({"/x/cert.pem", "", dir_, {}});
  ASSERT_FALSE(only_cert.ok());
  EXPECT_NE(only_cert.status().message().find("--tls-key"), std::string::npos);
  auto missing = TlsContext::Create({dir_ + "/missing.pem", dir_ + "/missing-key.pem", "", {}});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("cannot load the TLS certificate"), std::string::npos);
  // A key of another certificate.
  std::string other = dir_ + "/other";
  ASSERT_TRUE(EnsureGeneratedCertificates(dir_, {"127.0.0.1"}).ok());
  ASSERT_TRUE(EnsureGeneratedCertificates(other, {"127.0.0.1"}).ok());
  auto mismatched = TlsContext::Create({dir_ + "/tls/server-cert.pem", other + "/tls/server-key.pem", "", {}});
  ASSERT_FALSE(mismatched.ok());
  EXPECT_NE(mismatched.status().message().find("does not belong"), std::string::npos)
      << mismatched.status().message();
}

TEST(CertificateHostsTest, LoopbackAlwaysAndTheBindAddress) {
  EXPECT_EQ(CertificateHosts("127.0.0.1"), (std::vector<std::string>{"127.0.0.1", "::1", "localhost"}));
  EXPECT_EQ(CertificateHosts("10.0.0.5"), (std::vector<std::string>{"127.0.0.1", "::1", "localhost", "10.0.0.5"}));
  EXPECT_GE(CertificateHosts("0.0.0.0").size(), 3u);  // plus this machine's name
}

}  // namespace
}  // namespace sluice::tls
