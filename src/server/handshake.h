#pragma once
// Connection phase packets: the server's Protocol::HandshakeV10 greeting, the client's HandshakeResponse41 (and the
// SSLRequest prefix of it), and AuthSwitchRequest, used when a client starts with another auth plugin.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace sluice::server {

struct GreetingFields {
  uint32_t connection_id = 0;
  std::string_view server_version;
  std::string_view scramble;  // 20 bytes, no NUL
  uint32_t capabilities = 0;
  uint16_t status_flags = 0;
  uint8_t charset = 0;
};

std::string EncodeGreeting(const GreetingFields& greeting);

struct HandshakeResponse {
  uint32_t capabilities = 0;
  uint32_t max_packet_size = 0;
  uint8_t charset = 0;
  // The client sent only the 32-byte SSLRequest and now expects a TLS handshake; the other fields are empty.
  bool ssl_request = false;
  std::string user;
  std::string auth_response;  // never log: it is derived from the password
  std::string database;       // empty when not sent
  std::string auth_plugin;    // empty when the client sent none
  std::vector<std::pair<std::string, std::string>> attributes;
};

// Decodes a HandshakeResponse41. kNotSupported for a pre-4.1 client (no CLIENT_PROTOCOL_41), kInvalidArgument
// for a malformed packet.
Result<HandshakeResponse> ParseHandshakeResponse(std::string_view payload);

// Asks the client to authenticate again with `plugin`, for which `auth_data` is the challenge.
std::string EncodeAuthSwitchRequest(std::string_view plugin, std::string_view auth_data);

}  // namespace sluice::server
