#include "catalog/cluster_catalog_store.h"

#include <nlohmann/json.hpp>

#include "catalog/external_catalog_store.h"
#include "common/ascii.h"

#include "cluster/cluster_schema.h"

namespace sluice::catalog {

namespace {

// Advisory lock key shared by every node while the tables are created (the routine loads' are ...42 and ...43).
constexpr const char* kSchemaLockKey = "7305873260815044";

}  // namespace

std::string SharedCatalog::Fingerprint() const {
  nlohmann::json j = {{"name", name}, {"type", type}, {"comment", comment}, {"created", created_ms}};
  j["properties"] = properties;
  return j.dump();
}

Result<std::unique_ptr<ClusterCatalogStore>> ClusterCatalogStore::Open(std::string uri,
                                                                       const std::string& secrets_key_file) {
  RETURN_IF_ERROR(cluster::PgClient::CheckUri(uri));
  ASSIGN_OR_RETURN(auto secrets, SecretBox::Open(secrets_key_file));
  return std::unique_ptr<ClusterCatalogStore>(new ClusterCatalogStore(std::move(uri), std::move(secrets)));
}

Result<cluster::PgClient*> ClusterCatalogStore::ConnectedLocked() {
  if (!pg_) {
    ASSIGN_OR_RETURN(pg_, cluster::PgClient::Connect(uri_));
  }
  if (!tables_ready_) {
    RETURN_IF_ERROR(cluster::CreateTablesUnderLock(
        *pg_, kSchemaLockKey,
        {
            std::string("CREATE TABLE IF NOT EXISTS sluice_external_catalogs (name_key TEXT PRIMARY KEY, name TEXT NOT "
                        "NULL, type TEXT NOT NULL, comment TEXT NOT NULL, created_at BIGINT NOT NULL, properties TEXT "
                        "NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now())"),
            std::string("CREATE TABLE IF NOT EXISTS sluice_external_catalog_state (id INTEGER PRIMARY KEY CHECK (id = "
                        "1), version BIGINT NOT NULL)"),
            std::string("INSERT INTO sluice_external_catalog_state VALUES (1, 0) ON CONFLICT DO NOTHING"),
        }));
    tables_ready_ = true;
  }
  return pg_.get();
}

std::string ClusterCatalogStore::SealProperties(const SharedCatalog& catalog) const {
  nlohmann::json props = nlohmann::json::array();
  for (const auto& [k, v] : catalog.properties)
    props.push_back({k, IsSealedCatalogProperty(k) ? secrets_->Seal(v) : v});
  return props.dump();
}

Result<int64_t> ClusterCatalogStore::Version() {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(cluster::PgClient * pg, ConnectedLocked());
  ASSIGN_OR_RETURN(auto r, pg->Exec("SELECT version FROM sluice_external_catalog_state WHERE id = 1"));
  if (r.rows.empty() || !r.rows[0][0]) return int64_t{0};
  return std::stoll(*r.rows[0][0]);
}

Result<SharedCatalogs> ClusterCatalogStore::List() {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(cluster::PgClient * pg, ConnectedLocked());
  ASSIGN_OR_RETURN(auto r, pg->Exec("SELECT s.version, c.name, c.type, c.comment, c.created_at, c.properties FROM "
                                    "sluice_external_catalog_state s LEFT JOIN sluice_external_catalogs c ON true "
                                    "WHERE s.id = 1 ORDER BY c.name_key"));
  SharedCatalogs out;
  for (const auto& row : r.rows) {
    out.version = row[0] ? std::stoll(*row[0]) : 0;
    if (!row[1]) continue;  // no catalog: the state row alone
    SharedCatalog c;
    c.name = *row[1];
    c.type = row[2].value_or("iceberg");
    c.comment = row[3].value_or("");
    c.created_ms = row[4] ? std::stoll(*row[4]) : 0;
    try {
      for (const auto& kv : nlohmann::json::parse(row[5].value_or("[]"))) {
        std::string key = kv.at(0).get<std::string>();
        std::string value = kv.at(1).get<std::string>();
        if (IsSealedCatalogProperty(key)) {
          auto clear = secrets_->Unseal(value);
          if (!clear.ok())
            return Status::Internal("the cluster's external catalog '" + c.name + "' cannot be read: " +
                                    clear.status().message() + " (every node needs the same --cluster-key-file)");
          value = std::move(*clear);
        }
        c.properties.emplace_back(std::move(key), std::move(value));
      }
    } catch (const std::exception& e) {
      return Status::Internal("the cluster's external catalog '" + c.name + "' has unreadable properties: " +
                              e.what());
    }
    out.catalogs.push_back(std::move(c));
  }
  return out;
}

Result<bool> ClusterCatalogStore::InsertLocked(cluster::PgClient& pg, const SharedCatalog& c) {
  ASSIGN_OR_RETURN(auto r, pg.Exec("INSERT INTO sluice_external_catalogs (name_key, name, type, comment, created_at, "
                                   "properties) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
                                   {AsciiLower(c.name), c.name, c.type, c.comment, std::to_string(c.created_ms),
                                    SealProperties(c)}));
  return r.affected == 1;
}

Result<bool> ClusterCatalogStore::Insert(const SharedCatalog& catalog) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(cluster::PgClient * pg, ConnectedLocked());
  bool inserted = false;
  RETURN_IF_ERROR(cluster::InTransaction(*pg, [&]() -> Status {
    ASSIGN_OR_RETURN(inserted, InsertLocked(*pg, catalog));
    if (!inserted) return Status::Ok();
    return pg->Exec("UPDATE sluice_external_catalog_state SET version = version + 1 WHERE id = 1").status();
  }));
  return inserted;
}

Result<bool> ClusterCatalogStore::Remove(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(cluster::PgClient * pg, ConnectedLocked());
  bool removed = false;
  RETURN_IF_ERROR(cluster::InTransaction(*pg, [&]() -> Status {
    ASSIGN_OR_RETURN(auto r, pg->Exec("DELETE FROM sluice_external_catalogs WHERE name_key = $1", {AsciiLower(name)}));
    removed = r.affected > 0;
    if (!removed) return Status::Ok();
    return pg->Exec("UPDATE sluice_external_catalog_state SET version = version + 1 WHERE id = 1").status();
  }));
  return removed;
}

Result<std::vector<std::string>> ClusterCatalogStore::Publish(const std::vector<SharedCatalog>& mine) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(cluster::PgClient * pg, ConnectedLocked());
  std::vector<std::string> taken;
  RETURN_IF_ERROR(cluster::InTransaction(*pg, [&]() -> Status {
    bool any = false;
    for (const auto& c : mine) {
      ASSIGN_OR_RETURN(bool inserted, InsertLocked(*pg, c));
      if (inserted) any = true;
      else taken.push_back(c.name);
    }
    if (!any) return Status::Ok();
    return pg->Exec("UPDATE sluice_external_catalog_state SET version = version + 1 WHERE id = 1").status();
  }));
  return taken;
}

}  // namespace sluice::catalog
