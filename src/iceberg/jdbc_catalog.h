#pragma once
// JdbcCatalog: Iceberg's JDBC catalog layout in PostgreSQL, spoken through libpq, so Spark's, Flink's and Trino's
// JdbcCatalog over the same database see the same tables. Two tables, created when missing as Java's JdbcCatalog
// does: iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location)
// and iceberg_namespace_properties (catalog_name, namespace, property_key, property_value). A commit is one
// UPDATE ... WHERE catalog_name, table_namespace, table_name AND metadata_location = <expected>: PostgreSQL's row
// lock makes it a compare-and-swap, so of two racing writers exactly one updates a row.
#include <memory>
#include <mutex>
#include <string>

#include "iceberg/catalog.h"
#include "pgconn/bounded_exec.h"

struct pg_conn;

namespace sluice::iceberg {

// The egress allow list (common/egress_policy.h) over the PostgreSQL server a catalog URI names: its host (or
// hostaddr) and port; a Unix socket (no host, or a path) is refused while the list is set, as it is a file of the
// server. Checked by CREATE EXTERNAL CATALOG, and again by Connect, which then connects to an allowed address.
Status CheckJdbcEgress(const std::string& uri);

class JdbcCatalog : public Catalog {
 public:
  // `uri`: a libpq connection string or URI ("host=127.0.0.1 port=5432 dbname=lake user=sluice",
  // "postgresql://user@host:port/db"); Iceberg's "jdbc:postgresql://..." form is accepted too (the "jdbc:" dropped,
  // user and password given as `user` / `password`). `catalog_name` is Iceberg's catalog name (the rows' first
  // column): engines that attach the same catalog must use the same name.
  static Result<std::unique_ptr<JdbcCatalog>> Connect(const std::string& uri, const std::string& catalog_name,
                                                      const std::string& user = "", const std::string& password = "");
  ~JdbcCatalog() override;

  Result<std::string> LoadTable(const TableIdent& table) override;
  Status CreateTable(const TableIdent& table, const std::string& metadata_location) override;
  Result<CommitOutcome> CommitTable(const TableIdent& table, const std::string& expected_metadata_location,
                                    const std::string& new_metadata_location) override;
  // The witness is run on the catalog's connection: a row means guards written for that database can run here.
  // A missing table or privilege (another database, or a user who may not lock the guards' rows) is false.
  Result<bool> RunsGuards(const CommitGuard& witness) override;
  // One statement: the UPDATE ... WHERE metadata_location = <expected> also requires EXISTS (guard) for every
  // guard, so its row locks (FOR SHARE) are taken and held in the swap's own transaction, until it commits.
  Result<CommitResult> CommitTableGuarded(const TableIdent& table, const std::string& expected_metadata_location,
                                          const std::string& new_metadata_location,
                                          const std::vector<CommitGuard>& guards) override;
  Status CreateNamespace(const std::vector<std::string>& ns) override;
  Result<bool> NamespaceExists(const std::vector<std::string>& ns) override;
  Result<std::vector<std::string>> ListNamespaces() override;
  Status DropNamespace(const std::vector<std::string>& ns) override;
  Result<std::vector<TableIdent>> ListTables(const std::vector<std::string>& ns) override;
  Status DropTable(const TableIdent& table) override;

 private:
  JdbcCatalog(pg_conn* conn, std::string catalog_name, std::string where);
  struct QueryResult;
  // Runs one statement with text parameters, waiting at most the answer deadline (--catalog-answer-deadline-seconds,
  // 6 s by default, pgconn/deadlines.h) for its answer; reconnects once when
  // the connection was lost or the answer did not come (after ending the session the unanswered statement may
  // still run in, so a retried swap and the re-read that follows it see the final outcome).
  Result<QueryResult> Exec(const std::string& sql, const std::vector<std::string>& params);
  Status EnsureTables();

  std::mutex mu_;
  pgconn::BoundedConnection db_;  // owns the connection
  pg_conn* conn_;                 // db_'s connection (the same one across reconnects)
  std::string catalog_name_;
  std::string where_;  // host:port/db for messages
  bool has_iceberg_type_ = false;  // the V1 layout's iceberg_type column exists
};

}  // namespace sluice::iceberg
