#pragma once
// Internal to sql/: one parser per statement family. Each starts with the stream on the statement's first keyword
// (already known to match) and ends with the whole statement consumed or an error.
#include <optional>
#include "common/status.h"
#include "sql/ast.h"
#include "sql/parser.h"
#include "sql/token_stream.h"

namespace sluice::sql {

Result<Statement> ParseShow(TokenStream& ts);
Result<Statement> ParseSet(TokenStream& ts);
// pipe_parser.cpp: CREATE / DROP / ALTER PIPE, SHOW PIPES, DESC PIPE.
bool IsPipeStatement(const TokenStream& ts);
Result<Statement> ParsePipeStatement(TokenStream& ts);
// `CREATE TABLE ...` in the StarRocks and Lakehouse forms. The caller has already sent the variants DuckDB runs
// itself (AS SELECT, LIKE, OR REPLACE, TEMPORARY) to PassThrough.
Result<CreateTable> ParseCreateTable(TokenStream& ts);
// A column definition (name, type, NULL / NOT NULL, DEFAULT, COMMENT, aggregate function, ...). In ALTER TABLE
// (`in_alter`) it also ends at FIRST, AFTER or the end of the statement.
Result<ColumnDef> ParseColumnDefinition(TokenStream& ts, bool in_alter);
// A DEFAULT value, as SQL DuckDB can run ('abc', 5, NULL, CURRENT_TIMESTAMP, (expr)).
Result<std::string> ParseDefaultValue(TokenStream& ts);
// alter_table_parser.cpp: ALTER TABLE's column and table clauses (ADD / DROP / MODIFY / CHANGE / RENAME COLUMN,
// COMMENT, RENAME, ALTER COLUMN ... TYPE / SET DEFAULT).
bool IsAlterTable(const TokenStream& ts);
Result<Statement> ParseAlterTable(TokenStream& ts);
// A column type at the current token: INT, VARCHAR(26), DECIMAL(10,2), ARRAY<T>, MAP<K,V>, STRUCT<a T, b:T>.
Result<TypeSpec> ParseType(TokenStream& ts, int depth = 0);
// partition_parser.cpp: RANGE / LIST partitions. ParsePartitionClause starts at RANGE or LIST (after PARTITION BY),
// ParsePartitionItem at the partition's name (after PARTITION).
Result<PartitionClause> ParsePartitionClause(TokenStream& ts);
Result<PartitionItem> ParsePartitionItem(TokenStream& ts, bool list);
bool IsAlterTablePartition(const TokenStream& ts);
Result<Statement> ParseAlterTablePartition(TokenStream& ts);
// catalog_parser.cpp: CREATE EXTERNAL CATALOG, SHOW CATALOGS, SHOW CREATE CATALOG, DROP CATALOG.
bool IsExternalCatalogStatement(const TokenStream& ts);
Result<Statement> ParseExternalCatalogStatement(TokenStream& ts);
// mariadb-dump's tablespace queries (`SELECT LOGFILE_GROUP_NAME, FILE_NAME, ... EXTRA FROM INFORMATION_SCHEMA.FILES
// WHERE ... GROUP BY ...`): a select list of bare column names over FILES alone. FILES is empty in Sluice (no
// tablespaces), so the answer is no rows with those columns, as MySQL's; DuckDB would refuse the query itself (it
// names columns it does not group). nullopt for any other statement.
std::optional<Statement> ParseTablespaceQuery(std::string_view sql);
bool IsDumpStatement(const TokenStream& ts);
Result<Statement> ParseDumpStatement(TokenStream& ts);
bool IsShowPartitions(const TokenStream& ts);
Result<Statement> ParseShowPartitions(TokenStream& ts);

}  // namespace sluice::sql
