// External catalogs and their Iceberg tables at the front door (src/lakehouse): CREATE EXTERNAL CATALOG, SHOW
// CATALOGS, SHOW CREATE CATALOG, DROP CATALOG; and every statement that names catalog.db or catalog.db.table of
// an external catalog: CREATE / DROP DATABASE, SHOW DATABASES FROM, SHOW TABLES FROM, CREATE / DROP TABLE, DESC,
// SHOW CREATE TABLE, INSERT INTO ... SELECT | VALUES, queries that read such tables (time travel, metadata tables,
// pruning notes for SHOW WARNINGS) and table care (ALTER TABLE ... EXECUTE).
//
// Privileges (docs/security.md): creating, dropping and showing the definition of an external catalog, and
// creating or dropping its databases, need the system privilege CREATE EXTERNAL CATALOG. Its tables take the same
// privileges as Sluice's own, granted by name with the database written catalog.db: GRANT SELECT ON TABLE
// lake.db.t, GRANT CREATE TABLE ON DATABASE lake.db, GRANT INSERT ON ALL TABLES IN DATABASE lake.db. Reading the
// metadata tables t$snapshots / t$history / t$files takes SELECT on t; ALTER TABLE lake.db.t EXECUTE
// expire_snapshots(...) / remove_orphan_files(...) / rewrite_data_files(...) takes ALTER on t (StarRocks asks the same).
#include "common/ascii.h"
#include "common/clock.h"
#include "common/like.h"
#include "common/log.h"
#include "common/secret_redaction.h"
#include "executor/sql_session.h"
#include "sql/lexer.h"
#include "iceberg/jdbc_catalog.h"
#include "lakehouse/lake_care.h"
#include "lakehouse/lake_ddl.h"
#include "lakehouse/lake_insert.h"
#include "lakehouse/lake_read.h"

