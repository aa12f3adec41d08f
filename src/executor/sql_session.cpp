#include "executor/sql_session.h"

#include "common/overloaded.h"

#include <algorithm>
#include <cctype>

#include "catalog/load_history.h"
#include "catalog/type_mapping.h"
#include "executor/declared_lengths.h"
#include "executor/partition_update.h"
#include "executor/result_rows.h"
#include "common/ascii.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/secret_redaction.h"
#include "executor/keyed_insert.h"
#include "load/table_write.h"
#include "sql/lexer.h"
#include "sql/parser.h"

namespace sluice {

namespace {

std::string FirstWord(std::string_view sql) {
  size_t i = 0;
  while (i < sql.size() && !std::isalpha(static_cast<unsigned char>(sql[i]))) i++;
  std::string word;
  while (i < sql.size() && std::isalpha(static_cast<unsigned char>(sql[i])))
    word += static_cast<char>(std::toupper(static_cast<unsigned char>(sql[i++])));
  return word;
}

// Statements that are queries by their first word: the ones a prepare describes.
bool IsQueryVerb(const std::string& verb) {
  return verb == "SELECT" || verb == "WITH" || verb == "VALUES" || verb == "FROM";
}

// Writes a prepare checks by DuckDB's prepare (which binds them, running nothing), as MySQL's prepare checks them.
bool IsPreparedWrite(const std::string& verb) {
  return verb == "INSERT" || verb == "UPDATE" || verb == "DELETE" || verb == "REPLACE";
}

StatementResult Ok(uint64_t affected = 0) {
  StatementResult r;
  r.affected_rows = affected;
  return r;
}

}  // namespace

SqlSession::SqlSession(storage::Database& db, catalog::Catalog& catalog,
                       scheduler::RoutineLoadManager& routine_loads, SessionRegistry& registry,
                       std::unique_ptr<storage::Connection> con, uint32_t connection_id, std::string user,
                       std::string client_host, catalog::VolumeStore& volumes, std::string scratch_dir,
                       catalog::ServerSettings& settings, auth::AccountStore& accounts, const SqlGuard& guard,
                       auth::Principal principal)
    : db_(db),
      catalog_(catalog),
      routine_loads_(routine_loads),
      registry_(registry),
      con_(std::move(con)),
      connection_id_(connection_id),
      user_(std::move(user)),
      client_host_(std::move(client_host)),
      volumes_(volumes),
      scratch_dir_(std::move(scratch_dir)),
      settings_(settings),
      accounts_(accounts),
      guard_(guard),
      access_(accounts, std::move(principal)) {
  InformationSchemaSource source;
  source.catalog = &catalog_;
  source.db = &db_;
  source.accounts = &accounts_;
  source.access = &access_;
  source.sees_database = [this](const std::string& d) { return SeesDatabase(d); };
  source.sees_table = [this](const std::string& d, const std::string& t) { return SeesTable(d, t); };
  source.jobs = &routine_loads_;
  source.sees_pipe = [this](const std::string& d, const std::string& p) { return RequireJobVisible(d, p, true).ok(); };
  source.sees_routine_load = [this](const std::string& d, const std::string& j) {
    return RequireJobVisible(d, j, false).ok();
  };
  information_schema_ = std::make_unique<InformationSchemaSession>(std::move(source));
  activity_ = registry_.Add(connection_id_, user_, client_host_);
  activity_->SetInterrupt([con = con_.get()] { con->Interrupt(); });
}

sql::SessionContext SqlSession::Context() const {
  sql::SessionContext ctx;
  ctx.variable = [this](std::string_view name) {
    auto v = variables_.Get(name);
    return v ? v : settings_.Get(name);
  };
  ctx.user_variable = [this](std::string_view name) -> std::optional<std::string> {
    auto it = user_variables_.find(std::string(name));
    if (it == user_variables_.end()) return std::nullopt;
    return it->second;
  };
  ctx.current_database = current_db_;
  ctx.user = user_ + "@" + client_host_;
  ctx.connection_id = connection_id_;
  ctx.version = variables_.Get("version").value_or("");
  ctx.information_schema = [this](std::string_view name) { return information_schema_->Relation(name); };
  return ctx;
}

Result<std::string> SqlSession::TranslateLoadSql(const std::string& text) const {
  sql::SessionContext ctx = Context();
  std::string named;
  ctx.information_schema = [&named](std::string_view name) {
    if (named.empty()) named = std::string(name);
    return std::string("NULL");
  };
  std::string translated = sql::TranslateForDuckDB(text, ctx);
  if (!named.empty())
    return Status::NotSupported("a COPY INTO or pipe cannot read information_schema (it names " + named +
                                "): its rows are a session's view of the catalog, which a load does not have; load "
                                "the files, then join with information_schema in a query");
  return translated;
}

Result<std::string> SqlSession::ResolveDb(const std::string& named) const {
  if (!named.empty()) return named;
  if (current_db_.empty())
    return Status::InvalidArgument("No database selected: run USE <database> or name it as <database>.<table>");
  return current_db_;
}

Result<StatementResult> SqlSession::Execute(std::string_view statement) {
  bool own_statement = false;
  Result<StatementResult> result = Supervised(statement, [&]() -> Result<StatementResult> {
    // The sandbox and the privileges are checked on the text as the client sent it (sql/statement_scan.h),
    // before anything runs; a passed-through statement is also classified by DuckDB's own parse (Authorize).
    ASSIGN_OR_RETURN(sql::StatementScan scan, sql::ScanStatement(statement));
    ASSIGN_OR_RETURN(NameCheck names, guard_.CheckNames(scan));
    information_schema_->BeginStatement();
    registry_.status().Count(AsciiLower(FirstWord(statement)));
    ASSIGN_OR_RETURN(sql::Statement stmt, sql::ParseStatement(statement, Context()));
    // SHOW WARNINGS / ERRORS show the previous statement's; any other statement starts a new list.
    const auto* show = std::get_if<sql::ShowSystem>(&stmt);
    if (!show || (show->what != sql::ShowSystem::What::kWarnings && show->what != sql::ShowSystem::What::kErrors))
      warnings_.clear();
    RETURN_IF_ERROR(information_schema_->CheckNamedViews());
    if (auto lake = RunLakeStatement(stmt, scan, names)) return std::move(*lake);
    RETURN_IF_ERROR(Authorize(stmt, scan, names));
    own_statement = !std::holds_alternative<sql::PassThrough>(stmt);
    Result<StatementResult> ran = Run(stmt);
    if (!own_statement && ran.ok() && ran->result_set)
      AddDeclaredLengths(catalog_, current_db_, scan, &ran->result_set->columns);
    return ran;
  });
  return WithoutServerPaths(std::move(result), own_statement);
}

bool SqlSession::SeesServerPaths() const {
  return access_.HoldsEverything() || access_.Holds(auth::ObjectRef{auth::ObjectKind::kSystem, "", ""}, "OPERATE");
}

namespace {

// A streamed result whose error (the query failed after its first rows: a full disk, an interrupt) is shown
// without the server's paths. The rows pass as they are.
class PathHidingStream final : public ResultRowStream {
 public:
  PathHidingStream(std::shared_ptr<ResultRowStream> inner, const storage::StorageHealth& health, uint32_t connection)
      : inner_(std::move(inner)), health_(health), connection_(connection) {}
  Result<bool> Next(std::vector<Row>* rows) override {
    Result<bool> more = inner_->Next(rows);
    if (more.ok()) return more;
    std::string shown = health_.WithoutDataDirectory(more.status().message());
    if (shown != more.status().message())
      log::Info("session", "conn {}: the result stopped: {}", connection_, RedactSecrets(more.status().message()));
    return Status(more.status().code(), std::move(shown));
  }

