#include "format/avro_decoder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <map>
#include <string>

#include "batch_rows.h"

namespace sluice::format {
namespace {

using std::nullopt;
using testing::Row;
using testing::Rows;

// A minimal Avro binary writer, independent of avro-c, so the tests check the decoder against the specification.
class Body {
 public:
  Body& Long(int64_t v) {
    uint64_t n = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    while (n & ~uint64_t{0x7f}) {
      bytes_ += static_cast<char>((n & 0x7f) | 0x80);
      n >>= 7;
    }
    bytes_ += static_cast<char>(n);
    return *this;
  }
  Body& Bool(bool b) { bytes_ += static_cast<char>(b ? 1 : 0); return *this; }
  Body& Str(std::string_view s) { Long(static_cast<int64_t>(s.size())); bytes_ += s; return *this; }
  Body& Raw(std::string_view s) { bytes_ += s; return *this; }
  Body& Float(float f) { char b[4]; std::memcpy(b, &f, 4); bytes_.append(b, 4); return *this; }
  Body& Double(double d) { char b[8]; std::memcpy(b, &d, 8); bytes_.append(b, 8); return *this; }
  // The Confluent frame: 0x00, the schema id big-endian, the body.
  std::string Framed(int32_t id) const {
    std::string m(1, '\0');
    for (int shift = 24; shift >= 0; shift -= 8) m += static_cast<char>((static_cast<uint32_t>(id) >> shift) & 0xff);
    return m + bytes_;
  }

 private:
  std::string bytes_;
};

const char* kSensor = R"({"type": "record", "name": "sensor_log", "fields": [
  {"name": "id", "type": "long"}, {"name": "name", "type": "string"}, {"name": "checked", "type": "boolean"},
  {"name": "data", "type": "double"},
  {"name": "sensor_type", "type": {"type": "enum", "name": "sensor_type_enum",
                                   "symbols": ["TEMPERATURE", "HUMIDITY", "AIR-PRESSURE"]}}]})";

const char* kAllTypes = R"({"type": "record", "name": "all", "fields": [
  {"name": "n", "type": "null"}, {"name": "i", "type": "int"}, {"name": "f", "type": "float"},
  {"name": "b", "type": "bytes"}, {"name": "fx", "type": {"type": "fixed", "name": "f3", "size": 3}},
  {"name": "rec", "type": {"type": "record", "name": "inner", "fields": [
     {"name": "x", "type": "int"}, {"name": "s", "type": "string"}, {"name": "raw", "type": "bytes"}]}},
  {"name": "arr", "type": {"type": "array", "items": "long"}},
  {"name": "m", "type": {"type": "map", "values": ["null", "double"]}},
  {"name": "opt", "type": ["null", "string"]},
  {"name": "opt2", "type": ["int", "null"]},
  {"name": "multi", "type": ["null", "int", "string", "inner"]}]})";

std::map<int32_t, std::string> registry;

AvroDecoder MakeDecoder(std::vector<std::string> columns, std::vector<std::string> jsonpaths = {}) {
  AvroOptions o;
  o.columns = std::move(columns);
  o.jsonpaths = std::move(jsonpaths);
  o.schema_lookup = [](int32_t id) -> Result<std::string> {
    if (id == 99) return Status::Unavailable("could not reach the schema registry http://127.0.0.1:1");
    auto it = registry.find(id);
    if (it == registry.end()) return Status::NotFound("schema id " + std::to_string(id) + " is not in the registry");
    return it->second;
  };
  auto decoder = AvroDecoder::Create(std::move(o));
  EXPECT_TRUE(decoder.ok()) << decoder.status().message();
  return std::move(decoder).value();
}

class AvroDecoderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry = {{1, kSensor}, {2, kAllTypes}, {3, R"("string")"}, {4, "{not json"},
                {5, R"({"type": "record", "name": "sensor_log", "fields": [
                      {"name": "id", "type": "long"}, {"name": "name", "type": "string"}]})"},
                {6, R"({"type": "record", "name": "nulls", "fields": [{"name": "a", "type": {"type": "array", "items": "null"}}]})"},
                {7, R"({"type": "record", "name": "Node", "fields": [{"name": "next", "type": ["null", "Node"]}]})"}};
  }
};

