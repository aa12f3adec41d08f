// The HTTP port over real loopback sockets (cpp-httplib's own client), without the rest of the server.
#include "http/http_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>

namespace sluice::http {
namespace {

struct Served {
  Served() {
    HttpOptions o;
    o.port = 0;  // any free port
    o.authenticate = [](std::string_view user, std::string_view password,
                        std::string_view) -> std::optional<std::string> {
      if (user == "alice" && password == "pw") return std::string("alice");
      return std::nullopt;
    };
    server = std::make_unique<HttpServer>(o, [] { return HealthInfo{7, 3}; });
    server->Get("/api/whoami", [](const HttpRequest& r) {
      return HttpReply{200, "text/plain", r.user + " " + (r.query.count("q") ? r.query.at("q") : "")};
    });
    Status st = server->Start();
    EXPECT_TRUE(st.ok()) << st.message();
    client = std::make_unique<httplib::Client>("127.0.0.1", server->port());
    client->set_read_timeout(10, 0);
  }
  std::unique_ptr<HttpServer> server;
  std::unique_ptr<httplib::Client> client;
};

TEST(HttpServer, HealthAndVersionNeedNoCredentials) {
  Served s;
  auto health = s.client->Get("/api/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_NE(health->body.find("\"open_sessions\":3"), std::string::npos) << health->body;
  auto version = s.client->Get("/api/version");
  ASSERT_TRUE(version);
  EXPECT_EQ(version->status, 200);
}

TEST(HttpServer, AddedEndpointsNeedBasicCredentials) {
  Served s;
  auto none = s.client->Get("/api/whoami");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(none->get_header_value("WWW-Authenticate").rfind("Basic realm=\"Sluice\"", 0), 0u);
  EXPECT_NE(none->body.find("\"status\":401"), std::string::npos) << none->body;

  s.client->set_basic_auth("alice", "wrong");
  auto wrong = s.client->Get("/api/whoami");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);

  s.client->set_basic_auth("alice", "pw");
  auto ok = s.client->Get("/api/whoami?q=x%20y");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->body, "alice x y") << "the handler gets the authenticated user and the decoded query";
}

TEST(HttpServer, RefusesBigBodiesBeforeReadingThem) {
  Served s;
  httplib::Headers headers = {{"Content-Length", "200000000"}};
  // Only the head is sent: an answer proves the server did not wait for the 200 MB.
  auto started = std::chrono::steady_clock::now();
  auto res = s.client->Post("/api/health", headers, "", 0, "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_EQ(res->get_header_value("Connection"), "close");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

TEST(HttpServer, UnknownPathsAreJson404) {
  Served s;
  auto res = s.client->Get("/nope");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  EXPECT_NE(res->body.find("no such endpoint: /nope"), std::string::npos) << res->body;
}

TEST(HttpServer, TlsNeedsBothFilesThatLoad) {
  HttpOptions o;
  o.port = 0;
  o.tls_cert_file = "/nonexistent/cert.pem";
  HttpServer half(o, nullptr);
  EXPECT_FALSE(half.Start().ok());
  o.tls_key_file = "/nonexistent/key.pem";
  HttpServer missing(o, nullptr);
  Status st = missing.Start();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("/nonexistent/cert.pem"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace sluice::http
