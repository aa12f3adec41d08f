#pragma once
// The version Sluice reports to users (HTTP /api/version, @@version_comment) and the MySQL server version
// clients see in the handshake and @@version (a MySQL 5.7-compatible number, as StarRocks reports).
namespace sluice {
inline constexpr const char* kSluiceVersion = "0.1.0";
inline constexpr const char* kMysqlServerVersion = "5.7.99-Sluice-0.1.0";
}  // namespace sluice
