// What each statement needs before it runs (SqlSession::Authorize), and what SHOW statements leave out
// (SqlSession::Visible...). Privileges follow StarRocks v3: INSERT on the target table to create or control a
// routine load or a pipe, USAGE on the volume it reads, CREATE STORAGE VOLUME to make storage objects, ...
#include "common/ascii.h"
#include "executor/sql_session.h"

#include "common/overloaded.h"

#include "sql/lexer.h"

namespace sluice {

namespace {

using auth::ObjectKind;
using auth::ObjectRef;

ObjectRef Table(const std::string& db, const std::string& t) { return ObjectRef{ObjectKind::kTable, db, t}; }
ObjectRef Database(const std::string& db) { return ObjectRef{ObjectKind::kDatabase, db, ""}; }

int ColumnIndex(const ResultSet& rs, std::string_view name) {
  for (size_t i = 0; i < rs.columns.size(); i++)
    if (rs.columns[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace

Result<KnownTables> SqlSession::ReadKnownTables() {
  KnownTables known;
  known.catalog = db_.catalog_name();
  ASSIGN_OR_RETURN(auto r, con_->Query("SELECT lower(schema_name), lower(table_name) FROM duckdb_tables() WHERE "
                                       "database_name = current_database() UNION ALL SELECT lower(schema_name), "
                                       "lower(view_name) FROM duckdb_views() WHERE NOT internal AND "
                                       "database_name = current_database()"));
  for (const auto& row : r.result_set->rows)
    if (row.size() == 2 && row[0] && row[1]) known.tables.emplace(*row[0], *row[1]);
  return known;
}

// A job's target table, for the statements that control it: INSERT there (or, for a pipe, its creator, or a
// privilege on the pipe itself).
Status SqlSession::RequireJobControl(const std::string& db, const std::string& name, bool pipe,
                                     std::string_view pipe_privilege) {
  if (access_.HoldsEverything()) return Status::Ok();
  auto target = routine_loads_.TargetOf(db, name, pipe);
  if (!target.ok()) return Status::Ok();  // the statement itself reports the missing job
  if (pipe && !target->creator.empty() && target->creator == user_) return Status::Ok();
  if (pipe && access_.Holds(ObjectRef{ObjectKind::kPipe, db, name}, pipe_privilege)) return Status::Ok();
  return access_.RequireTable(target->db, target->table, "INSERT");
}

Status SqlSession::RequireJobVisible(const std::string& db, const std::string& name, bool pipe) {
  if (access_.HoldsEverything()) return Status::Ok();
  auto target = routine_loads_.TargetOf(db, name, pipe);
  if (!target.ok()) return Status::Ok();
  if (pipe && (target->creator == user_ || access_.Sees(ObjectRef{ObjectKind::kPipe, db, name}))) return Status::Ok();
  if (access_.Sees(Table(target->db, target->table))) return Status::Ok();
  return auth::TableDenied(access_.principal(), "SELECT", target->db, target->table);
}

Status SqlSession::Authorize(const sql::Statement& stmt, const sql::StatementScan& scan, const NameCheck& names) {
  const std::vector<GuardedCall>& calls = names.calls;
  // DIRECTORY(vol) and load_history('t') -- in a query or inside Sluice's statements (a pipe's SELECT) -- are
  // checked first, so that nobody learns from DuckDB's answer whether a volume or a table exists.
  if (!calls.empty() && !access_.HoldsEverything()) {
    ASSIGN_OR_RETURN(KnownTables known, ReadKnownTables());
    sql::StatementScan calls_only;
    RETURN_IF_ERROR(access_.CheckPassThrough(calls_only, storage::StatementKind::kSelect, calls, current_db_, known));
  }
  if (const auto* pass = std::get_if<sql::PassThrough>(&stmt)) {
    auto classified = storage::ClassifyStatement(*con_, pass->sql);
    // An INSERT DuckDB cannot prepare as written (a key table's INSERT runs as a MERGE, which explains its own
    // errors) is checked as the INSERT its head says it is; anything else unclassified does not run.
    if (!classified.ok() && (scan.verb != "INSERT" || classified.status().code() == StatusCode::kAccessDenied))
      return classified.status();
    storage::StatementKind kind = classified.ok() ? *classified : storage::StatementKind::kInsert;
    RETURN_IF_ERROR(guard_.CheckKind(kind, scan));
    // The observability relations are read-only, and for the root role only: they hold every job's rows.
    if (names.reads_observability && !(kind == storage::StatementKind::kSelect && access_.HoldsEverything()))
      return CatalogNotReachable("__sluice");
    if (access_.HoldsEverything()) return Status::Ok();
    ASSIGN_OR_RETURN(KnownTables known, ReadKnownTables());
    std::string current = current_db_;
    return access_.CheckPassThrough(scan, kind, calls, current, known);
  }
  if (names.reads_observability) return CatalogNotReachable("__sluice");
  if (access_.HoldsEverything()) return Status::Ok();
  const AccessControl& a = access_;
  return std::visit(
      Overloaded{
          [&](const sql::PassThrough&) { return Status::Ok(); },
          [&](const sql::CreateDatabase&) {
            return a.Require(ObjectRef{ObjectKind::kCatalog, "", ""}, "CREATE DATABASE");
          },
          [&](const sql::DropDatabase& s) { return a.RequireDatabase(s.name, "DROP"); },
          [&](const sql::UseDatabase& s) -> Status {
            // Everyone may use information_schema: its rows are what they may see.
            if (a.Sees(Database(s.name)) || sql::EqualsIgnoreCase(s.name, kInformationSchema)) return Status::Ok();
            return auth::DatabaseDenied(a.principal(), "a privilege", s.name);
          },
          [&](const sql::ShowDatabases&) { return Status::Ok(); },
          [&](const sql::ShowTables&) { return Status::Ok(); },
          [&](const sql::DescribeTable& s) -> Status {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.table.db));
            if (a.Sees(Table(db, s.table.name))) return Status::Ok();
            return auth::TableDenied(a.principal(), "SELECT", db, s.table.name);
          },
          [&](const sql::ShowCreateTable& s) -> Status {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.table.db));
            if (a.Sees(Table(db, s.table.name))) return Status::Ok();
            return auth::TableDenied(a.principal(), "SELECT", db, s.table.name);
          },
          [&](const sql::CreateTable& s) -> Status {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.table.db));
            return a.RequireDatabase(db, "CREATE TABLE");
          },
          [&](const sql::DropTable& s) -> Status {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.table.db));
            return a.RequireTable(db, s.table.name, "DROP");
          },
          [&](const sql::UndropTable& s) -> Status {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.table.db));
            return a.RequireDatabase(db, "CREATE TABLE");
          },
          [&](const sql::SetVariables& s) -> Status {
            for (const auto& v : s.assignments) {
              if (v.global)
                RETURN_IF_ERROR(a.RequireSystem("OPERATE", "SET GLOBAL changes the whole server; an administrator "
                                                           "can run GRANT OPERATE ON SYSTEM TO USER ..."));
            }
            return Status::Ok();
          },
          [&](const sql::ShowSystem&) { return Status::Ok(); },
          [&](const sql::CreateRoutineLoad& s) -> Status {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
            // ON catalog.db.table: INSERT on the Iceberg table, as INSERT INTO catalog.db.table needs it.
            if (!s.table_catalog.empty() && AsciiLower(s.table_catalog) != "default_catalog")
              return a.RequireTable(s.table_catalog + "." + s.table_db, s.table, "INSERT");
            return a.RequireTable(db, s.table, "INSERT");
          },
          [&](const sql::AlterRoutineLoad& s) -> Status {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
            return RequireJobControl(db, s.job_name, false, "ALTER");
          },
          [&](const sql::ControlRoutineLoad& s) -> Status {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
            return RequireJobControl(db, s.job_name, false, "ALTER");
          },
          [&](const sql::ShowRoutineLoad&) { return Status::Ok(); },
          [&](const sql::ShowRoutineLoadTask& s) -> Status {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
            return RequireJobVisible(db, s.job_name, false);
          },
          [&](const sql::ShowCreateRoutineLoad& s) -> Status {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
            return RequireJobVisible(db, s.job_name, false);
          },
          [&](const sql::CreateStorageConnection&) {
            return a.RequireSystem("CREATE STORAGE VOLUME", "storage connections and volumes are made by "
                                                            "administrators: GRANT CREATE STORAGE VOLUME ON SYSTEM");
          },
          [&](const sql::CreateVolume& s) -> Status {
            RETURN_IF_ERROR(a.RequireSystem("CREATE STORAGE VOLUME", "storage connections and volumes are made by "
                                                                     "administrators: GRANT CREATE STORAGE VOLUME ON "
                                                                     "SYSTEM"));
            if (s.connection.empty()) return Status::Ok();
            return a.Require(ObjectRef{ObjectKind::kStorageConnection, "", s.connection}, "USAGE");
          },
          [&](const sql::ShowStorageObjects&) { return Status::Ok(); },
          [&](const sql::DescribeStorageObject& s) -> Status {
            ObjectRef o{s.kind == sql::StorageObjectKind::kConnection ? ObjectKind::kStorageConnection
                                                                      : ObjectKind::kStorageVolume,
                        "", s.name};
            if (a.Sees(o)) return Status::Ok();
            return auth::ObjectDenied(a.principal(), "USAGE", o);
          },
          [&](const sql::DropStorageObject& s) {
            return a.Require(ObjectRef{s.kind == sql::StorageObjectKind::kConnection ? ObjectKind::kStorageConnection
                                                                                     : ObjectKind::kStorageVolume,
                                       "", s.name},
                             "DROP");
          },
          [&](const sql::CopyIntoFromVolume& s) -> Status {
            std::string db;
            // COPY INTO catalog.db.table: INSERT on the Iceberg table, as for INSERT INTO it.
            if (!s.catalog.empty()) db = s.catalog + "." + s.db;
            else {
              ASSIGN_OR_RETURN(db, ResolveDb(s.db));
            }
            RETURN_IF_ERROR(a.RequireTable(db, s.table, "INSERT"));
            return a.Require(ObjectRef{ObjectKind::kStorageVolume, "", s.volume}, "USAGE");
          },
          [&](const sql::CreatePipe& s) -> Status {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
            std::string table_db = s.table_db.empty() ? db : s.table_db;
            // COPY INTO catalog.db.table: INSERT on the Iceberg table, as for CREATE ROUTINE LOAD ... ON it.
            if (!s.table_catalog.empty()) table_db = s.table_catalog + "." + s.table_db;
            RETURN_IF_ERROR(a.RequireTable(table_db, s.table, "INSERT"));
            if (s.volume_copy) return a.Require(ObjectRef{ObjectKind::kStorageVolume, "", s.volume_copy->volume}, "USAGE");
            return Status::Ok();
          },
          [&](const sql::DropPipe& s) -> Status {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
            return RequireJobControl(db, s.name, true, "DROP");
          },
          [&](const sql::AlterPipe& s) -> Status {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
            return RequireJobControl(db, s.name, true, "ALTER");
          },
          [&](const sql::ShowPipes&) { return Status::Ok(); },
          [&](const sql::DescPipe& s) -> Status {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.db));
            return RequireJobVisible(db, s.name, true);
          },
          [&](const sql::CreateVcluster&) {
            return a.RequireSystem("CREATE RESOURCE GROUP", "virtual clusters bound the whole server's work");
          },
          [&](const sql::AlterVcluster&) {
            return a.RequireSystem("CREATE RESOURCE GROUP", "virtual clusters bound the whole server's work");
          },
          [&](const sql::DropVcluster&) {
            return a.RequireSystem("CREATE RESOURCE GROUP", "virtual clusters bound the whole server's work");
          },
          [&](const sql::ShowVclusters&) { return Status::Ok(); },
          // As StarRocks' SHOW BACKENDS / FRONTENDS: NODE or OPERATE on SYSTEM (cluster_admin has both).
          [&](const sql::ShowNodes&) -> Status {
            if (a.Holds(ObjectRef{ObjectKind::kSystem, "", ""}, "NODE")) return Status::Ok();
            return a.RequireSystem("OPERATE", "SHOW NODES lists the servers of the cluster and their addresses; an "
                                              "administrator can run GRANT NODE ON SYSTEM TO USER ...");
          },
          // As StarRocks' ALTER SYSTEM DECOMMISSION BACKEND: NODE on SYSTEM (cluster_admin, root).
          [&](const sql::DecommissionNode& s) -> Status {
            return a.RequireSystem("NODE", s.drop ? "dropping a node removes it from the cluster"
                                                  : "decommissioning moves a node's work to the other nodes");
          },
          [&](const sql::AccountStatement&) { return Status::Ok(); },  // checked where it runs
          [&](const sql::Kill&) { return Status::Ok(); },  // the registry's kill policy (Engine::Open)
          // ADD / DROP PARTITION are ALTER TABLE, as in StarRocks (DROP PARTITION also deletes the rows).
          [&](const sql::AlterTablePartition& s) -> Status {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.table.db));
            return a.RequireTable(db, s.table.name, "ALTER");
          },
          [&](const sql::NoOpStatement&) { return Status::Ok(); },  // does nothing
          [&](const sql::AlterTable& s) -> Status {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.table.db));
            return a.RequireTable(db, s.table.name, "ALTER");
          },
          // SHOW INDEX / FULL COLUMNS need to see the table; TABLE STATUS lists only what the user sees.
          [&](const sql::ShowCatalog& s) -> Status {
            if (s.what != sql::ShowCatalog::What::kIndex) return Status::Ok();
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.table.db));
            if (a.Sees(Table(db, s.table.name))) return Status::Ok();
            return auth::TableDenied(a.principal(), "SELECT", db, s.table.name);
          },
          [&](const sql::ShowPartitions& s) -> Status {
            ASSIGN_OR_RETURN(std::string db, ResolveDb(s.table.db));
            if (a.Sees(Table(db, s.table.name))) return Status::Ok();
            return auth::TableDenied(a.principal(), "SELECT", db, s.table.name);
          },
          // External catalogs hold credentials and open doors to storage: administrators make them (and see
          // their definition, masked); everyone sees their names (SHOW CATALOGS).
          [&](const sql::CreateExternalCatalog&) {
            return a.RequireSystem("CREATE EXTERNAL CATALOG", "external catalogs are made by administrators: GRANT "
                                                              "CREATE EXTERNAL CATALOG ON SYSTEM TO USER ...");
          },
          [&](const sql::DropExternalCatalog&) {
            return a.RequireSystem("CREATE EXTERNAL CATALOG", "external catalogs are dropped by administrators: "
                                                              "GRANT CREATE EXTERNAL CATALOG ON SYSTEM TO USER ...");
          },
          [&](const sql::ShowExternalCatalogs&) { return Status::Ok(); },
          [&](const sql::ShowCreateCatalog&) {
            return a.RequireSystem("CREATE EXTERNAL CATALOG", "a catalog's definition is shown to administrators: "
                                                              "GRANT CREATE EXTERNAL CATALOG ON SYSTEM TO USER ...");
          },
      },
      stmt);
}

