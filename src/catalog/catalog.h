#pragma once
// Databases and tables as StarRocks users see them, kept in DuckDB: a database is a DuckDB schema, a table a
// DuckDB table, and what DuckDB does not know (key model, aggregate functions, types as written, comments,
// properties, dropped tables awaiting UNDROP) lives in the system schema __sluice, changed in the same
// transaction as the DDL it describes.
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "catalog/table_alter.h"
#include "catalog/table_meta.h"
#include "common/clock.h"
#include "common/status.h"
#include "sql/ast.h"
#include "storage/database.h"

namespace sluice::catalog {

// How long a dropped table stays restorable unless its PROPERTIES say otherwise ("undrop_retention_seconds").
inline constexpr int64_t kDefaultUndropRetentionSeconds = 86400;
inline constexpr const char* kUndropRetentionProperty = "undrop_retention_seconds";
inline constexpr const char* kSystemSchema = "__sluice";

class Catalog {
 public:
  // Seconds since the epoch; tests pass their own (or override the common wall clock) to move time forward.
  using Clock = std::function<int64_t()>;
  static int64_t WallClockSeconds() { return WallClockMs() / 1000; }
  static Result<std::unique_ptr<Catalog>> Open(storage::Database& db, Clock clock = WallClockSeconds);

  Status CreateDatabase(const std::string& name, bool if_not_exists);
  Status DropDatabase(const std::string& name, bool if_exists);
  bool DatabaseExists(const std::string& name);
  Result<std::vector<std::string>> ListDatabases();

  // `db` is already resolved (the statement's or the session's).
  Status CreateTable(const std::string& db, const sql::CreateTable& stmt);
  // Without FORCE the table is kept restorable until its retention passes.
  Status DropTable(const std::string& db, const std::string& name, bool if_exists, bool force);
  Status UndropTable(const std::string& db, const std::string& name);
  Result<std::vector<std::string>> ListTables(const std::string& db);
  Result<std::vector<DroppedTable>> ListDroppedTables(const std::string& db);
  // Merges DuckDB's live columns with what Sluice remembers, so tables altered or created through
  // pass-through SQL still describe correctly.
  Result<TableMeta> DescribeTable(const std::string& db, const std::string& name);
  Result<std::string> ShowCreateTable(const std::string& db, const std::string& name);
  // The key model Sluice keeps for a table ("PRIMARY", "UNIQUE", "AGGREGATE", "DUPLICATE"), or "" when it keeps
  // none (Lakehouse-form tables, tables made through DuckDB SQL, unknown tables). One small query.
  Result<std::string> KeyModel(const std::string& db, const std::string& name);

  // What Sluice keeps about a table, without asking DuckDB about its columns; nullopt for tables it keeps nothing
  // about. One small query (INSERT reads it to know key tables and partitions).
  Result<std::optional<TableMeta>> StoredMeta(const std::string& db, const std::string& name);
  // ALTER TABLE ... ADD PARTITION: checked against the table's partitions (catalog/table_partitions.h).
  Status AddPartition(const std::string& db, const std::string& name, const sql::PartitionItem& item,
                      bool if_not_exists);
  // ALTER TABLE ... DROP PARTITION: deletes the partition's rows and forgets it, in one transaction. Returns the
  // rows deleted.
  Result<int64_t> DropPartition(const std::string& db, const std::string& name, const std::string& partition,
                                bool if_exists);
  // ALTER TABLE's column and table clauses (catalog/table_alter.h). A change of columns rebuilds the DuckDB table
  // in one transaction (CREATE the new one, INSERT ... SELECT in the new order, DROP, RENAME) after checking that
  // every stored value fits its new type; comments and RENAME only change the metadata. Returns what changed.
  Result<AlteredTable> AlterTable(const std::string& db, const sql::AlterTable& stmt);
  // Rows per partition, in the order of meta.partitioning.partitions (one scan of the table).
  Result<std::vector<int64_t>> PartitionRowCounts(const TableMeta& meta);

  // Deletes dropped tables whose retention has passed. Returns how many were purged.
  Result<int> PurgeExpiredDroppedTables();

 private:
  Catalog(storage::Database& db, std::unique_ptr<storage::Connection> con, Clock clock)
      : db_(db), con_(std::move(con)), clock_(std::move(clock)) {}
  Status Bootstrap();
  bool TableExistsLocked(const std::string& db, const std::string& name);
  Result<std::optional<TableMeta>> LoadMetaLocked(const std::string& db, const std::string& name);
  Status RequireDatabaseLocked(const std::string& db);
  Result<TableMeta> DescribeTableLocked(const std::string& db, const std::string& name);
  Status CheckValuesFit(const TableMeta& current, const AlteredTable& altered);
  Result<TableMeta> PartitionedTableLocked(const std::string& db, const std::string& name);
  Status SaveMetaLocked(const TableMeta& meta);
  // Held by every method that writes the catalog: mu_, and on leaving, the kept answers are forgotten (Sluice's
  // own metadata rows are not DDL, so they do not move the database's catalog epoch).
  struct Changing {
    explicit Changing(Catalog& c) : catalog(c), lock(c.mu_) {}
    ~Changing() { catalog.ForgetAnswersLocked(); }
    Catalog& catalog;
    std::lock_guard<std::mutex> lock;
  };
  // Forgets the kept answers when the database's catalog epoch moved since they were read; returns the epoch.
  uint64_t RefreshAnswersLocked();
  void ForgetAnswersLocked();

  storage::Database& db_;
  std::mutex mu_;  // one DDL at a time on the catalog's own connection
  std::unique_ptr<storage::Connection> con_;
  Clock clock_;
  // Answers of DescribeTable and the database check, kept while nothing changed the catalog: every CREATE ROUTINE
  // LOAD / CREATE PIPE and every job's scheduling describes its table (about 7 M instructions, a few milliseconds
  // each), and 1,000 jobs on one table asked the same question 2,000 times. Valid while storage::Database's catalog
  // epoch (any DDL on any connection, pass-through SQL included) stays at answers_epoch_ and no method of this
  // catalog wrote its metadata since (Changing). An answer read while the epoch moved is not kept.
  uint64_t answers_epoch_ = 0;
  std::map<std::pair<std::string, std::string>, TableMeta> described_;
  std::map<std::pair<std::string, std::string>, Status> not_described_;  // unknown table or database
  std::map<std::string, bool> database_exists_;
};

// Builds what Sluice keeps for a CREATE TABLE and checks it: key columns exist and lead the column list,
// aggregate functions only on value columns of AGGREGATE KEY tables, and so on.
Result<TableMeta> BuildTableMeta(const std::string& db, const sql::CreateTable& stmt);
// The DuckDB DDL for a table Sluice remembers.
std::string DuckDBCreateTableSql(const TableMeta& meta);
// A StarRocks-style CREATE TABLE that recreates the table.
std::string RenderCreateTable(const TableMeta& meta);

}  // namespace sluice::catalog
