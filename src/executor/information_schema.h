#pragma once
// information_schema as MySQL clients expect it (SCHEMATA, TABLES, COLUMNS, ...), built from Sluice's catalog and
// filtered by the session's privileges. DuckDB's own information_schema (which lists Sluice's internal schemas)
// is never reached: the translator rewrites every `information_schema.X` -- and, after USE information_schema, a
// bare X in FROM -- to `__sluice_is_x('<session token>') AS X`, a table function whose rows the session builds
// when the query is bound. So a query builds only the views it names, and filters, joins and sorts them in DuckDB
// like any table. User SQL cannot call these functions itself (the sandbox refuses every __sluice name).
//
// Adding a view: one file with a function returning an InformationSchemaView (columns, and how its rows are
// built from an InformationSchemaReader), plus its line in information_schema_views.cpp.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "auth/account_store.h"
#include "catalog/catalog.h"
#include "common/result_set.h"
#include "common/status.h"
#include "executor/access_control.h"
#include "scheduler/routine_load_manager.h"
#include "storage/database.h"
#include "storage/rows_table_function.h"

namespace sluice {

inline constexpr std::string_view kInformationSchema = "information_schema";

// What a session lets its information_schema see.
struct InformationSchemaSource {
  catalog::Catalog* catalog = nullptr;
  storage::Database* db = nullptr;
  const auth::AccountStore* accounts = nullptr;
  const AccessControl* access = nullptr;  // who asks (its active roles can change between statements)
  std::function<bool(const std::string& db)> sees_database;
  std::function<bool(const std::string& db, const std::string& table)> sees_table;
  // The jobs views (ROUTINE_LOAD_JOBS, LOADS, PIPES, PIPE_FILES) ask the scheduler, and decide a job's rows as
  // SHOW ROUTINE LOAD / SHOW PIPES do: a routine load by sees_routine_load, a pipe by sees_pipe.
  scheduler::RoutineLoadManager* jobs = nullptr;
  std::function<bool(const std::string& db, const std::string& pipe)> sees_pipe;
  // A routine load as SHOW ROUTINE LOAD decides it: by its target table (catalog.db / table for an Iceberg one).
  std::function<bool(const std::string& db, const std::string& job)> sees_routine_load;
};

// Reads the catalog for one statement, once: the views a query names share what they read.
class InformationSchemaReader {
 public:
  explicit InformationSchemaReader(const InformationSchemaSource& source) : source_(source) {}

  const InformationSchemaSource& source() const { return source_; }
  // User databases the session sees, sorted.
  Result<std::vector<std::string>> Databases();
  // Tables and views the session sees, by database then name.
  Result<const std::vector<catalog::TableMeta>*> Tables();
  // DuckDB's row estimate of each table, keyed (db, table); absent for views.
  Result<const std::map<std::pair<std::string, std::string>, int64_t>*> RowEstimates();
  // Every user database, seen or not: a job's rows are decided by its table (or pipe), not by its database.
  Result<std::vector<std::string>> AllDatabases();
  // Every job the scheduler has (not dropped), from memory; filter by privilege before showing anything.
  const std::vector<scheduler::JobStatus>& JobStatuses();
  // Rows of Sluice's own catalog (an internal query, never user SQL).
  Result<std::vector<Row>> InternalQuery(const std::string& sql);

 private:
  const InformationSchemaSource& source_;
  std::optional<std::vector<std::string>> databases_;
  std::optional<std::vector<catalog::TableMeta>> tables_;
  std::optional<std::map<std::pair<std::string, std::string>, int64_t>> row_estimates_;
  std::optional<std::vector<std::string>> all_databases_;
  std::optional<std::vector<scheduler::JobStatus>> job_statuses_;
};

struct InformationSchemaView {
  std::string name;  // lower case: information_schema.<name>
  std::vector<storage::RowsColumn> columns;  // MySQL's names and order, upper case
  std::function<Result<std::vector<Row>>(InformationSchemaReader&)> rows;
};

// Every view, in information_schema_views.cpp.
const std::vector<InformationSchemaView>& InformationSchemaViews();
const InformationSchemaView* FindInformationSchemaView(std::string_view name);

// Registers the table function of every view in `db`, once per database.
Status RegisterInformationSchemaFunctions(storage::Database& db);

// One session's information_schema: the token its queries pass to the table functions, the views the statement
// being run names, and their rows, built at most once per statement.
class InformationSchemaSession {
 public:
  explicit InformationSchemaSession(InformationSchemaSource source);
  ~InformationSchemaSession();
  InformationSchemaSession(const InformationSchemaSession&) = delete;
  InformationSchemaSession& operator=(const InformationSchemaSession&) = delete;

  // A new statement: rows built for the last one are stale.
  void BeginStatement();
  // The relation standing for information_schema.<name> (the translator's callback); records the name.
  std::string Relation(std::string_view name);
  // After translation: an error for a name that is no view of information_schema.
  Status CheckNamedViews() const;
  // The rows of `view` for the statement being run (the table function's producer).
  Result<std::vector<Row>> Rows(const InformationSchemaView& view);
  // Direct use by SHOW statements: the rows of a view, by name.
  Result<std::vector<Row>> Rows(std::string_view view);

 private:
  InformationSchemaSource source_;
  std::string token_;
  std::vector<std::string> unknown_;
  std::unique_ptr<InformationSchemaReader> reader_;
  std::map<std::string, std::vector<Row>> built_;
};

// Helpers for view files.
namespace information_schema {
inline std::optional<std::string> Text(std::string s) { return std::optional<std::string>(std::move(s)); }
inline std::optional<std::string> Number(int64_t n) { return std::to_string(n); }
inline const std::optional<std::string> kNull = std::nullopt;
storage::RowsColumn Varchar(std::string name);
storage::RowsColumn BigInt(std::string name);
storage::RowsColumn Timestamp(std::string name);
// A Timestamp column's value: from milliseconds since the epoch (NULL for 0 or less), or from the UTC
// "YYYY-MM-DD HH:MM:SS" text SHOW statements print (NULL for NULL or empty).
std::optional<std::string> TimestampFromMs(int64_t ms);
std::optional<std::string> TimestampFromText(const std::optional<std::string>& text);
// The index of the column named `name` in a SHOW result; -1 when it has none.
int ColumnIndex(const ResultSet& rs, std::string_view name);
// MySQL's DATA_TYPE for a column ("int", "varchar", "datetime", "tinyint" for boolean ...).
std::string MysqlDataType(const catalog::ColumnMeta& c);
// The column type as MySQL's COLUMN_TYPE shows it (the type as written: varchar(26), decimal(10,2)).
std::string MysqlColumnType(const catalog::ColumnMeta& c);
// The key columns of a table's key model, in key order (PRIMARY/UNIQUE/AGGREGATE/DUPLICATE KEY).
std::vector<std::string> KeyColumns(const catalog::TableMeta& t);
// A table's key is one index named PRIMARY in STATISTICS and SHOW INDEX, its columns COLUMN_KEY 'PRI' (as StarRocks
// shows key columns), so JDBC's getPrimaryKeys finds them. It is unique for the PRIMARY, UNIQUE and AGGREGATE
// models (one row per key); a DUPLICATE KEY only sorts.
inline constexpr const char* kKeyIndexName = "PRIMARY";
bool KeyIsUnique(const catalog::TableMeta& t);
}  // namespace information_schema

}  // namespace sluice
