#include "catalog/external_catalog_store.h"

#include <algorithm>

#include "common/egress_policy.h"
#include "common/log.h"
#include "common/ascii.h"
#include "common/secret_names.h"
#include "common/secret_redaction.h"
#include "sql/parser.h"

namespace sluice::catalog {

namespace {

using sql::QuoteLiteral;

std::string NameMatch(const std::string& column, const std::string& name) {
  return "lower(" + column + ") = lower(" + QuoteLiteral(name) + ")";
}

bool IsSealed(const std::string& key) { return IsSealedCatalogProperty(key); }

std::string Display(const std::string& key, const std::string& value) {
  if (key == "iceberg.catalog.uri") return RedactSecrets(value);
  return IsSecretName(key) ? std::string(kMask) : value;
}

}  // namespace

// The URI is sealed too: a libpq URI or connection string may carry a password.
bool IsSealedCatalogProperty(const std::string& key) { return IsSecretName(key) || key == "iceberg.catalog.uri"; }

const std::vector<PropertySpec>& ExternalCatalogProperties() {
  static const std::vector<PropertySpec> kProperties = {
      {"type", PropertyType::kEnum, "", 0, 0, {"iceberg"}, false, "the kind of catalog: iceberg"},
      {"iceberg.catalog.type", PropertyType::kEnum, "", 0, 0, {"jdbc", "rest"}, false,
       "jdbc (Iceberg's JDBC catalog tables in PostgreSQL) or rest (an Iceberg REST catalog)"},
      {"iceberg.catalog.uri", PropertyType::kString, "", 0, 0, {}, false,
       "jdbc: the PostgreSQL database: jdbc:postgresql://host:port/db, postgresql://user@host:port/db or a libpq "
       "connection string; rest: the catalog's http(s)://host:port[/path]"},
      {"iceberg.catalog.warehouse", PropertyType::kString, "", 0, 0, {}, false,
       "where new tables are placed: s3://bucket/path (rest: optional, and sent to the catalog as its warehouse)"},
      {"iceberg.catalog.name", PropertyType::kString, "", 0, 0, {}, false,
       "the catalog_name other engines use for the same JDBC catalog (default: the catalog's own name)"},
      {"iceberg.catalog.jdbc.user", PropertyType::kString, "", 0, 0, {}, false, "PostgreSQL user"},
      {"iceberg.catalog.jdbc.password", PropertyType::kString, "", 0, 0, {}, false, "PostgreSQL password"},
      {"iceberg.catalog.token", PropertyType::kString, "", 0, 0, {}, false,
       "rest: a bearer token sent with every request to the REST catalog"},
      {"iceberg.catalog.credential", PropertyType::kString, "", 0, 0, {}, false,
       "rest: OAuth2 client credentials client_id:client_secret, exchanged at the catalog's /v1/oauth/tokens for "
       "a bearer token"},
      {"aws.s3.endpoint", PropertyType::kString, "", 0, 0, {}, false,
       "the S3 endpoint, e.g. http://127.0.0.1:9000 (default: AWS in aws.s3.region)"},
      {"aws.s3.region", PropertyType::kString, "us-east-1", 0, 0, {}, false, "the S3 region"},
      {"aws.s3.access_key", PropertyType::kString, "", 0, 0, {}, false, "the S3 access key id"},
      {"aws.s3.secret_key", PropertyType::kString, "", 0, 0, {}, false, "the S3 secret key"},
      {"aws.s3.enable_path_style_access", PropertyType::kBool, "true", 0, 0, {}, false,
       "path-style requests (the only style Sluice's S3 client sends)"},
  };
  return kProperties;
}

Result<std::unique_ptr<ExternalCatalogStore>> ExternalCatalogStore::Open(storage::Database& db,
                                                                         const std::string& secrets_key_file) {
  ASSIGN_OR_RETURN(auto con, db.Connect());
  ASSIGN_OR_RETURN(auto secrets, SecretBox::Open(secrets_key_file));
  auto store = std::unique_ptr<ExternalCatalogStore>(new ExternalCatalogStore(std::move(con), std::move(secrets)));
  RETURN_IF_ERROR(storage::InTransaction(*store->con_, [&] {
    return store->con_->Execute(
        "CREATE SCHEMA IF NOT EXISTS __sluice;"
        "CREATE TABLE IF NOT EXISTS __sluice.external_catalogs (name VARCHAR NOT NULL, type VARCHAR NOT NULL, "
        "comment VARCHAR NOT NULL, created_at BIGINT NOT NULL);"
        "CREATE TABLE IF NOT EXISTS __sluice.external_catalog_properties (catalog VARCHAR NOT NULL, "
        "position INTEGER NOT NULL, key VARCHAR NOT NULL, value VARCHAR NOT NULL);"
        // A row once this data directory's own catalogs were offered to a cluster (AttachCluster).
        "CREATE TABLE IF NOT EXISTS __sluice.cluster_catalog_membership (joined_at BIGINT NOT NULL);");
  }));
  ASSIGN_OR_RETURN(auto names, store->Query("SELECT name FROM __sluice.external_catalogs"));
  for (const auto& row : names.result_set->rows) store->names_.insert(AsciiLower(*row[0]));
  return store;
}

Result<bool> ExternalCatalogStore::Create(const sql::CreateExternalCatalog& stmt, int64_t now_ms) {
  const std::string where = "CREATE EXTERNAL CATALOG " + stmt.name;
  if (AsciiLower(stmt.name) == kDefaultCatalog)
    return Status::InvalidArgument("default_catalog is the catalog of Sluice's own databases: choose another name");
  auto exists = [&] {
    return Status::AlreadyExists("a catalog named '" + stmt.name +
                                 "' already exists: DROP CATALOG it first or choose another name");
  };
  if (mirror_) {
    // The cluster's table decides (its primary key), whatever this node's copy says; the copy answers early.
    RefreshIfUnknown(stmt.name);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (names_.count(AsciiLower(stmt.name))) {
        if (stmt.if_not_exists) return true;
        return exists();
      }
    }
    ASSIGN_OR_RETURN(auto props, Validate(stmt));
    auto inserted =
        mirror_->store().Insert(SharedDefinition{stmt.name, "iceberg", stmt.comment, now_ms, std::move(props)});
    if (!inserted.ok()) return mirror_->Refusal(where, inserted.status());
    if (Status st = mirror_->Sync(false); !st.ok())
      log::Warn("catalog", "catalog {} is the cluster's, but this node's copy is not written yet: {}", stmt.name,
                st.message());
    if (*inserted) return false;
    if (stmt.if_not_exists) return true;
    return exists();
  }
  // An existing name is answered before the properties are looked at: IF NOT EXISTS keeps the catalog as it is,
  // whatever the statement says about it. The lock is held to the end, so two CREATEs cannot both insert.
  std::lock_guard<std::mutex> lock(mu_);
  if (names_.count(AsciiLower(stmt.name))) {
    if (stmt.if_not_exists) return true;
    return exists();
  }
  ASSIGN_OR_RETURN(auto props, Validate(stmt));
  RETURN_IF_ERROR(WriteLocalLocked(SharedDefinition{stmt.name, "iceberg", stmt.comment, now_ms, std::move(props)}, false));
  generation_++;
  return false;
}

