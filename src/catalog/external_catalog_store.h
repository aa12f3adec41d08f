#pragma once
// External catalogs (CREATE EXTERNAL CATALOG, StarRocks' grammar): named doors to Iceberg tables whose metadata a
// JDBC catalog in PostgreSQL or an Iceberg REST catalog keeps and whose files live in S3. Kept in __sluice.external_catalogs (one row per
// catalog) and __sluice.external_catalog_properties (one row per property, as written after validation).
//
// Secret properties (common/secret_names.h's one list: aws.s3.secret_key, aws.s3.access_key,
// iceberg.catalog.jdbc.password, iceberg.catalog.token, iceberg.catalog.credential) and the
// catalog URI (a libpq URI may carry a password) are sealed with the same
// SecretBox as storage connections' keys; they leave this class only through ExternalCatalogConfig, which is handed
// to the Iceberg layer and nothing else. What SHOW shows (ExternalCatalogInfo) has them masked.
//
// On a cluster node (AttachCluster) the definitions are the cluster's (catalog/cluster_definition_store.h): CREATE
// and DROP write PostgreSQL first, and the DuckDB tables above become this node's copy, brought in step every
// second by a ClusterMirror (catalog/cluster_mirror.h) and at once when a statement names a catalog the copy does
// not know. Reads
// (SHOW, Resolve, Exists) answer from the copy, so they go on while PostgreSQL is away; changes are refused then.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "catalog/cluster_definition_store.h"
#include "catalog/cluster_mirror.h"
#include "catalog/property_table.h"
#include "catalog/secret_box.h"
#include "common/status.h"
#include "source/volume.h"
#include "sql/ast.h"
#include "storage/database.h"

namespace sluice::catalog {

// The properties of an Iceberg catalog, in the order SHOW CREATE CATALOG prints them.
const std::vector<PropertySpec>& ExternalCatalogProperties();

// Whether a catalog property is kept sealed: the secret names, and the URI (a libpq URI may carry a password).
bool IsSealedCatalogProperty(const std::string& key);

// What may be shown: secrets masked, the URI's credentials masked.
struct ExternalCatalogInfo {
  std::string name;
  std::string type;  // "iceberg"
  std::string comment;
  std::vector<std::pair<std::string, std::string>> properties;
  int64_t created_ms = 0;
};

// What the Iceberg layer needs to reach the catalog's tables.
struct ExternalCatalogConfig {
  std::string name;           // Sluice's name (lake in lake.db.t)
  std::string iceberg_name;   // the JDBC catalog's catalog_name column (iceberg.catalog.name, default: name)
  std::string uri;            // libpq connection string / postgresql:// / jdbc:postgresql://
  std::string jdbc_user;
  std::string jdbc_password;
  std::string warehouse;      // s3://bucket/path, no trailing '/' (rest: may be empty, or a name the server knows)
  std::string catalog_type = "jdbc";  // "jdbc" or "rest"
  std::string token;          // rest: the bearer token, "" for none
  std::string credential;     // rest: OAuth2 client credentials "id:secret", "" for none
  source::S3Credentials s3;
};

class ExternalCatalogStore {
 public:
  // `secrets_key_file`: the same key file as storage connections' (SecretBox::Open).
  static Result<std::unique_ptr<ExternalCatalogStore>> Open(storage::Database& db,
                                                            const std::string& secrets_key_file);
  ~ExternalCatalogStore();

  // Makes the catalogs the cluster's (docs/cluster.md "External catalogs"). The first time this data directory
  // joins a cluster, its own catalogs are published, except those whose names the cluster already has (the
  // cluster's definition replaces this node's, with a warning in the log); from then on the cluster's
  // definitions are the truth and this node's copy follows them. Never fails on an unreachable PostgreSQL: the
  // poll thread keeps trying.
  Status AttachCluster(std::unique_ptr<ClusterDefinitionStore> cluster, std::chrono::milliseconds poll);
  bool clustered() const { return mirror_ != nullptr; }
  // Where the cluster keeps external catalogs (sluice_external_catalogs), the URI and secrets sealed.
  static ClusterDefinitionKind ClusterKind();
  // Brings this node's copy in step with the cluster's definitions (one version read when nothing changed). On a
  // node of its own, nothing. After a failure, on-demand calls are skipped for a second, so statements naming
  // unknown catalogs do not each wait for an unreachable PostgreSQL.
  Status Refresh();
  // Raised by every change of any catalog (here or, on a cluster, seen from another node): open connections made
  // before it are stale.
  uint64_t generation() const { return generation_.load(); }

  // Validates the properties (required keys, known keys, values, each catalog kind's own keys).
  // true when a catalog of that name existed and IF NOT EXISTS was given (nothing validated, nothing changed).
  Result<bool> Create(const sql::CreateExternalCatalog& stmt, int64_t now_ms);
  Status Drop(const std::string& name, bool if_exists);
  Result<std::vector<ExternalCatalogInfo>> List();
  // UnknownCatalog-style NotFound naming SHOW CATALOGS when there is none.
  Result<ExternalCatalogInfo> Describe(const std::string& name);
  Result<ExternalCatalogConfig> Resolve(const std::string& name);
  // Whether `name` is an external catalog, answered from memory: every statement with a three-part name asks,
  // so the names are read once at Open and kept current by Create and Drop (the only writers of the table).
  bool Exists(const std::string& name);
  // How many reads the store has sent to DuckDB (Exists sends none).
  uint64_t queries_sent() const { return queries_sent_.load(); }

 private:
  ExternalCatalogStore(std::unique_ptr<storage::Connection> con, std::unique_ptr<SecretBox> secrets)
      : con_(std::move(con)), secrets_(std::move(secrets)) {}
  // The checked properties of a CREATE, in order (normalized values).
  Result<std::vector<std::pair<std::string, std::string>>> Validate(const sql::CreateExternalCatalog& stmt);
  Result<std::vector<std::pair<std::string, std::string>>> PropertiesLocked(const std::string& name);
  // This node's copy: one catalog written (sealed under the node's key) or removed, in one DuckDB transaction.
  Status WriteLocalLocked(const SharedDefinition& c, bool replace);
  Status DeleteLocalLocked(const std::string& name);
  Result<std::vector<SharedDefinition>> LocalCatalogsLocked();
  void RefreshIfUnknown(const std::string& name);
  Result<StatementResult> Query(const std::string& sql);  // counted in queries_sent_
  std::mutex mu_;
  std::set<std::string> names_;  // lower case; guarded by mu_
  std::atomic<uint64_t> queries_sent_{0};
  std::unique_ptr<storage::Connection> con_;
  std::unique_ptr<SecretBox> secrets_;
  std::atomic<uint64_t> generation_{0};

  // Cluster (AttachCluster); null on a node of its own. Its thread calls back into this store: reset first.
  std::unique_ptr<ClusterMirror> mirror_;
};

// "default_catalog", the catalog of Sluice's own databases (StarRocks' name for its internal catalog).
inline constexpr const char* kDefaultCatalog = "default_catalog";

}  // namespace sluice::catalog
