#pragma once
// One client session at the front door: the current database, session variables, and a DuckDB connection.
// The protocol layer (server/) hands it one statement at a time.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result_set.h"
#include "common/status.h"

namespace sluice {

class Session {
 public:
  virtual ~Session() = default;

  // Runs one statement (already split; no trailing ';' needed).
  virtual Result<StatementResult> Execute(std::string_view statement) = 0;
  // COM_STMT_PREPARE: the columns `statement` (its `?` bound as NULL) would return, found without running it, so a
  // prepare can announce them as MySQL's does (JDBC's getMetaData() before executing). Empty when it returns no rows
  // or when they cannot be known before it runs; the execute sends its columns either way. An error is one MySQL
  // reports at prepare (an unknown database, table or column, a missing privilege): the prepare answers it.
  virtual Result<std::vector<ColumnInfo>> ResultColumns(std::string_view statement) {
    (void)statement;
    return std::vector<ColumnInfo>{};
  }
  // COM_INIT_DB.
  virtual Status UseDatabase(std::string_view db) = 0;
  // COM_FIELD_LIST: the columns of a table in the current database (rows are empty; only columns matter).
  virtual Result<ResultSet> FieldList(std::string_view table) = 0;
  virtual const std::string& current_database() const = 0;
  virtual uint32_t connection_id() const = 0;

  // The front door's levers for runaway work. `close` ends the client connection (KILL CONNECTION from another
  // session); `client_gone` says whether the client hung up, asked while a statement runs so that its query is
  // cancelled. Both are called from other threads, and never after the session is destroyed.
  virtual void AttachClient(std::function<void()> close, std::function<bool()> client_gone) {
    (void)close;
    (void)client_gone;
  }
  // True once the session was killed (KILL CONNECTION, or its client went away): the front door closes it.
  virtual bool killed() const { return false; }
  // From now on a SELECT's rows come as StatementResult::stream, to be sent as they come; nothing else may run on
  // the session until the stream is destroyed.
  virtual void EnableRowStreaming() {}
};

// Creates sessions; shared by all connections. Implemented by executor/Engine.
class SessionFactory {
 public:
  virtual ~SessionFactory() = default;
  // Called after the client authenticated. `database` is the one named in the handshake (may be empty);
  // an unknown database fails with StatusCode::kUnknownDatabase.
  virtual Result<std::unique_ptr<Session>> NewSession(uint32_t connection_id, std::string user,
                                                      std::string client_host, std::string database) = 0;
  // Server shutdown: interrupts every running statement, and every one that starts from now on.
  virtual void StopAllStatements() {}
};

}  // namespace sluice
