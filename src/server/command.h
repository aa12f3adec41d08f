#pragma once
// Decoding of command-phase packets (what the client sends after it logged in). Pure functions on a byte buffer,
// so the fuzzer can feed them directly. The string_views point into the packet.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "server/protocol.h"

namespace sluice::server {

struct ChangeUserRequest {
  std::string user;
  std::string auth_response;  // never log
  std::string database;
  std::string auth_plugin;    // empty when not sent
};

struct Command {
  uint8_t code = 0;  // a CommandCode, or any other byte for an unknown command
  // COM_QUERY and COM_STMT_PREPARE: the SQL text; COM_INIT_DB: the database; COM_FIELD_LIST: the table; the
  // other COM_STMT_* commands: their binary body (statement id first), decoded by the connection.
  std::string_view text;
  std::string_view wildcard;  // COM_FIELD_LIST only
  uint16_t option = 0;        // COM_SET_OPTION only
  std::optional<ChangeUserRequest> change_user;
};

// Decodes one command packet. `client_capabilities` decide the layout of COM_CHANGE_USER.
// Unknown command bytes decode fine (the connection answers them with an error); an empty packet or a known
// command with a malformed body fails with kInvalidArgument.
Result<Command> ParseCommand(std::string_view payload, uint32_t client_capabilities);

}  // namespace sluice::server
