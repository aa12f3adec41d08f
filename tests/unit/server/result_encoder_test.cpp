#include "server/result_encoder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/protocol.h"
#include "server/wire.h"

namespace sluice::server {
namespace {

struct DecodedColumn {
  std::string name;
  std::string table;
  uint16_t charset;
  uint32_t length;
  uint8_t type;
  uint16_t flags;
  uint8_t decimals;
};

DecodedColumn Decode(std::string_view packet) {
  WireReader r(packet);
  DecodedColumn d{};
  EXPECT_EQ(*r.LenencString(), "def");
  EXPECT_TRUE(r.LenencString().ok());  // schema
  d.table = std::string(*r.LenencString());
  EXPECT_TRUE(r.LenencString().ok());  // org_table
  d.name = std::string(*r.LenencString());
  EXPECT_TRUE(r.LenencString().ok());  // org_name
  EXPECT_EQ(*r.LenencInt(), 0x0cu);
  d.charset = *r.U16();
  d.length = *r.U32();
  d.type = *r.U8();
  d.flags = *r.U16();
  d.decimals = *r.U8();
  EXPECT_EQ(*r.U16(), 0);
  return d;
}

TEST(ResultEncoderTest, TypeMapping) {
  struct Case {
    ValueType in;
    ColumnType out;
    uint16_t charset;
    bool is_unsigned;
  };
  const Case cases[] = {
      {ValueType::kBoolean, ColumnType::kTiny, 63, false},
      {ValueType::kTinyInt, ColumnType::kTiny, 63, false},
      {ValueType::kSmallInt, ColumnType::kShort, 63, false},
      {ValueType::kInteger, ColumnType::kLong, 63, false},
      {ValueType::kBigInt, ColumnType::kLongLong, 63, false},
      {ValueType::kHugeInt, ColumnType::kNewDecimal, 63, false},
      {ValueType::kUTinyInt, ColumnType::kTiny, 63, true},
      {ValueType::kUSmallInt, ColumnType::kShort, 63, true},
      {ValueType::kUInteger, ColumnType::kLong, 63, true},
      {ValueType::kUBigInt, ColumnType::kLongLong, 63, true},
      {ValueType::kFloat, ColumnType::kFloat, 63, false},
      {ValueType::kDouble, ColumnType::kDouble, 63, false},
      {ValueType::kDecimal, ColumnType::kNewDecimal, 63, false},
      {ValueType::kVarchar, ColumnType::kVarString, 45, false},
      {ValueType::kBlob, ColumnType::kBlob, 63, false},
      {ValueType::kJson, ColumnType::kJson, 45, false},
      {ValueType::kDate, ColumnType::kDate, 63, false},
      {ValueType::kTime, ColumnType::kTime, 63, false},
      {ValueType::kTimestamp, ColumnType::kDateTime, 63, false},
      {ValueType::kTimestampTz, ColumnType::kTimestamp, 63, false},
      {ValueType::kInterval, ColumnType::kVarString, 45, false},
      {ValueType::kOther, ColumnType::kVarString, 45, false},
  };
  for (const Case& c : cases) {
    MysqlColumnType t = ToMysqlColumnType(ColumnInfo{"x", c.in, 0, 0});
    EXPECT_EQ(t.type, c.out) << static_cast<int>(c.in);
    EXPECT_EQ(t.charset, c.charset) << static_cast<int>(c.in);
    EXPECT_EQ((t.flags & column_flag::kUnsigned) != 0, c.is_unsigned) << static_cast<int>(c.in);
    // Binary-charset columns are numbers, dates or blobs: flagged BINARY like MySQL does.
    EXPECT_EQ((t.flags & column_flag::kBinary) != 0, c.charset == 63) << static_cast<int>(c.in);
  }
  EXPECT_EQ(ToMysqlColumnType(ColumnInfo{"b", ValueType::kBoolean, 0, 0}).length, 1u);
  EXPECT_EQ(ToMysqlColumnType(ColumnInfo{"b", ValueType::kBlob, 0, 0}).flags & column_flag::kBlob,
            column_flag::kBlob);
}

TEST(ResultEncoderTest, DecimalWidthAndScale) {
  MysqlColumnType t = ToMysqlColumnType(ColumnInfo{"price", ValueType::kDecimal, 10, 2});
  EXPECT_EQ(t.decimals, 2);
  EXPECT_EQ(t.length, 12u);  // 10 digits, sign, point
  MysqlColumnType whole = ToMysqlColumnType(ColumnInfo{"n", ValueType::kDecimal, 18, 0});
  EXPECT_EQ(whole.length, 19u);
}

TEST(ResultEncoderTest, ColumnDefinition) {
  std::string packet = EncodeColumnDefinition(ColumnInfo{"order_id", ValueType::kBigInt, 0, 0});
  DecodedColumn d = Decode(packet);
  EXPECT_EQ(d.name, "order_id");
  EXPECT_EQ(d.type, static_cast<uint8_t>(ColumnType::kLongLong));
  EXPECT_EQ(d.charset, 63);
  EXPECT_EQ(d.length, 20u);

  // COM_FIELD_LIST adds the table and a NULL default value.
  std::string fl = EncodeColumnDefinition(ColumnInfo{"name", ValueType::kVarchar, 0, 0}, "tbl", true);
  EXPECT_EQ(static_cast<uint8_t>(fl.back()), kNullValue);
  DecodedColumn f = Decode(std::string_view(fl).substr(0, fl.size() - 1));
  EXPECT_EQ(f.table, "tbl");
  EXPECT_EQ(f.charset, 45);
}

TEST(ResultEncoderTest, TextRowNullsShortRowsAndBooleans) {
  std::vector<ColumnInfo> cols = {{"a", ValueType::kInteger, 0, 0},
                                  {"b", ValueType::kBoolean, 0, 0},
                                  {"c", ValueType::kBoolean, 0, 0},
                                  {"d", ValueType::kVarchar, 0, 0},
                                  {"e", ValueType::kVarchar, 0, 0}};
  Row row = {std::string("42"), std::string("true"), std::string("false"), std::nullopt};  // 'e' missing
  std::string out = EncodeTextRow(cols, row);
  std::string expected;
  PutLenencString(expected, "42");
  PutLenencString(expected, "1");
  PutLenencString(expected, "0");
  expected.push_back(static_cast<char>(0xfb));
  expected.push_back(static_cast<char>(0xfb));
  EXPECT_EQ(out, expected);
}

std::vector<std::string> Encode(const ResultSet& rs, uint32_t caps, uint16_t status) {
  std::vector<std::string> packets;
  Status st = EncodeResultSet(rs, caps, status, 3, [&](std::string_view p) {
    packets.emplace_back(p);
    return Status::Ok();
  });
  EXPECT_TRUE(st.ok());
  return packets;
}

TEST(ResultEncoderTest, ResultSetWithAndWithoutDeprecateEof) {
  ResultSet rs;
  rs.AddColumn("a", ValueType::kInteger);
  rs.AddColumn("b");
  rs.rows.push_back({std::string("1"), std::string("x")});
  rs.rows.push_back({std::string("2"), std::nullopt});

  // Classic: count, 2 defs, EOF, 2 rows, EOF.
  auto classic = Encode(rs, cap::kProtocol41, status_flag::kAutocommit | status_flag::kMoreResultsExist);
  ASSERT_EQ(classic.size(), 7u);
  EXPECT_EQ(classic[0], std::string(1, '\x02'));
  EXPECT_EQ(static_cast<uint8_t>(classic[3][0]), 0xfe);
  EXPECT_EQ(classic[3].size(), 5u);
  WireReader eof(classic[6]);
  EXPECT_EQ(*eof.U8(), 0xfe);
  EXPECT_EQ(*eof.U16(), 3);  // warnings
  EXPECT_EQ(*eof.U16(), status_flag::kAutocommit | status_flag::kMoreResultsExist);

  // CLIENT_DEPRECATE_EOF: no EOF after the definitions; an OK with a 0xfe header ends the rows.
  auto modern = Encode(rs, cap::kProtocol41 | cap::kDeprecateEof, status_flag::kAutocommit);
  ASSERT_EQ(modern.size(), 6u);
  WireReader ok(modern[5]);
  EXPECT_EQ(*ok.U8(), 0xfe);
  EXPECT_EQ(*ok.LenencInt(), 0u);
  EXPECT_EQ(*ok.LenencInt(), 0u);
  EXPECT_EQ(*ok.U16(), status_flag::kAutocommit);
  EXPECT_EQ(*ok.U16(), 3);
}

TEST(ResultEncoderTest, StopsAtTheFirstEmitError) {
  ResultSet rs;
  rs.AddColumn("a");
  rs.rows.resize(10, Row{std::string("v")});
  int calls = 0;
  Status st = EncodeResultSet(rs, cap::kProtocol41, 0, 0, [&](std::string_view) {
    return ++calls == 3 ? Status::IoError("gone") : Status::Ok();
  });
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(calls, 3);
}

}  // namespace
}  // namespace sluice::server
