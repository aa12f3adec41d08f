#include "server/handshake.h"

#include "server/protocol.h"
#include "server/wire.h"

namespace sluice::server {

std::string EncodeGreeting(const GreetingFields& g) {
  std::string out;
  PutU8(out, 10);  // protocol version
  PutNulString(out, g.server_version);
  PutU32(out, g.connection_id);
  // The scramble goes in two parts: 8 bytes here and the rest after the capability flags.
  std::string_view scramble = g.scramble;
  std::string_view part1 = scramble.substr(0, 8);
  std::string_view part2 = scramble.size() > 8 ? scramble.substr(8) : std::string_view();
  out.append(part1);
  out.append(8 - part1.size(), '\0');
  PutU8(out, 0);  // filler
  PutU16(out, static_cast<uint16_t>(g.capabilities & 0xffff));
  PutU8(out, g.charset);
  PutU16(out, g.status_flags);
  PutU16(out, static_cast<uint16_t>(g.capabilities >> 16));
  // Length of the whole auth-plugin-data including its terminating NUL, as MySQL sends it (21).
  PutU8(out, static_cast<uint8_t>(scramble.size() + 1));
  out.append(10, '\0');  // reserved
  // At least 13 bytes: the rest of the scramble and a NUL.
  out.append(part2);
  out.append(part2.size() + 1 < 13 ? 13 - part2.size() : 1, '\0');
  PutNulString(out, kNativePasswordPlugin);
  return out;
}

Result<HandshakeResponse> ParseHandshakeResponse(std::string_view payload) {
  WireReader r(payload);
  HandshakeResponse resp;
  ASSIGN_OR_RETURN(resp.capabilities, r.U32());
  if (!(resp.capabilities & cap::kProtocol41)) {
    return Status::NotSupported("the client speaks the pre-4.1 protocol; use a MySQL 4.1 or later client");
  }
  ASSIGN_OR_RETURN(resp.max_packet_size, r.U32());
  ASSIGN_OR_RETURN(resp.charset, r.U8());
  RETURN_IF_ERROR(r.Skip(23));  // reserved
  if (r.empty() && (resp.capabilities & cap::kSsl)) {
    resp.ssl_request = true;
    return resp;
  }
  ASSIGN_OR_RETURN(std::string_view user, r.NulString());
  resp.user = std::string(user);

  std::string_view auth;
  if (resp.capabilities & cap::kPluginAuthLenencClientData) {
    ASSIGN_OR_RETURN(auth, r.LenencString());
  } else if (resp.capabilities & cap::kSecureConnection) {
    ASSIGN_OR_RETURN(uint8_t len, r.U8());
    ASSIGN_OR_RETURN(auth, r.Bytes(len));
  } else {
    // Old-style auth: NUL-terminated (the pre-4.1 password hash, which we will refuse later).
    auth = r.NulStringOrRest();
  }
  resp.auth_response = std::string(auth);

  // The trailing fields are optional even when their flag is set: several clients stop early.
  if ((resp.capabilities & cap::kConnectWithDb) && !r.empty()) resp.database = std::string(r.NulStringOrRest());
  if ((resp.capabilities & cap::kPluginAuth) && !r.empty()) resp.auth_plugin = std::string(r.NulStringOrRest());
  if ((resp.capabilities & cap::kConnectAttrs) && !r.empty()) {
    ASSIGN_OR_RETURN(std::string_view attrs, r.LenencString());
    WireReader a(attrs);
    while (!a.empty()) {
      ASSIGN_OR_RETURN(std::string_view key, a.LenencString());
      ASSIGN_OR_RETURN(std::string_view value, a.LenencString());
      resp.attributes.emplace_back(std::string(key), std::string(value));
    }
  }
  return resp;
}

std::string EncodeAuthSwitchRequest(std::string_view plugin, std::string_view auth_data) {
  std::string out;
  PutU8(out, kEofHeader);
  PutNulString(out, plugin);
  // mysql_native_password's challenge is sent with a trailing NUL, as MySQL does.
  PutNulString(out, auth_data);
  return out;
}

}  // namespace sluice::server
