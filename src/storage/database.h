#pragma once
// The storage layer is the only code that calls DuckDB's C API (DESIGN.md decision 1). Higher layers see
// Database, Connection and ResultSet, never duckdb_* handles.
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/result_set.h"
#include "common/status.h"
#include "common/test_points.h"
#include "storage/storage_health.h"
#include "storage/write_claims.h"
#include "storage/write_gate.h"

typedef struct _duckdb_database* duckdb_database;
typedef struct _duckdb_connection* duckdb_connection;

namespace sluice::storage {

class Connection;
class Checkpointer;

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

 private:
  Database(duckdb_database db, std::shared_ptr<StorageHealth> health);
  duckdb_database db_;
  std::shared_ptr<StorageHealth> health_;
  // Keeps UPDATEs and appending commits of all connections apart, table by table (write_gate.h).
  std::shared_ptr<WriteGate> write_gate_ = std::make_shared<WriteGate>();
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
  // Interrupts the statement running on this connection, from another thread.
  void Interrupt();
  // Whether schema.table is a table, by a catalog lookup: no query, so cheap enough to ask after every idle task.
  bool TableExists(const std::string& schema, const std::string& table);

  duckdb_connection raw() { return con_; }

 private:
  friend class Database;
  Connection(duckdb_connection con, std::shared_ptr<StorageHealth> health, std::shared_ptr<WriteGate> gate)
      : con_(con), health_(std::move(health)), write_gate_(std::move(gate)) {}
  // Waits until `sql` may run beside the other connections' writes (write_gate.h); held while it runs.
  WriteGate::Hold AdmitWrites(std::string_view sql) { return write_gate_->Acquire(write_claims_.For(sql)); }
  // Every DuckDB error leaves through here: a full disk or an invalidated database is noted and reworded.
  Status Checked(Status error) { return health_ ? health_->Observe(std::move(error)) : error; }
  duckdb_connection con_;
  std::shared_ptr<StorageHealth> health_;
  std::shared_ptr<WriteGate> write_gate_;
  WriteClaims write_claims_;
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
