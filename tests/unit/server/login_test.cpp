// Loopback tests of the login path: TLS (SSLRequest, the generated CA, require_secure_transport, REQUIRE SSL),
// both auth plugins through the Authenticator interface (switches, caching_sha2_password's full and fast
// authentication), the account store's gate (locks, delays), and the connection pools (max_connections with the
// administrator's extra slot, max_user_connections, the cap on connections still logging in).
#include <sys/resource.h>

#include <openssl/ssl.h>

#include <filesystem>
#include <future>
#include <random>

#include "loopback_fixture.h"
#include "server/protocol.h"
#include "server/wire.h"
#include "tls/certificate_authority.h"
#include "tls/tls_context.h"

namespace sluice::server {
namespace {

using LoginOptions = test::TestClient::LoginOptions;
using test::TestAccount;
using test::TestClient;
using namespace std::chrono_literals;
using Plugin = auth::AuthPlugin;

std::string TempDir(const std::string& name) {
  std::random_device rd;
  auto dir = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(rd()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

SSL_CTX* ClientContext(const std::string& ca_file) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  EXPECT_EQ(SSL_CTX_load_verify_locations(ctx, ca_file.c_str(), nullptr), 1);
  return ctx;
}

class LoginTest : public test::MysqlServerTest {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(TempDir("sluice-login-test"));
    auto tls = tls::TlsContext::Create({"", "", *dir_, tls::CertificateHosts("127.0.0.1")});
    ASSERT_TRUE(tls.ok()) << tls.status().ToString();
    tls_ = tls->release();
    client_tls_ = ClientContext(tls_->ca_file());
  }
  static void TearDownTestSuite() {
    SSL_CTX_free(client_tls_);
    delete tls_;
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }

  void StartTlsServer(MysqlServer::Options o = {}) {
    o.tls = tls_;
    StartServer(o);
  }
  LoginOptions As(std::string user, std::string password, bool tls = false) {
    LoginOptions o;
    o.user = std::move(user);
    o.password = std::move(password);
    if (tls) o.tls = client_tls_;
    return o;
  }
  // Logs in on a fresh client; the server's final answer.
  std::optional<Packet> LoginWith(TestClient& c, const LoginOptions& o) {
    if (!c.Connect(server_->port())) return std::nullopt;
    return c.Login(o);
  }
  static bool IsOk(const std::optional<Packet>& p) { return p && !p->payload.empty() && p->payload[0] == 0x00; }
  static test::Err ErrOf(const std::optional<Packet>& p) {
    if (!p || p->payload.empty() || static_cast<uint8_t>(p->payload[0]) != 0xff) return test::Err{0, "", "not an ERR"};
    return test::ParseErr(p->payload);
  }

  static std::string* dir_;
  static tls::TlsContext* tls_;
  static SSL_CTX* client_tls_;
};

std::string* LoginTest::dir_ = nullptr;
tls::TlsContext* LoginTest::tls_ = nullptr;
SSL_CTX* LoginTest::client_tls_ = nullptr;

TEST_F(LoginTest, TlsIsOfferedAndCarriesTheSession) {
  StartTlsServer();
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  auto reply = c.Login(As("root", "", true));
  ASSERT_TRUE(IsOk(reply)) << c.tls_error();
  EXPECT_TRUE(c.greeting().capabilities & cap::kSsl);
  EXPECT_EQ(c.TlsVersion().rfind("TLSv1.", 0), 0u) << c.TlsVersion();
  EXPECT_EQ(reply->seq, 3);  // greeting 0, SSLRequest 1, response 2 (encrypted), OK 3
  test::Response r = c.Query("SELECT rows");
  ASSERT_FALSE(r.err);
  ASSERT_EQ(r.results.at(0).rows.size(), 3u);
  EXPECT_EQ(r.results[0].rows[0][1], "Johann Georg Faust");
  // A plain client still logs in next to it.
  ExpectServerHealthy();
}

TEST_F(LoginTest, ClientThatDistrustsTheCertificateFailsAlone) {
  StartTlsServer();
  std::string other = TempDir("sluice-other-ca");
  ASSERT_TRUE(tls::EnsureGeneratedCertificates(other, {"127.0.0.1"}).ok());
  SSL_CTX* wrong = ClientContext(other + "/tls/ca.pem");
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  ASSERT_TRUE(c.ReadGreeting());
  EXPECT_FALSE(c.StartTls(wrong));
  SSL_CTX_free(wrong);
  std::filesystem::remove_all(other);
  // The certificate names the loopback addresses, not other names.
  TestClient d;
  ASSERT_TRUE(d.Connect(server_->port()));
  ASSERT_TRUE(d.ReadGreeting());
  EXPECT_FALSE(d.StartTls(client_tls_, "db.example.com"));
  EXPECT_TRUE(WaitForNoConnections());
  ExpectServerHealthy();
}

TEST_F(LoginTest, SslRequestWithoutTlsConfiguredIsRefused) {
  StartServer();  // no TLS context
  TestClient c;
  ASSERT_TRUE(c.Connect(server_->port()));
  auto g = c.ReadGreeting();
  ASSERT_TRUE(g);
  EXPECT_FALSE(g->capabilities & cap::kSsl);
  EXPECT_FALSE(c.StartTls(client_tls_));
}

TEST_F(LoginTest, RequireSecureTransport) {
  MysqlServer::Options o;
  o.require_secure_transport = true;
  StartTlsServer(o);
  TestClient plain;
  auto refused = LoginWith(plain, As("root", ""));
  test::Err e = ErrOf(refused);
  EXPECT_EQ(e.code, 3159);
  EXPECT_EQ(e.message, "Connections using insecure transport are prohibited while --require_secure_transport=ON.");
  EXPECT_TRUE(plain.ServerClosed());
  TestClient secure;
  EXPECT_TRUE(IsOk(LoginWith(secure, As("root", "", true))));
  // Without a TLS context the option cannot be honoured: the server refuses to start.
  MysqlServer::Options bad;
  bad.require_secure_transport = true;
  bad.authenticator = &auth_;
  bad.port = 0;
  MysqlServer second(bad, factory_);
  EXPECT_FALSE(second.Start().ok());
}

TEST_F(LoginTest, AccountThatRequiresSslIsDeniedWithoutIt) {
  auth_.Add("careful", {"pw", Plugin::kNativePassword, /*require_ssl=*/true});
  StartTlsServer();
  TestClient plain;
  test::Err e = ErrOf(LoginWith(plain, As("careful", "pw")));
  EXPECT_EQ(e.code, 1045);
  EXPECT_EQ(e.message, "Access denied for user 'careful'@'127.0.0.1' (using password: YES)");
  TestClient secure;
  EXPECT_TRUE(IsOk(LoginWith(secure, As("careful", "pw", true))));
  // The password was right both times: no failure is counted against the account.
  EXPECT_EQ(auth_.after(), (std::vector<std::string>{"careful:ok", "careful:ok"}));
}

TEST_F(LoginTest, NativePasswordIsCheckedAgainstTheStoredHash) {
  auth_.Add("ann", {"s3cret"});
  StartServer();
  TestClient good, bad, empty;
  EXPECT_TRUE(IsOk(LoginWith(good, As("ann", "s3cret"))));
  EXPECT_EQ(ErrOf(LoginWith(bad, As("ann", "S3cret"))).code, 1045);
  test::Err e = ErrOf(LoginWith(empty, As("ann", "")));
  EXPECT_EQ(e.message, "Access denied for user 'ann'@'127.0.0.1' (using password: NO)");
  EXPECT_EQ(auth_.after(), (std::vector<std::string>{"ann:ok", "ann:failed", "ann:failed"}));
  EXPECT_EQ(auth_.before(), 3);
}

TEST_F(LoginTest, CachingSha2FullAuthenticationOverTlsThenFastPath) {
  auth_.Add("sha", {"pw", Plugin::kCachingSha2Password});
  StartTlsServer();
  // Nothing cached yet, plain TCP: the server cannot do a full authentication and says how to get one.
  TestClient plain;
  test::Err e = ErrOf(LoginWith(plain, As("sha", "pw")));
  EXPECT_EQ(plain.switched_to(), "caching_sha2_password");  // the client started with mysql_native_password
  EXPECT_EQ(e.code, 1045);
  EXPECT_NE(e.message.find("only over TLS"), std::string::npos) << e.message;
  EXPECT_FALSE(plain.full_auth_requested());

  // Over TLS: a full authentication, with the password checked by the account store.
  TestClient full;
  auto ok = LoginWith(full, As("sha", "pw", true));
  EXPECT_TRUE(IsOk(ok)) << ErrOf(ok).message;
  EXPECT_TRUE(full.full_auth_requested());
  EXPECT_FALSE(full.fast_auth());
  EXPECT_EQ(auth_.full_authentications(), 1);

  // Now the store knows SHA256(SHA256(pw)): the fast path works, even without TLS.
  TestClient fast;
  LoginOptions o = As("sha", "pw");
  o.plugin = "caching_sha2_password";
  EXPECT_TRUE(IsOk(LoginWith(fast, o)));
  EXPECT_TRUE(fast.fast_auth());
  EXPECT_TRUE(fast.switched_to().empty());
  EXPECT_EQ(auth_.full_authentications(), 1);

  // A wrong password: refused on the fast path without TLS; over TLS it falls back to a full authentication.
  TestClient wrong_plain, wrong_tls;
  o.password = "nope";
  EXPECT_EQ(ErrOf(LoginWith(wrong_plain, o)).code, 1045);
  o.tls = client_tls_;
  EXPECT_EQ(ErrOf(LoginWith(wrong_tls, o)).code, 1045);
  EXPECT_TRUE(wrong_tls.full_auth_requested());
  EXPECT_EQ(auth_.full_authentications(), 2);
}

TEST_F(LoginTest, ClientStartingWithCachingSha2IsSwitchedToNativeForNativeAccount) {
  auth_.Add("nat", {"pw"});
  StartServer();
  TestClient c;
  LoginOptions o = As("nat", "pw");
  o.plugin = "caching_sha2_password";
  EXPECT_TRUE(IsOk(LoginWith(c, o)));
  EXPECT_EQ(c.switched_to(), "mysql_native_password");
}

TEST_F(LoginTest, EmptyPasswordAccounts) {
  auth_.Add("nopw", {"", Plugin::kCachingSha2Password});
  StartServer();
  TestClient a, b;
  LoginOptions o = As("nopw", "");
  o.plugin = "caching_sha2_password";
  EXPECT_TRUE(IsOk(LoginWith(a, o)));  // no TLS needed: there is nothing to send
  o.password = "something";
  EXPECT_EQ(ErrOf(LoginWith(b, o)).code, 1045);
}

TEST_F(LoginTest, UnknownUserGoesThroughTheSameExchange) {
  auth_.Add("sha", {"pw", Plugin::kCachingSha2Password});
  StartServer();
  LoginOptions known = As("sha", "pw");
  known.plugin = "caching_sha2_password";
  LoginOptions unknown = known;
  unknown.user = "nobody";
  TestClient a, b;
  test::Err ea = ErrOf(LoginWith(a, known));
  test::Err eb = ErrOf(LoginWith(b, unknown));
  EXPECT_EQ(ea.code, eb.code);
  // The same answer but for the name: it does not tell which accounts exist.
  std::string ma = ea.message, mb = eb.message;
  ma.replace(ma.find("'sha'"), 5, "'x'");
  mb.replace(mb.find("'nobody'"), 8, "'x'");
  EXPECT_EQ(ma, mb);
  EXPECT_EQ(auth_.after(), (std::vector<std::string>{"sha:failed", "nobody:failed"}));
}

TEST_F(LoginTest, FailuresWaitTheGateDelayUnknownUsersToo) {
  auth_.Add("ann", {"pw"});
  auth_.SetDelay(300ms);
  StartServer();
  auto timed = [&](const LoginOptions& o, bool* ok) {
    TestClient c;
    auto start = std::chrono::steady_clock::now();
    *ok = IsOk(LoginWith(c, o));
    return std::chrono::steady_clock::now() - start;
  };
  bool ok = false;
  EXPECT_GE(timed(As("ann", "wrong"), &ok), 290ms);
  EXPECT_FALSE(ok);
  EXPECT_GE(timed(As("ghost", "wrong"), &ok), 290ms);
  EXPECT_FALSE(ok);
  EXPECT_LT(timed(As("ann", "pw"), &ok), 250ms);  // a success does not wait
  EXPECT_TRUE(ok);
}

TEST_F(LoginTest, StopDoesNotWaitForALongFailureDelay) {
  auth_.SetDelay(20s);
  StartServer();
  auto attempt = std::async(std::launch::async, [&] {
    TestClient c;
    return LoginWith(c, As("root", "wrong"));
  });
  std::this_thread::sleep_for(300ms);
  auto start = std::chrono::steady_clock::now();
  server_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  attempt.wait();
}

TEST_F(LoginTest, LockedAccountIsRefusedBeforeItsPasswordIsChecked) {
  auth_.Add("locked", {"pw", Plugin::kNativePassword, false, 0, false, /*locked=*/true});
  auth_.Add("blocked", {"pw", Plugin::kNativePassword, false, 0, false, true,
                        "Access denied for user 'blocked'@'127.0.0.1'. Account is blocked for 1 day(s) (1 day(s) "
                        "remaining) due to 3 consecutive failed logins."});
  StartServer();
  TestClient a, b;
  test::Err e = ErrOf(LoginWith(a, As("locked", "pw")));
  EXPECT_EQ(e.code, 3118);
  EXPECT_EQ(e.message, "Access denied for user 'locked'@'127.0.0.1'. Account is locked.");
  EXPECT_TRUE(a.switched_to().empty());
  test::Err f = ErrOf(LoginWith(b, As("blocked", "pw")));
  EXPECT_EQ(f.code, 3118);
  EXPECT_NE(f.message.find("Account is blocked for 1 day(s)"), std::string::npos);
  EXPECT_EQ(auth_.after(), (std::vector<std::string>{"locked:failed", "blocked:failed"}));
}

TEST_F(LoginTest, MaxUserConnections) {
  auth_.Add("lim", {"pw", Plugin::kNativePassword, false, /*max_user_connections=*/1});
  StartServer();
  TestClient a, b, c;
  EXPECT_TRUE(IsOk(LoginWith(a, As("lim", "pw"))));
  test::Err e = ErrOf(LoginWith(b, As("lim", "pw")));
  EXPECT_EQ(e.code, 1203);
  EXPECT_EQ(e.message, "User lim already has more than 'max_user_connections' active connections");
  ASSERT_TRUE(a.SendCommand(CommandCode::kQuit));
  EXPECT_TRUE(a.ServerClosed());
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (server_->logged_in_connections() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(IsOk(LoginWith(c, As("lim", "pw"))));
}

// COM_CHANGE_USER with a native-password response for the connection's scramble.
bool ChangeUser(TestClient& c, std::string_view user, std::string_view password) {
  std::string body;
  PutNulString(body, user);
  std::string auth = NativePasswordResponse(password, c.greeting().scramble);
  PutU8(body, static_cast<uint8_t>(auth.size()));
  body += auth;
  PutNulString(body, "");
  PutU16(body, 45);
  PutNulString(body, "mysql_native_password");
  return c.SendCommand(CommandCode::kChangeUser, body);
}

TEST_F(LoginTest, ChangeUserTakesTheSamePathAndMovesTheSlot) {
  auth_.Add("lim", {"pw", Plugin::kNativePassword, false, 1});
  auth_.Add("locked", {"pw", Plugin::kNativePassword, false, 0, false, true});
  StartServer();
  TestClient holder, c, d;
  ASSERT_TRUE(IsOk(LoginWith(holder, As("lim", "pw"))));
  ASSERT_TRUE(IsOk(LoginWith(c, As("root", ""))));
  // lim has its one connection already.
  ASSERT_TRUE(ChangeUser(c, "lim", "pw"));
  test::Response r = c.ReadResponse();
  ASSERT_TRUE(r.err);
  EXPECT_EQ(r.err->code, 1203);
  EXPECT_TRUE(c.ServerClosed());
  // Once holder changes to root, its lim slot is free.
  ASSERT_TRUE(ChangeUser(holder, "root", ""));
  EXPECT_FALSE(holder.ReadResponse().err);
  ASSERT_TRUE(IsOk(LoginWith(d, As("root", ""))));
  ASSERT_TRUE(ChangeUser(d, "lim", "pw"));
  EXPECT_FALSE(d.ReadResponse().err);
  // A locked account is refused by COM_CHANGE_USER as at login.
  ASSERT_TRUE(ChangeUser(holder, "locked", "pw"));
  test::Response locked = holder.ReadResponse();
  ASSERT_TRUE(locked.err);
  EXPECT_EQ(locked.err->code, 3118);
  EXPECT_EQ(auth_.after().back(), "locked:failed");
}

TEST_F(LoginTest, HandshakeTimeoutDefaultsToFiveSeconds) {
  EXPECT_EQ(MysqlServer::Options{}.handshake_timeout_s, 5);
  EXPECT_EQ(MysqlServer::Options{}.max_unauthenticated_connections, 256u);
}

TEST_F(LoginTest, OldestConnectionStillLoggingInMakesRoom) {
  MysqlServer::Options o;
  o.max_unauthenticated_connections = 3;
  StartServer(o);
  TestClient idle[3];
  for (TestClient& c : idle) {
    ASSERT_TRUE(c.Connect(server_->port()));
    ASSERT_TRUE(c.ReadGreeting());
  }
  TestClient root;
  EXPECT_TRUE(IsOk(LoginWith(root, As("root", ""))));
  EXPECT_TRUE(idle[0].ServerClosed());  // the oldest went
  EXPECT_TRUE(root.Query("SELECT 1").results.size() == 1);
}

TEST_F(LoginTest, ThousandIdleSocketsDoNotLockRootOut) {
  // The attack: 1,100 TCP connections that never log in, then the real root.
  rlimit limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit), 0);
  if (limit.rlim_cur < 4096) {
    limit.rlim_cur = std::min<rlim_t>(limit.rlim_max, 4096);
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &limit), 0);
  }
  if (limit.rlim_cur < 1500) GTEST_SKIP() << "needs 1,500 open files; the hard limit is " << limit.rlim_max;
  StartServer();
  std::vector<std::unique_ptr<TestClient>> flood;
  for (int i = 0; i < 1100; ++i) {
    flood.push_back(std::make_unique<TestClient>());
    ASSERT_TRUE(flood.back()->Connect(server_->port(), 10'000)) << i;
  }
  auto start = std::chrono::steady_clock::now();
  TestClient root;
  auto reply = LoginWith(root, As("root", ""));
  EXPECT_TRUE(IsOk(reply)) << ErrOf(reply).message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_EQ(root.Query("SELECT 1").results.size(), 1u);
  // The flood costs a bounded number of threads, not one per socket: the evicted ones wind down at once.
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (server_->active_connections() > 1 + 256 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_LE(server_->active_connections(), 1u + 256u);
  flood.clear();
  EXPECT_EQ(server_->logged_in_connections(), 1u);
}

}  // namespace
}  // namespace sluice::server