 private:
  std::shared_ptr<ResultRowStream> inner_;
  const storage::StorageHealth& health_;
  uint32_t connection_;
};

}  // namespace

Result<StatementResult> SqlSession::WithoutServerPaths(Result<StatementResult> result, bool own_statement) {
  // Errors (a full disk's above all) and what Sluice's own statements show (a job paused for the disk, SHOW
  // WARNINGS) name the data directory for the operator who frees the space. Other accounts get "<data directory>"
  // (and "<scratch folder>"): where the server keeps its files is not theirs to learn (DESIGN.md decision 10). The
  // log has the full text. A passed-through query's rows are the user's data and stay as they are; an error that
  // ends its streamed rows midway is an error like any other.
  const bool streamed = result.ok() && result->stream;
  if (result.ok() && !streamed && !(own_statement && result->result_set)) return result;
  if (SeesServerPaths()) return result;
  const storage::StorageHealth& health = db_.health();
  if (!result.ok()) {
    std::string shown = health.WithoutDataDirectory(result.status().message());
    if (shown != result.status().message())
      log::Info("session", "conn {}: statement failed: {}", connection_id_, RedactSecrets(result.status().message()));
    return Status(result.status().code(), std::move(shown));
  }
  if (streamed) result->stream = std::make_shared<PathHidingStream>(std::move(result->stream), health, connection_id_);
  if (!own_statement) return result;
  for (Row& row : result->result_set->rows)
    for (std::optional<std::string>& cell : row)
      if (cell) *cell = health.WithoutDataDirectory(*cell);
  return result;
}

Result<std::vector<ColumnInfo>> SqlSession::ResultColumns(std::string_view statement) {
  // The checks of Execute, in the same order, so a prepare reveals no more than the statement's execute would; but
  // nothing runs, nothing is counted, and SHOW WARNINGS keeps the previous statement's. A passed-through query or
  // INSERT / UPDATE / DELETE is prepared by DuckDB (the translated text, every marker bound as NULL), which finds
  // unknown tables and columns; a query's columns are described. Sluice's own statements announce their columns at
  // execute.
  auto described = [&]() -> Result<std::vector<ColumnInfo>> {
    ASSIGN_OR_RETURN(sql::StatementScan scan, sql::ScanStatement(statement));
    ASSIGN_OR_RETURN(NameCheck names, guard_.CheckNames(scan));
    information_schema_->BeginStatement();
    ASSIGN_OR_RETURN(sql::Statement stmt, sql::ParseStatement(statement, Context()));
    const auto* passed = std::get_if<sql::PassThrough>(&stmt);
    // Sluice's own statements, and queries of Iceberg tables (which DuckDB does not know by those names).
    if (passed == nullptr || NamesLakeTable(*passed)) return std::vector<ColumnInfo>{};
    const std::string verb = FirstWord(passed->sql);
    if (!IsQueryVerb(verb) && !IsPreparedWrite(verb)) return std::vector<ColumnInfo>{};
    RETURN_IF_ERROR(information_schema_->CheckNamedViews());
    RETURN_IF_ERROR(Authorize(stmt, scan, names));
    ASSIGN_OR_RETURN(std::vector<ColumnInfo> columns, con_->ResultColumns(passed->sql));
    AddDeclaredLengths(catalog_, current_db_, scan, &columns);
    return columns;
  }();
  if (described.ok()) return std::move(*described);
  // What MySQL reports at prepare. Other errors (a syntax error, a value DuckDB refuses) may come from the NULLs in
  // place of the markers rather than from the statement: the execute, with the real values, reports them.
  switch (described.status().code()) {
    case StatusCode::kUnknownDatabase:
    case StatusCode::kUnknownTable:
    case StatusCode::kUnknownColumn:
    case StatusCode::kAccessDenied:
      return described.status();
    default:
      break;
  }
  if (log::Enabled(log::Level::kDebug))
    log::Debug("session", "conn {}: no result columns at prepare: {}", connection_id_, described.status().message());
  return std::vector<ColumnInfo>{};
}

Status SqlSession::UseDatabase(std::string_view db) {
  std::string name(db);
  if (sql::EqualsIgnoreCase(name, kInformationSchema)) {
    // Its views are the translator's (information_schema.h); DuckDB stays on the catalog's main schema.
    RETURN_IF_ERROR(con_->Execute("USE " + sql::QuoteIdentifier(db_.catalog_name()) + ".main"));
    current_db_ = std::string(kInformationSchema);
    activity_->SetDatabase(current_db_);
    return Status::Ok();
  }
  if (!catalog_.DatabaseExists(name)) return Status::UnknownDatabase("Unknown database '" + name + "'");
  RETURN_IF_ERROR(con_->Execute("USE " + sql::QuoteIdentifier(db_.catalog_name()) + "." + sql::QuoteIdentifier(name)));
  current_db_ = name;
  activity_->SetDatabase(name);
  return Status::Ok();
}

Result<ResultSet> SqlSession::FieldList(std::string_view table) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(""));
  ASSIGN_OR_RETURN(auto meta, catalog_.DescribeTable(db, std::string(table)));
  // Column types come from a zero-row query so clients see the real ones.
  ASSIGN_OR_RETURN(auto r, con_->Query("SELECT * FROM " + sql::QuoteIdentifier(db) + "." +
                                       sql::QuoteIdentifier(meta.name) + " LIMIT 0"));
  if (!r.result_set) return ResultSet{};
  for (ColumnInfo& c : r.result_set->columns) {
    const catalog::ColumnMeta* declared = meta.FindColumn(c.name);
    if (c.type == ValueType::kVarchar && declared != nullptr)
      c.char_length = static_cast<uint32_t>(catalog::VarcharByteLimit(declared->type_text).value_or(0));
  }
  return std::move(*r.result_set);
}

