#pragma once
// A session at the front door: parses each statement, runs Sluice's own statements against the catalog and
// hands everything else to its DuckDB connection.
#include <chrono>
#include <functional>
#include <optional>
#include <utility>
#include <map>
#include <memory>
#include <string>

#include "auth/account_store.h"
#include "catalog/catalog.h"
#include "cluster/node_directory.h"
#include "catalog/server_settings.h"
#include "catalog/volume_store.h"
#include "executor/access_control.h"
#include "executor/information_schema.h"
#include "executor/session.h"
#include "executor/session_registry.h"
#include "scheduler/routine_load_manager.h"
#include "executor/session_variables.h"
#include "executor/sql_guard.h"
#include "lakehouse/lake_catalogs.h"
#include "sql/ast.h"
#include "sql/parser.h"
#include "sql/statement_scan.h"
#include "storage/database.h"

namespace sluice {

class SqlSession : public Session {
 public:
  SqlSession(storage::Database& db, catalog::Catalog& catalog, scheduler::RoutineLoadManager& routine_loads,
             SessionRegistry& registry,
             std::unique_ptr<storage::Connection> con, uint32_t connection_id, std::string user,
             std::string client_host, catalog::VolumeStore& volumes, std::string scratch_dir,
             catalog::ServerSettings& settings, auth::AccountStore& accounts, const SqlGuard& guard,
             auth::Principal principal);
  ~SqlSession() override { registry_.Remove(connection_id_); }  // before con_ goes: no interrupt after that

  Result<StatementResult> Execute(std::string_view statement) override;
  Result<std::vector<ColumnInfo>> ResultColumns(std::string_view statement) override;
  Status UseDatabase(std::string_view db) override;
  Result<ResultSet> FieldList(std::string_view table) override;
  const std::string& current_database() const override { return current_db_; }
  uint32_t connection_id() const override { return connection_id_; }
  void AttachClient(std::function<void()> close, std::function<bool()> client_gone) override;
  bool killed() const override { return activity_->close_requested(); }
  void EnableRowStreaming() override { stream_rows_ = true; }
  // The engine's doors to external (Iceberg) catalogs; without them CREATE EXTERNAL CATALOG is refused.
  void set_lakes(lakehouse::LakeCatalogs* lakes);
  // What SHOW NODES lists (cluster_statements.cpp); without one SHOW NODES is refused.
  void set_nodes(cluster::NodeDirectory* nodes) { nodes_ = nodes; }

