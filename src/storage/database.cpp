#include "storage/database.h"

#include <duckdb.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

#include "common/test_points.h"
#include "storage/batch_table_function.h"
#include "storage/checkpointer.h"
#include "storage/pending_execution.h"
#include "storage/plan_transaction.h"
#include "storage/result_conversion.h"
#include "storage/text_row_stream.h"

namespace sluice::storage {

Result<std::unique_ptr<Database>> Database::Open(const std::string& path, DatabaseOptions options) {
  duckdb_database db = nullptr;
  duckdb_config config = nullptr;
  if (duckdb_create_config(&config) != DuckDBSuccess) return Status::Internal("cannot create a DuckDB config");
  // MySQL and StarRocks sort NULLs first in ascending order; results through the front door should too.
  duckdb_set_config(config, "default_null_order", "nulls_first");
  // DuckDB 1.4.4 checkpoints inside COMMIT once the WAL passes checkpoint_threshold; when that checkpoint fails
  // (a full disk) the commit reports an error but the tables are left empty in memory and the next clean close
  // writes them so: every committed row is lost. Sluice's Checkpointer runs CHECKPOINT instead, only with room
  // for it; a failed explicit checkpoint invalidates the database and keeps the WAL, so nothing is lost.
  if (!path.empty()) duckdb_set_config(config, "debug_skip_checkpoint_on_commit", "true");
  char* error = nullptr;
  const char* file = path.empty() ? nullptr : path.c_str();
  duckdb_state st = duckdb_open_ext(file, &db, config, &error);
  duckdb_destroy_config(&config);
  if (st != DuckDBSuccess) {
    std::string msg = error ? error : "unknown error";
    if (error) duckdb_free(error);
    return Status::IoError("cannot open the database file '" + path + "': " + msg);
  }
  std::shared_ptr<StorageHealth> health;
  if (!path.empty()) {
    health = std::make_shared<StorageHealth>(std::filesystem::path(path).parent_path().string(), options.disk);
  } else {
    health = std::make_shared<StorageHealth>(std::filesystem::temp_directory_path().string(), DiskPolicy{0});
  }
  auto out = std::unique_ptr<Database>(new Database(db, std::move(health)));
  ASSIGN_OR_RETURN(auto con, out->Connect());
  ASSIGN_OR_RETURN(auto res, con->Query("SELECT current_database()"));
  if (res.result_set && !res.result_set->rows.empty() && res.result_set->rows[0][0])
    out->catalog_name_ = *res.result_set->rows[0][0];
  if (!path.empty() && options.checkpoint_wal_bytes > 0) {
    ASSIGN_OR_RETURN(auto checkpoint_con, out->Connect());
    out->checkpointer_ = std::make_unique<Checkpointer>(std::move(checkpoint_con), path + ".wal",
                                                        options.checkpoint_wal_bytes,
                                                        std::chrono::seconds(options.checkpoint_interval_seconds),
                                                        *out->health_);
  }
  return out;
}

Database::Database(duckdb_database db, std::shared_ptr<StorageHealth> health) : db_(db), health_(std::move(health)) {}

Database::~Database() {
  checkpointer_.reset();
  duckdb_close(&db_);
}

Result<std::unique_ptr<Connection>> Database::Connect() {
  duckdb_connection con = nullptr;
  if (duckdb_connect(db_, &con) != DuckDBSuccess) return Status::Internal("cannot open a DuckDB connection");
  return std::unique_ptr<Connection>(new Connection(con, health_, write_gate_, catalog_epoch_));
}

Connection::~Connection() {
  EndStreamTransaction();
  for (auto& [sql, cached] : prepared_) duckdb_destroy_prepare(&cached.stmt);
  duckdb_disconnect(&con_);
}

void Connection::Interrupt() { duckdb_interrupt(con_); }

void Connection::EndStreamTransaction() {
  if (auto transaction = stream_transaction_.lock()) transaction->End();
  stream_transaction_.reset();
}

namespace {

// Types whose values duckdb_value_string cannot render; a query returning them is run as
// `SELECT COLUMNS(*)::VARCHAR FROM (...)` so DuckDB renders them, keeping the original column types for clients.
bool NeedsTextCast(duckdb_type t) {
  switch (t) {
    case DUCKDB_TYPE_LIST:
    case DUCKDB_TYPE_STRUCT:
    case DUCKDB_TYPE_MAP:
    case DUCKDB_TYPE_ARRAY:
    case DUCKDB_TYPE_UNION:
    case DUCKDB_TYPE_UUID:
    case DUCKDB_TYPE_ENUM:
    case DUCKDB_TYPE_BIT:
    case DUCKDB_TYPE_TIME_TZ:
    case DUCKDB_TYPE_UHUGEINT:
      return true;
    default:
      return false;
  }
}

std::string WithoutTrailingSemicolons(std::string_view sql) {
  size_t end = sql.size();
  while (end > 0 && (sql[end - 1] == ';' || isspace(static_cast<unsigned char>(sql[end - 1])))) end--;
  return std::string(sql.substr(0, end));
}

// A prepared statement's result columns: names and types as the client will see them.
std::vector<ColumnInfo> PreparedColumns(duckdb_prepared_statement stmt) {
  std::vector<ColumnInfo> columns;
  const idx_t n = duckdb_prepared_statement_column_count(stmt);
  for (idx_t c = 0; c < n; c++) {
    duckdb_logical_type lt = duckdb_prepared_statement_column_logical_type(stmt, c);
    const char* name = duckdb_prepared_statement_column_name(stmt, c);  // ours to free
    columns.push_back(DescribeColumn(name, lt));
    duckdb_free(const_cast<char*>(name));
    duckdb_destroy_logical_type(&lt);
  }
  return columns;
}

// DuckDB's C API takes SQL as a C string: text after a NUL byte would be dropped silently (a DELETE's
// `\0 AND id < 0` would vanish and the DELETE would remove more rows). The lexer refuses a NUL a client sends; this
// keeps one that reached generated SQL (a MySQL '\0' escape inside a string, say) from being cut.
Status RefuseNul(std::string_view sql) {
  if (sql.find('\0') == std::string_view::npos) return Status::Ok();
  return Status::InvalidArgument("the statement contains a NUL byte (0x00), which is not supported in SQL text or "
                                 "string literals; remove it");
}

}  // namespace

Result<std::vector<ColumnInfo>> Connection::ResultColumns(std::string_view sql) {
  RETURN_IF_ERROR(RefuseNul(sql));
  std::string text(sql);
  Prepared prepared;
  if (duckdb_prepare(con_, text.c_str(), &prepared.stmt) != DuckDBSuccess) {
    const char* error = duckdb_prepare_error(prepared.stmt);
    return ErrorFromMessage(error ? error : "the statement could not be prepared");
  }
  if (duckdb_prepared_statement_type(prepared.stmt) != DUCKDB_STATEMENT_TYPE_SELECT) return std::vector<ColumnInfo>{};
  return PreparedColumns(prepared.stmt);
}

Result<StatementResult> Connection::QueryStreaming(std::string_view sql) {
  EndStreamTransaction();
  std::string text(sql);
  Prepared prepared;
  if (duckdb_prepare(con_, text.c_str(), &prepared.stmt) != DuckDBSuccess || duckdb_nparams(prepared.stmt) != 0 ||
      duckdb_prepared_statement_type(prepared.stmt) != DUCKDB_STATEMENT_TYPE_SELECT) {
    return Query(sql);
  }
  // Every column is rendered as text by DuckDB (one cheap string read per value here); the clients see the
  // original types. BLOB would render escaped, so results with one keep the materialized path, which reads raw bytes.
  std::vector<ColumnInfo> original = PreparedColumns(prepared.stmt);
  const idx_t n = original.size();
  if (std::any_of(original.begin(), original.end(), [](const ColumnInfo& c) { return c.type == ValueType::kBlob; }))
    return Query(sql);
  duckdb_destroy_prepare(&prepared.stmt);
  // Planned and run in one transaction (plan_transaction.h), which ends with the stream.
  auto transaction = std::make_shared<PlanTransaction>(con_, !write_claims_.in_transaction());
  std::string wrapped = "SELECT COLUMNS(*)::VARCHAR FROM (" + WithoutTrailingSemicolons(text) + "\n) AS q";
  if (duckdb_prepare(con_, wrapped.c_str(), &prepared.stmt) != DuckDBSuccess ||
      duckdb_prepared_statement_column_count(prepared.stmt) != n) {
    transaction->Rollback();
    return Query(sql);
  }
  RETURN_IF_ERROR(TestPoint("storage.query.after_plan"));
  duckdb_result result;
  Status start_error;
  duckdb_state st = ExecutePrepared(prepared.stmt, &result, &start_error, /*streaming=*/true);
  if (!start_error.ok()) return Checked(start_error);
  if (st != DuckDBSuccess) {
    Status error = ErrorFromResult(&result);
    duckdb_destroy_result(&result);
    return Checked(error);
  }
  StatementResult out;
  out.result_set = ResultSet{original, {}};
  if (transaction->open()) stream_transaction_ = transaction;
  out.stream = MakeTextRowStream(result, std::move(original), health_, std::move(transaction));
  return out;
}

Result<StatementResult> Connection::Query(std::string_view sql) {
  RETURN_IF_ERROR(RefuseNul(sql));
  const Admitted admitted = AdmitWrites(sql);
  std::string text(sql);
  Prepared prepared;
  // Several statements, or ones DuckDB cannot prepare, run through duckdb_query, which also classifies errors.
  if (duckdb_prepare(con_, text.c_str(), &prepared.stmt) != DuckDBSuccess ||
      duckdb_nparams(prepared.stmt) != 0) {
    duckdb_result result;
    duckdb_state st = duckdb_query(con_, text.c_str(), &result);
    Result<StatementResult> out =
        st == DuckDBSuccess ? ConvertResult(&result, {}) : Checked(ErrorFromResult(&result));
    duckdb_destroy_result(&result);
    return out;
  }
  const duckdb_statement_type type = duckdb_prepared_statement_type(prepared.stmt);
  std::vector<ColumnInfo> original;
  std::string to_run = text;
  if (type == DUCKDB_STATEMENT_TYPE_SELECT) {
    idx_t n = duckdb_prepared_statement_column_count(prepared.stmt);
    bool cast = false;
    for (idx_t c = 0; c < n; c++) cast |= NeedsTextCast(duckdb_prepared_statement_column_type(prepared.stmt, c));
    if (cast) {
      original = PreparedColumns(prepared.stmt);
      to_run = "SELECT COLUMNS(*)::VARCHAR FROM (" + WithoutTrailingSemicolons(text) + "\n) AS q";
    }
  }
  // Outside a transaction the statement is planned again inside one of its own (plan_transaction.h).
  PlanTransaction transaction(con_, !write_claims_.in_transaction() && PlanDependsOnData(type));
  if (transaction.open() || to_run != text) {
    duckdb_destroy_prepare(&prepared.stmt);
    if (duckdb_prepare(con_, to_run.c_str(), &prepared.stmt) != DuckDBSuccess) {
      const char* error = duckdb_prepare_error(prepared.stmt);
      if (to_run != text)
        return Status::Internal(std::string("cannot render the result as text: ") + (error ? error : ""));
      return Checked(ErrorFromMessage(error ? error : "the statement could not be prepared"));
    }
  }
  RETURN_IF_ERROR(TestPoint("storage.query.after_plan"));
  duckdb_result result;
  Status start_error;
  duckdb_state st = ExecutePrepared(prepared.stmt, &result, &start_error);
  if (!start_error.ok()) return Checked(start_error);
  Result<StatementResult> out =
      st == DuckDBSuccess ? ConvertResult(&result, original) : Checked(ErrorFromResult(&result));
  duckdb_destroy_result(&result);
  if (out.ok() && transaction.open()) {
    Status committed = transaction.Commit();
    if (!committed.ok()) return Checked(committed);
  }
  return out;
}

Status Connection::Execute(std::string_view sql) {
  RETURN_IF_ERROR(RefuseNul(sql));
  const Admitted admitted = AdmitWrites(sql);
  duckdb_result result;
  std::string text(sql);
  // One statement runs like Query's, without DuckDB's busy wait: a COMMIT (InTransaction's, CREATE's catalog
  // insert, a job's first progress rows) otherwise spins on its thread while DuckDB's worker writes the WAL, which
  // was most of the instructions of starting a job. Several statements (or one DuckDB cannot prepare, which then
  // reports its own error) run through duckdb_query.
  Prepared prepared;
  if (duckdb_prepare(con_, text.c_str(), &prepared.stmt) == DuckDBSuccess && duckdb_nparams(prepared.stmt) == 0) {
    Status start_error;
    duckdb_state st = ExecutePrepared(prepared.stmt, &result, &start_error);
    if (!start_error.ok()) return Checked(start_error);
    Status out = st == DuckDBSuccess ? Status::Ok() : Checked(ErrorFromResult(&result));
    duckdb_destroy_result(&result);
    return out;
  }
  duckdb_state st = duckdb_query(con_, text.c_str(), &result);
  Status out = st == DuckDBSuccess ? Status::Ok() : Checked(ErrorFromResult(&result));
  duckdb_destroy_result(&result);
  return out;
}

void Connection::DropPrepared(const std::string& sql) {
  auto it = prepared_.find(sql);
  if (it == prepared_.end()) return;
  duckdb_destroy_prepare(&it->second.stmt);
  used_.erase(it->second.use);
  prepared_.erase(it);
}

namespace {

Status BindParams(duckdb_prepared_statement stmt, const std::vector<StatementParam>& params) {
  if (duckdb_nparams(stmt) != params.size())
    return Status::Internal("a prepared statement has " + std::to_string(duckdb_nparams(stmt)) + " parameters, " +
                            std::to_string(params.size()) + " values were given");
  for (idx_t i = 0; i < params.size(); i++) {
    const StatementParam& p = params[i];
    duckdb_state st = DuckDBSuccess;
    if (std::holds_alternative<std::monostate>(p)) st = duckdb_bind_null(stmt, i + 1);
    else if (const int64_t* v = std::get_if<int64_t>(&p)) st = duckdb_bind_int64(stmt, i + 1, *v);
    else {
      const std::string& text = std::get<std::string>(p);
      st = duckdb_bind_varchar_length(stmt, i + 1, text.data(), text.size());
    }
    if (st != DuckDBSuccess) return Status::Internal("cannot bind parameter " + std::to_string(i + 1));
  }
  return Status::Ok();
}

}  // namespace

// Callers write each parameter with the type of the values they bind (`$1::BIGINT` for an int64_t, `$2::VARCHAR`
// for a string): DuckDB re-binds a prepared statement at every run whose values differ in type from its parameters
// ($1::INTEGER given a BIGINT, or a NULL, which has no type), and the statement would be planned every time again.
// DuckDB 1.4.4 also plans a prepared statement again at every run when a parameter sits directly in an INSERT's
// VALUES or an UPDATE's SET or WHERE, is compared with a column (`WHERE id = $1`, in a SELECT too), or is used twice
// in a multi-row VALUES; parameters that are only columns of a CTE or subquery, each used once, keep the plan
// (storage/README.md; catalog::RoutineLoadStore::AdvanceProgress, catalog::RecordLoadHistory).
Result<StatementResult> Connection::QueryPrepared(std::string_view sql, const std::vector<StatementParam>& params) {
  RETURN_IF_ERROR(RefuseNul(sql));
  for (const StatementParam& p : params)
    if (const std::string* text = std::get_if<std::string>(&p)) RETURN_IF_ERROR(RefuseNul(*text));
  const Admitted admitted = AdmitWrites(sql);
  std::string text(sql);
  const uint64_t epoch = catalog_epoch_->load();
  auto it = prepared_.find(text);
  if (it != prepared_.end() && it->second.epoch != epoch) {
    DropPrepared(text);
    it = prepared_.end();
  }
  if (it == prepared_.end()) {
    Prepared fresh;
    if (duckdb_prepare(con_, text.c_str(), &fresh.stmt) != DuckDBSuccess) {
      const char* error = duckdb_prepare_error(fresh.stmt);
      return Checked(ErrorFromMessage(error ? error : "the statement could not be prepared"));
    }
    if (prepared_.size() >= kPreparedStatements) DropPrepared(used_.back());
    used_.push_front(text);
    it = prepared_.emplace(text, CachedStatement{fresh.stmt, epoch, used_.begin()}).first;
    fresh.stmt = nullptr;
  } else {
    used_.splice(used_.begin(), used_, it->second.use);
  }
  duckdb_prepared_statement stmt = it->second.stmt;
  duckdb_clear_bindings(stmt);
  RETURN_IF_ERROR(BindParams(stmt, params));
  duckdb_result result;
  Status start_error;
  duckdb_state st = ExecutePrepared(stmt, &result, &start_error);
  if (!start_error.ok()) {
    DropPrepared(text);  // prepared afresh next time, in case the statement itself is what failed
    return Checked(start_error);
  }
  Result<StatementResult> out = st == DuckDBSuccess ? ConvertResult(&result, {}) : Checked(ErrorFromResult(&result));
  duckdb_destroy_result(&result);
  if (!out.ok()) DropPrepared(text);
  return out;
}

int64_t Connection::BatchSlot(const std::vector<std::string>& columns) {
  auto [it, fresh] = batch_slots_.emplace(columns, 0);
  if (fresh) it->second = NewBatchId();
  return it->second;
}

bool Connection::TableExists(const std::string& schema, const std::string& table) {
  duckdb_table_description description = nullptr;
  bool found = duckdb_table_description_create(con_, schema.c_str(), table.c_str(), &description) == DuckDBSuccess;
  duckdb_table_description_destroy(&description);
  return found;
}

}  // namespace sluice::storage
