#include "catalog/catalog.h"

#include <ctime>

#include "catalog/table_alter.h"
#include "catalog/type_mapping.h"
#include "common/log.h"
#include "common/test_points.h"
#include "sql/parser.h"

namespace sluice::catalog {

namespace {

using sql::QuoteIdentifier;
using sql::QuoteLiteral;

// Dropped tables keep their data under this prefix in their own database until UNDROP or the deadline.
constexpr const char* kDroppedPrefix = "__sluice_dropped_";

std::string Qualified(const std::string& db, const std::string& name) {
  return QuoteIdentifier(db) + "." + QuoteIdentifier(name);
}

std::string FormatUtc(int64_t epoch_seconds) {
  std::time_t t = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

bool IsHiddenSchema(const std::string& s) {
  return s == kSystemSchema || s == "information_schema" || s == "pg_catalog";
}

// Values of a one-column result.
std::vector<std::string> Column(const StatementResult& r, size_t col = 0) {
  std::vector<std::string> out;
  if (!r.result_set) return out;
  for (const auto& row : r.result_set->rows)
    if (col < row.size() && row[col]) out.push_back(*row[col]);
  return out;
}

}  // namespace

Result<std::unique_ptr<Catalog>> Catalog::Open(storage::Database& db, Clock clock) {
  ASSIGN_OR_RETURN(auto con, db.Connect());
  auto catalog = std::unique_ptr<Catalog>(new Catalog(db, std::move(con), std::move(clock)));
  RETURN_IF_ERROR(catalog->Bootstrap());
  return catalog;
}

Status Catalog::Bootstrap() {
  Changing change(*this);
  return storage::InTransaction(*con_, [&] {
    return con_->Execute(std::string("CREATE SCHEMA IF NOT EXISTS ") + kSystemSchema + ";" +
                         "CREATE TABLE IF NOT EXISTS __sluice.tables (db VARCHAR NOT NULL, name VARCHAR NOT NULL, "
                         "meta VARCHAR NOT NULL, created_at BIGINT NOT NULL);"
                         "CREATE TABLE IF NOT EXISTS __sluice.dropped_tables (id BIGINT NOT NULL, db VARCHAR NOT NULL, "
                         "name VARCHAR NOT NULL, stored_as VARCHAR NOT NULL, dropped_at BIGINT NOT NULL, "
                         "deadline BIGINT NOT NULL, meta VARCHAR);"
                         "CREATE SEQUENCE IF NOT EXISTS __sluice.dropped_table_ids;");
  });
}

uint64_t Catalog::RefreshAnswersLocked() {
  const uint64_t epoch = db_.catalog_epoch();
  if (epoch != answers_epoch_) {
    ForgetAnswersLocked();
    answers_epoch_ = epoch;
  }
  return epoch;
}

void Catalog::ForgetAnswersLocked() {
  described_.clear();
  not_described_.clear();
  database_exists_.clear();
}

Status Catalog::RequireDatabaseLocked(const std::string& db) {
  if (IsHiddenSchema(db)) return Status::UnknownDatabase("Unknown database '" + db + "'");
  const uint64_t epoch = RefreshAnswersLocked();
  auto known = database_exists_.find(db);
  if (known == database_exists_.end()) {
    ASSIGN_OR_RETURN(auto r, con_->Query("SELECT count(*) FROM duckdb_schemas() WHERE database_name = "
                                         "current_database() AND schema_name = " + QuoteLiteral(db)));
    const bool exists = Column(r) != std::vector<std::string>{"0"};
    if (db_.catalog_epoch() != epoch) return exists ? Status::Ok() : Status::UnknownDatabase("Unknown database '" + db + "'");
    known = database_exists_.emplace(db, exists).first;
  }
  if (!known->second) return Status::UnknownDatabase("Unknown database '" + db + "'");
  return Status::Ok();
}

bool Catalog::DatabaseExists(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  return RequireDatabaseLocked(name).ok();
}

Status Catalog::CreateDatabase(const std::string& name, bool if_not_exists) {
  Changing change(*this);
  if (IsHiddenSchema(name) || name.rfind("__sluice", 0) == 0)
    return Status::InvalidArgument("database name '" + name + "' is reserved for Sluice");
  if (RequireDatabaseLocked(name).ok()) {
    if (if_not_exists) return Status::Ok();
    return Status::DatabaseExists("Can't create database '" + name + "'; database exists");
  }
  return con_->Execute("CREATE SCHEMA " + QuoteIdentifier(name));
}

Status Catalog::DropDatabase(const std::string& name, bool if_exists) {
  Changing change(*this);
  if (name == "main") return Status::InvalidArgument("database 'main' is the default database and cannot be dropped");
  if (!RequireDatabaseLocked(name).ok()) {
    if (if_exists) return Status::Ok();
    return Status::UnknownDatabase("Can't drop database '" + name + "'; database doesn't exist");
  }
  // The database goes with everything in it, dropped tables awaiting UNDROP included.
  return storage::InTransaction(*con_, [&] {
    RETURN_IF_ERROR(con_->Execute("DROP SCHEMA " + QuoteIdentifier(name) + " CASCADE"));
    RETURN_IF_ERROR(con_->Execute("DELETE FROM __sluice.tables WHERE db = " + QuoteLiteral(name)));
    return con_->Execute("DELETE FROM __sluice.dropped_tables WHERE db = " + QuoteLiteral(name));
  });
}

Result<std::vector<std::string>> Catalog::ListDatabases() {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(auto r, con_->Query("SELECT schema_name FROM duckdb_schemas() WHERE database_name = "
                                       "current_database() ORDER BY schema_name"));
  std::vector<std::string> out;
  for (auto& s : Column(r))
    if (!IsHiddenSchema(s)) out.push_back(s);
  return out;
}

bool Catalog::TableExistsLocked(const std::string& db, const std::string& name) {
  auto r = con_->Query("SELECT count(*) FROM (SELECT table_name AS n FROM duckdb_tables() WHERE database_name = "
                       "current_database() AND schema_name = " + QuoteLiteral(db) +
                       " UNION ALL SELECT view_name FROM duckdb_views() WHERE database_name = current_database() "
                       "AND schema_name = " + QuoteLiteral(db) + ") WHERE lower(n) = lower(" + QuoteLiteral(name) + ")");
  return r.ok() && Column(*r) != std::vector<std::string>{"0"};
}

Result<std::optional<TableMeta>> Catalog::LoadMetaLocked(const std::string& db, const std::string& name) {
  ASSIGN_OR_RETURN(auto r, con_->Query("SELECT meta FROM __sluice.tables WHERE db = " + QuoteLiteral(db) +
                                       " AND name = " + QuoteLiteral(name)));
  auto metas = Column(r);
  if (metas.empty()) return std::optional<TableMeta>();
  TableMeta m = TableMetaFromJson(metas[0]);
  m.db = db;
  m.name = name;
  return std::optional<TableMeta>(std::move(m));
}

Status Catalog::CreateTable(const std::string& db, const sql::CreateTable& stmt) {
  ASSIGN_OR_RETURN(TableMeta meta, BuildTableMeta(db, stmt));
  Changing change(*this);
  RETURN_IF_ERROR(RequireDatabaseLocked(db));
  if (meta.name.rfind(kDroppedPrefix, 0) == 0)
    return Status::InvalidArgument("table names starting with " + std::string(kDroppedPrefix) + " are reserved");
  if (TableExistsLocked(db, meta.name)) {
    if (stmt.if_not_exists) return Status::Ok();
    return Status::TableExists("Table '" + meta.name + "' already exists");
  }
  return storage::InTransaction(*con_, [&]() -> Status {
    RETURN_IF_ERROR(con_->Execute(DuckDBCreateTableSql(meta)));
    // DuckDB spells types its own way (STRUCT(a INTEGER)); DESC compares against that spelling to tell a column
    // still has the type Sluice created it with.
    ASSIGN_OR_RETURN(auto types, con_->Query("SELECT data_type FROM duckdb_columns() WHERE database_name = "
                                             "current_database() AND schema_name = " + QuoteLiteral(db) +
                                             " AND table_name = " + QuoteLiteral(meta.name) + " ORDER BY column_index"));
    auto spelled = Column(types);
    for (size_t i = 0; i < meta.columns.size() && i < spelled.size(); i++) meta.columns[i].duckdb_type = spelled[i];
    // A leftover row from a table dropped through pass-through SQL must not shadow the new definition.
    RETURN_IF_ERROR(con_->Execute("DELETE FROM __sluice.tables WHERE db = " + QuoteLiteral(db) +
                                  " AND name = " + QuoteLiteral(meta.name)));
    return con_->Execute("INSERT INTO __sluice.tables VALUES (" + QuoteLiteral(db) + ", " + QuoteLiteral(meta.name) +
                         ", " + QuoteLiteral(TableMetaToJson(meta)) + ", " + std::to_string(clock_()) + ")");
  });
}

Status Catalog::DropTable(const std::string& db, const std::string& name, bool if_exists, bool force) {
  Changing change(*this);
  RETURN_IF_ERROR(RequireDatabaseLocked(db));
  ASSIGN_OR_RETURN(auto kind, con_->Query("SELECT 'table' FROM duckdb_tables() WHERE database_name = current_database() "
                                          "AND schema_name = " + QuoteLiteral(db) + " AND table_name = " + QuoteLiteral(name) +
                                          " UNION ALL SELECT 'view' FROM duckdb_views() WHERE database_name = "
                                          "current_database() AND schema_name = " + QuoteLiteral(db) +
                                          " AND view_name = " + QuoteLiteral(name)));
  auto kinds = Column(kind);
  if (kinds.empty() || name.rfind(kDroppedPrefix, 0) == 0) {
    if (if_exists) return Status::Ok();
    return Status::UnknownTable("Unknown table '" + db + "." + name + "'");
  }
  if (kinds[0] == "view") return con_->Execute("DROP VIEW " + Qualified(db, name));

  ASSIGN_OR_RETURN(auto meta, LoadMetaLocked(db, name));
  int64_t retention = kDefaultUndropRetentionSeconds;
  if (meta) {
    if (auto r = meta->Property(kUndropRetentionProperty)) retention = std::strtoll(r->c_str(), nullptr, 10);
  }
  return storage::InTransaction(*con_, [&] {
    if (force || retention == 0) {
      RETURN_IF_ERROR(con_->Execute("DROP TABLE " + Qualified(db, name)));
    } else {
      ASSIGN_OR_RETURN(auto idr, con_->Query("SELECT nextval('__sluice.dropped_table_ids')"));
      std::string id = Column(idr).at(0);
      std::string stored = kDroppedPrefix + id;
      int64_t now = clock_();
      RETURN_IF_ERROR(con_->Execute("ALTER TABLE " + Qualified(db, name) + " RENAME TO " + QuoteIdentifier(stored)));
      RETURN_IF_ERROR(con_->Execute(
          "INSERT INTO __sluice.dropped_tables VALUES (" + id + ", " + QuoteLiteral(db) + ", " + QuoteLiteral(name) +
          ", " + QuoteLiteral(stored) + ", " + std::to_string(now) + ", " + std::to_string(now + retention) + ", " +
          (meta ? QuoteLiteral(TableMetaToJson(*meta)) : std::string("NULL")) + ")"));
    }
    // One transaction: a crash between the steps leaves the table as it was (test point drop_table.inside).
    RETURN_IF_ERROR(TestPoint("drop_table.inside"));
    return con_->Execute("DELETE FROM __sluice.tables WHERE db = " + QuoteLiteral(db) + " AND name = " + QuoteLiteral(name));
  });
}

Status Catalog::UndropTable(const std::string& db, const std::string& name) {
  Changing change(*this);
  RETURN_IF_ERROR(RequireDatabaseLocked(db));
  ASSIGN_OR_RETURN(auto r, con_->Query("SELECT id, stored_as, meta FROM __sluice.dropped_tables WHERE db = " +
                                       QuoteLiteral(db) + " AND name = " + QuoteLiteral(name) + " AND deadline > " +
                                       std::to_string(clock_()) + " ORDER BY id DESC LIMIT 1"));
  if (!r.result_set || r.result_set->rows.empty())
    return Status::UnknownTable("no dropped table '" + db + "." + name +
                                "' can be restored: it was never dropped, or its retention has passed "
                                "(SHOW TABLES HISTORY lists what can be restored)");
  const Row& row = r.result_set->rows[0];
  if (TableExistsLocked(db, name))
    return Status::TableExists("cannot UNDROP '" + db + "." + name +
                               "': a table of that name exists again; drop or rename it first");
  std::string id = *row[0], stored = *row[1];
  return storage::InTransaction(*con_, [&] {
    RETURN_IF_ERROR(con_->Execute("ALTER TABLE " + Qualified(db, stored) + " RENAME TO " + QuoteIdentifier(name)));
    RETURN_IF_ERROR(TestPoint("undrop_table.inside"));  // one transaction: a crash here leaves it dropped
    if (row[2]) {
      RETURN_IF_ERROR(con_->Execute("INSERT INTO __sluice.tables VALUES (" + QuoteLiteral(db) + ", " + QuoteLiteral(name) +
                                    ", " + QuoteLiteral(*row[2]) + ", " + std::to_string(clock_()) + ")"));
    }
    return con_->Execute("DELETE FROM __sluice.dropped_tables WHERE id = " + id);
  });
}

Result<std::vector<std::string>> Catalog::ListTables(const std::string& db) {
  std::lock_guard<std::mutex> lock(mu_);
  RETURN_IF_ERROR(RequireDatabaseLocked(db));
  ASSIGN_OR_RETURN(auto r, con_->Query("SELECT n FROM (SELECT table_name AS n FROM duckdb_tables() WHERE database_name = "
                                       "current_database() AND schema_name = " + QuoteLiteral(db) +
                                       " UNION ALL SELECT view_name FROM duckdb_views() WHERE database_name = "
                                       "current_database() AND schema_name = " + QuoteLiteral(db) +
                                       " AND NOT internal) WHERE NOT starts_with(n, " + QuoteLiteral(kDroppedPrefix) +
                                       ") ORDER BY n"));
  return Column(r);
}

Result<std::vector<DroppedTable>> Catalog::ListDroppedTables(const std::string& db) {
  std::lock_guard<std::mutex> lock(mu_);
  RETURN_IF_ERROR(RequireDatabaseLocked(db));
  ASSIGN_OR_RETURN(auto r, con_->Query("SELECT id, name, stored_as, dropped_at, deadline FROM __sluice.dropped_tables "
                                       "WHERE db = " + QuoteLiteral(db) + " AND deadline > " + std::to_string(clock_()) +
                                       " ORDER BY id"));
  std::vector<DroppedTable> out;
  for (const auto& row : r.result_set->rows) {
    DroppedTable t;
    t.id = std::stoll(*row[0]);
    t.db = db;
    t.name = *row[1];
    t.stored_as = *row[2];
    t.dropped_at = FormatUtc(std::stoll(*row[3]));
    t.deadline = FormatUtc(std::stoll(*row[4]));
    out.push_back(std::move(t));
  }
  return out;
}

Result<std::string> Catalog::KeyModel(const std::string& db, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(auto meta, LoadMetaLocked(db, name));
  return meta ? meta->key_model : std::string();
}

Result<std::optional<TableMeta>> Catalog::StoredMeta(const std::string& db, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  return LoadMetaLocked(db, name);
}

Result<TableMeta> Catalog::PartitionedTableLocked(const std::string& db, const std::string& name) {
  RETURN_IF_ERROR(RequireDatabaseLocked(db));
  if (name.rfind(kDroppedPrefix, 0) == 0 || !TableExistsLocked(db, name))
    return Status::UnknownTable("Table '" + db + "." + name + "' doesn't exist");
  ASSIGN_OR_RETURN(auto meta, LoadMetaLocked(db, name));
  if (!meta || !meta->partitioning.partitioned())
    return Status::InvalidArgument("table '" + name + "' is not partitioned: only tables created with PARTITION BY "
                                   "RANGE (...) or LIST (...) have partitions to add or drop");
  return *meta;
}

Status Catalog::SaveMetaLocked(const TableMeta& meta) {
  return con_->Execute("UPDATE __sluice.tables SET meta = " + QuoteLiteral(TableMetaToJson(meta)) + " WHERE db = " +
                       QuoteLiteral(meta.db) + " AND name = " + QuoteLiteral(meta.name));
}

Status Catalog::AddPartition(const std::string& db, const std::string& name, const sql::PartitionItem& item,
                             bool if_not_exists) {
  Changing change(*this);
  ASSIGN_OR_RETURN(TableMeta meta, PartitionedTableLocked(db, name));
  if (if_not_exists && meta.partitioning.Find(item.name)) return Status::Ok();
  RETURN_IF_ERROR(catalog::AddPartition(meta.partitioning, item));
  return SaveMetaLocked(meta);
}

Result<int64_t> Catalog::DropPartition(const std::string& db, const std::string& name, const std::string& partition,
                                       bool if_exists) {
  Changing change(*this);
  ASSIGN_OR_RETURN(TableMeta meta, PartitionedTableLocked(db, name));
  const PartitionDef* p = meta.partitioning.Find(partition);
  if (!p) {
    if (if_exists) return int64_t{0};
    return Status::InvalidArgument("Error in list of partitions to drop: partition '" + partition +
                                   "' does not exist in table '" + name + "' (SHOW PARTITIONS FROM " + name +
                                   " lists them)");
  }
  std::vector<std::string> columns;
  for (const auto& c : meta.partitioning.columns) columns.push_back(QuoteIdentifier(c));
  const std::string where = PartitionMembershipSql(meta.partitioning, columns, {p->name});
  const std::string dropped = p->name;
  meta.partitioning.partitions.erase(meta.partitioning.partitions.begin() + (p - meta.partitioning.partitions.data()));
  int64_t deleted = 0;
  RETURN_IF_ERROR(storage::InTransaction(*con_, [&]() -> Status {
    ASSIGN_OR_RETURN(auto r, con_->Query("DELETE FROM " + Qualified(db, name) + " WHERE " + where));
    deleted = r.affected_rows;
    return SaveMetaLocked(meta);
  }));
  (void)dropped;
  return deleted;
}

Result<std::vector<int64_t>> Catalog::PartitionRowCounts(const TableMeta& meta) {
  std::vector<int64_t> out;
  const auto& s = meta.partitioning;
  if (s.partitions.empty()) return out;
  std::vector<std::string> columns;
  for (const auto& c : s.columns) columns.push_back(QuoteIdentifier(c));
  std::string select;
  for (const auto& p : s.partitions)
    select += (select.empty() ? "" : ", ") + std::string("count(*) FILTER (WHERE ") +
              PartitionMembershipSql(s, columns, {p.name}) + ")";
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(auto r, con_->Query("SELECT " + select + " FROM " + Qualified(meta.db, meta.name)));
  if (!r.result_set || r.result_set->rows.empty()) return out;
  for (const auto& v : r.result_set->rows[0]) out.push_back(v ? std::stoll(*v) : 0);
  return out;
}

Result<TableMeta> Catalog::DescribeTable(const std::string& db, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t epoch = RefreshAnswersLocked();
  const auto key = std::make_pair(db, name);
  if (auto it = described_.find(key); it != described_.end()) return it->second;
  if (auto it = not_described_.find(key); it != not_described_.end()) return it->second;
  Result<TableMeta> meta = DescribeTableLocked(db, name);
  // Kept only when no DDL ran meanwhile (the answer might mix states), and only answers about the catalog: a failed
  // query (a full disk, an interrupted statement) is asked again.
  if (db_.catalog_epoch() == epoch) {
    if (meta.ok())
      described_.emplace(key, *meta);
    else if (meta.status().code() == StatusCode::kUnknownTable || meta.status().code() == StatusCode::kUnknownDatabase)
      not_described_.emplace(key, meta.status());
  }
  return meta;
}

Result<TableMeta> Catalog::DescribeTableLocked(const std::string& db, const std::string& name) {
  RETURN_IF_ERROR(RequireDatabaseLocked(db));
  if (name.rfind(kDroppedPrefix, 0) == 0)
    return Status::UnknownTable("Table '" + db + "." + name + "' doesn't exist");
  // Whether the name is a table (case-insensitively, as TableExistsLocked); only when it is not, whether it is a
  // view and its SQL (exact name): duckdb_views() lists DuckDB's internal views too and costs milliseconds per
  // call, and every CREATE ROUTINE LOAD / CREATE PIPE and every job's scheduling describes its table.
  ASSIGN_OR_RETURN(auto found, con_->Query(
      "SELECT NULL, NULL FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = " +
      QuoteLiteral(db) + " AND lower(table_name) = lower(" + QuoteLiteral(name) + ")"));
  if (!found.result_set || found.result_set->rows.empty()) {
    ASSIGN_OR_RETURN(found, con_->Query(
        "SELECT view_name, sql FROM duckdb_views() WHERE database_name = current_database() AND schema_name = " +
        QuoteLiteral(db) + " AND lower(view_name) = lower(" + QuoteLiteral(name) + ")"));
  }
  if (!found.result_set || found.result_set->rows.empty())
    return Status::UnknownTable("Table '" + db + "." + name + "' doesn't exist");
  ASSIGN_OR_RETURN(auto stored, LoadMetaLocked(db, name));
  TableMeta meta = stored ? *stored : TableMeta{};
  meta.db = db;
  meta.name = name;
  for (const auto& row : found.result_set->rows) {
    if (row.size() < 2 || !row[0] || *row[0] != name) continue;
    meta.is_view = true;
    meta.view_sql = row[1].value_or("");
    break;
  }
  // pragma_table_info binds the one table (a fifth of the cost of filtering duckdb_columns(), which lists every
  // column of every table, Sluice's own included).
  ASSIGN_OR_RETURN(auto cols, con_->Query("SELECT name, type, CASE WHEN \"notnull\" THEN 'false' ELSE 'true' END, "
                                          "dflt_value FROM pragma_table_info(" + QuoteLiteral(Qualified(db, name)) +
                                          ") ORDER BY cid"));
  // DuckDB's live columns are the truth (pass-through ALTER TABLE may have changed them); what Sluice
  // remembers adds the StarRocks view of each column that still exists.
  std::vector<ColumnMeta> live;
  for (const auto& row : cols.result_set->rows) {
    ColumnMeta c;
    c.name = row[0].value_or("");
    if (const ColumnMeta* known = meta.FindColumn(c.name); known && known->duckdb_type == row[1].value_or("")) {
      c = *known;
    } else {
      c.duckdb_type = row[1].value_or("");
      c.type_text = DisplayDuckDBType(c.duckdb_type);
      c.is_key = known && known->is_key;
      c.comment = known ? known->comment : "";
    }
    c.nullable = row[2].value_or("true") == "true";
    if (row[3]) c.default_sql = *row[3];
    else c.default_sql.reset();
    live.push_back(std::move(c));
  }
  meta.columns = std::move(live);
  return meta;
}

Result<std::string> Catalog::ShowCreateTable(const std::string& db, const std::string& name) {
  ASSIGN_OR_RETURN(TableMeta meta, DescribeTable(db, name));
  if (meta.is_view) return meta.view_sql;
  return RenderCreateTable(meta);
}

Result<int> Catalog::PurgeExpiredDroppedTables() {
  Changing change(*this);
  ASSIGN_OR_RETURN(auto r, con_->Query("SELECT id, db, stored_as FROM __sluice.dropped_tables WHERE deadline <= " +
                                       std::to_string(clock_())));
  int purged = 0;
  for (const auto& row : r.result_set->rows) {
    Status st = storage::InTransaction(*con_, [&] {
      RETURN_IF_ERROR(con_->Execute("DROP TABLE IF EXISTS " + Qualified(*row[1], *row[2])));
      return con_->Execute("DELETE FROM __sluice.dropped_tables WHERE id = " + *row[0]);
    });
    if (!st.ok()) {
      log::Warn("catalog", "could not purge dropped table {}.{}: {}", *row[1], *row[2], st.message());
      continue;
    }
    purged++;
  }
  return purged;
}

}  // namespace sluice::catalog
