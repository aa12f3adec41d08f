#include "server/handshake.h"

#include <gtest/gtest.h>

#include <string>

#include "server/protocol.h"
#include "server/wire.h"

namespace sluice::server {
namespace {

TEST(HandshakeTest, GreetingLayout) {
  std::string scramble = "abcdefghijklmnopqrst";
  GreetingFields g;
  g.connection_id = 0x01020304;
  g.server_version = "5.7.99-Sluice";
  g.scramble = scramble;
  g.capabilities = cap::kServerDefault;
  g.status_flags = status_flag::kAutocommit;
  g.charset = 45;
  std::string out = EncodeGreeting(g);

  WireReader r(out);
  EXPECT_EQ(*r.U8(), 10);
  EXPECT_EQ(*r.NulString(), "5.7.99-Sluice");
  EXPECT_EQ(*r.U32(), 0x01020304u);
  EXPECT_EQ(*r.Bytes(8), "abcdefgh");
  EXPECT_EQ(*r.U8(), 0);
  uint32_t caps = *r.U16();
  EXPECT_EQ(*r.U8(), 45);
  EXPECT_EQ(*r.U16(), status_flag::kAutocommit);
  caps |= static_cast<uint32_t>(*r.U16()) << 16;
  EXPECT_EQ(caps, cap::kServerDefault);
  EXPECT_TRUE(caps & cap::kProtocol41);
  EXPECT_TRUE(caps & cap::kDeprecateEof);
  EXPECT_FALSE(caps & cap::kSsl);
  EXPECT_FALSE(caps & cap::kLocalFiles);
  EXPECT_EQ(*r.U8(), 21);
  EXPECT_EQ(*r.Bytes(10), std::string(10, '\0'));
  EXPECT_EQ(*r.NulString(), "ijklmnopqrst");
  EXPECT_EQ(*r.NulString(), "mysql_native_password");
  EXPECT_TRUE(r.empty());
}

struct ResponseBuilder {
  uint32_t caps = cap::kProtocol41 | cap::kSecureConnection | cap::kPluginAuth | cap::kConnectWithDb;
  std::string user = "root";
  std::string auth = std::string(20, 'A');
  std::string db;
  std::string plugin = "mysql_native_password";
  std::string attrs;  // already encoded key/value pairs

  std::string Build() const {
    std::string out;
    PutU32(out, caps);
    PutU32(out, 16u << 20);
    PutU8(out, 45);
    out.append(23, '\0');
    PutNulString(out, user);
    if (caps & cap::kPluginAuthLenencClientData) {
      PutLenencString(out, auth);
    } else if (caps & cap::kSecureConnection) {
      PutU8(out, static_cast<uint8_t>(auth.size()));
      out += auth;
    } else {
      PutNulString(out, auth);
    }
    if (caps & cap::kConnectWithDb) PutNulString(out, db);
    if (caps & cap::kPluginAuth) PutNulString(out, plugin);
    if (caps & cap::kConnectAttrs) PutLenencString(out, attrs);
    return out;
  }
};

TEST(HandshakeTest, ParsesSecureConnectionResponse) {
  ResponseBuilder b;
  b.db = "example_db";
  auto r = ParseHandshakeResponse(b.Build());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->user, "root");
  EXPECT_EQ(r->auth_response, std::string(20, 'A'));
  EXPECT_EQ(r->database, "example_db");
  EXPECT_EQ(r->auth_plugin, "mysql_native_password");
  EXPECT_EQ(r->charset, 45);
  EXPECT_FALSE(r->ssl_request);
}

TEST(HandshakeTest, ParsesLenencAuthAndAttributes) {
  ResponseBuilder b;
  b.caps |= cap::kPluginAuthLenencClientData | cap::kConnectAttrs;
  b.auth = std::string(300, 'z');  // longer than a 1-byte length could say
  PutLenencString(b.attrs, "_client_name");
  PutLenencString(b.attrs, "pymysql");
  PutLenencString(b.attrs, "_pid");
  PutLenencString(b.attrs, "42");
  auto r = ParseHandshakeResponse(b.Build());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->auth_response.size(), 300u);
  ASSERT_EQ(r->attributes.size(), 2u);
  EXPECT_EQ(r->attributes[0].first, "_client_name");
  EXPECT_EQ(r->attributes[1].second, "42");
}

TEST(HandshakeTest, TrailingFieldsMayBeMissingOrUnterminated) {
  ResponseBuilder b;
  b.caps = cap::kProtocol41 | cap::kSecureConnection | cap::kPluginAuth | cap::kConnectWithDb;
  std::string full = b.Build();
  // Cut after the auth response: neither database nor plugin.
  std::string cut = full.substr(0, 32 + 5 + 1 + 20);
  auto r = ParseHandshakeResponse(cut);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->database, "");
  EXPECT_EQ(r->auth_plugin, "");
  // Plugin name without its NUL.
  auto r2 = ParseHandshakeResponse(full.substr(0, full.size() - 1));
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->auth_plugin, "mysql_native_password");
}

TEST(HandshakeTest, SslRequestIsRecognised) {
  std::string out;
  PutU32(out, cap::kProtocol41 | cap::kSsl | cap::kSecureConnection);
  PutU32(out, 1 << 24);
  PutU8(out, 45);
  out.append(23, '\0');
  auto r = ParseHandshakeResponse(out);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->ssl_request);
}

TEST(HandshakeTest, Pre41ClientIsNotSupported) {
  ResponseBuilder b;
  b.caps = cap::kSecureConnection;
  auto r = ParseHandshakeResponse(b.Build());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotSupported);
}

TEST(HandshakeTest, EveryTruncationIsHandled) {
  ResponseBuilder b;
  b.caps |= cap::kPluginAuthLenencClientData | cap::kConnectAttrs;
  b.db = "db";
  PutLenencString(b.attrs, "k");
  PutLenencString(b.attrs, "v");
  std::string full = b.Build();
  for (size_t n = 0; n < full.size(); ++n) {
    // Must not crash or read out of bounds (ASan); short prefixes must fail.
    auto r = ParseHandshakeResponse(full.substr(0, n));
    if (n < 33) {
      EXPECT_FALSE(r.ok()) << n;
    }
  }
  EXPECT_TRUE(ParseHandshakeResponse(full).ok());
}

TEST(HandshakeTest, GarbageIsRejected) {
  EXPECT_FALSE(ParseHandshakeResponse("GET / HTTP/1.1\r\nHost: x\r\n\r\n").ok());
  EXPECT_FALSE(ParseHandshakeResponse("").ok());
  // Claims a 1-byte auth length of 200 with nothing behind it.
  ResponseBuilder b;
  std::string s = b.Build();
  s[32 + 5] = static_cast<char>(200);
  EXPECT_FALSE(ParseHandshakeResponse(s.substr(0, 32 + 5 + 1 + 20)).ok());
}

TEST(HandshakeTest, AuthSwitchRequest) {
  std::string out = EncodeAuthSwitchRequest("mysql_native_password", "abcdefghijklmnopqrst");
  WireReader r(out);
  EXPECT_EQ(*r.U8(), 0xfe);
  EXPECT_EQ(*r.NulString(), "mysql_native_password");
  EXPECT_EQ(*r.NulString(), "abcdefghijklmnopqrst");
  EXPECT_TRUE(r.empty());
}

}  // namespace
}  // namespace sluice::server
