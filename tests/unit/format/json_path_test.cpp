#include "format/json_path.h"

#include <gtest/gtest.h>

#include "format/json_paths_property.h"

namespace sluice::format {
namespace {

using Kind = JsonPathStep::Kind;

JsonPathStep Key(std::string k) { return {Kind::kKey, std::move(k), 0}; }
JsonPathStep Index(size_t i) { return {Kind::kIndex, {}, i}; }

std::vector<JsonPathStep> Steps(std::string_view text) {
  auto path = ParseJsonPath(text);
  EXPECT_TRUE(path.ok()) << path.status().message();
  return path.ok() ? path->steps : std::vector<JsonPathStep>{};
}

TEST(JsonPathTest, Parses) {
  EXPECT_EQ(Steps("$"), std::vector<JsonPathStep>{});
  EXPECT_EQ(Steps("$.a"), (std::vector<JsonPathStep>{Key("a")}));
  EXPECT_EQ(Steps("$.a.b"), (std::vector<JsonPathStep>{Key("a"), Key("b")}));
  EXPECT_EQ(Steps("$.a[0]"), (std::vector<JsonPathStep>{Key("a"), Index(0)}));
  EXPECT_EQ(Steps("$[12][3].x"), (std::vector<JsonPathStep>{Index(12), Index(3), Key("x")}));
  EXPECT_EQ(Steps("$[\"a b\"]"), (std::vector<JsonPathStep>{Key("a b")}));
  EXPECT_EQ(Steps("$['a.b'].c"), (std::vector<JsonPathStep>{Key("a.b"), Key("c")}));
  EXPECT_EQ(Steps(R"($["q\"uote"])"), (std::vector<JsonPathStep>{Key("q\"uote")}));
  EXPECT_EQ(Steps("$.ключ"), (std::vector<JsonPathStep>{Key("ключ")}));
}

TEST(JsonPathTest, RejectsMalformedPathsNamingThem) {
  for (std::string_view bad : {"", "a.b", "$.", "$..a", "$.a[", "$.a[x]", "$.a[1", "$[\"a\"", "$[\"a\"x]",
                               "$.*", "$[*]", "$a", "$.a[-1]", "$[999999999999]"}) {
    auto path = ParseJsonPath(bad);
    ASSERT_FALSE(path.ok()) << bad;
    EXPECT_EQ(path.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(path.status().message().find("invalid JSON path"), std::string::npos) << path.status().message();
  }
  EXPECT_NE(ParseJsonPath("$.a[").status().message().find("\"$.a[\""), std::string::npos);
  std::string deep = "$";
  for (int i = 0; i < 1000; i++) deep += ".a";
  EXPECT_FALSE(ParseJsonPath(deep).ok());
}

TEST(JsonPathsPropertyTest, Parses) {
  auto paths = ParseJsonPathsProperty(R"(["$.a", "$.b.c", "$[\"x y\"]"])");
  ASSERT_TRUE(paths.ok()) << paths.status().message();
  EXPECT_EQ(*paths, (std::vector<std::string>{"$.a", "$.b.c", "$[\"x y\"]"}));
  EXPECT_TRUE(ParseJsonPathsProperty("").value().empty());
  EXPECT_TRUE(ParseJsonPathsProperty("  ").value().empty());
  EXPECT_TRUE(ParseJsonPathsProperty("[]").value().empty());
}

TEST(JsonPathsPropertyTest, RejectsOtherJson) {
  for (std::string_view bad : {"$.a", "[\"$.a\"", "[1]", "{\"a\": 1}", "[\"$.a\"] x", "\"$.a\""}) {
    auto paths = ParseJsonPathsProperty(bad);
    EXPECT_FALSE(paths.ok()) << bad;
    EXPECT_EQ(paths.status().code(), StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace sluice::format
