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
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "catalog/property_table.h"
#include "catalog/secret_box.h"
#include "common/status.h"
#include "source/volume.h"
#include "sql/ast.h"
#include "storage/database.h"

namespace sluice::catalog {

// The properties of an Iceberg catalog, in the order SHOW CREATE CATALOG prints them.
const std::vector<PropertySpec>& ExternalCatalogProperties();

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
  Result<std::vector<std::pair<std::string, std::string>>> PropertiesLocked(const std::string& name);
  Result<StatementResult> Query(const std::string& sql);  // counted in queries_sent_
  std::mutex mu_;
  std::set<std::string> names_;  // lower case; guarded by mu_
  std::atomic<uint64_t> queries_sent_{0};
  std::unique_ptr<storage::Connection> con_;
  std::unique_ptr<SecretBox> secrets_;
};

// "default_catalog", the catalog of Sluice's own databases (StarRocks' name for its internal catalog).
inline constexpr const char* kDefaultCatalog = "default_catalog";

}  // namespace sluice::catalog
