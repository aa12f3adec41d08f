#include "format/json_decoder.h"

#include <gtest/gtest.h>

#include <string>

#include "batch_rows.h"

namespace sluice::format {
namespace {

using testing::Row;
using testing::Rows;
using std::nullopt;

JsonDecoder MakeDecoder(JsonOptions options) {
  auto decoder = JsonDecoder::Create(std::move(options));
  EXPECT_TRUE(decoder.ok()) << decoder.status().message();
  return std::move(decoder).value();
}

TextBatch DecodeOne(JsonOptions options, std::string_view message, RowOrigin origin = {0, 0}) {
  TextBatch batch(options.columns);
  MakeDecoder(options).Decode(message, origin, batch);
  return batch;
}

JsonOptions Columns(std::vector<std::string> columns) {
  JsonOptions o;
  o.columns = std::move(columns);
  return o;
}

const std::vector<std::string> kOrderColumns = {"commodity_id", "customer_name", "country", "pay_time", "price"};

TEST(JsonDecoderTest, ReferenceOrdersByName) {
  TextBatch batch = DecodeOne(Columns(kOrderColumns),
                              R"({"commodity_id": "1", "customer_name": "Mark Twain", "country": "US",)"
                              R"("pay_time": 1589191487,"price": 875})",
                              {2, 99});
  ASSERT_TRUE(batch.rejected().empty()) << batch.rejected()[0].reason;
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"1", "Mark Twain", "US", "1589191487", "875"}}));
  EXPECT_EQ(batch.origin(0).partition, 2);
  EXPECT_EQ(batch.origin(0).offset, 99);
}

TEST(JsonDecoderTest, KeysInAnyOrderMissingKeysAreNullExtraKeysIgnored) {
  TextBatch batch = DecodeOne(Columns({"a", "b", "c"}), R"({"c": 3, "zzz": {"deep": [1, 2]}, "a": "x"})");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"x", nullopt, "3"}}));
}

TEST(JsonDecoderTest, ValueKinds) {
  TextBatch batch = DecodeOne(
      Columns({"s", "i", "f", "big", "t", "f2", "n", "obj", "arr", "e"}),
      R"({"s":"text","i":-12,"f":1.50e+3,"big":123456789012345678901234567890,"t":true,"f2":false,"n":null,)"
      R"("obj":{"k": [1, {"x": null}]},"arr":[ 1, "two" ],"e":""})");
  ASSERT_TRUE(batch.rejected().empty()) << batch.rejected()[0].reason;
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"text", "-12", "1.50e+3", "123456789012345678901234567890", "true",
                                            "false", nullopt, R"({"k": [1, {"x": null}]})", R"([ 1, "two" ])",
                                            ""}}));
}

TEST(JsonDecoderTest, NestedTextHasNoSurroundingBlanks) {
  TextBatch batch = DecodeOne(Columns({"obj", "arr"}), "{\"obj\": {\"k\": 1}  \n, \"arr\": [1, [2]]\t}  ");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{R"({"k": 1})", "[1, [2]]"}}));

  JsonOptions whole = Columns({"all", "first"});
  whole.jsonpaths = {"$", "$[0]"};
  EXPECT_EQ(Rows(DecodeOne(whole, "  [1, {\"a\": 2}]  ")), (std::vector<Row>{{R"([1, {"a": 2}])", "1"}}));
  whole.jsonpaths = {"$", "$.a"};
  EXPECT_EQ(Rows(DecodeOne(whole, "\n[1]\n")), (std::vector<Row>{{"[1]", nullopt}}));
}

TEST(JsonDecoderTest, UnicodeAndEscapes) {
  TextBatch batch = DecodeOne(Columns({"name", "q", "emoji"}),
                              R"({"name":"Jos\u00e9 G\u00f6del","q":"a\"b\\c\nd\/e","emoji":"\ud83d\ude00 ok"})");
  ASSERT_TRUE(batch.rejected().empty()) << batch.rejected()[0].reason;
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"José Gödel", "a\"b\\c\nd/e", "\xF0\x9F\x98\x80 ok"}}));
}

TEST(JsonDecoderTest, EscapedKeysMatchColumns) {
  TextBatch batch = DecodeOne(Columns({"né", "a\"b"}), R"({"n\u00e9": 1, "a\"b": 2})");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"1", "2"}}));
}

