#pragma once
// Databases (Iceberg namespaces) and tables of an external catalog, for the front door's DDL and SHOW:
// CREATE / DROP DATABASE catalog.db, SHOW DATABASES FROM catalog, CREATE TABLE catalog.db.t (...) [PARTITION BY
// (col | year(c) | month(c) | day(c) | hour(c) | truncate(w, c))], SHOW TABLES FROM catalog.db, DESC, SHOW CREATE
// TABLE, DROP TABLE (which forgets the table in the catalog; its files stay, as Iceberg's JDBC catalog leaves them
// without PURGE).
#include <string>
#include <vector>

#include "common/result_set.h"
#include "common/status.h"
#include "lakehouse/lake_catalogs.h"
#include "sql/ast.h"

namespace sluice::lakehouse {

// true when it already existed (and if_not_exists was given).
Result<bool> CreateLakeDatabase(LakeCatalogs& lakes, const std::string& catalog, const std::string& db,
                                bool if_not_exists);
// true when it did not exist (and if_exists was given).
Result<bool> DropLakeDatabase(LakeCatalogs& lakes, const std::string& catalog, const std::string& db, bool if_exists);
// Whether catalog.db exists, and catalog.db.table unless table is "" or "*" (GRANT names existing objects):
// UnknownDatabase / UnknownTable saying so.
Status CheckLakeObjectExists(LakeCatalogs& lakes, const std::string& catalog, const std::string& db,
                             const std::string& table);
Result<std::vector<std::string>> ListLakeDatabases(LakeCatalogs& lakes, const std::string& catalog);
Result<std::vector<std::string>> ListLakeTables(LakeCatalogs& lakes, const std::string& catalog, const std::string& db);

// The table's column types map as src/iceberg/README.md "Type mapping" says; key models other than DUPLICATE,
// RANGE/LIST partitions, DISTRIBUTED BY, defaults and bucket()/void partitions are refused with what to do.
Status CreateLakeTable(LakeCatalogs& lakes, const sql::CreateTable& stmt);
// true when it did not exist (and if_exists was given).
Result<bool> DropLakeTable(LakeCatalogs& lakes, const LakeTableRef& ref, bool if_exists);
// DESC's columns: Field, Type, Null, Key, Default, Extra (Extra: the partition transforms on the column).
Result<ResultSet> DescribeLakeTable(LakeCatalogs& lakes, const LakeTableRef& ref);
Result<std::string> ShowCreateLakeTable(LakeCatalogs& lakes, const LakeTableRef& ref);

// A partition term of CREATE TABLE's PARTITION BY as Iceberg writes it: "day(ts)", "truncate(4, name)", "id".
std::vector<std::string> PartitionTerms(const std::string& partition_clause);

}  // namespace sluice::lakehouse