Body AllTypesBody() {
  Body b;
  b.Float(1.5f).Str(std::string("\x00\xff", 2)).Raw("abc");
  b.Long(-7).Str("q\"t").Str(std::string("\x01\x80", 2));               // rec
  b.Long(2).Long(10).Long(-20).Long(0);                                  // arr: one block of 2, end
  b.Long(-2).Long(0).Str("k1").Long(1).Double(2.25).Str("k2").Long(0).Long(0);  // m: block of 2 with byte size
  b.Long(1).Str("hello");                                                // opt: string branch
  b.Long(1);                                                             // opt2: null branch
  b.Long(2).Str("two");                                                  // multi: string branch
  return b;
}

TEST_F(AvroDecoderTest, SensorLogByName) {
  AvroDecoder d = MakeDecoder({"id", "name", "checked", "data", "sensor_type"});
  TextBatch batch(d.options().columns);
  Body b;
  b.Long(1234567890123LL).Str("sensor-1").Bool(true).Double(21.5).Long(2);
  ASSERT_TRUE(d.Decode(b.Framed(1), {3, 17}, batch).ok());
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"1234567890123", "sensor-1", "true", "21.5", "AIR-PRESSURE"}}));
  EXPECT_EQ(batch.origin(0).partition, 3);
  EXPECT_EQ(batch.origin(0).offset, 17);
  EXPECT_TRUE(batch.rejected().empty());
}

// A column that loads into a JSON column keeps a string a JSON string: "5" must not become the number 5.
TEST_F(AvroDecoderTest, JsonColumnsGetJsonText) {
  AvroOptions o;
  o.columns = {"id", "name", "checked", "data", "sensor_type"};
  o.json_text_columns = {true, true, true, true, true};
  o.schema_lookup = [](int32_t id) -> Result<std::string> { return registry.at(id); };
  auto d = AvroDecoder::Create(std::move(o));
  ASSERT_TRUE(d.ok()) << d.status().message();
  TextBatch batch(d->options().columns);
  Body b;
  b.Long(5).Str("5").Bool(false).Double(0.5).Long(0);
  ASSERT_TRUE(d->Decode(b.Framed(1), {0, 1}, batch).ok());
  Body quoted;
  quoted.Long(-1).Str("say \"null\"").Bool(true).Double(2).Long(1);
  ASSERT_TRUE(d->Decode(quoted.Framed(1), {0, 2}, batch).ok());
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"5", "\"5\"", "false", "0.5", "\"TEMPERATURE\""},
                                           {"-1", "\"say \\\"null\\\"\"", "true", "2", "\"HUMIDITY\""}}));
}

TEST_F(AvroDecoderTest, ColumnsAfterTheDecodedOnesStayNull) {
  AvroDecoder d = MakeDecoder({"id", "name"});
  TextBatch batch({"id", "name", "m_offset"});
  Body b;
  b.Long(7).Str("s").Bool(false).Double(0).Long(0);
  ASSERT_TRUE(d.Decode(b.Framed(1), {0, 5}, batch).ok());
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"7", "s", nullopt}}));
}

TEST_F(AvroDecoderTest, AllTypes) {
  AvroDecoder d = MakeDecoder({"n", "I", "f", "b", "fx", "rec", "arr", "m", "opt", "opt2", "multi", "absent"});
  TextBatch batch(d.options().columns);
  Body b;
  b.Long(123);  // i
  b.Raw(AllTypesBody().Framed(0).substr(5));
  ASSERT_TRUE(d.Decode(b.Framed(2), {0, 0}, batch).ok());
  ASSERT_TRUE(batch.rejected().empty()) << batch.rejected()[0].reason;
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{nullopt, "123", "1.5", std::string("\x00\xff", 2), "abc",
                                            R"({"x":-7,"s":"q\"t","raw":"\u0001\u0080"})", "[10,-20]",
                                            R"({"k1":2.25,"k2":null})", "hello", nullopt, R"("two")", nullopt}}));
}