TEST(JsonDecoderTest, CaseInsensitiveMatchOnlyWithoutExactKey) {
  TextBatch batch = DecodeOne(Columns({"name", "Country"}),
                              R"({"NAME": "upper", "name": "exact", "COUNTRY": "us", "country": "lower"})");
  // "name" has an exact key; "Country" has none, so the first case-insensitive key wins.
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"exact", "us"}}));

  TextBatch exact_first = DecodeOne(Columns({"name"}), R"({"name": "exact", "Name": "other"})");
  EXPECT_EQ(Rows(exact_first), (std::vector<Row>{{"exact"}}));
}

TEST(JsonDecoderTest, RepeatedKeyFirstWins) {
  TextBatch batch = DecodeOne(Columns({"a"}), R"({"a": 1, "a": 2})");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"1"}}));
}

TEST(JsonDecoderTest, JsonPaths) {
  JsonOptions o = Columns({"id", "city", "first_tag", "spaced", "whole_user"});
  o.jsonpaths = {"$.id", "$.user.address.city", "$.tags[0]", "$[\"a b\"]", "$.user"};
  TextBatch batch = DecodeOne(
      o, R"({"tags": ["t0", "t1"], "id": 7, "user": {"name": "Ann", "address": {"city": "Oslo"}}, "a b": true})");
  ASSERT_TRUE(batch.rejected().empty()) << batch.rejected()[0].reason;
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"7", "Oslo", "t0", "true",
                                            R"({"name": "Ann", "address": {"city": "Oslo"}})"}}));
}

TEST(JsonDecoderTest, JsonPathsMissingAndMismatchedAreNull) {
  JsonOptions o = Columns({"a", "b", "c"});
  o.jsonpaths = {"$.missing", "$.s.x", "$.arr[5]"};
  TextBatch batch = DecodeOne(o, R"({"s": "scalar", "arr": [1]})");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{nullopt, nullopt, nullopt}}));
}

TEST(JsonDecoderTest, JsonPathsAreCaseSensitive) {
  JsonOptions o = Columns({"a"});
  o.jsonpaths = {"$.Name"};
  TextBatch batch = DecodeOne(o, R"({"name": 1})");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{nullopt}}));
}

TEST(JsonDecoderTest, JsonPathsParentAndChild) {
  JsonOptions o = Columns({"obj", "inner", "root", "arr", "elem"});
  o.jsonpaths = {"$.a", "$.a.b", "$", "$.l", "$.l[1]"};
  const std::string message = R"({"a": {"b": [1, 2], "c": "x"} , "l": [10, 20, 30]})";
  TextBatch batch = DecodeOne(o, message);
  ASSERT_TRUE(batch.rejected().empty()) << batch.rejected()[0].reason;
  EXPECT_EQ(Rows(batch),
            (std::vector<Row>{{R"({"b": [1, 2], "c": "x"})", "[1, 2]", message, "[10, 20, 30]", "20"}}));
}

TEST(JsonDecoderTest, JsonPathsAddressAnArrayWithoutStrip) {
  JsonOptions o = Columns({"first", "second"});
  o.jsonpaths = {"$[0]", "$[1].k"};
  TextBatch batch = DecodeOne(o, R"([1, {"k": "v"}])");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"1", "v"}}));
}

TEST(JsonDecoderTest, JsonPathRootOfAScalarDocument) {
  JsonOptions o = Columns({"all", "other"});
  o.jsonpaths = {"$", "$.x"};
  EXPECT_EQ(Rows(DecodeOne(o, " 42 ")), (std::vector<Row>{{"42", nullopt}}));
  EXPECT_EQ(Rows(DecodeOne(o, R"("str")")), (std::vector<Row>{{"str", nullopt}}));
  TextBatch trailing = DecodeOne(o, "42 43");
  EXPECT_EQ(trailing.num_rows(), 0u);
  ASSERT_EQ(trailing.rejected().size(), 1u);
}

TEST(JsonDecoderTest, JsonRoot) {
  JsonOptions o = Columns({"id", "name"});
  o.json_root = "$.data.items[1]";
  TextBatch batch = DecodeOne(o, R"({"meta": 1, "data": {"items": [{"id": 1}, {"id": 2, "name": "two"}]}, "z": 0})");
  ASSERT_TRUE(batch.rejected().empty()) << batch.rejected()[0].reason;
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"2", "two"}}));
}

