#pragma once
// Which MySQL error number and SQLSTATE a failure is reported with. Clients and drivers branch on these
// (e.g. 1049 "unknown database", 42S02 "no such table", 40001 "retry the transaction"), so they follow MySQL's.
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace sluice::server {

struct MysqlError {
  uint16_t code;
  std::string_view sqlstate;  // always 5 characters
  std::string message;
};

// Error numbers the protocol layer raises itself (from MySQL's list of server errors).
namespace er {
inline constexpr uint16_t kTooManyConnections = 1040;       // 08004
inline constexpr uint16_t kHandshakeError = 1043;           // 08S01
inline constexpr uint16_t kServerShutdown = 1053;           // 08S01
inline constexpr uint16_t kAccessDenied = 1045;             // 28000
inline constexpr uint16_t kNoDatabaseSelected = 1046;       // 3D000
inline constexpr uint16_t kUnknownCommand = 1047;           // 08S01
inline constexpr uint16_t kUnknownDatabase = 1049;          // 42000
inline constexpr uint16_t kSyntaxError = 1064;              // 42000
inline constexpr uint16_t kEmptyQuery = 1065;               // 42000
inline constexpr uint16_t kUnknownThreadId = 1094;          // HY000
inline constexpr uint16_t kKillDenied = 1095;               // HY000
inline constexpr uint16_t kUnknownError = 1105;             // HY000
inline constexpr uint16_t kTooManyUserConnections = 1203;   // 42000
inline constexpr uint16_t kPacketTooLarge = 1153;           // 08S01
inline constexpr uint16_t kPacketsOutOfOrder = 1156;        // 08S01
inline constexpr uint16_t kUnknownStatementHandler = 1243;  // HY000
inline constexpr uint16_t kNotSupportedAuthMode = 1251;     // 08004
inline constexpr uint16_t kUnsupportedPreparedStatement = 1295;  // HY000
inline constexpr uint16_t kNoOpenCursor = 1421;             // HY000
inline constexpr uint16_t kTooManyPreparedStatements = 1461;  // 42000
inline constexpr uint16_t kQueryInterrupted = 1317;         // 70100
inline constexpr uint16_t kQueryTimeout = 3024;             // HY000
inline constexpr uint16_t kMalformedPacket = 1835;          // HY000
}  // namespace er

// Maps a failed Status from the engine to a MySQL error; the message is the Status message.
MysqlError ToMysqlError(const Status& status);

}  // namespace sluice::server
