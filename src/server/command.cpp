#include "server/command.h"

#include "server/wire.h"

namespace sluice::server {

namespace {
Result<ChangeUserRequest> ParseChangeUser(WireReader& r, uint32_t caps) {
  ChangeUserRequest req;
  ASSIGN_OR_RETURN(std::string_view user, r.NulString());
  req.user = std::string(user);
  std::string_view auth;
  if (caps & cap::kSecureConnection) {
    ASSIGN_OR_RETURN(uint8_t len, r.U8());
    ASSIGN_OR_RETURN(auth, r.Bytes(len));
  } else {
    auth = r.NulStringOrRest();
  }
  req.auth_response = std::string(auth);
  if (!r.empty()) req.database = std::string(r.NulStringOrRest());
  if (r.remaining() >= 2) {
    RETURN_IF_ERROR(r.Skip(2));  // character set: the session speaks utf8mb4 regardless
    if ((caps & cap::kPluginAuth) && !r.empty()) req.auth_plugin = std::string(r.NulStringOrRest());
    // Connection attributes may follow; nothing here uses them.
  }
  return req;
}
}  // namespace

Result<Command> ParseCommand(std::string_view payload, uint32_t client_capabilities) {
  WireReader r(payload);
  if (r.empty()) return Status::InvalidArgument("malformed packet: empty command packet");
  Command cmd;
  ASSIGN_OR_RETURN(cmd.code, r.U8());
  switch (static_cast<CommandCode>(cmd.code)) {
    case CommandCode::kQuery:
    case CommandCode::kInitDb:
    case CommandCode::kStmtPrepare:
    case CommandCode::kStmtExecute:
    case CommandCode::kStmtSendLongData:
    case CommandCode::kStmtClose:
    case CommandCode::kStmtReset:
    case CommandCode::kStmtFetch:
      cmd.text = r.Rest();
      break;
    case CommandCode::kFieldList:
      cmd.text = r.NulStringOrRest();
      cmd.wildcard = r.Rest();
      break;
    case CommandCode::kSetOption: {
      ASSIGN_OR_RETURN(cmd.option, r.U16());
      break;
    }
    case CommandCode::kChangeUser: {
      ASSIGN_OR_RETURN(ChangeUserRequest req, ParseChangeUser(r, client_capabilities));
      cmd.change_user = std::move(req);
      break;
    }
    default:
      // Commands without arguments, and ones we refuse: the body does not matter.
      break;
  }
  return cmd;
}

}  // namespace sluice::server
