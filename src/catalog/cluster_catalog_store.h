#pragma once
// ClusterCatalogStore: external catalog definitions on a cluster node (`sluice serve --cluster URI`), kept in the
// cluster's PostgreSQL database so that every node sees the same catalogs (docs/cluster.md):
//
//   sluice_external_catalogs      (name_key PRIMARY KEY (lower case), name, type, comment, created_at, properties)
//   sluice_external_catalog_state (id 1 PRIMARY KEY, version BIGINT): raised by every change, polled by every node
//
// `properties` is a JSON array of [key, value] in SHOW CREATE CATALOG's order, with the secret properties and the
// catalog URI sealed under --cluster-key-file exactly as the cluster's routine loads seal theirs (SecretBox): the
// same file must be on every node. Values leave this class unsealed only towards ExternalCatalogStore, which keeps
// each node's copy in its DuckDB file (sealed again under the node's own key).
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "catalog/secret_box.h"
#include "cluster/pg_client.h"
#include "common/status.h"

namespace sluice::catalog {

// One catalog as the cluster keeps it; property values in clear (in memory only).
struct SharedCatalog {
  std::string name;
  std::string type;  // "iceberg"
  std::string comment;
  int64_t created_ms = 0;
  std::vector<std::pair<std::string, std::string>> properties;
  // Everything above, for telling whether a node's copy is current.
  std::string Fingerprint() const;
};

struct SharedCatalogs {
  int64_t version = 0;  // 0: no catalog was ever published
  std::vector<SharedCatalog> catalogs;
};

class ClusterCatalogStore {
 public:
  // Connects lazily: an unreachable PostgreSQL fails the calls (Unavailable), never the server's start.
  static Result<std::unique_ptr<ClusterCatalogStore>> Open(std::string uri, const std::string& secrets_key_file);

  // The change counter alone: what a node polls every second.
  Result<int64_t> Version();
  // Every catalog, and the version they are at (one statement: one snapshot).
  Result<SharedCatalogs> List();
  // false when the name (case-insensitively) is taken.
  Result<bool> Insert(const SharedCatalog& catalog);
  // false when there was no such catalog.
  Result<bool> Remove(const std::string& name);
  // Inserts those of `mine` whose names the cluster does not have; returns the names it already had.
  Result<std::vector<std::string>> Publish(const std::vector<SharedCatalog>& mine);
  // host:port/db, for messages (never the user or password).
  std::string Where() const { return cluster::PgClient::Describe(uri_); }

 private:
  ClusterCatalogStore(std::string uri, std::unique_ptr<SecretBox> secrets)
      : uri_(std::move(uri)), secrets_(std::move(secrets)) {}
  Result<cluster::PgClient*> ConnectedLocked();
  Result<bool> InsertLocked(cluster::PgClient& pg, const SharedCatalog& catalog);
  std::string SealProperties(const SharedCatalog& catalog) const;
  std::mutex mu_;
  std::string uri_;
  std::unique_ptr<SecretBox> secrets_;
  std::unique_ptr<cluster::PgClient> pg_;
  bool tables_ready_ = false;
};

}  // namespace sluice::catalog