Status SqlSession::SetVariable(const sql::SetVariables::Assignment& given) {
  if (given.user) return SetUserVariable(given);
  sql::SetVariables::Assignment evaluated;
  if (given.expression) {
    evaluated = given;
    ASSIGN_OR_RETURN(EvaluatedValue v, EvaluateExpression(given.value));
    evaluated.value = v.text.value_or("NULL");  // a system variable takes the value's text
    evaluated.expression = false;
  }
  const sql::SetVariables::Assignment& a = given.expression ? evaluated : given;
  if (guard_.IsEngineSetting(a.name) && !variables_.Get(a.name)) {
    return auth::PrivilegeNeeded("SYSTEM", "'" + a.name + "' is a setting of the storage engine, which no session "
                                 "can change in Sluice; SHOW VARIABLES lists the variables a session can set");
  }
  if (!a.global && catalog::ServerSettings::IsSessionSetting(a.name)) {
    ASSIGN_OR_RETURN(std::string value, catalog::ServerSettings::Validate(a.name, a.value));
    variables_.Set(a.name, value);
    return Status::Ok();
  }
  if (a.name == "max_execution_time") {
    if (a.global) {
      return Status::InvalidArgument("max_execution_time is a session variable only: for every session use "
                                     "SET GLOBAL query_timeout = <seconds>");
    }
    const std::string& v = a.value;
    if (v.empty() || v.size() > 12 || v.find_first_not_of("0123456789") != std::string::npos) {
      return Status::InvalidArgument("max_execution_time must be a whole number of milliseconds (0: no limit of its "
                                     "own, query_timeout applies), not '" + v + "'");
    }
    variables_.Set(a.name, std::to_string(std::stoll(v)));
    return Status::Ok();
  }
  if (!catalog::ServerSettings::IsServerSetting(a.name)) {
    variables_.Set(a.name, a.value);
    return Status::Ok();
  }
  if (!a.global) {
    return Status::InvalidArgument(a.name + " is a server setting, not a session variable: use SET GLOBAL " + a.name +
                                   " = " + a.value);
  }
  RETURN_IF_ERROR(settings_.Set(a.name, a.value));
  log::Info("session", "conn {} set {} = {}", connection_id_, a.name, *settings_.Get(a.name));
  if (a.name == catalog::kLoadHistoryRetentionDays) {
    // A shorter retention applies at once rather than at the next upkeep round.
    auto purged = catalog::PurgeLoadHistory(*con_, WallClockMs(), settings_.LoadHistoryRetentionMs());
    if (!purged.ok()) return purged.status();
  }
  return Status::Ok();
}

