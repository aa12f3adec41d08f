#include "catalog/cluster_definition_store.h"

#include <nlohmann/json.hpp>

#include "common/ascii.h"

#include "cluster/cluster_schema.h"

namespace sluice::catalog {

std::string SharedDefinition::Fingerprint() const {
  nlohmann::json j = {{"name", name}, {"type", type}, {"comment", comment}, {"created", created_ms}};
  j["properties"] = properties;
  return j.dump();
}

std::string SharedDefinition::Property(const std::string& key) const {
  for (const auto& [k, v] : properties)
    if (k == key) return v;
  return "";
}

Result<std::unique_ptr<ClusterDefinitionStore>> ClusterDefinitionStore::Open(ClusterDefinitionKind kind,
                                                                             std::string uri,
                                                                             const std::string& secrets_key_file) {
  RETURN_IF_ERROR(cluster::PgClient::CheckUri(uri));
  ASSIGN_OR_RETURN(auto secrets, SecretBox::Open(secrets_key_file));
  return std::unique_ptr<ClusterDefinitionStore>(
      new ClusterDefinitionStore(std::move(kind), std::move(uri), std::move(secrets)));
}

Result<cluster::PgClient*> ClusterDefinitionStore::ConnectedLocked() {
  if (!pg_) {
    ASSIGN_OR_RETURN(pg_, cluster::PgClient::Connect(uri_));
  }
  if (!tables_ready_) {
    RETURN_IF_ERROR(cluster::CreateTablesUnderLock(
        *pg_, kind_.lock_key,
        {
            "CREATE TABLE IF NOT EXISTS " + kind_.table + " (name_key TEXT PRIMARY KEY, name TEXT NOT NULL, type TEXT "
            "NOT NULL, comment TEXT NOT NULL, created_at BIGINT NOT NULL, properties TEXT NOT NULL, updated_at "
            "TIMESTAMPTZ NOT NULL DEFAULT now())",
            "CREATE TABLE IF NOT EXISTS " + kind_.state_table + " (id INTEGER PRIMARY KEY CHECK (id = 1), version "
            "BIGINT NOT NULL)",
            "INSERT INTO " + kind_.state_table + " VALUES (1, 0) ON CONFLICT DO NOTHING",
        }));
    tables_ready_ = true;
  }
  return pg_.get();
}

std::string ClusterDefinitionStore::SealProperties(const SharedDefinition& item) const {
  nlohmann::json props = nlohmann::json::array();
  for (const auto& [k, v] : item.properties) props.push_back({k, Sealed(k) ? secrets_->Seal(v) : v});
  return props.dump();
}

Result<int64_t> ClusterDefinitionStore::Version() {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(cluster::PgClient * pg, ConnectedLocked());
  ASSIGN_OR_RETURN(auto r, pg->Exec("SELECT version FROM " + kind_.state_table + " WHERE id = 1"));
  if (r.rows.empty() || !r.rows[0][0]) return int64_t{0};
  return std::stoll(*r.rows[0][0]);
}

Result<SharedDefinitions> ClusterDefinitionStore::List() {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(cluster::PgClient * pg, ConnectedLocked());
  ASSIGN_OR_RETURN(auto r, pg->Exec("SELECT s.version, c.name, c.type, c.comment, c.created_at, c.properties FROM " +
                                    kind_.state_table + " s LEFT JOIN " + kind_.table +
                                    " c ON true WHERE s.id = 1 ORDER BY c.name_key"));
  SharedDefinitions out;
  for (const auto& row : r.rows) {
    out.version = row[0] ? std::stoll(*row[0]) : 0;
    if (!row[1]) continue;  // none: the state row alone
    SharedDefinition c;
    c.name = *row[1];
    c.type = row[2].value_or("");
    c.comment = row[3].value_or("");
    c.created_ms = row[4] ? std::stoll(*row[4]) : 0;
    try {
      for (const auto& kv : nlohmann::json::parse(row[5].value_or("[]"))) {
        std::string key = kv.at(0).get<std::string>();
        std::string value = kv.at(1).get<std::string>();
        if (Sealed(key)) {
          auto clear = secrets_->Unseal(value);
          if (!clear.ok())
            return Status::Internal("the cluster's " + kind_.noun + " '" + c.name + "' cannot be read: " +
                                    clear.status().message() + " (every node needs the same --cluster-key-file)");
          value = std::move(*clear);
        }
        c.properties.emplace_back(std::move(key), std::move(value));
      }
    } catch (const std::exception& e) {
      return Status::Internal("the cluster's " + kind_.noun + " '" + c.name + "' has unreadable properties: " +
                              e.what());
    }
    out.items.push_back(std::move(c));
  }
  return out;
}

Result<bool> ClusterDefinitionStore::InsertLocked(cluster::PgClient& pg, const SharedDefinition& c) {
  ASSIGN_OR_RETURN(auto r, pg.Exec("INSERT INTO " + kind_.table + " (name_key, name, type, comment, created_at, "
                                   "properties) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
                                   {AsciiLower(c.name), c.name, c.type, c.comment, std::to_string(c.created_ms),
                                    SealProperties(c)}));
  return r.affected == 1;
}

Status ClusterDefinitionStore::RaiseVersionLocked(cluster::PgClient& pg) {
  return pg.Exec("UPDATE " + kind_.state_table + " SET version = version + 1 WHERE id = 1").status();
}

Result<bool> ClusterDefinitionStore::Insert(const SharedDefinition& item) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(cluster::PgClient * pg, ConnectedLocked());
  bool inserted = false;
  RETURN_IF_ERROR(cluster::InTransaction(*pg, [&]() -> Status {
    ASSIGN_OR_RETURN(inserted, InsertLocked(*pg, item));
    if (!inserted) return Status::Ok();
    return RaiseVersionLocked(*pg);
  }));
  return inserted;
}

