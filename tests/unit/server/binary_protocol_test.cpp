// The binary protocol of prepared statements: COM_STMT_EXECUTE parameters decoded into SQL literals, result rows
// encoded from the text DuckDB prints, and `?` markers found and bound.
#include <cstring>

#include <gtest/gtest.h>

#include "server/binary_row.h"
#include "server/statement_params.h"
#include "server/wire.h"
#include "sql/placeholders.h"

namespace sluice::server {
namespace {

std::vector<std::string> Decode(const std::string& packet, size_t count, std::vector<ParamType>& types,
                                const std::map<uint16_t, std::string>& long_data = {}) {
  WireReader r(packet);
  auto literals = DecodeParamLiterals(r, count, types, long_data);
  EXPECT_TRUE(literals.ok()) << literals.status().message();
  return literals.ok() ? *literals : std::vector<std::string>{};
}

TEST(StatementParamsTest, EveryTypeBecomesALiteral) {
  std::string p;
  PutU8(p, 0b00000100);  // NULL bitmap (two bytes for nine): parameter 2 is NULL
  PutU8(p, 0);
  PutU8(p, 1);           // new params bound
  for (uint8_t type : {0x01, 0x08, 0x06, 0x05, 0xfd, 0x0a, 0x0c, 0xf6, 0xfc}) {
    PutU8(p, type);
    PutU8(p, type == 0x08 ? 0x80 : 0);  // the LONGLONG is unsigned
  }
  PutU8(p, 0xfb);              // TINY -5
  PutU64(p, 18446744073709551615ull);
  // (NULL has no bytes)
  double d = 2.5;
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  PutU64(p, bits);
  PutLenencString(p, "it's \\ x");
  PutU8(p, 4); PutU16(p, 2024); PutU8(p, 5); PutU8(p, 1);                       // DATE
  PutU8(p, 11); PutU16(p, 2024); PutU8(p, 5); PutU8(p, 1); PutU8(p, 10); PutU8(p, 20); PutU8(p, 30);
  PutU32(p, 123000);                                                            // DATETIME with microseconds
  PutLenencString(p, "12.345");
  PutLenencString(p, std::string("\xff\x00\x01", 3));                           // bytes that are not UTF-8
  std::vector<ParamType> types;
  auto l = Decode(p, 9, types);
  ASSERT_EQ(l.size(), 9u);
  EXPECT_EQ(l[0], "-5");
  EXPECT_EQ(l[1], "18446744073709551615");
  EXPECT_EQ(l[2], "NULL");
  EXPECT_EQ(l[3], "CAST(2.5 AS DOUBLE)");
  EXPECT_EQ(l[4], "'it''s \\\\ x'");
  EXPECT_EQ(l[5], "DATE '2024-05-01'");
  EXPECT_EQ(l[6], "TIMESTAMP '2024-05-01 10:20:30.123000'");
  EXPECT_EQ(l[7], "12.345");
  EXPECT_EQ(l[8], "unhex('FF0001')");

  // Without new types the last bound ones are used.
  std::string again;
  PutU8(again, 0b11111110);  // all but the first NULL
  PutU8(again, 0xff);
  PutU8(again, 0);           // no new types
  PutU8(again, 7);
  auto l2 = Decode(again, 9, types);
  EXPECT_EQ(l2[0], "7");
  EXPECT_EQ(l2[1], "NULL");
}

TEST(StatementParamsTest, LongDataAndMalformedPackets) {
  std::string p;
  PutU8(p, 0);
  PutU8(p, 1);
  PutU8(p, 0xfc);
  PutU8(p, 0);
  std::vector<ParamType> types;
  auto l = Decode(p, 1, types, {{0, "sent ahead"}});
  EXPECT_EQ(l[0], "'sent ahead'");

  std::string short_packet;
  PutU8(short_packet, 0);
  PutU8(short_packet, 1);
  PutU8(short_packet, 0x08);
  PutU8(short_packet, 0);
  PutU32(short_packet, 1);  // half a LONGLONG
  WireReader r(short_packet);
  std::vector<ParamType> t2;
  EXPECT_FALSE(DecodeParamLiterals(r, 1, t2, {}).ok());
}

TEST(BinaryRowTest, ValuesInTheirColumnTypes) {
  std::vector<ColumnInfo> cols(7);
  cols[0].type = ValueType::kInteger;
  cols[1].type = ValueType::kBigInt;
  cols[2].type = ValueType::kDouble;
  cols[3].type = ValueType::kVarchar;
  cols[4].type = ValueType::kDate;
  cols[5].type = ValueType::kTimestamp;
  cols[6].type = ValueType::kBoolean;
  Row row = {std::string("-2"), std::string("9000000000000000001"), std::string("0.5"), std::nullopt,
             std::string("2024-05-01"), std::string("2024-05-01 10:20:30.25"), std::string("true")};
  std::string out = EncodeBinaryRow(cols, row);
  std::string want;
  PutU8(want, 0);
  PutU8(want, 1u << 5);  // column 3 is NULL: bit 3 + 2
  PutU8(want, 0);
  PutU32(want, static_cast<uint32_t>(-2));
  PutU64(want, 9000000000000000001ull);
  double d = 0.5;
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  PutU64(want, bits);
  PutU8(want, 4); PutU16(want, 2024); PutU8(want, 5); PutU8(want, 1);
  PutU8(want, 11); PutU16(want, 2024); PutU8(want, 5); PutU8(want, 1); PutU8(want, 10); PutU8(want, 20);
  PutU8(want, 30); PutU32(want, 250000);
  PutU8(want, 1);
  EXPECT_EQ(out, want);
}

TEST(PlaceholdersTest, MarkersOutsideStringsAndComments) {
  std::string sql = "SELECT '?', `?`, ? /* ? */ FROM t WHERE a = ? -- ?\n";
  auto markers = sql::FindPlaceholders(sql);
  ASSERT_EQ(markers.size(), 2u);
  auto bound = sql::BindPlaceholders(sql, markers, {"1", "'x'"});
  ASSERT_TRUE(bound.ok());
  EXPECT_EQ(*bound, "SELECT '?', `?`, 1 /* ? */ FROM t WHERE a = 'x' -- ?\n");
  EXPECT_FALSE(sql::BindPlaceholders(sql, markers, {"1"}).ok());
  EXPECT_EQ(sql::QuoteStringLiteral(std::string("a'b\\c\0d", 7)), "'a''b\\\\c\\0d'");
}

}  // namespace
}  // namespace sluice::server
