#pragma once
// The small reply packets: OK (a statement without a result set, or the end of one when the client set
// CLIENT_DEPRECATE_EOF), EOF (end of column definitions or rows for older clients) and ERR.
#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::server {

struct OkFields {
  uint64_t affected_rows = 0;
  uint64_t last_insert_id = 0;
  uint16_t status_flags = 0;
  uint16_t warnings = 0;
  std::string_view info;  // human-readable, e.g. "Rows matched: 1  Changed: 1  Warnings: 0"
};

std::string EncodeOk(const OkFields& ok);
// The OK packet that replaces EOF under CLIENT_DEPRECATE_EOF: same body, 0xfe header.
std::string EncodeOkAsEof(const OkFields& ok);
std::string EncodeEof(uint16_t warnings, uint16_t status_flags);
// What ends rows (and COM_FIELD_LIST output): OK-as-EOF or EOF, as the client's capabilities ask.
std::string EncodeEndOfRows(uint32_t client_capabilities, uint16_t warnings, uint16_t status_flags);

// `sqlstate` must be 5 characters; anything else is replaced by HY000.
std::string EncodeErr(uint16_t error_code, std::string_view sqlstate, std::string_view message);

}  // namespace sluice::server
