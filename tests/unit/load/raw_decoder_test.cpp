// The raw format of pipes: one row per message with READ_KAFKA's columns, as text.
#include "load/raw_decoder.h"

#include <gtest/gtest.h>

#include "catalog/pipe_definition.h"
#include "transform/compiler.h"

namespace sluice::load {
namespace {

std::vector<std::string> Columns() {
  std::vector<std::string> out;
  for (const auto& [name, type] : catalog::ReadKafkaColumns()) out.push_back(name);
  return out;
}

TEST(RawDecoderTest, ReadKafkaColumnsAsText) {
  auto decoder = MakeRawDecoder("orders");
  TextBatch batch(Columns());
  source::KafkaMessage m;
  m.partition = 3;
  m.offset = 42;
  m.timestamp_type = source::TimestampType::kCreateTime;
  m.key = "k1";
  m.payload = R"({"a":1})";
  // Millisecond times in the same second, the next second, and across a day, in and out of order.
  const std::vector<std::pair<int64_t, std::string>> times = {
      {1714557600000, "2024-05-01 10:00:00.000"}, {1714557600007, "2024-05-01 10:00:00.007"},
      {1714557600999, "2024-05-01 10:00:00.999"}, {1714557601050, "2024-05-01 10:00:01.050"},
      {1714557600123, "2024-05-01 10:00:00.123"}, {1714608000000, "2024-05-02 00:00:00.000"},
      {0, "1970-01-01 00:00:00.000"}};
  for (const auto& [ms, text] : times) {
    m.timestamp_ms = ms;
    ASSERT_TRUE(decoder->DecodeMessage(m, batch).ok());
  }
  m.timestamp_ms = -1;
  m.headers = {{"h", "1"}, {"h", "2"}, {"x", "y"}};
  m.key = std::nullopt;
  ASSERT_TRUE(decoder->DecodeMessage(m, batch).ok());
  ASSERT_EQ(batch.num_rows(), times.size() + 1);
  for (size_t r = 0; r < times.size(); r++) {
    EXPECT_EQ(batch.Field(3, r), times[r].second);
    EXPECT_EQ(batch.Field(5, r), "{}");
  }
  EXPECT_EQ(batch.Field(0, 0), "orders");
  EXPECT_EQ(batch.Field(1, 0), "3");
  EXPECT_EQ(batch.Field(2, 0), "42");
  EXPECT_EQ(batch.Field(4, 0), "CreateTime");
  EXPECT_EQ(batch.Field(6, 0), "k1");
  EXPECT_EQ(batch.Field(7, 0), R"({"a":1})");
  const size_t last = times.size();
  EXPECT_TRUE(batch.IsNull(3, last));
  EXPECT_EQ(batch.Field(5, last), R"({"h":"2","x":"y"})");  // a repeated name: the last value
  EXPECT_TRUE(batch.IsNull(6, last));
}

TEST(RawDecoderTest, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  auto decoder = MakeRawDecoder("t");
  TextBatch batch(Columns());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"plain ascii text, longer than eight bytes", "plain ascii text, longer than eight bytes"},
      {"caf\xC3\xA9 and \xE6\x97\xA5\xE6\x9C\xAC and \xF0\x9F\x98\x80", "caf\xC3\xA9 and \xE6\x97\xA5\xE6\x9C\xAC and \xF0\x9F\x98\x80"},
      {std::string("0123456789\0abc", 14), "0123456789\xEF\xBF\xBD" "abc"},  // NUL after the first 8 bytes
      {std::string("ab\0", 3), "ab\xEF\xBF\xBD"},
      {"01234567\xFF", "01234567\xEF\xBF\xBD"},
      {"0123456789ab\xC3", "0123456789ab\xEF\xBF\xBD"},  // a sequence cut short at the end
      {"", ""}};
  for (const auto& [in, expected] : cases) {
    source::KafkaMessage m;
    m.payload = in;
    ASSERT_TRUE(decoder->DecodeMessage(m, batch).ok());
    EXPECT_EQ(batch.Field(7, batch.num_rows() - 1), expected);
  }
}

// A pipe's SELECT names only some of READ_KAFKA's columns: the compiled transform says which, and the decoder
// writes only those (and value, an error row's text), fetching headers only when they are read.
TEST(RawDecoderTest, WritesOnlyTheColumnsTheSelectReads) {
  transform::TransformSpec spec;
  for (const auto& [name, type] : catalog::ReadKafkaColumns()) {
    spec.source_columns.push_back(name);
    spec.source_types.emplace_back(name, type);
  }
  spec.sources_are_inputs = true;
  spec.decoded_json_source = "value";
  spec.table = {{"a", "VARCHAR", true}, {"o", "BIGINT", true}, {"n", "BIGINT", true}};
  spec.derived = {{"a", "PARSE_JSON(value::STRING)['a']::STRING"},
                  {"o", "OFFSET + 1"},
                  {"n", "array_length(array_filter(x -> x > 0, [1, 2]))"}};  // `x` is a lambda's, no column
  spec.where = "Key IS NULL";
  auto compiled = transform::Compile(spec);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  // topic, partition, offset, timestamp, timestamp_type, headers, key, value
  EXPECT_EQ(compiled->reads_source, (std::vector<bool>{false, false, true, false, false, false, true, true}));

  auto decoder = MakeRawDecoder("t", compiled->decoded_json_pointers, compiled->reads_source);
  ASSERT_TRUE(decoder.ok());
  EXPECT_FALSE((*decoder)->wants_headers());
  std::vector<std::string> columns = Columns();
  columns.push_back(transform::DecodedJsonColumn(0));
  TextBatch batch(columns);
  source::KafkaMessage m;
  m.partition = 3;
  m.offset = 42;
  m.timestamp_ms = 1714557600000;
  m.key = "k1";
  m.payload = R"({"a":"x"})";
  ASSERT_TRUE((*decoder)->DecodeMessage(m, batch).ok());
  for (size_t c : {0, 1, 3, 4, 5}) EXPECT_TRUE(batch.IsNull(c, 0)) << columns[c];
  EXPECT_EQ(batch.Field(2, 0), "42");
  EXPECT_EQ(batch.Field(6, 0), "k1");
  EXPECT_EQ(batch.Field(7, 0), R"({"a":"x"})");
  EXPECT_EQ(batch.Field(8, 0), "x");

  spec.derived = {{"a", "headers"}};
  spec.where.reset();
  spec.table = {{"a", "VARCHAR", true}};
  compiled = transform::Compile(spec);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  decoder = MakeRawDecoder("t", compiled->decoded_json_pointers, compiled->reads_source);
  ASSERT_TRUE(decoder.ok());
  EXPECT_TRUE((*decoder)->wants_headers());
}

}  // namespace
}  // namespace sluice::load
