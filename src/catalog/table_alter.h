#pragma once
// ALTER TABLE's column and table clauses applied to what Sluice keeps about a table, with StarRocks' rules (key,
// partition and distribution columns, aggregate functions, key columns first). Pure: the catalog then checks the
// stored rows against the result and rebuilds the DuckDB table (catalog.cpp, Catalog::AlterTable).
#include <optional>
#include <string>
#include <vector>

#include "catalog/table_meta.h"
#include "common/status.h"
#include "sql/ast.h"

namespace sluice::catalog {

struct AlteredTable {
  TableMeta meta;                                 // the table as it will be (its name still the old one)
  // Parallel to meta.columns: the column of the current table each new column takes its values from (nullopt: a
  // new column, filled by its default).
  std::vector<std::optional<std::string>> sources;
  std::string renamed_to;                         // RENAME: the table's new name, else empty
  bool rebuild = false;                           // the DuckDB table changes (else only Sluice's metadata)
  std::vector<std::string> dropped_columns;       // as the current table names them
  std::vector<std::pair<std::string, std::string>> renamed_columns;  // old name, new name
};

// `current` is the table as DescribeTable shows it (DuckDB's live columns merged with Sluice's metadata).
Result<AlteredTable> ApplyAlterClauses(const TableMeta& current, const std::vector<sql::AlterTableClause>& clauses);

}  // namespace sluice::catalog