TEST(JsonDecoderTest, JsonRootMissingIsRejected) {
  JsonOptions o = Columns({"id"});
  o.json_root = "$.data";
  TextBatch batch = DecodeOne(o, R"({"other": {"id": 1}})", {0, 5});
  EXPECT_EQ(batch.num_rows(), 0u);
  ASSERT_EQ(batch.rejected().size(), 1u);
  EXPECT_EQ(batch.rejected()[0].reason, "json_root \"$.data\" not found in the message");
  EXPECT_EQ(batch.rejected()[0].raw, R"({"other": {"id": 1}})");
  EXPECT_EQ(batch.rejected()[0].origin.offset, 5);
}

TEST(JsonDecoderTest, JsonRootThatIsNotAnObjectIsRejected) {
  JsonOptions o = Columns({"id"});
  o.json_root = "$.data";
  TextBatch batch = DecodeOne(o, R"({"data": 5})");
  EXPECT_EQ(batch.num_rows(), 0u);
  ASSERT_EQ(batch.rejected().size(), 1u);
  EXPECT_EQ(batch.rejected()[0].reason, "expected a JSON object, got a number");
  EXPECT_EQ(batch.rejected()[0].raw, R"({"data": 5})");

  o.json_root = "$.list";
  TextBatch array = DecodeOne(o, R"({"list": [{"id": 1}]})");
  ASSERT_EQ(array.rejected().size(), 1u);
  EXPECT_EQ(array.rejected()[0].reason,
            "the json_root element is a JSON array; set strip_outer_array = true to load its elements");
}

TEST(JsonDecoderTest, JsonRootWithStripOuterArray) {
  JsonOptions o = Columns({"k"});
  o.json_root = "$.RECORDS";
  o.strip_outer_array = true;
  TextBatch batch = DecodeOne(o, R"({"RECORDS": [{"k": 1}, {"k": 2}]})");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"1"}, {"2"}}));
}

TEST(JsonDecoderTest, StripOuterArray) {
  JsonOptions o = Columns(kOrderColumns);
  o.strip_outer_array = true;
  TextBatch batch = DecodeOne(o,
                              R"([{"commodity_id": "1", "customer_name": "Mark Twain", "country": "US",)"
                              R"("pay_time": 1589191487, "price": 875},)"
                              R"({"commodity_id": "2", "customer_name": "Oscar Wilde", "country": "UK",)"
                              R"("pay_time": 1589191487, "price": 895}])");
  ASSERT_TRUE(batch.rejected().empty()) << batch.rejected()[0].reason;
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"1", "Mark Twain", "US", "1589191487", "875"},
                                           {"2", "Oscar Wilde", "UK", "1589191487", "895"}}));
  EXPECT_EQ(DecodeOne(o, "[]").num_rows(), 0u);
}

TEST(JsonDecoderTest, StripOuterArrayRejectsNonObjectElementsAlone) {
  JsonOptions o = Columns({"a"});
  o.strip_outer_array = true;
  TextBatch batch = DecodeOne(o, R"([{"a": 1}, 5, [2, 3], {"a": 4}])");
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"1"}, {"4"}}));
  ASSERT_EQ(batch.rejected().size(), 2u);
  EXPECT_EQ(batch.rejected()[0].reason, "expected a JSON object, got a number");
  EXPECT_EQ(batch.rejected()[0].raw, "5");
  EXPECT_EQ(batch.rejected()[1].reason, "expected a JSON object, got an array");
  EXPECT_EQ(batch.rejected()[1].raw, "[2, 3]");
}

TEST(JsonDecoderTest, StripOuterArrayOnAnObjectIsRejected) {
  JsonOptions o = Columns({"a"});
  o.strip_outer_array = true;
  TextBatch batch = DecodeOne(o, R"({"a": 1})");
  EXPECT_EQ(batch.num_rows(), 0u);
  ASSERT_EQ(batch.rejected().size(), 1u);
  EXPECT_EQ(batch.rejected()[0].reason, "strip_outer_array is true, but the message is an object, not a JSON array");
}

