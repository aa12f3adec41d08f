#include "executor/session_variables.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(LikeMatchTest, WildcardsAndCase) {
  EXPECT_TRUE(LikeMatch("max_allowed_packet", "max%"));
  EXPECT_TRUE(LikeMatch("max_allowed_packet", "MAX_ALLOWED_PACKET"));
  EXPECT_TRUE(LikeMatch("abc", "a_c"));
  EXPECT_TRUE(LikeMatch("abc", "%"));
  EXPECT_TRUE(LikeMatch("a_c", "a\\_c"));
  EXPECT_FALSE(LikeMatch("abc", "a\\_c"));
  EXPECT_FALSE(LikeMatch("abc", "ab"));
  EXPECT_TRUE(LikeMatch("", "%"));
  EXPECT_FALSE(LikeMatch("", "_"));
  EXPECT_TRUE(LikeMatch("aaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "%a%a%a%a%a%b"));
}

TEST(SessionVariablesTest, SetNamesChangesTheCharsets) {
  SessionVariables v;
  v.Set("NAMES", "latin1");
  EXPECT_EQ(v.Get("character_set_client"), "latin1");
  EXPECT_EQ(v.Get("character_set_results"), "latin1");
  v.Set("autocommit", "OFF");
  EXPECT_EQ(v.Get("AUTOCOMMIT"), "0");
  EXPECT_FALSE(v.Get("no_such_variable").has_value());
}

TEST(SessionVariablesTest, ShowFiltersByLike) {
  SessionVariables v;
  ResultSet rs = v.Show(std::string("version%"));
  ASSERT_EQ(rs.rows.size(), 2u);
  EXPECT_EQ(*rs.rows[0][0], "version");
  EXPECT_EQ(*rs.rows[1][0], "version_comment");
}

}  // namespace
}  // namespace sluice
