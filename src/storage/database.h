#pragma once
// The storage layer is the only code that calls DuckDB's C API (DESIGN.md decision 1). Higher layers see
// Database, Connection and ResultSet, never duckdb_* handles.
#include <atomic>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "common/result_set.h"
#include "common/status.h"
#include "common/test_points.h"
#include "storage/storage_health.h"
#include "storage/write_claims.h"
#include "storage/write_gate.h"

typedef struct _duckdb_database* duckdb_database;
typedef struct _duckdb_connection* duckdb_connection;
typedef struct _duckdb_prepared_statement* duckdb_prepared_statement;

namespace sluice::storage {

class Connection;
class Checkpointer;
class PlanTransaction;

// A value for a parameter ($1, $2, ...) of Connection::QueryPrepared: NULL, a BIGINT or a VARCHAR.
using StatementParam = std::variant<std::monostate, int64_t, std::string>;

struct DatabaseOptions {
  DiskPolicy disk;
  // Sluice checkpoints the database itself once its WAL is this large (DuckDB's own checkpoint on commit is off:
  // see checkpointer.h). 0: never (tests that look at the WAL).
  uint64_t checkpoint_wal_bytes = 16ull << 20;
  // ... and once this many seconds have passed since the last checkpoint, whatever the WAL's size (if it holds at
  // least kIntervalCheckpointMinWalBytes): a restart after a crash replays the whole WAL, and DuckDB replays
  // many small commits slowly (an 11 MiB WAL of load tasks took 16 CPU seconds), so a quiet server would otherwise
  // carry up to checkpoint_wal_bytes of WAL into a slow restart. 0: by size only.
  int64_t checkpoint_interval_seconds = 60;
};

class Database {
 public:
  // Opens (or creates) the DuckDB database file. An empty path opens an in-memory database (tests).
  static Result<std::unique_ptr<Database>> Open(const std::string& path, DatabaseOptions options = {});
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  Result<std::unique_ptr<Connection>> Connect();
  // DuckDB's name for the attached file (the catalog part of catalog.schema.table).
  const std::string& catalog_name() const { return catalog_name_; }
  // Free space and DuckDB's verdict on the file; every connection's errors feed it.
  StorageHealth& health() { return *health_; }
  // Moves on once a statement on any connection that may have changed the catalog (CREATE, ALTER, DROP, ... in
  // autocommit, or the COMMIT of a transaction that ran one) has run: an answer about the catalog read at one
  // value is still true while the value has not moved.
  uint64_t catalog_epoch() const { return catalog_epoch_->load(); }

 private:
  Database(duckdb_database db, std::shared_ptr<StorageHealth> health);
  duckdb_database db_;
  std::shared_ptr<StorageHealth> health_;
  // Keeps UPDATEs and appending commits of all connections apart, table by table (write_gate.h).
  std::shared_ptr<WriteGate> write_gate_ = std::make_shared<WriteGate>();
  // Moves on whenever a statement on any connection may have changed the catalog (Connection::QueryPrepared).
  std::shared_ptr<std::atomic<uint64_t>> catalog_epoch_ = std::make_shared<std::atomic<uint64_t>>(0);
  std::string catalog_name_;
  std::unique_ptr<Checkpointer> checkpointer_;
};

class Connection {
 public:
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs one or more SQL statements; returns the last statement's result.
  Result<StatementResult> Query(std::string_view sql);
  // Like Query, but a single SELECT hands its rows back as a ResultRowStream (StatementResult::stream) that runs the query
  // as rows are fetched, so a huge result never sits in memory. Nothing else may run on this connection until the
  // stream is destroyed. Other statements (and results with BLOB columns) run as Query does.
  Result<StatementResult> QueryStreaming(std::string_view sql);
  // Runs SQL whose result does not matter.
  Status Execute(std::string_view sql);
  // The columns a single SELECT would return (names and types as Query gives them), found by preparing it: nothing
  // runs. Empty for a statement that returns no rows; an error when DuckDB cannot prepare it.
  Result<std::vector<ColumnInfo>> ResultColumns(std::string_view sql);
  // Runs one statement that this connection prepares once and then runs again with new parameter values ($1, $2,
  // ... in `params`; a parameter's type must be clear from the SQL, e.g. `$1::BIGINT`): DuckDB parses, binds and
  // plans it once, not at every run (a load task's INSERT over sluice_batch() costs about 25 M instructions to
  // plan). The statement is prepared again after a statement on any connection of the database may have changed
  // the catalog (CREATE, ALTER, DROP ...): DuckDB re-binds such a statement itself, but at every run from then on.
  // The connection keeps its kPreparedStatements most recently used statements. Results are those of Query;
  // statements that return LIST/STRUCT/... columns (which Query renders as text) are not supported.
  Result<StatementResult> QueryPrepared(std::string_view sql, const std::vector<StatementParam>& params = {});
  // The id under which batches of these columns are published for sluice_batch() on this connection
  // (storage/batch_table_function.h): the same for every batch of these columns, so statements over it can be
  // prepared once. One batch at a time per slot.
  int64_t BatchSlot(const std::vector<std::string>& columns);
  static constexpr size_t kPreparedStatements = 64;
  // Interrupts the statement running on this connection, from another thread.
  void Interrupt();
  // Whether schema.table is a table, by a catalog lookup: no query, so cheap enough to ask after every idle task.
  bool TableExists(const std::string& schema, const std::string& table);

