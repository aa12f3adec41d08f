#pragma once
// INSERT through the front door into a StarRocks key table behaves as a load does (load/table_write.h): into a
// PRIMARY KEY or UNIQUE KEY table a row replaces the stored row with its key (the last of several in one
// statement wins), into an AGGREGATE KEY table rows combine with the stored row by each column's function.
// Only the plain form `INSERT INTO [db.]t [(cols)] VALUES ... | SELECT ...` is rewritten; INSERT OR REPLACE,
// ON CONFLICT, RETURNING, BY NAME and DEFAULT VALUES run as DuckDB's own.
#include <optional>
#include <string>
#include <string_view>

#include "catalog/catalog.h"
#include "common/status.h"

namespace sluice {

struct KeyedInsert {
  std::string sql;           // the statement to run instead
  std::string target_table;  // "db"."table", for load::KeyedWriteMutex
};

// nullopt: run `sql` unchanged (not a plain INSERT, or not into a key table Sluice knows).
Result<std::optional<KeyedInsert>> RewriteKeyedInsert(catalog::Catalog& catalog, const std::string& current_db,
                                                      std::string_view sql);

// DuckDB's error for a rewritten INSERT, in the words of the statement the user wrote.
Status ExplainKeyedInsertError(const Status& st);

}  // namespace sluice
