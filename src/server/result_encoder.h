#pragma once
// Text-protocol result sets: the column count, one column definition per column (with the MySQL type clients use
// to convert values), the rows as length-encoded strings, and the end marker (EOF, or OK-as-EOF when the client
// set CLIENT_DEPRECATE_EOF).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result_set.h"
#include "common/status.h"
#include "server/protocol.h"

namespace sluice::server {

struct MysqlColumnType {
  ColumnType type;
  uint16_t charset;
  uint32_t length;  // display width; clients use it for layout and to pick a type class
  uint16_t flags;
  uint8_t decimals;
};

MysqlColumnType ToMysqlColumnType(const ColumnInfo& column);

// One ColumnDefinition41. COM_FIELD_LIST answers carry a default value after it (`for_field_list`); we send NULL.
std::string EncodeColumnDefinition(const ColumnInfo& column, std::string_view table = {},
                                   bool for_field_list = false);

// One text row. Missing values (a row shorter than the column list) are sent as NULL. Booleans become 1/0,
// because TINY(1) is how MySQL spells boolean and drivers parse it as an integer.
std::string EncodeTextRow(const std::vector<ColumnInfo>& columns, const Row& row);

// The packets before the rows: the column count, the column definitions and (without CLIENT_DEPRECATE_EOF) an EOF.
Status EncodeResultSetHead(const std::vector<ColumnInfo>& columns, uint32_t client_capabilities,
                           uint16_t status_flags, const std::function<Status(std::string_view)>& emit);

// Hands every packet of `result` to `emit`, stopping at the first error it returns. `result` must have columns.
Status EncodeResultSet(const ResultSet& result, uint32_t client_capabilities, uint16_t status_flags,
                       uint16_t warnings, const std::function<Status(std::string_view)>& emit);

}  // namespace sluice::server