bool SqlSession::Autocommit() const { return variables_.Get("autocommit").value_or("1") != "0"; }

void SqlSession::CommitOpenTransaction() {
  // MySQL commits an open transaction before DDL and when autocommit is switched on.
  if (in_transaction_) (void)con_->Execute("COMMIT");
  in_transaction_ = false;
}

Result<StatementResult> SqlSession::Run(const sql::Statement& stmt) {
  bool passes_through = std::holds_alternative<sql::PassThrough>(stmt);
  bool reads_only = std::holds_alternative<sql::ShowDatabases>(stmt) || std::holds_alternative<sql::ShowTables>(stmt) ||
                    std::holds_alternative<sql::DescribeTable>(stmt) ||
                    std::holds_alternative<sql::ShowCreateTable>(stmt) || std::holds_alternative<sql::ShowSystem>(stmt) ||
                    std::holds_alternative<sql::ShowStorageObjects>(stmt) ||
                    std::holds_alternative<sql::DescribeStorageObject>(stmt) || std::holds_alternative<sql::Kill>(stmt) ||
                    std::holds_alternative<sql::ShowPartitions>(stmt) || std::holds_alternative<sql::ShowCatalog>(stmt) ||
                    std::holds_alternative<sql::ShowExternalCatalogs>(stmt) ||
                    std::holds_alternative<sql::ShowCreateCatalog>(stmt) ||
                    std::holds_alternative<sql::NoOpStatement>(stmt) || std::holds_alternative<sql::ShowNodes>(stmt);
  if (!passes_through && !reads_only && !Autocommit()) CommitOpenTransaction();
  return std::visit(
      Overloaded{
          [&](const sql::PassThrough& s) { return RunPassThrough(s); },
          [&](const sql::CreateDatabase& s) -> Result<StatementResult> {
            bool existed = s.if_not_exists && catalog_.DatabaseExists(s.name);
            RETURN_IF_ERROR(catalog_.CreateDatabase(s.name, s.if_not_exists));
            if (existed) {
              return OkWithNote(1007, "Can't create database '" + s.name + "'; database exists");
            }
            return Ok(1);
          },
          [&](const sql::DropDatabase& s) -> Result<StatementResult> {
            bool missing = s.if_exists && !catalog_.DatabaseExists(s.name);
            RETURN_IF_ERROR(catalog_.DropDatabase(s.name, s.if_exists));
            if (missing) {
              return OkWithNote(1008, "Can't drop database '" + s.name + "'; database doesn't exist");
            }
            routine_loads_.TargetDropped(s.name, "");
            if (s.name == current_db_) {
              current_db_.clear();
              activity_->SetDatabase("");
              (void)con_->Execute("USE " + sql::QuoteIdentifier(db_.catalog_name()) + ".main");
            }
            return Ok();
          },
          [&](const sql::UseDatabase& s) -> Result<StatementResult> {
            RETURN_IF_ERROR(UseDatabase(s.name));
            return Ok();
          },
          [&](const sql::ShowDatabases& s) -> Result<StatementResult> {
            ASSIGN_OR_RETURN(auto dbs, catalog_.ListDatabases());
            ResultSet rs;
            rs.AddColumn("Database");
            for (auto& d : dbs)
              if ((!s.like || LikeMatch(d, *s.like)) && SeesDatabase(d)) rs.rows.push_back({d});
            return Rows(std::move(rs));
          },
          [&](const sql::ShowTables& s) { return ShowTables(s); },
          [&](const sql::DescribeTable& s) { return s.full ? ShowFullColumns(s.table) : Describe(s.table); },
          [&](const sql::ShowCatalog& s) { return ShowCatalogStatement(s); },
          [&](const sql::ShowCreateTable& s) { return ShowCreateTable(s.table); },
          [&](const sql::CreateTable& s) -> Result<StatementResult> {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.table.db));
            RETURN_IF_ERROR(catalog_.CreateTable(db, s));
            return Ok();
          },
          [&](const sql::DropTable& s) -> Result<StatementResult> {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.table.db));
            bool missing = s.if_exists && !catalog_.DescribeTable(db, s.table.name).ok();
            RETURN_IF_ERROR(catalog_.DropTable(db, s.table.name, s.if_exists, s.force));
            routine_loads_.TargetDropped(db, s.table.name);
            if (missing) {
              return OkWithNote(1051, "Unknown table '" + db + "." + s.table.name + "'");
            }
            return Ok();
          },
          [&](const sql::UndropTable& s) -> Result<StatementResult> {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.table.db));
            RETURN_IF_ERROR(catalog_.UndropTable(db, s.table.name));
            return Ok();
          },
          [&](const sql::SetVariables& s) -> Result<StatementResult> {
            bool was_autocommit = Autocommit();
            for (const auto& a : s.assignments) RETURN_IF_ERROR(SetVariable(a));
            if (!was_autocommit && Autocommit()) CommitOpenTransaction();
            return Ok();
          },
          [&](const sql::ShowSystem& s) { return ShowSystem(s); },
          [&](const sql::CreateStorageConnection& s) { return RunVolume(s); },
          [&](const sql::CreateVolume& s) { return RunVolume(s); },
          [&](const sql::ShowStorageObjects& s) { return RunVolume(s); },
          [&](const sql::DescribeStorageObject& s) { return RunVolume(s); },
          [&](const sql::DropStorageObject& s) { return RunVolume(s); },
          [&](const sql::CopyIntoFromVolume& s) { return RunVolume(s); },
          [&](const sql::AccountStatement& s) { return RunAccount(s); },
          [&](const sql::Kill& s) { return RunKill(s); },
          [&](const sql::AlterTablePartition& s) { return AlterPartitions(s); },
          [&](const sql::ShowPartitions& s) { return ShowPartitions(s); },
          [&](const sql::NoOpStatement& s) -> Result<StatementResult> {
            log::Debug("session", "conn {}: {} accepted, nothing done: {}", connection_id_, s.verb, s.note);
            return Ok();
          },
          [&](const sql::AlterTable& s) { return AlterTable(s); },
          [&](const sql::CreateExternalCatalog& s) { return RunCatalog(s); },
          [&](const sql::DropExternalCatalog& s) { return RunCatalog(s); },
          [&](const sql::ShowExternalCatalogs& s) { return RunCatalog(s); },
          [&](const sql::ShowCreateCatalog& s) { return RunCatalog(s); },
          [&](const sql::ShowNodes&) { return ShowNodes(); },
          [&](const sql::DecommissionNode& s) { return DecommissionNode(s); },
          [&](const auto& routine_load) { return RunRoutineLoad(routine_load); },
      },
      stmt);
}