 private:
  Result<StatementResult> Run(const sql::Statement& stmt);
  // Whether the account may learn the server's paths: administrators (SYSTEM OPERATE: cluster_admin, root).
  bool SeesServerPaths() const;
  // For other accounts, `result` with the data directory hidden in its error or, for Sluice's own statements
  // (`own_statement`), in its rows.
  Result<StatementResult> WithoutServerPaths(Result<StatementResult> result, bool own_statement);
  Result<StatementResult> RunPassThrough(const sql::PassThrough& s);
  Result<StatementResult> ShowTables(const sql::ShowTables& s);
  Result<StatementResult> Describe(const sql::QualifiedName& name);
  Result<StatementResult> ShowCreateTable(const sql::QualifiedName& name);
  Result<StatementResult> AlterPartitions(const sql::AlterTablePartition& s);
  Result<StatementResult> AlterTable(const sql::AlterTable& s);
  Result<StatementResult> ShowPartitions(const sql::ShowPartitions& s);
  Result<StatementResult> ShowSystem(const sql::ShowSystem& s);
  Result<StatementResult> ShowNodes();
  Result<StatementResult> DecommissionNode(const sql::DecommissionNode& s);
  // show_catalog.cpp: SHOW INDEX / TABLE STATUS / CREATE DATABASE / FULL COLUMNS from information_schema's rows.
  Result<StatementResult> ShowCatalogStatement(const sql::ShowCatalog& s);
  Result<StatementResult> ShowFullColumns(const sql::QualifiedName& name);
  // A Note for SHOW WARNINGS (as MySQL gives for DROP ... IF EXISTS of nothing); `r` carries the count.
  void Note(uint16_t code, std::string message);
  // Records that Note and answers OK with one warning: IF [NOT] EXISTS statements that found nothing to do.
  StatementResult OkWithNote(uint16_t code, std::string message);
  // runaway_work.cpp: KILL, SHOW PROCESSLIST, and the statement bracket that query_timeout and KILL act on.
  Result<StatementResult> RunKill(const sql::Kill& s);
  ResultSet ShowProcesslist(bool full) const;
  Result<StatementResult> Supervised(std::string_view statement, const std::function<Result<StatementResult>()>& run);
  // How long a statement may run, and the advice its timeout error ends with: max_execution_time (ms) when the
  // session set one, else the session's query_timeout, else SET GLOBAL query_timeout. nullopt: no limit.
  std::optional<std::pair<std::chrono::milliseconds, std::string>> StatementTimeLimit() const;
  Result<StatementResult> RunRoutineLoad(const sql::CreateRoutineLoad& s);
  Result<StatementResult> RunRoutineLoad(const sql::AlterRoutineLoad& s);
  Result<StatementResult> RunRoutineLoad(const sql::ControlRoutineLoad& s);
  Result<StatementResult> RunRoutineLoad(const sql::ShowRoutineLoad& s);
  Result<StatementResult> RunRoutineLoad(const sql::ShowRoutineLoadTask& s);
  Result<StatementResult> RunRoutineLoad(const sql::ShowCreateRoutineLoad& s);
  // volume_statements.cpp
  Result<StatementResult> RunVolume(const sql::CreateStorageConnection& s);
  Result<StatementResult> RunVolume(const sql::CreateVolume& s);
  Result<StatementResult> RunVolume(const sql::ShowStorageObjects& s);
  Result<StatementResult> RunVolume(const sql::DescribeStorageObject& s);
  Result<StatementResult> RunVolume(const sql::DropStorageObject& s);
  Result<StatementResult> RunVolume(const sql::CopyIntoFromVolume& s);
  // Pipes and virtual clusters (pipe_statements.cpp): the Lakehouse dialect over the same jobs.
  Result<StatementResult> RunRoutineLoad(const sql::CreatePipe& s);
  Result<StatementResult> RunRoutineLoad(const sql::DropPipe& s);
  Result<StatementResult> RunRoutineLoad(const sql::AlterPipe& s);
  Result<StatementResult> RunRoutineLoad(const sql::ShowPipes& s);
  Result<StatementResult> RunRoutineLoad(const sql::DescPipe& s);
  Result<StatementResult> RunRoutineLoad(const sql::CreateVcluster& s);
  Result<StatementResult> RunRoutineLoad(const sql::AlterVcluster& s);
  Result<StatementResult> RunRoutineLoad(const sql::DropVcluster& s);
  Result<StatementResult> RunRoutineLoad(const sql::ShowVclusters& s);
  // lake_statements.cpp: external catalogs, and statements that name their databases and tables. RunLakeStatement
  // authorizes and runs such a statement; nullopt when the statement names no external catalog.
  Result<StatementResult> RunCatalog(const sql::CreateExternalCatalog& s);
  Result<StatementResult> RunCatalog(const sql::DropExternalCatalog& s);
  Result<StatementResult> RunCatalog(const sql::ShowExternalCatalogs& s);
  Result<StatementResult> RunCatalog(const sql::ShowCreateCatalog& s);
  std::optional<Result<StatementResult>> RunLakeStatement(const sql::Statement& stmt, const sql::StatementScan& scan,
                                                          const NameCheck& names);
  // Whether a passed-through statement names an Iceberg table (which RunLakeStatement runs, not DuckDB).
  bool NamesLakeTable(const sql::PassThrough& s) const;
  Result<StatementResult> RunLakePassThrough(const sql::PassThrough& s, const sql::StatementScan& scan,
                                             const NameCheck& names);
  Status RequireCatalogKnown(const std::string& name);
  // GRANT / REVOKE on `db` (and `table`, "" or "*" for none) where db is "catalog.db" of an external catalog:
  // the catalog must exist, and with `must_exist` (GRANT, not REVOKE: a grant on a table another engine dropped
  // can still be revoked) the Iceberg namespace and table too. nullopt when db is one of Sluice's own.
  std::optional<Status> CheckLakeGrantObject(const std::string& db, const std::string& table, bool must_exist);
  // statement_privileges.cpp: what a statement needs before it runs, and what SHOW leaves out.
  Status Authorize(const sql::Statement& stmt, const sql::StatementScan& scan, const NameCheck& names);
  Result<KnownTables> ReadKnownTables();
  Status RequireJobControl(const std::string& db, const std::string& name, bool pipe, std::string_view pipe_privilege);
  Status RequireJobVisible(const std::string& db, const std::string& name, bool pipe);
  void FilterVisibleRoutineLoads(ResultSet& rs);
  void FilterVisiblePipes(ResultSet& rs, const std::string& db);
  bool SeesTable(const std::string& db, const std::string& table) const;
  bool SeesDatabase(const std::string& db) const;
  bool SeesStorageObject(bool connection, const std::string& name) const;
  // account_statements.cpp
  Result<StatementResult> RunAccount(const sql::AccountStatement& s);
  Result<std::vector<std::pair<auth::ObjectRef, std::string>>> GrantTargets(const sql::GrantPrivileges& g);
  // The database a statement means: the one it names, else the session's; none -> "No database selected".
  Result<std::string> ResolveDb(const std::string& named) const;
  sql::SessionContext Context() const;
  // A COPY INTO's (or a pipe's) SELECT list or WHERE, translated for DuckDB. It runs where the session's
  // information_schema does not exist (the load's own connection, a pipe's later tasks), so naming
  // information_schema is refused rather than left to read nothing, or DuckDB's catalog.
  Result<std::string> TranslateLoadSql(const std::string& text) const;
  bool Autocommit() const;
  Status SetVariable(const sql::SetVariables::Assignment& a);
  // SET's expressions (set_expression.cpp): `expression` evaluated as SELECT <expression>, through the same
  // sandbox and privilege checks as any SELECT.
  struct EvaluatedValue {
    std::optional<std::string> text;  // nullopt: NULL
    std::string literal;              // for DuckDB: 42, 'text', NULL
  };
  Result<EvaluatedValue> EvaluateExpression(const std::string& expression);
  // SET @name = ...: the literal a user variable stands for in later statements.
  Status SetUserVariable(const sql::SetVariables::Assignment& a);
  void CommitOpenTransaction();

