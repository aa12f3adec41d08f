#pragma once
// One client session at the front door: the current database, session variables, and a DuckDB connection.
// The protocol layer (server/) hands it one statement at a time.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/result_set.h"
#include "common/status.h"

namespace sluice {

class Session {
 public:
  virtual ~Session() = default;

  // Runs one statement (already split; no trailing ';' needed).
  virtual Result<StatementResult> Execute(std::string_view statement) = 0;
  // COM_INIT_DB.
  virtual Status UseDatabase(std::string_view db) = 0;
  // COM_FIELD_LIST: the columns of a table in the current database (rows are empty; only columns matter).
  virtual Result<ResultSet> FieldList(std::string_view table) = 0;
  virtual const std::string& current_database() const = 0;
  virtual uint32_t connection_id() const = 0;
};

// Creates sessions; shared by all connections. Implemented by executor/Engine.
class SessionFactory {
 public:
  virtual ~SessionFactory() = default;
  // Called after the client authenticated. `database` is the one named in the handshake (may be empty);
  // an unknown database fails with StatusCode::kUnknownDatabase.
  virtual Result<std::unique_ptr<Session>> NewSession(uint32_t connection_id, std::string user,
                                                      std::string client_host, std::string database) = 0;
};

}  // namespace sluice