Result<StatementResult> SqlSession::RunPassThrough(const sql::PassThrough& s) {
  if (log::Enabled(log::Level::kDebug)) log::Debug("session", "conn {} runs: {}", connection_id_, RedactSecrets(s.sql));
  // With autocommit off (pymysql's default), statements run in a transaction that COMMIT or ROLLBACK ends,
  // as in MySQL. The session tracks whether one is open: a failed BEGIN would abort DuckDB's open transaction.
  std::string verb = FirstWord(s.sql);
  bool ends = verb == "COMMIT" || verb == "ROLLBACK" || verb == "END" || verb == "ABORT";
  bool begins = verb == "BEGIN" || verb == "START";
  if (!Autocommit() && !in_transaction_ && !ends && !begins) {
    RETURN_IF_ERROR(con_->Execute("BEGIN TRANSACTION"));
    in_transaction_ = true;
  }
  // INSERT into a key table upserts or aggregates by key, as loads do; in autocommit it waits for the table's
  // loads to commit, so both see each other's keys.
  if (verb == "UPDATE") RETURN_IF_ERROR(CheckPartitionUpdate(catalog_, current_db_, s.sql));
  std::optional<KeyedInsert> keyed;
  if (verb == "INSERT") {
    ASSIGN_OR_RETURN(keyed, RewriteKeyedInsert(catalog_, current_db_, s.sql));
  }
  std::unique_lock<std::mutex> keyed_lock;
  if (keyed && !in_transaction_) keyed_lock = std::unique_lock<std::mutex>(load::KeyedWriteMutex(keyed->target_table));
  auto result = keyed ? con_->Query(keyed->sql) : stream_rows_ ? con_->QueryStreaming(s.sql) : con_->Query(s.sql);
  if (keyed && !result.ok()) result = ExplainKeyedInsertError(result.status());
  if (result.ok() && begins) in_transaction_ = true;
  if (ends) in_transaction_ = false;
  // MySQL accepts COMMIT and ROLLBACK outside a transaction (drivers with autocommit off send them after every
  // statement); in Sluice every statement outside BEGIN ... COMMIT has already committed.
  if (!result.ok() && result.status().message().find("no transaction is active") != std::string::npos)
    return Ok();
  return result;
}