TEST(JsonDecoderTest, ArrayWithoutStripOuterArrayIsRejected) {
  TextBatch batch = DecodeOne(Columns({"a"}), R"([{"a": 1}])");
  EXPECT_EQ(batch.num_rows(), 0u);
  ASSERT_EQ(batch.rejected().size(), 1u);
  EXPECT_EQ(batch.rejected()[0].reason,
            "the message is a JSON array; set strip_outer_array = true to load its elements");
  EXPECT_EQ(batch.rejected()[0].raw, R"([{"a": 1}])");
}

TEST(JsonDecoderTest, ScalarMessageIsRejected) {
  TextBatch batch = DecodeOne(Columns({"a"}), "\"just a string\"");
  ASSERT_EQ(batch.rejected().size(), 1u);
  EXPECT_EQ(batch.rejected()[0].reason, "expected a JSON object, got a string");
}

TEST(JsonDecoderTest, MalformedJsonIsRejectedWithTheParsersMessage) {
  const std::vector<std::string> bad = {
      R"({"a": 1)",          R"({"a": 1,})",       R"({"a" 1})",         "",
      "not json",            R"({"a": tru})",      R"({"a": 01})",       R"({"a": "\x"})",
      R"({"a": 1} {"a": 2})", R"({"a": 1}})",      "{\"a\": \"\xff\"}",  R"({"a": "\ud800"})",
      R"({"b": [1, 2})",     R"({"a": 1.})",       R"({"a": -})",
  };
  for (const std::string& message : bad) {
    TextBatch batch = DecodeOne(Columns({"a"}), message, {4, 11});
    EXPECT_EQ(batch.num_rows(), 0u) << message;
    ASSERT_EQ(batch.rejected().size(), 1u) << message;
    EXPECT_EQ(batch.rejected()[0].reason.rfind("malformed JSON: ", 0), 0u) << batch.rejected()[0].reason;
    EXPECT_GT(batch.rejected()[0].reason.size(), std::string("malformed JSON: ").size());
    EXPECT_EQ(batch.rejected()[0].raw, message);
    EXPECT_EQ(batch.rejected()[0].origin.partition, 4);
  }
}

TEST(JsonDecoderTest, MalformedLaterElementRejectsTheWholeMessage) {
  JsonOptions o = Columns({"a"});
  o.strip_outer_array = true;
  TextBatch batch = DecodeOne(o, R"([{"a": 1}, {"a": 2}, {"a": ]])");
  EXPECT_EQ(batch.num_rows(), 0u);
  ASSERT_EQ(batch.rejected().size(), 1u);
}

TEST(JsonDecoderTest, ReusedAcrossMessages) {
  JsonDecoder decoder = MakeDecoder(Columns({"a", "b"}));
  TextBatch batch({"a", "b"});
  decoder.Decode(R"({"a": "first", "b": 1})", {0, 1}, batch);
  decoder.Decode(R"({oops)", {0, 2}, batch);
  decoder.Decode(R"({"b": "\u00e9", "a": "third"})", {0, 3}, batch);
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"first", "1"}, {"third", "é"}}));
  ASSERT_EQ(batch.rejected().size(), 1u);
  EXPECT_EQ(batch.rejected()[0].origin.offset, 2);
}

