#pragma once
// The declared length of VARCHAR(n) / CHAR(n) result columns. DuckDB keeps no length (Sluice enforces it with a
// CHECK), so a query's columns come back as unbounded text, which drivers show as TEXT (JDBC's
// ResultSetMetaData). MySQL's column definition carries the length; this finds it in the catalog for a result
// column that has the name of a column of one of the tables the statement names, when every such column agrees.
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "common/result_set.h"
#include "sql/statement_scan.h"

namespace sluice {

// Sets `char_length` of the VARCHAR columns among `columns` whose length the catalog knows. `current_db` resolves
// unqualified table names. Reads only the tables the scan names (at most a few, from what the catalog keeps about
// them), and only when a column is VARCHAR.
void AddDeclaredLengths(catalog::Catalog& catalog, const std::string& current_db, const sql::StatementScan& scan,
                        std::vector<ColumnInfo>* columns);

}  // namespace sluice
