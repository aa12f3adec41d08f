#include "lakehouse/lake_ddl.h"

#include "catalog/type_mapping.h"
#include "common/ascii.h"
#include "common/clock.h"
#include "iceberg/table_builder.h"
#include "lakehouse/lake_bucket_function.h"
#include "sql/parser.h"

namespace sluice::lakehouse {

namespace {

std::string Trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(s.begin());
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

std::string Where(const std::string& catalog, const std::string& db) { return catalog + "." + db; }

Status Explain(Status st, const std::string& what) {
  if (st.ok()) return st;
  return Status(st.code(), what + ": " + st.message());
}

}  // namespace

std::vector<std::string> PartitionTerms(const std::string& clause) {
  std::string text = Trim(clause);
  for (const char* head : {"PARTITIONED BY", "PARTITION BY"}) {
    if (AsciiUpper(text.substr(0, std::string(head).size())) == head) {
      text = Trim(text.substr(std::string(head).size()));
      break;
    }
  }
  // (a, day(ts)) -> a, day(ts): outer parentheses only when they wrap the whole list.
  if (!text.empty() && text.front() == '(' && text.back() == ')') {
    int depth = 0;
    bool wraps = true;
    for (size_t i = 0; i < text.size(); i++) {
      if (text[i] == '(') depth++;
      if (text[i] == ')' && --depth == 0 && i + 1 < text.size()) wraps = false;
    }
    if (wraps) text = text.substr(1, text.size() - 2);
  }
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == '`' || c == '"') continue;  // quoted column names
    if (c == '(') depth++;
    if (c == ')') depth--;
    if (c == ',' && depth == 0) {
      out.push_back(Trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!Trim(cur).empty()) out.push_back(Trim(cur));
  return out;
}

Result<bool> CreateLakeDatabase(LakeCatalogs& lakes, const std::string& catalog, const std::string& db,
                                bool if_not_exists) {
  ASSIGN_OR_RETURN(auto conn, lakes.Connect(catalog));
  ASSIGN_OR_RETURN(bool exists, conn->catalog->NamespaceExists({db}));
  if (exists) {
    if (if_not_exists) return true;
    return Status::DatabaseExists("Can't create database '" + Where(catalog, db) + "'; database exists");
  }
  RETURN_IF_ERROR(conn->catalog->CreateNamespace({db}));
  return false;
}

Result<bool> DropLakeDatabase(LakeCatalogs& lakes, const std::string& catalog, const std::string& db,
                              bool if_exists) {
  ASSIGN_OR_RETURN(auto conn, lakes.Connect(catalog));
  ASSIGN_OR_RETURN(bool exists, conn->catalog->NamespaceExists({db}));
  if (!exists) {
    if (if_exists) return true;
    return Status::UnknownDatabase("Can't drop database '" + Where(catalog, db) + "'; database doesn't exist");
  }
  RETURN_IF_ERROR(conn->catalog->DropNamespace({db}));
  return false;
}

Status CheckLakeObjectExists(LakeCatalogs& lakes, const std::string& catalog, const std::string& db,
                             const std::string& table) {
  ASSIGN_OR_RETURN(auto conn, lakes.Connect(catalog));
  ASSIGN_OR_RETURN(bool exists, conn->catalog->NamespaceExists({db}));
  if (!exists) {
    return Status::UnknownDatabase("Unknown database '" + Where(catalog, db) + "' (SHOW DATABASES FROM " + catalog +
                                   " lists them)");
  }
  if (table.empty() || table == "*") return Status::Ok();
  auto loaded = conn->catalog->LoadTable(iceberg::TableIdent{{db}, table});
  if (loaded.ok()) return Status::Ok();
  if (loaded.status().code() != StatusCode::kUnknownTable) return loaded.status();
  return Status::UnknownTable("Table '" + Where(catalog, db) + "." + table + "' doesn't exist: grants name existing "
                              "tables, or ALL TABLES IN DATABASE " + Where(catalog, db));
}

Result<std::vector<std::string>> ListLakeDatabases(LakeCatalogs& lakes, const std::string& catalog) {
  ASSIGN_OR_RETURN(auto conn, lakes.Connect(catalog));
  return conn->catalog->ListNamespaces();
}

Result<std::vector<std::string>> ListLakeTables(LakeCatalogs& lakes, const std::string& catalog,
                                                const std::string& db) {
  ASSIGN_OR_RETURN(auto conn, lakes.Connect(catalog));
  ASSIGN_OR_RETURN(bool exists, conn->catalog->NamespaceExists({db}));
  if (!exists) return Status::UnknownDatabase("Unknown database '" + Where(catalog, db) + "'");
  ASSIGN_OR_RETURN(auto tables, conn->catalog->ListTables({db}));
  std::vector<std::string> out;
  for (const auto& t : tables) out.push_back(t.name);
  return out;
}

Status CreateLakeTable(LakeCatalogs& lakes, const sql::CreateTable& stmt) {
  LakeTableRef ref{stmt.table.catalog, stmt.table.db, stmt.table.name};
  const std::string what = "CREATE TABLE " + ref.ToString();
  if (stmt.table.db.empty())
    return Status::InvalidArgument(what + ": name the database, as catalog.db.table");
  if (stmt.key_model == sql::KeyModel::kPrimary || stmt.key_model == sql::KeyModel::kUnique ||
      stmt.key_model == sql::KeyModel::kAggregate)
    return Status::NotSupported(what + ": Iceberg tables in Sluice are append-only; PRIMARY / UNIQUE / AGGREGATE "
                                "KEY tables need row-level deletes, which are not supported yet (leave out the key "
                                "clause, or use DUPLICATE KEY)");
  if (stmt.partitioning)
    return Status::NotSupported(what + ": RANGE / LIST partitions are Sluice's own; an Iceberg table is "
                                "partitioned by transforms: PARTITION BY (col, day(ts), month(ts), year(ts), "
                                "hour(ts), truncate(w, col))");
  if (!stmt.distribution_columns.empty() || stmt.distributed_random || stmt.buckets)
    return Status::NotSupported(what + ": DISTRIBUTED BY does not apply to Iceberg tables; leave it out");
  std::vector<iceberg::ColumnDef> columns;
  for (const auto& c : stmt.columns) {
    if (c.default_sql)
      return Status::NotSupported(what + ": column " + c.name + " has a DEFAULT; Iceberg v2 columns have none");
    if (c.aggregate != sql::AggregateFunction::kNone || c.auto_increment)
      return Status::NotSupported(what + ": column " + c.name +
                                  " is an aggregate or AUTO_INCREMENT column, which Iceberg tables do not have");
    ASSIGN_OR_RETURN(std::string duck, catalog::ToDuckDBType(c.type));
    columns.push_back(iceberg::ColumnDef{c.name, duck, c.nullable.has_value() && !*c.nullable});
  }
  auto schema = iceberg::SchemaFromColumns(columns);
  if (!schema.ok()) return Explain(schema.status(), what);
  for (size_t i = 0; i < stmt.columns.size() && i < schema->fields.size(); i++)
    schema->fields[i].doc = stmt.columns[i].comment;
  std::vector<std::string> terms;
  if (!stmt.partition_desc.empty()) terms = PartitionTerms(stmt.partition_desc);
  auto spec = iceberg::PartitionSpecFromTerms(*schema, terms);
  if (!spec.ok()) return Explain(spec.status(), what);
  for (const auto& f : spec->fields) {
    if (f.transform.kind == iceberg::TransformKind::kVoid)
      return Status::NotSupported(what + ": void partitions are not supported; use identity, year, month, day, "
                                  "hour, bucket or truncate");
    // Refused now rather than at the first INSERT: the column types whose values Sluice does not bucket.
    if (f.transform.kind == iceberg::TransformKind::kBucket) {
      const iceberg::Field* source = schema->FindById(f.source_id);
      if (source == nullptr) return Status::Internal(what + ": partition field " + f.name + " has no column");
      if (auto sql = BucketExpressionSql(source->name, source->type, f.transform.param); !sql.ok())
        return Status::NotSupported(what + ": " + sql.status().message());
    }
  }
  std::map<std::string, std::string> properties;
  for (const auto& [k, v] : stmt.properties) properties[k] = v;
  ASSIGN_OR_RETURN(auto conn, lakes.Connect(ref.catalog));
  ASSIGN_OR_RETURN(bool ns_exists, conn->catalog->NamespaceExists({ref.db}));
  if (!ns_exists)
    return Status::UnknownDatabase("Unknown database '" + Where(ref.catalog, ref.db) +
                                   "': CREATE DATABASE " + Where(ref.catalog, ref.db) + " first");
  auto existing = conn->catalog->LoadTable(ref.Ident());
  if (existing.ok()) {
    if (stmt.if_not_exists) return Status::Ok();
    return Status::TableExists("Table '" + ref.ToString() + "' already exists");
  }
  // A REST catalog without an S3 warehouse location places the table itself (its answer says where).
  const bool warehouse_is_location = conn->config.warehouse.find("://") != std::string::npos;
  const std::string location =
      warehouse_is_location ? iceberg::DefaultTableLocation(conn->config.warehouse, {ref.db}, ref.table) : "";
  auto created = conn->ops->Create(ref.Ident(), *schema, *spec, location, properties);
  if (!created.ok()) {
    if (created.status().code() == StatusCode::kTableExists && stmt.if_not_exists) return Status::Ok();
    return Explain(created.status(), what);
  }
  return Status::Ok();
}

Result<bool> DropLakeTable(LakeCatalogs& lakes, const LakeTableRef& ref, bool if_exists) {
  ASSIGN_OR_RETURN(auto conn, lakes.Connect(ref.catalog));
  Status st = conn->catalog->DropTable(ref.Ident());
  if (st.code() == StatusCode::kUnknownTable) {
    if (if_exists) return true;
    return Status::UnknownTable("Unknown table '" + ref.ToString() + "'");
  }
  RETURN_IF_ERROR(st);
  return false;
}

namespace {

Result<iceberg::LoadedTable> LoadTable(LakeCatalogs& lakes, const LakeTableRef& ref,
                                       std::shared_ptr<LakeConnection>* conn_out = nullptr) {
  ASSIGN_OR_RETURN(auto conn, lakes.Connect(ref.catalog));
  auto t = conn->ops->Load(ref.Ident());
  if (!t.ok() && t.status().code() == StatusCode::kUnknownTable)
    return Status::UnknownTable("Unknown table '" + ref.ToString() + "'");
  if (conn_out) *conn_out = conn;
  return t;
}

std::string ColumnType(const iceberg::Type& t) { return catalog::DisplayDuckDBType(iceberg::DuckDbTypeName(t)); }

}  // namespace

Result<ResultSet> DescribeLakeTable(LakeCatalogs& lakes, const LakeTableRef& ref) {
  ASSIGN_OR_RETURN(iceberg::LoadedTable t, LoadTable(lakes, ref));
  const iceberg::Schema* schema = t.metadata.CurrentSchema();
  const iceberg::PartitionSpec* spec = t.metadata.DefaultSpec();
  ResultSet rs;
  for (const char* c : {"Field", "Type", "Null", "Key", "Default", "Extra"}) rs.AddColumn(c);
  if (!schema) return rs;
  for (const auto& f : schema->fields) {
    std::string extra;
    if (spec) {
      for (const auto& p : spec->fields)
        if (p.source_id == f.id) extra += (extra.empty() ? "partition: " : ", ") + p.transform.ToString();
    }
    rs.rows.push_back({f.name, ColumnType(f.type), std::string(f.required ? "NO" : "YES"), std::string("false"),
                       std::nullopt, extra});
  }
  return rs;
}

Result<std::string> ShowCreateLakeTable(LakeCatalogs& lakes, const LakeTableRef& ref) {
  ASSIGN_OR_RETURN(iceberg::LoadedTable t, LoadTable(lakes, ref));
  const iceberg::Schema* schema = t.metadata.CurrentSchema();
  const iceberg::PartitionSpec* spec = t.metadata.DefaultSpec();
  std::string out = "CREATE TABLE `" + ref.table + "` (\n";
  if (schema) {
    for (size_t i = 0; i < schema->fields.size(); i++) {
      const auto& f = schema->fields[i];
      out += "  `" + f.name + "` " + ColumnType(f.type) + (f.required ? " NOT NULL" : "");
      if (!f.doc.empty()) out += " COMMENT " + sql::QuoteLiteral(f.doc);
      out += i + 1 < schema->fields.size() ? ",\n" : "\n";
    }
  }
  out += ")";
  if (spec && !spec->unpartitioned() && schema) {
    std::string terms;
    for (const auto& p : spec->fields) {
      const iceberg::Field* src = schema->FindById(p.source_id);
      std::string col = src ? src->name : std::to_string(p.source_id);
      std::string term;
      switch (p.transform.kind) {
        case iceberg::TransformKind::kIdentity: term = col; break;
        case iceberg::TransformKind::kTruncate:
        case iceberg::TransformKind::kBucket: {
          std::string name = p.transform.kind == iceberg::TransformKind::kTruncate ? "truncate" : "bucket";
          term = name + "(" + std::to_string(p.transform.param) + ", " + col + ")";
          break;
        }
        default: term = p.transform.ToString() + "(" + col + ")";
      }
      terms += (terms.empty() ? "" : ", ") + term;
    }
    out += "\nPARTITION BY (" + terms + ")";
  }
  out += "\nPROPERTIES (\"location\" = " + std::string("\"") + t.metadata.location + "\"";
  for (const auto& [k, v] : t.metadata.properties) out += ", \"" + k + "\" = \"" + v + "\"";
  out += ")";
  return out;
}

}  // namespace sluice::lakehouse