Result<std::vector<std::pair<std::string, std::string>>> ExternalCatalogStore::Validate(
    const sql::CreateExternalCatalog& stmt) {
  const std::string where = "CREATE EXTERNAL CATALOG " + stmt.name;
  std::vector<std::pair<std::string, std::string>> props;
  for (const auto& [given_key, value] : stmt.properties) {
    std::string key = AsciiLower(given_key);
    const PropertySpec* spec = FindProperty(ExternalCatalogProperties(), key);
    if (!spec) {
      std::string known;
      for (const auto& p : ExternalCatalogProperties()) known += (known.empty() ? "" : ", ") + std::string(p.name);
      return Status::InvalidArgument(where + ": unknown property \"" + given_key + "\"; an Iceberg catalog takes " +
                                     known);
    }
    for (const auto& [k, v] : props)
      if (k == key) return Status::InvalidArgument(where + ": property \"" + key + "\" is given twice");
    ASSIGN_OR_RETURN(std::string normalized, ValidateProperty(*spec, value));
    props.emplace_back(key, std::move(normalized));
  }
  auto get = [&](const std::string& key) -> std::string {
    for (const auto& [k, v] : props)
      if (k == key) return v;
    return "";
  };
  if (get("type").empty())
    return Status::InvalidArgument(where + " needs \"type\" = \"iceberg\" (the only kind of external catalog)");
  if (get("iceberg.catalog.type").empty())
    return Status::InvalidArgument(where + " needs \"iceberg.catalog.type\" = \"jdbc\" or \"rest\"");
  const bool rest = get("iceberg.catalog.type") == "rest";
  // Each kind's own properties, refused on the other kind rather than silently ignored.
  for (const char* k : rest ? std::vector<const char*>{"iceberg.catalog.jdbc.user", "iceberg.catalog.jdbc.password",
                                                       "iceberg.catalog.name"}
                            : std::vector<const char*>{"iceberg.catalog.token", "iceberg.catalog.credential"}) {
    if (!get(k).empty())
      return Status::InvalidArgument(where + ": \"" + k + "\" is for " + (rest ? "JDBC" : "REST") +
                                     " catalogs; this one is \"iceberg.catalog.type\" = \"" +
                                     (rest ? "rest" : "jdbc") + "\"");
  }
  if (!get("iceberg.catalog.token").empty() && !get("iceberg.catalog.credential").empty())
    return Status::InvalidArgument(where + ": give \"iceberg.catalog.token\" or \"iceberg.catalog.credential\", "
                                   "not both");
  std::vector<std::string> missing;
  for (const char* k : {"iceberg.catalog.uri", "iceberg.catalog.warehouse", "aws.s3.access_key", "aws.s3.secret_key"})
    if (get(k).empty() && !(rest && std::string(k) == "iceberg.catalog.warehouse")) missing.push_back(k);
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "\"" : ", \"") + m + "\"";
    return Status::InvalidArgument(where + " is missing " + list +
                                   (rest ? ": a REST Iceberg catalog needs iceberg.catalog.uri, aws.s3.access_key and "
                                           "aws.s3.secret_key (Sluice writes the data files itself)"
                                         : ": a JDBC Iceberg catalog needs iceberg.catalog.uri, iceberg.catalog.warehouse, "
                                           "aws.s3.access_key and aws.s3.secret_key"));
  }
  const std::string warehouse = get("iceberg.catalog.warehouse");
  const size_t scheme = warehouse.rfind("s3://", 0) == 0 ? 5 : warehouse.rfind("s3a://", 0) == 0 ? 6 : 0;
  // A REST catalog's warehouse may be a name the server knows ("analytics"); a location must be an S3 one.
  const bool location_like = !rest || warehouse.find("://") != std::string::npos;
  if (location_like && (scheme == 0 || warehouse.size() == scheme || warehouse[scheme] == '/'))
    return Status::InvalidArgument(where + ": \"iceberg.catalog.warehouse\" must be an S3 location such as "
                                   "'s3://bucket/warehouse', not '" + warehouse + "'");
  if (rest) {
    const std::string uri = get("iceberg.catalog.uri");
    const bool http = uri.rfind("http://", 0) == 0;
    if ((!http && uri.rfind("https://", 0) != 0) || egress::UrlHostPort(uri, 80).host.empty())
      return Status::InvalidArgument(where + ": \"iceberg.catalog.uri\" of a REST catalog must be an http:// or "
                                     "https:// URL with a host, such as 'http://rest-catalog:8181', not '" +
                                     RedactSecrets(uri) + "'");
    RETURN_IF_ERROR(egress::CheckEgressUrl("Iceberg REST catalog", uri, http ? 80 : 443));
  }
  {
    std::string endpoint = get("aws.s3.endpoint");
    if (endpoint.empty())
      endpoint = "https://s3." + (get("aws.s3.region").empty() ? std::string("us-east-1") : get("aws.s3.region")) +
                 ".amazonaws.com";
    RETURN_IF_ERROR(egress::CheckEgressUrl("S3 endpoint", endpoint, 443));
  }
  if (get("aws.s3.enable_path_style_access") == "false")
    return Status::NotSupported(where + ": Sluice's S3 client sends path-style requests only; leave out "
                                "\"aws.s3.enable_path_style_access\" or set it to \"true\"");
  return props;
}