TEST_F(AvroDecoderTest, JsonPathsIntoRecordsArraysAndMaps) {
  AvroDecoder d = MakeDecoder({"x", "s", "second", "k1", "missing", "whole"},
                              {"$.rec.x", "$.rec.s", "$.arr[1]", "$.m.k1", "$.rec.nope", "$.multi"});
  TextBatch batch(d.options().columns);
  Body b;
  b.Long(1).Raw(AllTypesBody().Framed(0).substr(5));
  ASSERT_TRUE(d.Decode(b.Framed(2), {0, 0}, batch).ok());
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"-7", "q\"t", "-20", "2.25", nullopt, R"("two")"}}));
}

TEST_F(AvroDecoderTest, TwoSchemaVersionsInOneStream) {
  AvroDecoder d = MakeDecoder({"id", "name", "data"});
  TextBatch batch(d.options().columns);
  Body old_version, new_version;
  old_version.Long(1).Str("a");
  new_version.Long(2).Str("b").Bool(false).Double(-0.25).Long(0);
  ASSERT_TRUE(d.Decode(old_version.Framed(5), {0, 0}, batch).ok());
  ASSERT_TRUE(d.Decode(new_version.Framed(1), {0, 1}, batch).ok());
  ASSERT_TRUE(d.Decode(old_version.Framed(5), {0, 2}, batch).ok());
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"1", "a", nullopt}, {"2", "b", "-0.25"}, {"1", "a", nullopt}}));
}

TEST_F(AvroDecoderTest, NonRecordNeedsJsonPaths) {
  Body b;
  b.Str("just a string");
  AvroDecoder by_name = MakeDecoder({"v"});
  TextBatch batch(by_name.options().columns);
  ASSERT_TRUE(by_name.Decode(b.Framed(3), {0, 4}, batch).ok());
  ASSERT_EQ(batch.rejected().size(), 1u);
  EXPECT_NE(batch.rejected()[0].reason.find("schema id 3 is a string, not a record"), std::string::npos)
      << batch.rejected()[0].reason;
  AvroDecoder by_path = MakeDecoder({"v"}, {"$"});
  TextBatch batch2(by_path.options().columns);
  ASSERT_TRUE(by_path.Decode(b.Framed(3), {0, 4}, batch2).ok());
  EXPECT_EQ(Rows(batch2), (std::vector<Row>{{"just a string"}}));
}

TEST_F(AvroDecoderTest, BadMessagesAreErrorRows) {
  AvroDecoder d = MakeDecoder({"id", "name", "checked", "data", "sensor_type"});
  TextBatch batch(d.options().columns);
  Body good;
  good.Long(1).Str("x").Bool(false).Double(1).Long(0);
  const std::string framed = good.Framed(1);
  Body negative_length, bad_enum, bad_bool;
  negative_length.Long(1).Long(-1);
  bad_enum.Long(1).Str("x").Bool(false).Double(1).Long(3);
  bad_bool.Long(1).Str("x").Raw("\x02");
  struct Case {
    std::string message;
    std::string reason;
  } cases[] = {
      {"{\"id\": 1}", "not in the Confluent wire format (a 0x00 byte, a 4-byte schema id and the Avro body): the first byte is 0x7b"},
      {std::string("\0\0\0", 3), "not in the Confluent wire format (a 0x00 byte, a 4-byte schema id and the Avro body): the message has only 3 bytes"},
      {good.Framed(42), "schema id 42 is not in the registry"},
      {good.Framed(4), "schema id 4 from the registry is not a valid Avro schema"},
      {framed.substr(0, framed.size() - 3), "the Avro body (schema id 1) does not decode: a double of 8 bytes runs past the end of the body at byte 4"},
      {framed + "zz", "the Avro body (schema id 1) does not decode: 2 bytes are left over after the datum"},
      {negative_length.Framed(1), "the Avro body (schema id 1) does not decode: the length of a string is negative (-1) at byte 2"},
      {bad_enum.Framed(1), "enum index 3 is not one of the 3 symbols of sensor_type_enum"},
      {bad_bool.Framed(1), "a boolean byte is 0x02, not 0 or 1"},
  };
  int64_t offset = 0;
  for (const Case& c : cases) {
    ASSERT_TRUE(d.Decode(c.message, {1, offset++}, batch).ok());
  }
  ASSERT_TRUE(d.Decode(framed, {1, offset++}, batch).ok());
  EXPECT_EQ(batch.num_rows(), 1u);
  EXPECT_EQ(batch.origin(0).offset, offset - 1);
  ASSERT_EQ(batch.rejected().size(), std::size(cases));
  for (size_t i = 0; i < std::size(cases); i++) {
    EXPECT_NE(batch.rejected()[i].reason.find(cases[i].reason), std::string::npos)
        << "case " << i << ": " << batch.rejected()[i].reason;
    EXPECT_EQ(batch.rejected()[i].origin.offset, static_cast<int64_t>(i));
    EXPECT_EQ(batch.rejected()[i].raw, cases[i].message);
  }
}

