#pragma once
// A connection's prepared statements (COM_STMT_PREPARE .. COM_STMT_CLOSE): the text with its `?` markers, the
// parameter types the client last bound, long data sent ahead of an execute, and an open cursor's rows.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result_set.h"
#include "server/statement_params.h"

namespace sluice::server {

struct PreparedStatement {
  std::string sql;
  std::vector<size_t> markers;              // byte offsets of the `?` markers in sql
  std::vector<ParamType> param_types;       // as last bound (new-params-bound), kept for later executes
  std::map<uint16_t, std::string> long_data;  // COM_STMT_SEND_LONG_DATA, by parameter; cleared by each execute
  // After an execute with a read-only cursor: the result, handed out by COM_STMT_FETCH.
  std::optional<ResultSet> cursor;
  size_t cursor_position = 0;
};

class PreparedStatements {
 public:
  // MySQL's default max_prepared_stmt_count (16382) is server-wide; per connection it bounds what one client
  // can make the server hold.
  static constexpr size_t kMaxPerConnection = 16382;

  // The new statement's id, or 0 when the connection holds kMaxPerConnection already.
  uint32_t Add(PreparedStatement statement);
  PreparedStatement* Find(uint32_t id);
  void Close(uint32_t id) { statements_.erase(id); }
  void Clear() { statements_.clear(); }

 private:
  std::map<uint32_t, PreparedStatement> statements_;
  uint32_t next_id_ = 1;
};

}  // namespace sluice::server