Result<StatementResult> SqlSession::ShowTables(const sql::ShowTables& s) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
  ResultSet rs;
  if (sql::EqualsIgnoreCase(db, kInformationSchema)) {
    rs.AddColumn("Tables_in_information_schema");
    if (s.full) rs.AddColumn("Table_type");
    for (const auto& v : InformationSchemaViews()) {
      std::string name = AsciiUpper(v.name);
      if (s.like && !LikeMatch(name, *s.like) && !LikeMatch(v.name, *s.like)) continue;
      Row row{name};
      if (s.full) row.push_back(std::string("SYSTEM VIEW"));
      rs.rows.push_back(std::move(row));
    }
    return Rows(std::move(rs));
  }
  if (s.history) {
    ASSIGN_OR_RETURN(auto dropped, catalog_.ListDroppedTables(db));
    rs.AddColumn("Table");
    rs.AddColumn("DropTime", ValueType::kTimestamp);
    rs.AddColumn("RestoreDeadline", ValueType::kTimestamp);
    for (auto& t : dropped)
      if (!s.like || LikeMatch(t.name, *s.like)) rs.rows.push_back({t.name, t.dropped_at, t.deadline});
    return Rows(std::move(rs));
  }
  ASSIGN_OR_RETURN(auto tables, catalog_.ListTables(db));
  rs.AddColumn("Tables_in_" + db);
  if (s.full) rs.AddColumn("Table_type");
  for (auto& t : tables) {
    if ((s.like && !LikeMatch(t, *s.like)) || !SeesTable(db, t)) continue;
    Row row{t};
    if (s.full) {
      auto meta = catalog_.DescribeTable(db, t);
      row.push_back(meta.ok() && meta->is_view ? "VIEW" : "BASE TABLE");
    }
    rs.rows.push_back(std::move(row));
  }
  return Rows(std::move(rs));
}

Result<StatementResult> SqlSession::Describe(const sql::QualifiedName& name) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(name.db));
  ASSIGN_OR_RETURN(auto meta, catalog_.DescribeTable(db, name.name));
  ResultSet rs;
  for (const char* c : {"Field", "Type", "Null", "Key", "Default", "Extra"}) rs.AddColumn(c);
  for (const auto& c : meta.columns) {
    rs.rows.push_back({c.name, c.type_text, std::string(c.nullable ? "YES" : "NO"), std::string(c.is_key ? "true" : "false"),
                       DefaultForDisplay(c.default_sql), c.aggregate});
  }
  return Rows(std::move(rs));
}

Result<StatementResult> SqlSession::ShowCreateTable(const sql::QualifiedName& name) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(name.db));
  ASSIGN_OR_RETURN(std::string text, catalog_.ShowCreateTable(db, name.name));
  ResultSet rs;
  rs.AddColumn("Table");
  rs.AddColumn("Create Table");
  rs.rows.push_back({name.name, text});
  return Rows(std::move(rs));
}

Result<StatementResult> SqlSession::AlterPartitions(const sql::AlterTablePartition& s) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(s.table.db));
  if (s.temporary)
    return Status::NotSupported(std::string(s.add ? "ADD" : "DROP") +
                                " TEMPORARY PARTITION is not supported: Sluice tables have no temporary partitions; "
                                "use ADD PARTITION / DROP PARTITION");
  if (s.add) {
    RETURN_IF_ERROR(catalog_.AddPartition(db, s.table.name, s.item, s.if_not_exists));
    routine_loads_.TargetChanged(db, s.table.name);
    return Ok();
  }
  // Tasks running now stop short of committing (they would add rows of the partition after its rows are deleted);
  // after the drop, the jobs plan against the remaining partitions.
  routine_loads_.TargetChanged(db, s.table.name);
  ASSIGN_OR_RETURN(int64_t deleted, catalog_.DropPartition(db, s.table.name, s.item.name, s.if_exists));
  routine_loads_.TargetChanged(db, s.table.name);
  return Ok(static_cast<uint64_t>(deleted));
}