  duckdb_connection raw() { return con_; }

 private:
  friend class Database;
  Connection(duckdb_connection con, std::shared_ptr<StorageHealth> health, std::shared_ptr<WriteGate> gate,
             std::shared_ptr<std::atomic<uint64_t>> catalog_epoch)
      : con_(con), health_(std::move(health)), write_gate_(std::move(gate)), catalog_epoch_(std::move(catalog_epoch)) {}
  // Held while a statement runs: its write claims (write_gate.h); when it is gone, the statement has run, and the
  // catalog epoch moves on if the statement may have changed the catalog.
  struct Admitted {
    WriteGate::Hold hold;
    std::atomic<uint64_t>* epoch_to_advance = nullptr;
    Admitted(WriteGate::Hold h, std::atomic<uint64_t>* epoch) : hold(std::move(h)), epoch_to_advance(epoch) {}
    Admitted(const Admitted&) = delete;
    ~Admitted() {
      if (epoch_to_advance) epoch_to_advance->fetch_add(1);
    }
  };
  // Waits until `sql` may run beside the other connections' writes (write_gate.h); held while it runs.
  Admitted AdmitWrites(std::string_view sql) {
    EndStreamTransaction();
    WriteGate::Hold hold = write_gate_->Acquire(write_claims_.For(sql));
    return Admitted(std::move(hold), write_claims_.changed_catalog() ? catalog_epoch_.get() : nullptr);
  }
  // Every DuckDB error leaves through here: a full disk or an invalidated database is noted and reworded.
  Status Checked(Status error) { return health_ ? health_->Observe(std::move(error)) : error; }
  duckdb_connection con_;
  std::shared_ptr<StorageHealth> health_;
  std::shared_ptr<WriteGate> write_gate_;
  WriteClaims write_claims_;
  std::shared_ptr<std::atomic<uint64_t>> catalog_epoch_;
  struct CachedStatement {
    duckdb_prepared_statement stmt = nullptr;
    uint64_t epoch = 0;  // catalog_epoch_ before it was prepared
    std::list<std::string>::iterator use;  // its place in used_
  };
  void DropPrepared(const std::string& sql);
  // A streaming SELECT's own transaction (plan_transaction.h) ends when its stream does, or at the latest when the
  // connection's next statement starts (DuckDB has closed the stream by then).
  void EndStreamTransaction();
  std::weak_ptr<PlanTransaction> stream_transaction_;
  std::unordered_map<std::string, CachedStatement> prepared_;
  std::list<std::string> used_;  // most recently used first
  std::map<std::vector<std::string>, int64_t> batch_slots_;
};

// Runs a function inside BEGIN ... COMMIT on `con`, rolling back when it fails. `test_point` (storage.commit or
// a name below it, common/test_points.h) is hit between the function's writes and COMMIT: an armed `error` there
// fails the commit as a DuckDB write error would, so tests can prove that a failed commit leaves nothing behind.
template <typename Fn>
Status InTransaction(Connection& con, Fn&& fn, std::string_view test_point = "storage.commit") {
  RETURN_IF_ERROR(con.Execute("BEGIN TRANSACTION"));
  Status st = fn();
  if (st.ok()) st = TestPoint(test_point);
  if (st.ok()) st = con.Execute("COMMIT");
  if (!st.ok()) (void)con.Execute("ROLLBACK");
  return st;
}

}  // namespace sluice::storage