TEST(JsonDecoderTest, CreateValidates) {
  EXPECT_FALSE(JsonDecoder::Create(JsonOptions{}).ok());
  EXPECT_FALSE(JsonDecoder::Create(Columns({"a", "a"})).ok());

  JsonOptions count = Columns({"a", "b"});
  count.jsonpaths = {"$.a"};
  auto r = JsonDecoder::Create(count);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("1 path but there are 2 columns"), std::string::npos) << r.status().message();

  JsonOptions bad_path = Columns({"a"});
  bad_path.jsonpaths = {"$.a["};
  r = JsonDecoder::Create(bad_path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("\"$.a[\""), std::string::npos) << r.status().message();

  JsonOptions bad_root = Columns({"a"});
  bad_root.json_root = "data";
  r = JsonDecoder::Create(bad_root);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("json_root"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace sluice::format

namespace sluice::format {
namespace {

// A value nested deeper than 1024 levels (which DuckDB's JSON functions would later recurse through) rejects the
// message, wherever it sits: in a column loaded as JSON text or in a key no column asks for. Strings holding
// brackets do not count, and 1001 levels still load.
TEST(JsonDecoderNestingTest, DeepValuesRejectTheMessage) {
  const std::string deep = std::string(100000, '[') + "1" + std::string(100000, ']');
  for (const std::string& message : {R"({"a": 1, "doc": )" + deep + "}", R"({"a": 1, "skipped": )" + deep + "}"}) {
    TextBatch batch = DecodeOne(Columns({"a", "doc"}), message);
    EXPECT_EQ(batch.num_rows(), 0u);
    ASSERT_EQ(batch.rejected().size(), 1u);
    EXPECT_EQ(batch.rejected()[0].reason, "JSON nested more than 1024 levels deep");
  }
  const std::string in_string = R"({"a": 1, "doc": ")" + std::string(5000, '[') + R"("})";
  TextBatch text = DecodeOne(Columns({"a", "doc"}), in_string);
  EXPECT_TRUE(text.rejected().empty());
  EXPECT_EQ(text.num_rows(), 1u);
  const std::string ok = R"({"a": 1, "doc": )" + std::string(1000, '[') + std::string(1000, ']') + "}";
  TextBatch fine = DecodeOne(Columns({"a", "doc"}), ok);
  EXPECT_TRUE(fine.rejected().empty()) << fine.rejected()[0].reason;
  EXPECT_EQ(fine.num_rows(), 1u);
}

}  // namespace
}  // namespace sluice::format

namespace sluice::format {
namespace {

// A column loaded into a JSON column gets each value's JSON text: a string keeps its quotes and escapes, so "5"
// stays the string "5" (unescaped, its text would read as the number 5). Other columns get the unescaped text.
TEST(JsonDecoderTest, JsonTextColumnsKeepStringsQuoted) {
  JsonOptions by_name = Columns({"j", "s"});
  by_name.json_text_columns = {true, false};
  auto rows = [&](const JsonOptions& o, std::string_view message) { return Rows(DecodeOne(o, message)); };
  EXPECT_EQ(rows(by_name, R"({"j": "5", "s": "5"})"), (std::vector<Row>{{R"("5")", "5"}}));
  EXPECT_EQ(rows(by_name, R"({"j": "[1, 2]", "s": "[1, 2]"})"), (std::vector<Row>{{R"("[1, 2]")", "[1, 2]"}}));
  EXPECT_EQ(rows(by_name, R"({"j": "null", "s": "null"})"), (std::vector<Row>{{R"("null")", "null"}}));
  EXPECT_EQ(rows(by_name, R"({"j": "a \"q\" \u00e9", "s": "a \"q\" \u00e9"})"),
            (std::vector<Row>{{R"("a \"q\" \u00e9")", "a \"q\" \xC3\xA9"}}));
  EXPECT_EQ(rows(by_name, R"({"j": 5, "s": 5})"), (std::vector<Row>{{"5", "5"}}));
  EXPECT_EQ(rows(by_name, R"({"j": [1,2], "s": [1,2]})"), (std::vector<Row>{{"[1,2]", "[1,2]"}}));
  EXPECT_EQ(rows(by_name, R"({"j": {"a":1}, "s": true})"), (std::vector<Row>{{R"({"a":1})", "true"}}));
  EXPECT_EQ(rows(by_name, R"({"j": null, "s": null})"), (std::vector<Row>{{nullopt, nullopt}}));
  // One key read into two columns (exact and case-insensitive matches): each column gets its own form.
  JsonOptions both = Columns({"k", "K"});
  both.json_text_columns = {false, true};
  EXPECT_EQ(rows(both, R"({"k": "x"})"), (std::vector<Row>{{"x", R"("x")"}}));
  // Through jsonpaths, also when the path is the scalar document itself or a nested value.
  JsonOptions paths = Columns({"j", "s"});
  paths.jsonpaths = {"$.a.b", "$.a.b"};
  paths.json_text_columns = {true, false};
  EXPECT_EQ(rows(paths, R"({"a": {"b": "5"}})"), (std::vector<Row>{{R"("5")", "5"}}));
  JsonOptions root = Columns({"j"});
  root.jsonpaths = {"$"};
  root.json_text_columns = {true};
  EXPECT_EQ(rows(root, R"("text")"), (std::vector<Row>{{R"("text")"}}));
}

}  // namespace
}  // namespace sluice::format