Status ExternalCatalogStore::WriteLocalLocked(const SharedDefinition& c, bool replace) {
  std::string sql = "BEGIN TRANSACTION;";
  if (replace)
    sql += "DELETE FROM __sluice.external_catalog_properties WHERE " + NameMatch("catalog", c.name) +
           "; DELETE FROM __sluice.external_catalogs WHERE " + NameMatch("name", c.name) + ";";
  sql += "INSERT INTO __sluice.external_catalogs VALUES (" + QuoteLiteral(c.name) + ", " + QuoteLiteral(c.type) +
         ", " + QuoteLiteral(c.comment) + ", " + std::to_string(c.created_ms) + ");";
  int position = 0;
  for (const auto& [k, v] : c.properties) {
    sql += "INSERT INTO __sluice.external_catalog_properties VALUES (" + QuoteLiteral(c.name) + ", " +
           std::to_string(position++) + ", " + QuoteLiteral(k) + ", " +
           QuoteLiteral(IsSealed(k) ? secrets_->Seal(v) : v) + ");";
  }
  sql += "COMMIT;";
  Status st = con_->Execute(sql);
  if (!st.ok()) {
    (void)con_->Execute("ROLLBACK");
    return st;
  }
  names_.insert(AsciiLower(c.name));
  return Status::Ok();
}