Result<bool> ClusterDefinitionStore::Update(const std::string& name,
                                           const std::vector<std::pair<std::string, std::string>>& changed) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(cluster::PgClient * pg, ConnectedLocked());
  bool updated = false;
  RETURN_IF_ERROR(cluster::InTransaction(*pg, [&]() -> Status {
    ASSIGN_OR_RETURN(auto r, pg->Exec("SELECT properties FROM " + kind_.table + " WHERE name_key = $1 FOR UPDATE",
                                      {AsciiLower(name)}));
    if (r.rows.empty()) return Status::Ok();
    // Kept as stored: a sealed value is neither unsealed nor sealed again unless it changes.
    nlohmann::json props;
    try {
      props = nlohmann::json::parse(r.rows[0][0].value_or("[]"));
    } catch (const std::exception& e) {
      return Status::Internal("the cluster's " + kind_.noun + " '" + name + "' has unreadable properties: " +
                              e.what());
    }
    if (!props.is_array()) props = nlohmann::json::array();
    for (const auto& [key, value] : changed) {
      const std::string stored = Sealed(key) ? secrets_->Seal(value) : value;
      bool found = false;
      for (auto& kv : props) {
        if (kv.is_array() && kv.size() == 2 && kv[0] == key) {
          kv[1] = stored;
          found = true;
        }
      }
      if (!found) props.push_back({key, stored});
    }
    ASSIGN_OR_RETURN(auto u, pg->Exec("UPDATE " + kind_.table + " SET properties = $2, updated_at = now() WHERE "
                                      "name_key = $1",
                                      {AsciiLower(name), props.dump()}));
    updated = u.affected == 1;
    if (!updated) return Status::Ok();
    return RaiseVersionLocked(*pg);
  }));
  return updated;
}

Result<bool> ClusterDefinitionStore::Remove(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(cluster::PgClient * pg, ConnectedLocked());
  bool removed = false;
  RETURN_IF_ERROR(cluster::InTransaction(*pg, [&]() -> Status {
    ASSIGN_OR_RETURN(auto r, pg->Exec("DELETE FROM " + kind_.table + " WHERE name_key = $1", {AsciiLower(name)}));
    removed = r.affected > 0;
    if (!removed) return Status::Ok();
    return RaiseVersionLocked(*pg);
  }));
  return removed;
}

Result<std::vector<std::string>> ClusterDefinitionStore::Publish(const std::vector<SharedDefinition>& mine) {
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
    return RaiseVersionLocked(*pg);
  }));
  return taken;
}

}  // namespace sluice::catalog