  storage::Database& db_;
  catalog::Catalog& catalog_;
  scheduler::RoutineLoadManager& routine_loads_;
  SessionRegistry& registry_;
  std::unique_ptr<storage::Connection> con_;
  uint32_t connection_id_;
  std::string user_;
  std::string client_host_;
  std::string current_db_;
  SessionVariables variables_;
  std::map<std::string, std::string> user_variables_;  // @name (lower case) -> SQL literal
  bool in_transaction_ = false;  // a transaction is open on con_ (BEGIN, or implicitly with autocommit off)
  catalog::VolumeStore& volumes_;
  std::string scratch_dir_;  // where files fetched from object storage wait to be loaded
  catalog::ServerSettings& settings_;
  auth::AccountStore& accounts_;
  const SqlGuard& guard_;
  AccessControl access_;
  std::unique_ptr<InformationSchemaSession> information_schema_;  // after access_: its source points there
  std::shared_ptr<SessionActivity> activity_;  // what SHOW PROCESSLIST shows and KILL stops
  bool stream_rows_ = false;
  lakehouse::LakeCatalogs* lakes_ = nullptr;
  cluster::NodeDirectory* nodes_ = nullptr;  // SHOW NODES
  std::vector<Row> warnings_;  // the last statement's (Level, Code, Message), for SHOW WARNINGS
};

}  // namespace sluice
