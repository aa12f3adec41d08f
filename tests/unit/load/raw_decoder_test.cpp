// The raw format of pipes: one row per message with READ_KAFKA's columns, as text.
#include "load/raw_decoder.h"

#include <gtest/gtest.h>

#include "catalog/pipe_definition.h"

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

}  // namespace
}  // namespace sluice::load
