#pragma once
// The parameter values of COM_STMT_EXECUTE, decoded from the binary protocol into SQL literals that stand in for
// the statement's `?` markers: integers and doubles as numbers, DATE/DATETIME/TIME as typed literals, strings
// quoted and escaped, bytes that are not UTF-8 as unhex('...') blobs, and NULL. The statement then runs as a
// text statement, so every privilege and sandbox check applies to it exactly as to COM_QUERY.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "server/wire.h"

namespace sluice::server {

// A parameter's type as the client bound it: a ColumnType byte and the unsigned flag (0x80 of the second byte).
struct ParamType {
  uint8_t type = 0xfd;  // VAR_STRING until the client binds one
  bool is_unsigned = false;
};

// Reads the NULL bitmap, the new-params-bound flag with the types (which then replace `types`), and the values
// of `count` parameters from `r` (positioned after stmt_id, flags and iteration count). `long_data` holds what
// COM_STMT_SEND_LONG_DATA sent for a parameter; such a parameter has no value in the packet. Returns one literal
// per parameter; a malformed packet is InvalidArgument.
Result<std::vector<std::string>> DecodeParamLiterals(WireReader& r, size_t count, std::vector<ParamType>& types,
                                                     const std::map<uint16_t, std::string>& long_data);

// The literal for a string or byte value: quoted text when it is valid UTF-8, else an unhex('..') blob.
std::string TextOrBlobLiteral(std::string_view bytes);

}  // namespace sluice::server
