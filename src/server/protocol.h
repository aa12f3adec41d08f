#pragma once
// Numbers fixed by the MySQL client/server protocol (dev.mysql.com/doc/dev/mysql-server/latest/PAGE_PROTOCOL.html):
// capability flags, status flags, command bytes, column types and flags, character sets. Kept in one place so the
// encoders and the connection agree on them.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sluice::server {

// Capability flags exchanged in the handshake.
namespace cap {
inline constexpr uint32_t kLongPassword = 1u << 0;  // MariaDB clients read a server without it as MariaDB
inline constexpr uint32_t kFoundRows = 1u << 1;
inline constexpr uint32_t kLongFlag = 1u << 2;
inline constexpr uint32_t kConnectWithDb = 1u << 3;
inline constexpr uint32_t kLocalFiles = 1u << 7;
inline constexpr uint32_t kProtocol41 = 1u << 9;
inline constexpr uint32_t kInteractive = 1u << 10;
inline constexpr uint32_t kSsl = 1u << 11;
inline constexpr uint32_t kTransactions = 1u << 13;
inline constexpr uint32_t kSecureConnection = 1u << 15;
inline constexpr uint32_t kMultiStatements = 1u << 16;
inline constexpr uint32_t kMultiResults = 1u << 17;
inline constexpr uint32_t kPluginAuth = 1u << 19;
inline constexpr uint32_t kConnectAttrs = 1u << 20;
inline constexpr uint32_t kPluginAuthLenencClientData = 1u << 21;
inline constexpr uint32_t kSessionTrack = 1u << 23;
inline constexpr uint32_t kDeprecateEof = 1u << 24;

// What Sluice offers. No SSL, no compression, no LOAD DATA LOCAL (a server must not ask clients for files),
// no session tracking, no query attributes.
inline constexpr uint32_t kServerDefault = kLongPassword | kFoundRows | kLongFlag | kConnectWithDb | kProtocol41 |
                                           kInteractive | kTransactions | kSecureConnection | kMultiStatements |
                                           kMultiResults | kPluginAuth | kConnectAttrs |
                                           kPluginAuthLenencClientData | kDeprecateEof;
}  // namespace cap

// Server status flags, sent in OK and EOF packets.
namespace status_flag {
inline constexpr uint16_t kInTransaction = 0x0001;
inline constexpr uint16_t kAutocommit = 0x0002;
inline constexpr uint16_t kMoreResultsExist = 0x0008;
inline constexpr uint16_t kCursorExists = 0x0040;
inline constexpr uint16_t kLastRowSent = 0x0080;
}  // namespace status_flag

// First byte of a command packet.
enum class CommandCode : uint8_t {
  kSleep = 0x00,
  kQuit = 0x01,
  kInitDb = 0x02,
  kQuery = 0x03,
  kFieldList = 0x04,
  kStatistics = 0x09,
  kProcessKill = 0x0c,
  kPing = 0x0e,
  kChangeUser = 0x11,
  kStmtPrepare = 0x16,
  kStmtExecute = 0x17,
  kStmtSendLongData = 0x18,
  kStmtClose = 0x19,
  kStmtReset = 0x1a,
  kSetOption = 0x1b,
  kStmtFetch = 0x1c,
  kResetConnection = 0x1f,
};

// Column types in a column definition.
enum class ColumnType : uint8_t {
  kDecimal = 0x00,
  kTiny = 0x01,
  kShort = 0x02,
  kLong = 0x03,
  kFloat = 0x04,
  kDouble = 0x05,
  kNull = 0x06,
  kTimestamp = 0x07,
  kLongLong = 0x08,
  kInt24 = 0x09,
  kDate = 0x0a,
  kTime = 0x0b,
  kDateTime = 0x0c,
  kYear = 0x0d,
  kVarchar = 0x0f,
  kJson = 0xf5,
  kNewDecimal = 0xf6,
  kBlob = 0xfc,
  kVarString = 0xfd,
  kString = 0xfe,
};

// Column definition flags.
namespace column_flag {
inline constexpr uint16_t kNotNull = 0x0001;
inline constexpr uint16_t kBlob = 0x0010;
inline constexpr uint16_t kUnsigned = 0x0020;
inline constexpr uint16_t kBinary = 0x0080;
inline constexpr uint16_t kNum = 0x8000;
}  // namespace column_flag

// Collation ids.
namespace charset {
inline constexpr uint16_t kUtf8mb4GeneralCi = 45;
inline constexpr uint16_t kBinary = 63;
}  // namespace charset

// Packet headers.
inline constexpr uint8_t kOkHeader = 0x00;
inline constexpr uint8_t kEofHeader = 0xfe;
inline constexpr uint8_t kErrHeader = 0xff;
inline constexpr uint8_t kNullValue = 0xfb;  // SQL NULL in a text row

// One frame on the wire carries at most this many payload bytes; a longer payload is split, and a frame of
// exactly this size means "more follows".
inline constexpr size_t kMaxFramePayload = 0xffffff;

inline constexpr std::string_view kNativePasswordPlugin = "mysql_native_password";
inline constexpr size_t kScrambleLength = 20;

}  // namespace sluice::server
