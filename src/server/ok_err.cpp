#include "server/ok_err.h"

#include "server/protocol.h"
#include "server/wire.h"

namespace sluice::server {

namespace {
std::string EncodeOkWithHeader(uint8_t header, const OkFields& ok) {
  std::string out;
  out.reserve(16 + ok.info.size());
  PutU8(out, header);
  PutLenencInt(out, ok.affected_rows);
  PutLenencInt(out, ok.last_insert_id);
  PutU16(out, ok.status_flags);
  PutU16(out, ok.warnings);
  // The protocol docs call the info "string<EOF>" without CLIENT_SESSION_TRACK, but MySQL servers send it
  // length-encoded and the MySQL and MariaDB client libraries read it that way (a raw string gets "malformed
  // packet" from them). Empty info: nothing at all.
  if (!ok.info.empty()) PutLenencString(out, ok.info);
  return out;
}
}  // namespace

std::string EncodeOk(const OkFields& ok) { return EncodeOkWithHeader(kOkHeader, ok); }

std::string EncodeOkAsEof(const OkFields& ok) { return EncodeOkWithHeader(kEofHeader, ok); }

std::string EncodeEof(uint16_t warnings, uint16_t status_flags) {
  std::string out;
  PutU8(out, kEofHeader);
  PutU16(out, warnings);
  PutU16(out, status_flags);
  return out;
}

std::string EncodeEndOfRows(uint32_t client_capabilities, uint16_t warnings, uint16_t status_flags) {
  if (client_capabilities & cap::kDeprecateEof) {
    OkFields ok;
    ok.status_flags = status_flags;
    ok.warnings = warnings;
    return EncodeOkAsEof(ok);
  }
  return EncodeEof(warnings, status_flags);
}

std::string EncodeErr(uint16_t error_code, std::string_view sqlstate, std::string_view message) {
  std::string out;
  out.reserve(9 + message.size());
  PutU8(out, kErrHeader);
  PutU16(out, error_code);
  out.push_back('#');
  out.append(sqlstate.size() == 5 ? sqlstate : std::string_view("HY000"));
  out.append(message);
  return out;
}

}  // namespace sluice::server