// The table's loads commit under the schema lock shared (load/table_write.h): holding it here, no commit overlaps
// the rebuild, and the jobs are re-planned (or paused) before any of their next commits.
Result<StatementResult> SqlSession::AlterTable(const sql::AlterTable& s) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(s.table.db));
  std::unique_lock<std::shared_mutex> schema(
      load::TableSchemaMutex(sql::QuoteIdentifier(db) + "." + sql::QuoteIdentifier(s.table.name)));
  ASSIGN_OR_RETURN(catalog::AlteredTable altered, catalog_.AlterTable(db, s));
  if (altered.rebuild || !altered.renamed_to.empty())
    routine_loads_.TargetAltered(db, s.table.name, altered.renamed_to, altered.dropped_columns);
  return Ok();
}

// StarRocks' SHOW PARTITIONS columns, in its order, so clients that read them by position still find them.
// Sluice keeps no load versions, consistency checks, cooldown or per-partition data size: those are NULL.
// ReplicationNum and StorageMedium repeat the table's properties (a Sluice table has one copy, on local disk).
Result<StatementResult> SqlSession::ShowPartitions(const sql::ShowPartitions& s) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(s.table.db));
  ASSIGN_OR_RETURN(auto meta, catalog_.DescribeTable(db, s.table.name));
  ResultSet rs;
  const bool list = meta.partitioning.kind == "LIST";
  rs.AddColumn("PartitionId", ValueType::kInteger);
  rs.AddColumn("PartitionName");
  rs.AddColumn("VisibleVersion", ValueType::kInteger);
  rs.AddColumn("VisibleVersionTime", ValueType::kTimestamp);
  rs.AddColumn("VisibleVersionHash", ValueType::kInteger);
  rs.AddColumn("State");
  rs.AddColumn("PartitionKey");
  rs.AddColumn(list ? "List" : "Range");
  rs.AddColumn("DistributionKey");
  rs.AddColumn("Buckets", ValueType::kInteger);
  rs.AddColumn("ReplicationNum", ValueType::kInteger);
  rs.AddColumn("StorageMedium");
  rs.AddColumn("CooldownTime", ValueType::kTimestamp);
  rs.AddColumn("LastConsistencyCheckTime", ValueType::kTimestamp);
  rs.AddColumn("DataSize");
  rs.AddColumn("IsInMemory");
  rs.AddColumn("RowCount", ValueType::kInteger);
  if (s.temporary || meta.is_view) return Rows(std::move(rs));  // Sluice has no temporary partitions
  std::string key, distribution;
  for (const auto& c : meta.partitioning.columns) key += (key.empty() ? "" : ", ") + c;
  for (const auto& c : meta.distribution_columns) distribution += (distribution.empty() ? "" : ", ") + c;
  if (distribution.empty()) distribution = meta.distributed_random ? "RANDOM" : "ALL KEY";
  std::optional<std::string> buckets;
  if (meta.buckets) buckets = std::to_string(*meta.buckets);
  const std::optional<std::string> replicas = meta.Property("replication_num").value_or("1");
  const std::optional<std::string> medium = meta.Property("storage_medium");
  const std::optional<std::string> none;
  auto row = [&](std::string id, std::string name, std::string values, std::optional<std::string> count) {
    return Row{std::move(id), std::move(name), none, none, none, std::string("NORMAL"), key, std::move(values),
               distribution, buckets, replicas, medium, none, none, none, std::string("false"), std::move(count)};
  };
  if (!meta.partitioning.partitioned()) {
    // As in StarRocks, a table without partitions is one partition named like the table.
    ASSIGN_OR_RETURN(auto count, con_->Query("SELECT count(*) FROM " + sql::QuoteIdentifier(db) + "." +
                                             sql::QuoteIdentifier(meta.name)));
    rs.rows.push_back(row("0", meta.name, "", count.result_set->rows.at(0).at(0)));
    return Rows(std::move(rs));
  }
  ASSIGN_OR_RETURN(auto counts, catalog_.PartitionRowCounts(meta));
  for (size_t i = 0; i < meta.partitioning.partitions.size(); i++) {
    const auto& p = meta.partitioning.partitions[i];
    rs.rows.push_back(row(std::to_string(p.id), p.name, catalog::PartitionValuesText(meta.partitioning, p),
                          std::to_string(i < counts.size() ? counts[i] : 0)));
  }
  return Rows(std::move(rs));
}