void SqlSession::FilterVisibleRoutineLoads(ResultSet& rs) {
  if (access_.HoldsEverything()) return;
  int db = ColumnIndex(rs, "DbName"), name = ColumnIndex(rs, "Name");
  if (db < 0 || name < 0) return;
  // By the job's target as the registry knows it (an Iceberg table is catalog.db / table), not by the shown text.
  std::erase_if(rs.rows, [&](const Row& row) {
    return !row[db] || !row[name] || !RequireJobVisible(*row[db], *row[name], false).ok();
  });
}

void SqlSession::FilterVisiblePipes(ResultSet& rs, const std::string& db) {
  if (access_.HoldsEverything()) return;
  int name = ColumnIndex(rs, "name");
  if (name < 0) return;
  std::erase_if(rs.rows, [&](const Row& row) { return !row[name] || !RequireJobVisible(db, *row[name], true).ok(); });
}

bool SqlSession::SeesTable(const std::string& db, const std::string& table) const {
  return access_.HoldsEverything() || access_.Sees(Table(db, table));
}

bool SqlSession::SeesDatabase(const std::string& db) const {
  return access_.HoldsEverything() || access_.Sees(Database(db));
}

bool SqlSession::SeesStorageObject(bool connection, const std::string& name) const {
  return access_.HoldsEverything() ||
         access_.Sees(ObjectRef{connection ? ObjectKind::kStorageConnection : ObjectKind::kStorageVolume, "", name});
}

}  // namespace sluice