Status ExternalCatalogStore::DeleteLocalLocked(const std::string& name) {
  RETURN_IF_ERROR(storage::InTransaction(*con_, [&] {
    return con_->Execute("DELETE FROM __sluice.external_catalog_properties WHERE " + NameMatch("catalog", name) +
                         "; DELETE FROM __sluice.external_catalogs WHERE " + NameMatch("name", name));
  }));
  names_.erase(AsciiLower(name));
  return Status::Ok();
}

Result<std::vector<SharedDefinition>> ExternalCatalogStore::LocalCatalogsLocked() {
  ASSIGN_OR_RETURN(auto r, Query("SELECT name, type, comment, created_at FROM __sluice.external_catalogs ORDER BY name"));
  std::vector<SharedDefinition> out;
  for (const auto& row : r.result_set->rows) {
    SharedDefinition c;
    c.name = *row[0];
    c.type = row[1].value_or("iceberg");
    c.comment = row[2].value_or("");
    c.created_ms = row[3] ? std::stoll(*row[3]) : 0;
    ASSIGN_OR_RETURN(c.properties, PropertiesLocked(c.name));
    out.push_back(std::move(c));
  }
  return out;
}

ExternalCatalogStore::~ExternalCatalogStore() { mirror_.reset(); }  // its thread uses this store

ClusterDefinitionKind ExternalCatalogStore::ClusterKind() {
  return ClusterDefinitionKind{"sluice_external_catalogs", "sluice_external_catalog_state", "7305873260815044",
                               "external catalog", "external catalogs", &IsSealedCatalogProperty};
}

Status ExternalCatalogStore::AttachCluster(std::unique_ptr<ClusterDefinitionStore> cluster,
                                           std::chrono::milliseconds poll) {
  MirrorCopy copy;
  copy.own = [this] {
    std::lock_guard<std::mutex> lock(mu_);
    return LocalCatalogsLocked();
  };
  copy.published = [this]() -> Result<bool> {
    std::lock_guard<std::mutex> lock(mu_);
    ASSIGN_OR_RETURN(auto r, Query("SELECT count(*) FROM __sluice.cluster_catalog_membership"));
    return r.result_set->rows[0][0] != std::optional<std::string>("0");
  };
  copy.mark_published = [this] {
    std::lock_guard<std::mutex> lock(mu_);
    return con_->Execute("INSERT INTO __sluice.cluster_catalog_membership VALUES (epoch_ms(now()))");
  };
  copy.names = [this] {
    std::lock_guard<std::mutex> lock(mu_);
    return names_;
  };
  copy.apply = [this](const std::vector<std::string>& removed,
                      const std::vector<const SharedDefinition*>& written) -> Status {
    std::lock_guard<std::mutex> lock(mu_);
    // Raised even when a step fails halfway: what did change makes open connections stale.
    generation_++;
    for (const auto& name : removed) RETURN_IF_ERROR(DeleteLocalLocked(name));
    for (const auto* c : written) RETURN_IF_ERROR(WriteLocalLocked(*c, true));
    return Status::Ok();
  };
  mirror_ = std::make_unique<ClusterMirror>(std::move(cluster), std::move(copy), "catalog");
  // A node started later learns the cluster's catalogs before it serves anything.
  return mirror_->Start(poll);
}

Status ExternalCatalogStore::Refresh() {
  if (!mirror_) return Status::Ok();
  return mirror_->Sync(true);
}

void ExternalCatalogStore::RefreshIfUnknown(const std::string& name) {
  if (!mirror_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (names_.count(AsciiLower(name))) return;
  }
  (void)mirror_->Sync(true);
}

Status ExternalCatalogStore::Drop(const std::string& name, bool if_exists) {
  if (mirror_) {
    // The catalog's tables stay where they are: only the cluster's door to them goes, on every node.
    auto removed = mirror_->store().Remove(name);
    if (!removed.ok()) return mirror_->Refusal("DROP CATALOG " + name, removed.status());
    if (Status st = mirror_->Sync(false); !st.ok())
      log::Warn("catalog", "catalog {} was dropped from the cluster, but this node's copy is not updated yet: {}",
                name, st.message());
    if (*removed || if_exists) return Status::Ok();
    return Status::NotFound("Unknown catalog '" + name + "' (SHOW CATALOGS lists them)");
  }
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(auto r, Query("SELECT count(*) FROM __sluice.external_catalogs WHERE " +
                                       NameMatch("name", name)));
  if (r.result_set->rows[0][0] == std::optional<std::string>("0")) {
    if (if_exists) return Status::Ok();
    return Status::NotFound("Unknown catalog '" + name + "' (SHOW CATALOGS lists them)");
  }
  // The catalog's tables stay where they are (in PostgreSQL and S3): only Sluice's door to them goes.
  RETURN_IF_ERROR(DeleteLocalLocked(name));
  generation_++;
  return Status::Ok();
}