namespace sluice {

namespace {

using auth::ObjectKind;
using auth::ObjectRef;

StatementResult Done(uint64_t affected = 0) {
  StatementResult r;
  r.affected_rows = affected;
  return r;
}

StatementResult RowsOf(ResultSet rs) {
  StatementResult r;
  r.result_set = std::move(rs);
  return r;
}

std::string LakeDb(const std::string& catalog, const std::string& db) { return catalog + "." + db; }

constexpr const char* kCatalogAdmin =
    "external catalogs are made by administrators: GRANT CREATE EXTERNAL CATALOG ON SYSTEM TO USER ...";

}  // namespace

void SqlSession::set_lakes(lakehouse::LakeCatalogs* lakes) { lakes_ = lakes; }

Status SqlSession::RequireCatalogKnown(const std::string& name) {
  if (lakes_ && lakes_->IsExternalCatalog(name)) return Status::Ok();
  return Status::NotFound("Unknown catalog '" + name + "' (SHOW CATALOGS lists them)");
}

std::optional<Status> SqlSession::CheckLakeGrantObject(const std::string& db, const std::string& table,
                                                       bool must_exist) {
  const size_t dot = db.find('.');
  if (dot == std::string::npos || db == auth::kAll || catalog_.DatabaseExists(db)) return std::nullopt;
  const std::string catalog_name = db.substr(0, dot);
  Status known = RequireCatalogKnown(catalog_name);
  if (!known.ok() || !must_exist) return known;
  return lakehouse::CheckLakeObjectExists(*lakes_, catalog_name, db.substr(dot + 1), table);
}

Result<StatementResult> SqlSession::RunCatalog(const sql::CreateExternalCatalog& s) {
  if (!lakes_) return Status::NotSupported("external catalogs are not available in this server");
  const std::string exists_note = "Can't create catalog '" + s.name + "'; catalog exists";
  // IF NOT EXISTS answers before any property is looked at, as other IF NOT EXISTS statements do.
  if (s.if_not_exists && lakes_->IsExternalCatalog(s.name)) return OkWithNote(1007, exists_note);
  // The PostgreSQL it names is checked against the egress list now (the S3 endpoint is, by the store).
  // A REST catalog's URL is checked by the store, with the other properties.
  bool rest = false;
  for (const auto& [key, value] : s.properties)
    if (AsciiLower(key) == "iceberg.catalog.type" && AsciiLower(value) == "rest") rest = true;
  for (const auto& [key, value] : s.properties)
    if (AsciiLower(key) == "iceberg.catalog.uri" && !rest) RETURN_IF_ERROR(iceberg::CheckJdbcEgress(value));
  ASSIGN_OR_RETURN(bool existed, lakes_->store().Create(s, WallClockMs()));
  if (existed) return OkWithNote(1007, exists_note);
  return Done();
}

Result<StatementResult> SqlSession::RunCatalog(const sql::DropExternalCatalog& s) {
  if (!lakes_) return Status::NotSupported("external catalogs are not available in this server");
  RETURN_IF_ERROR(lakes_->store().Drop(s.name, s.if_exists));
  lakes_->Forget(s.name);
  return Done();
}

Result<StatementResult> SqlSession::RunCatalog(const sql::ShowExternalCatalogs&) {
  ResultSet rs;
  for (const char* c : {"Catalog", "Type", "Comment"}) rs.AddColumn(c);
  rs.rows.push_back({std::string(catalog::kDefaultCatalog), std::string("Internal"),
                     std::string("An internal catalog contains this cluster's self-managed tables.")});
  if (lakes_) {
    // On a cluster node: the cluster's catalogs as they are now (this node's copy when PostgreSQL is away).
    (void)lakes_->store().Refresh();
    ASSIGN_OR_RETURN(auto catalogs, lakes_->store().List());
    for (const auto& c : catalogs) rs.rows.push_back({c.name, std::string("Iceberg"), c.comment});
  }
  return RowsOf(std::move(rs));
}

Result<StatementResult> SqlSession::RunCatalog(const sql::ShowCreateCatalog& s) {
  if (!lakes_) return Status::NotFound("Unknown catalog '" + s.name + "'");
  (void)lakes_->store().Refresh();
  ASSIGN_OR_RETURN(auto info, lakes_->store().Describe(s.name));
  std::string text = "CREATE EXTERNAL CATALOG `" + info.name + "`\n";
  if (!info.comment.empty()) text += "COMMENT " + sql::QuoteLiteral(info.comment) + "\n";
  text += "PROPERTIES (";
  for (size_t i = 0; i < info.properties.size(); i++) {
    const auto& [k, v] = info.properties[i];
    text += std::string(i ? ",\n" : "\n") + "\"" + k + "\" = \"" + v + "\"";
  }
  text += "\n)";
  ResultSet rs;
  rs.AddColumn("Catalog");
  rs.AddColumn("Create Catalog");
  rs.rows.push_back({info.name, text});
  return RowsOf(std::move(rs));
}

std::optional<Result<StatementResult>> SqlSession::RunLakeStatement(const sql::Statement& stmt,
                                                                    const sql::StatementScan& scan,
                                                                    const NameCheck& names) {
  const bool root = access_.HoldsEverything();
  auto table_ref = [](const sql::QualifiedName& q) {
    return lakehouse::LakeTableRef{q.catalog, q.db, q.name};
  };
  auto need_table = [&](const lakehouse::LakeTableRef& r, std::string_view privilege) -> Status {
    if (root) return Status::Ok();
    return access_.RequireTable(LakeDb(r.catalog, r.db), r.table, privilege);
  };
  auto sees_table = [&](const lakehouse::LakeTableRef& r) -> Status {
    if (root || access_.Sees(ObjectRef{ObjectKind::kTable, LakeDb(r.catalog, r.db), r.table})) return Status::Ok();
    return auth::TableDenied(access_.principal(), "SELECT", LakeDb(r.catalog, r.db), r.table);
  };
  auto need_admin = [&]() -> Status {
    if (root) return Status::Ok();
    return access_.RequireSystem("CREATE EXTERNAL CATALOG", kCatalogAdmin);
  };
  auto lake = [&](const std::string& catalog) -> std::optional<Status> {
    if (catalog.empty()) return std::nullopt;
    return RequireCatalogKnown(catalog);
  };
  using R = std::optional<Result<StatementResult>>;
  auto run = [&](auto&& body) -> R { return R(body()); };

  if (const auto* s = std::get_if<sql::CreateDatabase>(&stmt)) {
    auto known = lake(s->catalog);
    if (!known) return std::nullopt;
    return run([&]() -> Result<StatementResult> {
      RETURN_IF_ERROR(*known);
      RETURN_IF_ERROR(need_admin());
      CommitOpenTransaction();
      ASSIGN_OR_RETURN(bool existed, lakehouse::CreateLakeDatabase(*lakes_, s->catalog, s->name, s->if_not_exists));
      if (existed) {
        return OkWithNote(1007, "Can't create database '" + LakeDb(s->catalog, s->name) + "'; database exists");
      }
      return Done(1);
    });
  }
  if (const auto* s = std::get_if<sql::DropDatabase>(&stmt)) {
    auto known = lake(s->catalog);
    if (!known) return std::nullopt;
    return run([&]() -> Result<StatementResult> {
      RETURN_IF_ERROR(*known);
      RETURN_IF_ERROR(need_admin());
      CommitOpenTransaction();
      ASSIGN_OR_RETURN(bool missing, lakehouse::DropLakeDatabase(*lakes_, s->catalog, s->name, s->if_exists));
      if (missing) {
        return OkWithNote(1008, "Can't drop database '" + LakeDb(s->catalog, s->name) + "'; database doesn't exist");
      }
      return Done();
    });
  }
  if (const auto* s = std::get_if<sql::ShowDatabases>(&stmt)) {
    if (s->catalog.empty() || sql::EqualsIgnoreCase(s->catalog, catalog::kDefaultCatalog)) return std::nullopt;
    return run([&]() -> Result<StatementResult> {
      RETURN_IF_ERROR(RequireCatalogKnown(s->catalog));
      ASSIGN_OR_RETURN(auto dbs, lakehouse::ListLakeDatabases(*lakes_, s->catalog));
      ResultSet rs;
      rs.AddColumn("Database");
      for (auto& d : dbs)
        if ((!s->like || LikeMatch(d, *s->like)) && SeesDatabase(LakeDb(s->catalog, d))) rs.rows.push_back({d});
      return RowsOf(std::move(rs));
    });
  }
  if (const auto* s = std::get_if<sql::ShowTables>(&stmt)) {
    auto known = lake(s->catalog);
    if (!known) return std::nullopt;
    return run([&]() -> Result<StatementResult> {
      RETURN_IF_ERROR(*known);
      if (s->history) return Status::NotSupported("SHOW TABLES HISTORY lists Sluice's dropped tables only");
      ASSIGN_OR_RETURN(auto tables, lakehouse::ListLakeTables(*lakes_, s->catalog, s->db));
      ResultSet rs;
      rs.AddColumn("Tables_in_" + s->db);
      if (s->full) rs.AddColumn("Table_type");
      for (auto& t : tables) {
        if ((s->like && !LikeMatch(t, *s->like)) || !SeesTable(LakeDb(s->catalog, s->db), t)) continue;
        Row row{t};
        if (s->full) row.push_back(std::string("BASE TABLE"));
        rs.rows.push_back(std::move(row));
      }
      return RowsOf(std::move(rs));
    });
  }
  if (const auto* s = std::get_if<sql::CreateTable>(&stmt)) {
    auto known = lake(s->table.catalog);
    if (!known) return std::nullopt;
    return run([&]() -> Result<StatementResult> {
      RETURN_IF_ERROR(*known);
      if (!root) RETURN_IF_ERROR(access_.RequireDatabase(LakeDb(s->table.catalog, s->table.db), "CREATE TABLE"));
      CommitOpenTransaction();
      RETURN_IF_ERROR(lakehouse::CreateLakeTable(*lakes_, *s));
      return Done();
    });
  }
  if (const auto* s = std::get_if<sql::DropTable>(&stmt)) {
    auto known = lake(s->table.catalog);
    if (!known) return std::nullopt;
    return run([&]() -> Result<StatementResult> {
      RETURN_IF_ERROR(*known);
      RETURN_IF_ERROR(need_table(table_ref(s->table), "DROP"));
      CommitOpenTransaction();
      ASSIGN_OR_RETURN(bool missing, lakehouse::DropLakeTable(*lakes_, table_ref(s->table), s->if_exists));
      if (missing) {
        return OkWithNote(1051, "Unknown table '" + s->table.ToString() + "'");
      }
      return Done();
    });
  }
  if (const auto* s = std::get_if<sql::DescribeTable>(&stmt)) {
    auto known = lake(s->table.catalog);
    if (!known) return std::nullopt;
    return run([&]() -> Result<StatementResult> {
      RETURN_IF_ERROR(*known);
      RETURN_IF_ERROR(sees_table(table_ref(s->table)));
      ASSIGN_OR_RETURN(ResultSet rs, lakehouse::DescribeLakeTable(*lakes_, table_ref(s->table)));
      return RowsOf(std::move(rs));
    });
  }
  if (const auto* s = std::get_if<sql::ShowCreateTable>(&stmt)) {
    auto known = lake(s->table.catalog);
    if (!known) return std::nullopt;
    return run([&]() -> Result<StatementResult> {
      RETURN_IF_ERROR(*known);
      RETURN_IF_ERROR(sees_table(table_ref(s->table)));
      ASSIGN_OR_RETURN(std::string text, lakehouse::ShowCreateLakeTable(*lakes_, table_ref(s->table)));
      ResultSet rs;
      rs.AddColumn("Table");
      rs.AddColumn("Create Table");
      rs.rows.push_back({s->table.name, text});
      return RowsOf(std::move(rs));
    });
  }
  if (const auto* s = std::get_if<sql::PassThrough>(&stmt)) {
    if (!NamesLakeTable(*s)) return std::nullopt;
    return run([&]() { return RunLakePassThrough(*s, scan, names); });
  }
  return std::nullopt;
}

bool SqlSession::NamesLakeTable(const sql::PassThrough& s) const {
  if (!lakes_) return false;
  // The same token scan the rewrite uses decides whether the statement names an Iceberg table.
  auto is_external = [&](const std::string& c) { return lakes_->IsExternalCatalog(c); };
  if (!lakehouse::FindLakeReferences(s.sql, is_external).empty()) return true;
  auto insert = lakehouse::ParseLakeInsert(s.sql, is_external);
  return !insert.ok() || insert->has_value();
}

Result<StatementResult> SqlSession::RunLakePassThrough(const sql::PassThrough& s, const sql::StatementScan& scan,
                                                       const NameCheck& names) {
  const std::string& verb = scan.verb;
  auto is_external = [&](const std::string& c) { return lakes_->IsExternalCatalog(c); };
  if (verb == "ALTER") {
    // ALTER TABLE catalog.db.t EXECUTE expire_snapshots / remove_orphan_files / rewrite_data_files: ALTER on it.
    ASSIGN_OR_RETURN(auto care, lakehouse::ParseLakeCare(s.sql, is_external));
    if (care) {
      if (!access_.HoldsEverything())
        RETURN_IF_ERROR(access_.RequireTable(LakeDb(care->table.catalog, care->table.db), care->table.table, "ALTER"));
      if (in_transaction_)
        return Status::NotSupported("table care of the Iceberg table " + care->table.ToString() +
                                    " commits on its own: run it outside BEGIN ... COMMIT");
      ASSIGN_OR_RETURN(ResultSet rs, lakehouse::RunLakeCare(*lakes_, *care, WallClockMs(),
                                                            {con_.get(), scratch_dir_ + "iceberg-write"}));
      log::Info("session", "conn {} ran {} on Iceberg table {}", connection_id_, care->procedure,
                care->table.ToString());
      return RowsOf(std::move(rs));
    }
  }
  if (verb != "SELECT" && verb != "WITH" && verb != "INSERT" && verb != "FROM" && verb != "VALUES" &&
      verb != "TABLE" && !verb.empty()) {
    return Status::NotSupported(verb + " on an Iceberg table is not supported yet: Iceberg tables are read by "
                                "SELECT, written by INSERT INTO catalog.db.table SELECT ... / VALUES ... and cared "
                                "for by ALTER TABLE catalog.db.table EXECUTE expire_snapshots(...) / "
                                "remove_orphan_files(...) / rewrite_data_files(...)");
  }
  ASSIGN_OR_RETURN(auto insert, lakehouse::ParseLakeInsert(s.sql, is_external));
  const std::string& reads = insert ? insert->query : s.sql;
  auto refs = lakehouse::FindLakeReferences(reads, is_external);
  if (!access_.HoldsEverything()) {
    if (insert)
      RETURN_IF_ERROR(access_.RequireTable(LakeDb(insert->target.catalog, insert->target.db), insert->target.table,
                                           "INSERT"));
    for (const auto& r : refs) {
      // t$snapshots, t$history, t$files: reading a table's metadata tables takes SELECT on the table.
      std::string table;
      (void)lakehouse::MetadataTableOf(r.ref.table, &table);
      RETURN_IF_ERROR(access_.RequireTable(LakeDb(r.ref.catalog, r.ref.db), table, "SELECT"));
    }
  }
  lakehouse::LakeReadNotes notes;
  ASSIGN_OR_RETURN(std::string rewritten, lakehouse::RewriteLakeReads(*lakes_, *con_, reads, refs, &notes));
  // What each Iceberg table's scan read and pruned, for SHOW WARNINGS (code 1105, level Note).
  for (const auto& line : notes.lines) Note(1105, line);
  auto with_notes = [&](Result<StatementResult> r) {
    if (r.ok()) r->warnings = static_cast<uint16_t>(std::min<size_t>(warnings_.size(), 65535));
    return r;
  };
  // The rest of the statement (Sluice's own tables it reads or writes) is checked as any statement is, on the
  // rewritten text; the sandbox was checked on the text as sent.
  const std::string checked = insert ? "SELECT * FROM (" + rewritten + ")" : rewritten;
  ASSIGN_OR_RETURN(sql::StatementScan rescan, sql::ScanStatement(checked));
  RETURN_IF_ERROR(Authorize(sql::Statement{sql::PassThrough{checked}}, rescan, names));
  if (!insert) {
    if (log::Enabled(log::Level::kDebug))
      log::Debug("session", "conn {} reads Iceberg tables: {}", connection_id_, RedactSecrets(s.sql));
    return with_notes(RunPassThrough(sql::PassThrough{rewritten}));
  }
  if (in_transaction_)
    return Status::NotSupported("INSERT into the Iceberg table " + insert->target.ToString() +
                                " commits on its own: run it outside BEGIN ... COMMIT");
  insert->query = rewritten;
  ASSIGN_OR_RETURN(uint64_t rows, lakehouse::RunLakeInsert(*lakes_, *con_, *insert, scratch_dir_ + "iceberg-write"));
  log::Info("session", "conn {} committed {} row(s) to Iceberg table {}", connection_id_, rows,
            insert->target.ToString());
  return with_notes(Done(rows));
}

}  // namespace sluice
