#pragma once
// ClusterDefinitionStore: named definitions a cluster node (`sluice serve --cluster URI`) shares with every other
// node through the cluster's PostgreSQL database (docs/cluster.md): external catalogs, storage connections,
// external volumes and virtual clusters. One table per kind, all of the same shape, and a change counter:
//
//   <table>       (name_key PRIMARY KEY (lower case), name, type, comment, created_at, properties, updated_at)
//   <state_table> (id 1 PRIMARY KEY, version BIGINT): raised by every change, polled by every node
//
// `properties` is a JSON array of [key, value] in the kind's own order, with the kind's secret properties sealed
// under --cluster-key-file (SecretBox, exactly as the cluster's routine loads seal theirs): the same file must be on
// every node. Values leave this class unsealed only towards the store that keeps the node's copy in its DuckDB file
// (sealed again under the node's own key), through ClusterMirror.
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

// One definition as the cluster keeps it; property values in clear (in memory only).
struct SharedDefinition {
  std::string name;
  std::string type;  // the kind's own: "iceberg" (a catalog), "S3" (a connection), "volume", "vcluster"
  std::string comment;
  int64_t created_ms = 0;
  std::vector<std::pair<std::string, std::string>> properties;
  // Everything above, for telling whether a node's copy is current.
  std::string Fingerprint() const;
  // The value of `key`, "" when absent.
  std::string Property(const std::string& key) const;
};

struct SharedDefinitions {
  int64_t version = 0;  // 0: nothing was ever published
  std::vector<SharedDefinition> items;
};

// What one kind of definition is called and where it lives.
struct ClusterDefinitionKind {
  std::string table;        // sluice_external_catalogs
  std::string state_table;  // sluice_external_catalog_state
  std::string lock_key;     // the advisory lock held while the tables are created (one per kind)
  std::string noun;         // "external catalog", for messages
  std::string nouns;        // "external catalogs"
  bool (*sealed)(const std::string& key) = nullptr;  // the properties kept sealed in PostgreSQL
};

class ClusterDefinitionStore {
 public:
  // Connects lazily: an unreachable PostgreSQL fails the calls (Unavailable), never the server's start.
  static Result<std::unique_ptr<ClusterDefinitionStore>> Open(ClusterDefinitionKind kind, std::string uri,
                                                              const std::string& secrets_key_file);

  // The change counter alone: what a node polls every second.
  Result<int64_t> Version();
  // Every definition, and the version they are at (one statement: one snapshot).
  Result<SharedDefinitions> List();
  // false when the name (case-insensitively) is taken.
  Result<bool> Insert(const SharedDefinition& item);
  // Sets `changed` properties of the definition of that name (case-insensitively), keeping its other properties
  // (sealed ones as they are sealed), its name and its creation time; one transaction holding its row, so two nodes
  // changing different properties at once both take. false when there is no such definition.
  Result<bool> Update(const std::string& name, const std::vector<std::pair<std::string, std::string>>& changed);
  // false when there was no such definition.
  Result<bool> Remove(const std::string& name);
  // Inserts those of `mine` whose names the cluster does not have; returns the names it already had.
  Result<std::vector<std::string>> Publish(const std::vector<SharedDefinition>& mine);
  // host:port/db, for messages (never the user or password).
  std::string Where() const { return cluster::PgClient::Describe(uri_); }
  const ClusterDefinitionKind& kind() const { return kind_; }

 private:
  ClusterDefinitionStore(ClusterDefinitionKind kind, std::string uri, std::unique_ptr<SecretBox> secrets)
      : kind_(std::move(kind)), uri_(std::move(uri)), secrets_(std::move(secrets)) {}
  Result<cluster::PgClient*> ConnectedLocked();
  Result<bool> InsertLocked(cluster::PgClient& pg, const SharedDefinition& item);
  Status RaiseVersionLocked(cluster::PgClient& pg);
  std::string SealProperties(const SharedDefinition& item) const;
  bool Sealed(const std::string& key) const { return kind_.sealed && kind_.sealed(key); }
  const ClusterDefinitionKind kind_;
  const std::string uri_;
  const std::unique_ptr<SecretBox> secrets_;
  std::mutex mu_;  // guards the connection below: one statement at a time
  std::unique_ptr<cluster::PgClient> pg_;
  bool tables_ready_ = false;
};

}  // namespace sluice::catalog
