#include "server/ok_err.h"

#include <gtest/gtest.h>

#include "server/error_mapping.h"
#include "server/protocol.h"
#include "server/wire.h"

namespace sluice::server {
namespace {

TEST(OkErrTest, OkPacket) {
  OkFields f;
  f.affected_rows = 300;
  f.last_insert_id = 7;
  f.status_flags = status_flag::kAutocommit | status_flag::kMoreResultsExist;
  f.warnings = 2;
  f.info = "Rows matched: 1";
  std::string ok = EncodeOk(f);
  WireReader r(ok);
  EXPECT_EQ(*r.U8(), 0x00);
  EXPECT_EQ(*r.LenencInt(), 300u);
  EXPECT_EQ(*r.LenencInt(), 7u);
  EXPECT_EQ(*r.U16(), 0x000a);
  EXPECT_EQ(*r.U16(), 2);
  // Length-encoded, as the client libraries read it.
  EXPECT_EQ(*r.LenencString(), "Rows matched: 1");
  EXPECT_TRUE(r.empty());

  OkFields plain;
  EXPECT_EQ(EncodeOk(plain), std::string("\x00\x00\x00\x00\x00\x00\x00", 7));
  EXPECT_EQ(static_cast<uint8_t>(EncodeOkAsEof(plain)[0]), 0xfe);
}

TEST(OkErrTest, EofAndEndOfRows) {
  EXPECT_EQ(EncodeEof(1, 2), std::string("\xfe\x01\x00\x02\x00", 5));
  EXPECT_EQ(EncodeEndOfRows(cap::kProtocol41, 1, 2), EncodeEof(1, 2));
  std::string ok_eof = EncodeEndOfRows(cap::kProtocol41 | cap::kDeprecateEof, 1, 2);
  EXPECT_EQ(ok_eof, std::string("\xfe\x00\x00\x02\x00\x01\x00", 7));
}

TEST(OkErrTest, ErrPacket) {
  std::string err = EncodeErr(1146, "42S02", "Table 'db.t' doesn't exist");
  EXPECT_EQ(err, std::string("\xff\x7a\x04#42S02Table 'db.t' doesn't exist"));
  // A malformed SQLSTATE cannot break the packet layout.
  EXPECT_EQ(EncodeErr(1105, "bad", "m"), std::string("\xff\x51\x04#HY000m"));
}

TEST(ErrorMappingTest, StatusCodes) {
  struct Case {
    Status status;
    uint16_t code;
    std::string_view sqlstate;
  };
  const Case cases[] = {
      {Status::SyntaxError("s"), 1064, "42000"},
      {Status::UnknownDatabase("s"), 1049, "42000"},
      {Status::UnknownTable("s"), 1146, "42S02"},
      {Status(StatusCode::kUnknownColumn, "s"), 1054, "42S22"},
      {Status::DatabaseExists("s"), 1007, "HY000"},
      {Status::TableExists("s"), 1050, "42S01"},
      {Status::AccessDenied("s"), 1045, "28000"},
      {Status::InvalidArgument("s"), 1105, "HY000"},
      {Status::NotSupported("s"), 1235, "42000"},
      {Status::NotFound("s"), 1105, "HY000"},
      {Status::AlreadyExists("s"), 1105, "HY000"},
      {Status::Internal("s"), 1105, "HY000"},
      {Status::Unavailable("s"), 1105, "HY000"},
      {Status::Timeout("s"), 1105, "HY000"},
      {Status::IoError("s"), 1105, "HY000"},
      {Status::Conflict("s"), 1213, "40001"},
      {Status::OutOfRange("s"), 1105, "HY000"},
      {Status::InvalidArgument("No database selected"), 1046, "3D000"},
      {Status::InvalidArgument("No database selected; USE one first"), 1046, "3D000"},
      {Status::AlreadyExists("Duplicate column name 'n'"), 1060, "42S21"},
  };
  for (const Case& c : cases) {
    MysqlError e = ToMysqlError(c.status);
    EXPECT_EQ(e.code, c.code) << c.status.ToString();
    EXPECT_EQ(e.sqlstate, c.sqlstate) << c.status.ToString();
    EXPECT_EQ(e.sqlstate.size(), 5u);
    EXPECT_EQ(e.message, c.status.message());
  }
}

}  // namespace
}  // namespace sluice::server
