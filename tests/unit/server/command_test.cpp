#include "server/command.h"

#include <gtest/gtest.h>

#include <string>

#include "server/protocol.h"
#include "server/wire.h"

namespace sluice::server {
namespace {

constexpr uint32_t kCaps = cap::kProtocol41 | cap::kSecureConnection | cap::kPluginAuth | cap::kConnectWithDb;

std::string Cmd(CommandCode code, std::string_view body = {}) {
  std::string out(1, static_cast<char>(code));
  out.append(body);
  return out;
}

// Command's string_views point into the packet, so every test keeps its packet alive.
TEST(CommandTest, QueryAndInitDb) {
  std::string query = Cmd(CommandCode::kQuery, "SELECT 1");
  auto q = ParseCommand(query, kCaps);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->code, static_cast<uint8_t>(CommandCode::kQuery));
  EXPECT_EQ(q->text, "SELECT 1");
  std::string init_db = Cmd(CommandCode::kInitDb, "example_db");
  auto db = ParseCommand(init_db, kCaps);
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(db->text, "example_db");
  auto empty_query = ParseCommand(Cmd(CommandCode::kQuery), kCaps);
  ASSERT_TRUE(empty_query.ok());
  EXPECT_EQ(empty_query->text, "");
}

TEST(CommandTest, FieldList) {
  std::string with_wildcard = Cmd(CommandCode::kFieldList, std::string("tbl\0%", 5));
  auto f = ParseCommand(with_wildcard, kCaps);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->text, "tbl");
  EXPECT_EQ(f->wildcard, "%");
  std::string without_nul = Cmd(CommandCode::kFieldList, "tbl");
  auto no_nul = ParseCommand(without_nul, kCaps);
  ASSERT_TRUE(no_nul.ok());
  EXPECT_EQ(no_nul->text, "tbl");
}

TEST(CommandTest, SetOption) {
  auto on = ParseCommand(Cmd(CommandCode::kSetOption, std::string("\0\0", 2)), kCaps);
  ASSERT_TRUE(on.ok());
  EXPECT_EQ(on->option, 0);
  auto off = ParseCommand(Cmd(CommandCode::kSetOption, std::string("\1\0", 2)), kCaps);
  EXPECT_EQ(off->option, 1);
  EXPECT_FALSE(ParseCommand(Cmd(CommandCode::kSetOption, "\1"), kCaps).ok());
}

TEST(CommandTest, ChangeUser) {
  std::string body;
  PutNulString(body, "root");
  PutU8(body, 20);
  body += std::string(20, 'p');
  PutNulString(body, "db1");
  PutU16(body, 45);
  PutNulString(body, "caching_sha2_password");
  auto c = ParseCommand(Cmd(CommandCode::kChangeUser, body), kCaps);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_TRUE(c->change_user.has_value());
  EXPECT_EQ(c->change_user->user, "root");
  EXPECT_EQ(c->change_user->auth_response, std::string(20, 'p'));
  EXPECT_EQ(c->change_user->database, "db1");
  EXPECT_EQ(c->change_user->auth_plugin, "caching_sha2_password");
  for (size_t n = 0; n < body.size(); ++n) (void)ParseCommand(Cmd(CommandCode::kChangeUser, body.substr(0, n)), kCaps);
  EXPECT_FALSE(ParseCommand(Cmd(CommandCode::kChangeUser, "root"), kCaps).ok()) << "user without NUL";
}

TEST(CommandTest, EmptyPacketIsMalformedUnknownBytesAreNot) {
  EXPECT_FALSE(ParseCommand("", kCaps).ok());
  auto unknown = ParseCommand("\x7f garbage", kCaps);
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->code, 0x7f);
}

}  // namespace
}  // namespace sluice::server
