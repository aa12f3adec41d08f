#pragma once
// The WHERE predicates that may prune an Iceberg table's data files, read from DuckDB's own parse of the statement
// (json_serialize_sql), never from its text. The rewrite first puts a placeholder table name where each
// catalog.db.table stood; the SELECT whose FROM reads that placeholder -- alone, or on a side of joins that keeps
// its rows as they are (then only alias.col references count) -- gives its WHERE clause, and of that only the
// ANDed terms of these shapes on the table's own columns count:
//   col = c, c = col, col <> ... (ignored), col < <= > >= c, col IN (c, ...), col BETWEEN a AND b,
//   col IS NULL, col IS NOT NULL
// where c is a constant whose type DuckDB compares with the column's without surprises (numbers with int, long and
// decimal columns; 'YYYY-MM-DD[ HH:MM:SS[.ffffff]]' strings, DATE '..' and TIMESTAMP '..' with date and timestamp
// columns; strings with string columns; true/false with booleans). Anything else (OR, NOT, functions, casts of
// the column, other types) is left out: it can only make a file "may match", never drop one.
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/scan_filter.h"
#include "iceberg/table_model.h"
#include "storage/database.h"

namespace sluice::lakehouse {

// DuckDB's parse tree of `sql` as JSON text (json_serialize_sql); an error when DuckDB cannot parse it.
Result<std::string> SerializeSql(storage::Connection& con, const std::string& sql);

// The prunable predicates on the table scanned as `placeholder` in the parse tree `tree_json` (the placeholder
// carries an alias -- the user's, or the table's name -- which qualified column references must use). Empty when
// the tree is not understood.
std::vector<iceberg::ColumnPredicate> PredicatesFor(const std::string& tree_json, const std::string& placeholder,
                                                    const iceberg::Schema& schema);

}  // namespace sluice::lakehouse