Result<std::vector<std::pair<std::string, std::string>>> ExternalCatalogStore::PropertiesLocked(
    const std::string& name) {
  ASSIGN_OR_RETURN(auto r, Query("SELECT key, value FROM __sluice.external_catalog_properties WHERE " +
                                       NameMatch("catalog", name) + " ORDER BY position"));
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& row : r.result_set->rows) {
    std::string key = *row[0];
    std::string value = *row[1];
    if (IsSealed(key)) {
      ASSIGN_OR_RETURN(value, secrets_->Unseal(value));
    }
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

Result<std::vector<ExternalCatalogInfo>> ExternalCatalogStore::List() {
  std::vector<ExternalCatalogInfo> out;
  std::vector<std::string> names;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ASSIGN_OR_RETURN(auto r, Query("SELECT name FROM __sluice.external_catalogs ORDER BY name"));
    for (const auto& row : r.result_set->rows) names.push_back(*row[0]);
  }
  for (const auto& n : names) {
    ASSIGN_OR_RETURN(auto info, Describe(n));
    out.push_back(std::move(info));
  }
  return out;
}

Result<StatementResult> ExternalCatalogStore::Query(const std::string& sql) {
  queries_sent_++;
  return con_->Query(sql);
}

bool ExternalCatalogStore::Exists(const std::string& name) {
  RefreshIfUnknown(name);
  std::lock_guard<std::mutex> lock(mu_);
  return names_.count(AsciiLower(name)) > 0;
}

Result<ExternalCatalogInfo> ExternalCatalogStore::Describe(const std::string& name) {
  RefreshIfUnknown(name);
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(auto r, Query("SELECT name, type, comment, created_at FROM __sluice.external_catalogs "
                                       "WHERE " + NameMatch("name", name)));
  if (r.result_set->rows.empty())
    return Status::NotFound("Unknown catalog '" + name + "' (SHOW CATALOGS lists them)");
  ExternalCatalogInfo info;
  const auto& row = r.result_set->rows[0];
  info.name = *row[0];
  info.type = *row[1];
  info.comment = *row[2];
  info.created_ms = row[3] ? std::stoll(*row[3]) : 0;
  ASSIGN_OR_RETURN(auto props, PropertiesLocked(info.name));
  for (auto& [k, v] : props) info.properties.emplace_back(k, Display(k, v));
  return info;
}

Result<ExternalCatalogConfig> ExternalCatalogStore::Resolve(const std::string& name) {
  RefreshIfUnknown(name);
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(auto r, Query("SELECT name FROM __sluice.external_catalogs WHERE " +
                                       NameMatch("name", name)));
  if (r.result_set->rows.empty())
    return Status::NotFound("Unknown catalog '" + name + "' (SHOW CATALOGS lists them)");
  ExternalCatalogConfig c;
  c.name = *r.result_set->rows[0][0];
  c.iceberg_name = c.name;
  ASSIGN_OR_RETURN(auto props, PropertiesLocked(c.name));
  for (const auto& [k, v] : props) {
    if (k == "iceberg.catalog.uri") c.uri = v;
    else if (k == "iceberg.catalog.warehouse") c.warehouse = v;
    else if (k == "iceberg.catalog.name") c.iceberg_name = v;
    else if (k == "iceberg.catalog.jdbc.user") c.jdbc_user = v;
    else if (k == "iceberg.catalog.jdbc.password") c.jdbc_password = v;
    else if (k == "iceberg.catalog.type") c.catalog_type = v;
    else if (k == "iceberg.catalog.token") c.token = v;
    else if (k == "iceberg.catalog.credential") c.credential = v;
    else if (k == "aws.s3.endpoint") c.s3.endpoint = v;
    else if (k == "aws.s3.region") c.s3.region = v;
    else if (k == "aws.s3.access_key") c.s3.access_id = v;
    else if (k == "aws.s3.secret_key") c.s3.access_key = v;
  }
  while (!c.warehouse.empty() && c.warehouse.back() == '/') c.warehouse.pop_back();
  if (c.s3.endpoint.empty()) c.s3.endpoint = "https://s3." + c.s3.region + ".amazonaws.com";
  return c;
}

}  // namespace sluice::catalog