// A record of primitive fields is read by a fast path of its own (avro_flat_record.h); jsonpaths go through
// avro-c's generic reader. Both must give the same rows, and the same reasons for bodies that do not decode.
TEST_F(AvroDecoderTest, FlatRecordsDecodeAsTheGeneralPathDoes) {
  registry[8] = R"({"type": "record", "name": "flat", "fields": [
    {"name": "n", "type": "null"}, {"name": "b", "type": "boolean"}, {"name": "i", "type": "int"},
    {"name": "l", "type": "long"}, {"name": "f", "type": "float"}, {"name": "d", "type": "double"},
    {"name": "s", "type": "string"}, {"name": "y", "type": "bytes"},
    {"name": "x", "type": {"type": "fixed", "name": "f2", "size": 2}},
    {"name": "e", "type": {"type": "enum", "name": "color", "symbols": ["RED", "GREEN"]}},
    {"name": "os", "type": ["null", "string"]}, {"name": "od", "type": ["double", "null"]},
    {"name": "ob", "type": ["null", "boolean"]}]})";
  const std::vector<std::string> names = {"n", "b", "i", "l", "f", "d", "s", "y", "x", "e", "os", "od", "ob"};
  std::vector<std::string> paths;
  for (const std::string& n : names) paths.push_back("$." + n);
  AvroDecoder fast = MakeDecoder(names);
  AvroDecoder general = MakeDecoder(names, paths);
  TextBatch fast_batch(names), general_batch(names);
  const double doubles[] = {0.0, -0.0, 1.5, -2.25e300, 5e-324, 0.1, std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::quiet_NaN(), 123456789.125};
  const float floats[] = {0.0f, 3.25f, -1e30f, 1e-45f, 0.1f, std::numeric_limits<float>::infinity()};
  const int64_t longs[] = {0, 1, -1, INT64_MAX, INT64_MIN, 1234567890123LL, INT32_MAX + 1LL};
  const std::string strings[] = {"", "a", "héllo", std::string("nul\0in", 7), "twelve bytes", "a longer string value"};
  uint64_t seed = 12345;
  auto next = [&seed](uint64_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 33) % n;
  };
  int64_t offset = 0;
  for (int k = 0; k < 2000; k++) {
    Body b;
    b.Bool(next(2));
    b.Long(next(3) == 0 ? (next(2) ? INT32_MIN : INT32_MAX) : static_cast<int64_t>(next(1000)) - 500);
    b.Long(longs[next(std::size(longs))]);
    b.Float(floats[next(std::size(floats))]).Double(doubles[next(std::size(doubles))]);
    b.Str(strings[next(std::size(strings))]).Str(strings[next(std::size(strings))]).Raw(next(2) ? "ab" : std::string("\0\xff", 2));
    b.Long(static_cast<int64_t>(next(2)));
    if (next(2)) b.Long(0); else b.Long(1).Str(strings[next(std::size(strings))]);
    if (next(2)) b.Long(1); else b.Long(0).Double(doubles[next(std::size(doubles))]);
    if (next(2)) b.Long(0); else b.Long(1).Bool(next(2));
    std::string m = b.Framed(8);
    switch (next(8)) {  // some bodies broken: cut short, a byte changed, a byte added
      case 0: m.resize(5 + next(m.size() - 5)); break;
      case 1: m[5 + next(m.size() - 5)] = static_cast<char>(next(256)); break;
      case 2: m += static_cast<char>(next(256)); break;
      default: break;
    }
    ASSERT_TRUE(fast.Decode(m, {0, offset}, fast_batch).ok());
    ASSERT_TRUE(general.Decode(m, {0, offset}, general_batch).ok());
    offset++;
  }
  EXPECT_GT(fast_batch.num_rows(), 1000u);
  EXPECT_GT(fast_batch.rejected().size(), 50u);
  EXPECT_EQ(Rows(fast_batch), Rows(general_batch));
  ASSERT_EQ(fast_batch.rejected().size(), general_batch.rejected().size());
  for (size_t i = 0; i < fast_batch.rejected().size(); i++) {
    EXPECT_EQ(fast_batch.rejected()[i].reason, general_batch.rejected()[i].reason);
    EXPECT_EQ(fast_batch.rejected()[i].origin.offset, general_batch.rejected()[i].origin.offset);
  }
  for (size_t r = 0; r < fast_batch.num_rows(); r++)
    EXPECT_EQ(fast_batch.origin(r).offset, general_batch.origin(r).offset);
}