Result<StatementResult> SqlSession::ShowSystem(const sql::ShowSystem& s) {
  using What = sql::ShowSystem::What;
  ResultSet rs;
  switch (s.what) {
    case What::kVariables:
      return Rows(variables_.Show(s.like, settings_.All()));
    case What::kStatus: {
      // Server-wide counters (Com_* count every session's statements), sorted by name as MySQL lists them.
      rs.AddColumn("Variable_name");
      rs.AddColumn("Value");
      auto values = registry_.status().Snapshot();
      values.emplace_back("Threads_connected", std::to_string(registry_.size()));
      values.emplace_back("Threads_running", "1");
      std::sort(values.begin(), values.end());
      for (auto& [name, value] : values)
        if (!s.like || LikeMatch(name, *s.like)) rs.rows.push_back({name, value});
      break;
    }
    case What::kWarnings:
    case What::kErrors:
      rs.AddColumn("Level");
      rs.AddColumn("Code", ValueType::kInteger);
      rs.AddColumn("Message");
      // Sluice's errors go back with the statement; the list holds the Notes of the last one.
      if (s.what == What::kWarnings) rs.rows = warnings_;
      break;
    case What::kPlugins:
      for (const char* c : {"Name", "Status", "Type", "Library", "License"}) rs.AddColumn(c);
      for (const char* name : {"mysql_native_password", "caching_sha2_password"})
        rs.rows.push_back({std::string(name), std::string("ACTIVE"), std::string("AUTHENTICATION"), std::nullopt,
                           std::string("GPL")});
      rs.rows.push_back({std::string("OLAP"), std::string("ACTIVE"), std::string("STORAGE ENGINE"), std::nullopt,
                         std::string("GPL")});
      break;
    case What::kEngines:
      for (const char* c : {"Engine", "Support", "Comment", "Transactions", "XA", "Savepoints"}) rs.AddColumn(c);
      rs.rows.push_back({std::string("OLAP"), std::string("DEFAULT"), std::string("Sluice tables, stored in DuckDB"),
                         std::string("YES"), std::string("NO"), std::string("NO")});
      break;
    case What::kCollation:
      for (const char* c : {"Collation", "Charset", "Id", "Default", "Compiled", "Sortlen"}) rs.AddColumn(c);
      rs.rows.push_back({std::string("utf8mb4_general_ci"), std::string("utf8mb4"), std::string("45"),
                         std::string("Yes"), std::string("Yes"), std::string("1")});
      break;
    case What::kCharset:
      for (const char* c : {"Charset", "Description", "Default collation", "Maxlen"}) rs.AddColumn(c);
      rs.rows.push_back({std::string("utf8mb4"), std::string("UTF-8 Unicode"), std::string("utf8mb4_general_ci"),
                         std::string("4")});
      break;
    case What::kProcesslist:
      return Rows(ShowProcesslist(s.full));
  }
  return Rows(std::move(rs));
}

void SqlSession::Note(uint16_t code, std::string message) {
  warnings_.push_back({std::string("Note"), std::to_string(code), std::move(message)});
}

StatementResult SqlSession::OkWithNote(uint16_t code, std::string message) {
  Note(code, std::move(message));
  StatementResult r;
  r.warnings = 1;
  return r;
}

Result<StatementResult> SqlSession::RunRoutineLoad(const sql::CreateRoutineLoad& s) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
  RETURN_IF_ERROR(routine_loads_.Create(s, db));
  return Ok();
}

Result<StatementResult> SqlSession::RunRoutineLoad(const sql::AlterRoutineLoad& s) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
  RETURN_IF_ERROR(routine_loads_.Alter(s, db));
  return Ok();
}

Result<StatementResult> SqlSession::RunRoutineLoad(const sql::ControlRoutineLoad& s) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
  RETURN_IF_ERROR(routine_loads_.Control(s, db));
  return Ok();
}

Result<StatementResult> SqlSession::RunRoutineLoad(const sql::ShowRoutineLoad& s) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
  ASSIGN_OR_RETURN(ResultSet rs, routine_loads_.Show(s, db));
  FilterVisibleRoutineLoads(rs);
  return Rows(std::move(rs));
}

Result<StatementResult> SqlSession::RunRoutineLoad(const sql::ShowRoutineLoadTask& s) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
  ASSIGN_OR_RETURN(ResultSet rs, routine_loads_.ShowTasks(s, db));
  return Rows(std::move(rs));
}

Result<StatementResult> SqlSession::RunRoutineLoad(const sql::ShowCreateRoutineLoad& s) {
  ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
  ASSIGN_OR_RETURN(std::string text, routine_loads_.ShowCreate(s, db));
  ResultSet rs;
  rs.AddColumn("Job");
  rs.AddColumn("Create Job");
  rs.rows.push_back({s.job_name, text});
  return Rows(std::move(rs));
}

}  // namespace sluice