TEST_F(AvroDecoderTest, CountsAndDepthAreBounded) {
  AvroDecoder d = MakeDecoder({"a"});
  TextBatch batch(d.options().columns);
  Body nulls;
  nulls.Long(int64_t{1} << 40).Long(0);  // 2^40 nulls take no bytes: refused, not looped over
  ASSERT_TRUE(d.Decode(nulls.Framed(6), {0, 0}, batch).ok());
  Body few_nulls;
  few_nulls.Long(3).Long(0);
  ASSERT_TRUE(d.Decode(few_nulls.Framed(6), {0, 1}, batch).ok());
  AvroDecoder deep = MakeDecoder({"next"});
  Body chain;
  for (int i = 0; i < 1000; i++) chain.Long(1);
  chain.Long(0);
  ASSERT_TRUE(deep.Decode(chain.Framed(7), {0, 2}, batch).ok());
  ASSERT_EQ(batch.rejected().size(), 2u);
  EXPECT_NE(batch.rejected()[0].reason.find("more than 4194304 array and map elements"), std::string::npos)
      << batch.rejected()[0].reason;
  EXPECT_NE(batch.rejected()[1].reason.find("nests deeper than 128 levels"), std::string::npos)
      << batch.rejected()[1].reason;
  EXPECT_EQ(Rows(batch), (std::vector<Row>{{"[null,null,null]"}}));
}

TEST_F(AvroDecoderTest, UnreachableRegistryIsAnErrorNotARow) {
  AvroDecoder d = MakeDecoder({"id"});
  TextBatch batch(d.options().columns);
  Body b;
  b.Long(1);
  Status st = d.Decode(b.Framed(99), {0, 0}, batch);
  EXPECT_EQ(st.code(), StatusCode::kUnavailable);
  EXPECT_EQ(batch.num_rows(), 0u);
  EXPECT_TRUE(batch.rejected().empty());
}

TEST_F(AvroDecoderTest, CreateChecksOptions) {
  AvroOptions o;
  o.columns = {"a", "b"};
  o.jsonpaths = {"$.a"};
  o.schema_lookup = [](int32_t) -> Result<std::string> { return Status::NotFound("x"); };
  EXPECT_FALSE(AvroDecoder::Create(o).ok());
  o.jsonpaths = {"$.a", "$.b["};
  EXPECT_FALSE(AvroDecoder::Create(o).ok());
  o.jsonpaths = {};
  o.columns = {"a", "a"};
  EXPECT_FALSE(AvroDecoder::Create(o).ok());
}

}  // namespace
}  // namespace sluice::format
