#include "catalog/volume_store.h"

#include <algorithm>

#include "common/egress_policy.h"
#include "common/log.h"
#include "common/ascii.h"
#include "sql/parser.h"

namespace sluice::catalog {

namespace {

using sql::QuoteLiteral;

std::string NameMatch(const std::string& name) { return "lower(name) = lower(" + QuoteLiteral(name) + ")"; }

int64_t Int(const std::optional<std::string>& v) { return v ? std::stoll(*v) : 0; }

}  // namespace

std::string MaskAccessId(const std::string& access_id) {
  if (access_id.size() < 16) return "******";
  return access_id.substr(0, 4) + std::string(access_id.size() - 4, '*');
}

Result<std::unique_ptr<VolumeStore>> VolumeStore::Open(storage::Database& db, const std::string& secrets_key_file) {
  ASSIGN_OR_RETURN(auto con, db.Connect());
  ASSIGN_OR_RETURN(auto secrets, SecretBox::Open(secrets_key_file));
  auto store = std::unique_ptr<VolumeStore>(new VolumeStore(std::move(con), std::move(secrets)));
  RETURN_IF_ERROR(storage::InTransaction(*store->con_, [&] {
    return store->con_->Execute(
        "CREATE SCHEMA IF NOT EXISTS __sluice;"
        "CREATE TABLE IF NOT EXISTS __sluice.storage_connections (name VARCHAR NOT NULL, type VARCHAR NOT NULL, "
        "endpoint VARCHAR NOT NULL, region VARCHAR NOT NULL, access_id VARCHAR NOT NULL, access_key VARCHAR NOT NULL, "
        "comment VARCHAR NOT NULL, created_at BIGINT NOT NULL);"
        "CREATE TABLE IF NOT EXISTS __sluice.volumes (name VARCHAR NOT NULL, location VARCHAR NOT NULL, "
        "connection VARCHAR NOT NULL, recursive BOOLEAN NOT NULL, comment VARCHAR NOT NULL, "
        "created_at BIGINT NOT NULL);"
        "CREATE TABLE IF NOT EXISTS __sluice.volume_loads (file_url VARCHAR NOT NULL, target VARCHAR NOT NULL, "
        "size BIGINT NOT NULL, last_modified BIGINT NOT NULL, etag VARCHAR NOT NULL, rows_loaded BIGINT NOT NULL, "
        "error_rows BIGINT NOT NULL, first_error VARCHAR NOT NULL, status VARCHAR NOT NULL, "
        "loaded_at BIGINT NOT NULL);"
        "CREATE TABLE IF NOT EXISTS __sluice.volume_rejected_rows (target VARCHAR NOT NULL, file_url VARCHAR NOT NULL, "
        "line BIGINT NOT NULL, column_name VARCHAR NOT NULL, reason VARCHAR NOT NULL, raw VARCHAR NOT NULL, "
        "created_at TIMESTAMP NOT NULL);"
        // A row per kind ('connections', 'volumes') once this data directory's own were offered to a cluster.
        "CREATE TABLE IF NOT EXISTS __sluice.cluster_volume_membership (kind VARCHAR NOT NULL, "
        "joined_at BIGINT NOT NULL);");
  }));
  RETURN_IF_ERROR(store->MigrateRejectedRowsTime());
  return store;
}

Status VolumeStore::MigrateRejectedRowsTime() {
  // Catalogs written before created_at was a TIMESTAMP kept epoch milliseconds in a BIGINT; users read this table
  // directly, so it is converted in place (UTC, like every time column Sluice shows).
  ASSIGN_OR_RETURN(auto type, con_->Query("SELECT data_type FROM information_schema.columns WHERE table_schema = "
                                          "'__sluice' AND table_name = 'volume_rejected_rows' AND column_name = "
                                          "'created_at'"));
  if (!type.result_set || type.result_set->rows.empty() || type.result_set->rows[0][0] != std::optional<std::string>("BIGINT"))
    return Status::Ok();
  return storage::InTransaction(*con_, [&] {
    return con_->Execute("ALTER TABLE __sluice.volume_rejected_rows ALTER COLUMN created_at SET DATA TYPE TIMESTAMP "
                         "USING make_timestamp(created_at * 1000)");
  });
}

Result<bool> VolumeStore::ExistsLocked(const char* table, const std::string& name) {
  ASSIGN_OR_RETURN(auto r, con_->Query(std::string("SELECT count(*) FROM __sluice.") + table + " WHERE " +
                                       NameMatch(name)));
  return r.result_set->rows[0][0] != std::optional<std::string>("0");
}

Status VolumeStore::CreateConnection(const sql::CreateStorageConnection& stmt, int64_t now_ms) {
  std::string type, endpoint, region = "us-east-1", access_id, access_key, comment;
  bool have_id = false, have_key = false;
  for (const auto& [key, value] : stmt.settings) {
    if (key == "TYPE") type = AsciiUpper(value);
    else if (key == "ENDPOINT") endpoint = value;
    else if (key == "REGION") region = value;
    else if (key == "ACCESS_ID") { access_id = value; have_id = true; }
    else if (key == "ACCESS_KEY") { access_key = value; have_key = true; }
    else if (key == "COMMENT") comment = value;
  }
  if (type.empty()) return Status::InvalidArgument("CREATE STORAGE CONNECTION " + stmt.name + " needs TYPE S3");
  if (type != "S3")
    return Status::NotSupported("storage connection TYPE " + type + " is not supported: use TYPE S3 (also for "
                                "S3-compatible services such as MinIO, OSS and COS)");
  std::vector<std::string> missing;
  if (endpoint.empty()) missing.push_back("ENDPOINT");
  if (!have_id || access_id.empty()) missing.push_back("ACCESS_ID");
  if (!have_key || access_key.empty()) missing.push_back("ACCESS_KEY");
  if (!missing.empty()) {
    std::string list;
    for (size_t i = 0; i < missing.size(); i++) list += (i ? ", " : "") + missing[i];
    return Status::InvalidArgument("CREATE STORAGE CONNECTION " + stmt.name + " is missing " + list +
                                   ": an S3 connection needs ENDPOINT, ACCESS_ID and ACCESS_KEY");
  }
  if (region.empty()) return Status::InvalidArgument("REGION may not be empty: leave it out for us-east-1");
  RETURN_IF_ERROR(egress::CheckEgressUrl("S3 endpoint", endpoint, 443));
  const SharedDefinition c{stmt.name, type, comment, now_ms,
                           {{"endpoint", endpoint}, {"region", region}, {"access_id", access_id},
                            {"access_key", access_key}}};
  auto exists = [&] {
    return Status::AlreadyExists("a storage connection named '" + stmt.name +
                                 "' already exists: DROP CONNECTION it first or choose another name");
  };
  if (connections_mirror_)
    return CreateShared(*connections_mirror_, "storage_connections", c, stmt.if_not_exists,
                        "CREATE STORAGE CONNECTION " + stmt.name, exists);
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(bool found, ExistsLocked("storage_connections", stmt.name));
  if (found) return stmt.if_not_exists ? Status::Ok() : exists();
  return WriteConnectionLocked(c);
}

Status VolumeStore::CreateVolume(const sql::CreateVolume& stmt, int64_t now_ms) {
  ASSIGN_OR_RETURN(source::VolumeLocation loc, source::ParseVolumeLocation(stmt.location));
  std::string connection;
  if (loc.scheme == source::VolumeLocation::Scheme::kS3) {
    if (stmt.connection.empty())
      return Status::InvalidArgument("the S3 volume " + stmt.name +
                                     " needs USING CONNECTION <name> (see CREATE STORAGE CONNECTION)");
    SyncShared();  // a connection created on another node a moment ago
    std::lock_guard<std::mutex> lock(mu_);
    ASSIGN_OR_RETURN(auto r, con_->Query("SELECT name FROM __sluice.storage_connections WHERE " +
                                         NameMatch(stmt.connection)));
    if (r.result_set->rows.empty())
      return Status::NotFound("storage connection '" + stmt.connection +
                              "' does not exist: create it with CREATE STORAGE CONNECTION (SHOW CONNECTIONS lists "
                              "them)");
    connection = *r.result_set->rows[0][0];
  } else if (!stmt.connection.empty()) {
    return Status::InvalidArgument("the folder volume " + stmt.name +
                                   " takes no connection: leave out USING CONNECTION for 'file://' locations");
  }
  const SharedDefinition v{stmt.name, "volume", stmt.comment, now_ms,
                           {{"location", loc.url}, {"connection", connection},
                            {"recursive", stmt.recursive.value_or(false) ? "true" : "false"}}};
  auto exists = [&] {
    return Status::AlreadyExists("a volume named '" + stmt.name +
                                 "' already exists: DROP VOLUME it first or choose another name");
  };
  if (volumes_mirror_)
    return CreateShared(*volumes_mirror_, "volumes", v, stmt.if_not_exists, "CREATE EXTERNAL VOLUME " + stmt.name,
                        exists);
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(bool found, ExistsLocked("volumes", stmt.name));
  if (found) return stmt.if_not_exists ? Status::Ok() : exists();
  return WriteVolumeLocked(v);
}

Status VolumeStore::DropConnection(const std::string& name, bool if_exists) {
  auto missing = [&] {
    return Status::NotFound("storage connection '" + name + "' does not exist (SHOW CONNECTIONS lists them)");
  };
  SyncShared();  // the volumes using it, as the cluster has them
  {
    std::lock_guard<std::mutex> lock(mu_);
    ASSIGN_OR_RETURN(bool exists, ExistsLocked("storage_connections", name));
    if (!exists && !connections_mirror_) return if_exists ? Status::Ok() : missing();
    ASSIGN_OR_RETURN(auto users, con_->Query("SELECT name FROM __sluice.volumes WHERE lower(connection) = lower(" +
                                             QuoteLiteral(name) + ") ORDER BY name"));
    if (!users.result_set->rows.empty()) {
      std::string list;
      for (const auto& row : users.result_set->rows) list += (list.empty() ? "" : ", ") + *row[0];
      return Status::InvalidArgument("storage connection '" + name + "' is used by volume(s) " + list +
                                     ": drop them first");
    }
    if (!connections_mirror_) return DeleteLocked("storage_connections", name);
  }
  return DropShared(*connections_mirror_, name, if_exists, "DROP STORAGE CONNECTION " + name, missing);
}

Status VolumeStore::DropVolume(const std::string& name, bool if_exists) {
  auto missing = [&] { return Status::NotFound("volume '" + name + "' does not exist (SHOW VOLUMES lists them)"); };
  if (volumes_mirror_) return DropShared(*volumes_mirror_, name, if_exists, "DROP VOLUME " + name, missing);
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(bool exists, ExistsLocked("volumes", name));
  if (!exists) return if_exists ? Status::Ok() : missing();
  return DeleteLocked("volumes", name);
}

Status VolumeStore::WriteConnectionLocked(const SharedDefinition& c) {
  return storage::InTransaction(*con_, [&] {
    RETURN_IF_ERROR(DeleteLocked("storage_connections", c.name));
    return con_->Execute("INSERT INTO __sluice.storage_connections VALUES (" + QuoteLiteral(c.name) + ", " +
                         QuoteLiteral(c.type) + ", " + QuoteLiteral(c.Property("endpoint")) + ", " +
                         QuoteLiteral(c.Property("region")) + ", " + QuoteLiteral(c.Property("access_id")) + ", " +
                         QuoteLiteral(secrets_->Seal(c.Property("access_key"))) + ", " + QuoteLiteral(c.comment) +
                         ", " + std::to_string(c.created_ms) + ")");
  });
}

Status VolumeStore::WriteVolumeLocked(const SharedDefinition& v) {
  return storage::InTransaction(*con_, [&] {
    RETURN_IF_ERROR(DeleteLocked("volumes", v.name));
    return con_->Execute("INSERT INTO __sluice.volumes VALUES (" + QuoteLiteral(v.name) + ", " +
                         QuoteLiteral(v.Property("location")) + ", " + QuoteLiteral(v.Property("connection")) + ", " +
                         (v.Property("recursive") == "true" ? "true" : "false") + ", " + QuoteLiteral(v.comment) +
                         ", " + std::to_string(v.created_ms) + ")");
  });
}

Status VolumeStore::DeleteLocked(const char* table, const std::string& name) {
  return con_->Execute(std::string("DELETE FROM __sluice.") + table + " WHERE " + NameMatch(name));
}

// ---- Cluster ------------------------------------------------------------------------------------------------

namespace {

bool IsSealedConnectionProperty(const std::string& key) { return key == "access_key" || key == "access_id"; }

}  // namespace

ClusterDefinitionKind VolumeStore::ConnectionsKind() {
  return ClusterDefinitionKind{"sluice_storage_connections", "sluice_storage_connection_state", "7305873260815045",
                               "storage connection", "storage connections", &IsSealedConnectionProperty};
}

ClusterDefinitionKind VolumeStore::VolumesKind() {
  return ClusterDefinitionKind{"sluice_volumes", "sluice_volume_state", "7305873260815046", "volume", "volumes",
                               nullptr};
}

VolumeStore::~VolumeStore() {
  volumes_mirror_.reset();
  connections_mirror_.reset();
}

Result<std::vector<SharedDefinition>> VolumeStore::OwnLocked(const char* table) {
  std::vector<SharedDefinition> out;
  if (std::string(table) == "storage_connections") {
    ASSIGN_OR_RETURN(auto r, con_->Query("SELECT name, type, endpoint, region, access_id, access_key, comment, "
                                         "created_at FROM __sluice.storage_connections ORDER BY name"));
    for (const auto& row : r.result_set->rows) {
      ASSIGN_OR_RETURN(std::string key, secrets_->Unseal(*row[5]));
      out.push_back(SharedDefinition{*row[0], *row[1], *row[6], Int(row[7]),
                                     {{"endpoint", *row[2]}, {"region", *row[3]}, {"access_id", *row[4]},
                                      {"access_key", std::move(key)}}});
    }
    return out;
  }
  ASSIGN_OR_RETURN(auto r, con_->Query("SELECT name, location, connection, recursive, comment, created_at FROM "
                                       "__sluice.volumes ORDER BY name"));
  for (const auto& row : r.result_set->rows)
    out.push_back(SharedDefinition{*row[0], "volume", *row[4], Int(row[5]),
                                   {{"location", *row[1]}, {"connection", *row[2]}, {"recursive", *row[3]}}});
  return out;
}

MirrorCopy VolumeStore::CopyOf(const char* table, const char* kind,
                               Status (VolumeStore::*write)(const SharedDefinition&)) {
  MirrorCopy copy;
  copy.own = [this, table] {
    std::lock_guard<std::mutex> lock(mu_);
    return OwnLocked(table);
  };
  copy.published = [this, kind]() -> Result<bool> {
    std::lock_guard<std::mutex> lock(mu_);
    ASSIGN_OR_RETURN(auto r, con_->Query(std::string("SELECT count(*) FROM __sluice.cluster_volume_membership WHERE "
                                                     "kind = ") + QuoteLiteral(kind)));
    return r.result_set->rows[0][0] != std::optional<std::string>("0");
  };
  copy.mark_published = [this, kind] {
    std::lock_guard<std::mutex> lock(mu_);
    return con_->Execute(std::string("INSERT INTO __sluice.cluster_volume_membership VALUES (") + QuoteLiteral(kind) +
                         ", epoch_ms(now()))");
  };
  copy.names = [this, table] {
    std::set<std::string> names;
    std::lock_guard<std::mutex> lock(mu_);
    auto r = con_->Query(std::string("SELECT lower(name) FROM __sluice.") + table);
    if (r.ok())
      for (const auto& row : r->result_set->rows) names.insert(*row[0]);
    return names;
  };
  copy.apply = [this, table, write](const std::vector<std::string>& removed,
                                    const std::vector<const SharedDefinition*>& written) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& name : removed) RETURN_IF_ERROR(DeleteLocked(table, name));
    for (const auto* item : written) RETURN_IF_ERROR((this->*write)(*item));
    return Status::Ok();
  };
  return copy;
}

Status VolumeStore::AttachCluster(std::unique_ptr<ClusterDefinitionStore> connections,
                                  std::unique_ptr<ClusterDefinitionStore> volumes, std::chrono::milliseconds poll) {
  connections_mirror_ = std::make_unique<ClusterMirror>(
      std::move(connections), CopyOf("storage_connections", "connections", &VolumeStore::WriteConnectionLocked),
      "volume");
  volumes_mirror_ = std::make_unique<ClusterMirror>(
      std::move(volumes), CopyOf("volumes", "volumes", &VolumeStore::WriteVolumeLocked), "volume");
  RETURN_IF_ERROR(connections_mirror_->Start(poll));
  return volumes_mirror_->Start(poll);
}

void VolumeStore::SyncShared() {
  if (!volumes_mirror_) return;
  (void)connections_mirror_->Sync(true);
  (void)volumes_mirror_->Sync(true);
}

Status VolumeStore::CreateShared(ClusterMirror& mirror, const char* table, const SharedDefinition& item,
                                 bool if_not_exists, const std::string& where,
                                 const std::function<Status()>& exists) {
  (void)mirror.Sync(true);  // the copy answers early; the cluster's table decides (its primary key)
  {
    std::lock_guard<std::mutex> lock(mu_);
    ASSIGN_OR_RETURN(bool found, ExistsLocked(table, item.name));
    if (found) return if_not_exists ? Status::Ok() : exists();
  }
  auto inserted = mirror.store().Insert(item);
  if (!inserted.ok()) return mirror.Refusal(where, inserted.status());
  if (Status st = mirror.Sync(false); !st.ok())
    log::Warn("volume", "{} is the cluster's, but this node's copy is not written yet: {}", item.name, st.message());
  if (*inserted || if_not_exists) return Status::Ok();
  return exists();
}

Status VolumeStore::DropShared(ClusterMirror& mirror, const std::string& name, bool if_exists,
                               const std::string& where, const std::function<Status()>& missing) {
  auto removed = mirror.store().Remove(name);
  if (!removed.ok()) return mirror.Refusal(where, removed.status());
  if (Status st = mirror.Sync(false); !st.ok())
    log::Warn("volume", "{} was dropped from the cluster, but this node's copy is not updated yet: {}", name,
              st.message());
  if (*removed || if_exists) return Status::Ok();
  return missing();
}

Result<std::vector<StorageConnectionInfo>> VolumeStore::ListConnections() {
  SyncShared();  // the same answer on every node
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(auto r, con_->Query("SELECT name, type, endpoint, region, access_id, comment, created_at FROM "
                                       "__sluice.storage_connections ORDER BY name"));
  std::vector<StorageConnectionInfo> out;
  for (const auto& row : r.result_set->rows) {
    StorageConnectionInfo c;
    c.name = *row[0];
    c.type = *row[1];
    c.endpoint = *row[2];
    c.region = *row[3];
    c.access_id_masked = MaskAccessId(*row[4]);
    c.comment = *row[5];
    c.created_ms = Int(row[6]);
    out.push_back(std::move(c));
  }
  return out;
}

Result<std::vector<VolumeInfo>> VolumeStore::ListVolumes() {
  SyncShared();
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(auto r, con_->Query("SELECT name, location, connection, recursive, comment, created_at FROM "
                                       "__sluice.volumes ORDER BY name"));
  std::vector<VolumeInfo> out;
  for (const auto& row : r.result_set->rows) {
    VolumeInfo v;
    v.name = *row[0];
    v.location = *row[1];
    v.connection = *row[2];
    v.recursive = *row[3] == "true";
    v.comment = *row[4];
    v.created_ms = Int(row[5]);
    out.push_back(std::move(v));
  }
  return out;
}

Result<ResolvedVolume> VolumeStore::Resolve(const std::string& volume) {
  // On a cluster the volume (or its connection) may have been created, changed or dropped on another node a moment
  // ago: the copy is brought in step first (one version read when nothing changed), so every node resolves a name
  // the same way; PostgreSQL away, the copy answers.
  SyncShared();
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(auto r, con_->Query("SELECT v.name, v.location, v.connection, v.recursive, v.comment, "
                                       "v.created_at, c.endpoint, c.region, c.access_id, c.access_key FROM "
                                       "__sluice.volumes v LEFT JOIN __sluice.storage_connections c ON "
                                       "lower(c.name) = lower(v.connection) WHERE lower(v.name) = lower(" +
                                       QuoteLiteral(volume) + ")"));
  if (r.result_set->rows.empty())
    return Status::NotFound("volume '" + volume + "' does not exist (SHOW VOLUMES lists them)");
  const Row& row = r.result_set->rows[0];
  ResolvedVolume out;
  out.info.name = *row[0];
  out.info.location = *row[1];
  out.info.connection = *row[2];
  out.info.recursive = *row[3] == "true";
  out.info.comment = *row[4];
  out.info.created_ms = Int(row[5]);
  ASSIGN_OR_RETURN(out.location, source::ParseVolumeLocation(out.info.location));
  if (out.location.scheme == source::VolumeLocation::Scheme::kS3) {
    if (!row[6]) return Status::NotFound("volume '" + volume + "' uses connection '" + out.info.connection +
                                         "', which no longer exists");
    source::S3Credentials c;
    c.endpoint = *row[6];
    c.region = *row[7];
    c.access_id = *row[8];
    ASSIGN_OR_RETURN(c.access_key, secrets_->Unseal(*row[9]));
    out.credentials = std::move(c);
  }
  return out;
}

Result<bool> VolumeStore::IsFileLoaded(storage::Connection& con, const FileLoadRecord& file) {
  ASSIGN_OR_RETURN(auto r, con.Query("SELECT count(*) FROM __sluice.volume_loads WHERE file_url = " +
                                     QuoteLiteral(file.file_url) + " AND target = " + QuoteLiteral(file.target) +
                                     " AND size = " + std::to_string(file.size) +
                                     // An ETag names the content: the same bytes uploaded again are not new.
                                     // Without one (local files) the modification time decides.
                                     (file.etag.empty() ? " AND etag = '' AND last_modified = " +
                                                              std::to_string(file.last_modified_ms)
                                                        : " AND etag = " + QuoteLiteral(file.etag))));
  return r.result_set->rows[0][0] != std::optional<std::string>("0");
}

std::string VolumeStore::FileIdentityKey(const std::string& file_url, int64_t size, int64_t last_modified_ms,
                                         const std::string& etag) {
  // The same rule as IsFileLoaded: the ETag when there is one, else the modification time.
  return file_url + '\n' + std::to_string(size) + '\n' + (etag.empty() ? "t" + std::to_string(last_modified_ms)
                                                                         : "e" + etag);
}

Result<std::set<std::string>> VolumeStore::LoadedFileKeys(storage::Connection& con, const std::string& location_url,
                                                          const std::string& target) {
  ASSIGN_OR_RETURN(auto r, con.Query("SELECT DISTINCT file_url, size, last_modified, etag FROM __sluice.volume_loads "
                                     "WHERE target = " + QuoteLiteral(target) + " AND starts_with(file_url, " +
                                     QuoteLiteral(location_url) + ")"));
  std::set<std::string> out;
  for (const auto& row : r.result_set->rows)
    out.insert(FileIdentityKey(*row[0], std::stoll(*row[1]), std::stoll(*row[2]), *row[3]));
  return out;
}

Status VolumeStore::RecordFileLoad(storage::Connection& con, const FileLoadRecord& rec, int64_t now_ms) {
  return con.Execute("INSERT INTO __sluice.volume_loads VALUES (" + QuoteLiteral(rec.file_url) + ", " +
                     QuoteLiteral(rec.target) + ", " + std::to_string(rec.size) + ", " +
                     std::to_string(rec.last_modified_ms) + ", " + QuoteLiteral(rec.etag) + ", " +
                     std::to_string(rec.rows_loaded) + ", " + std::to_string(rec.error_rows) + ", " +
                     QuoteLiteral(rec.first_error) + ", " + QuoteLiteral(rec.status) + ", " + std::to_string(now_ms) +
                     ")");
}

Status VolumeStore::RecordRejectedRows(storage::Connection& con, const std::string& target,
                                       const std::string& file_url, const std::vector<RejectedFileRow>& rows,
                                       int64_t now_ms) {
  constexpr size_t kPerStatement = 500;
  for (size_t i = 0; i < rows.size(); i += kPerStatement) {
    std::string sql = "INSERT INTO __sluice.volume_rejected_rows VALUES ";
    for (size_t j = i; j < std::min(rows.size(), i + kPerStatement); j++) {
      const auto& r = rows[j];
      if (j > i) sql += ", ";
      sql += "(" + QuoteLiteral(target) + ", " + QuoteLiteral(file_url) + ", " + std::to_string(r.line) + ", " +
             QuoteLiteral(r.column) + ", " + QuoteLiteral(r.reason) + ", " + QuoteLiteral(r.raw) + ", " +
             "make_timestamp(" + std::to_string(now_ms) + " * 1000))";
    }
    RETURN_IF_ERROR(con.Execute(sql));
  }
  return Status::Ok();
}

namespace {

std::string UrlList(const std::vector<std::string>& urls) {
  std::string out;
  for (const auto& u : urls) out += (out.empty() ? "" : ", ") + QuoteLiteral(u);
  return out;
}

}  // namespace

Status VolumeStore::DeleteRejectedRowsSinceLastLoad(storage::Connection& con, const std::string& target,
                                                    const std::vector<std::string>& file_urls) {
  if (file_urls.empty()) return Status::Ok();
  return con.Execute("DELETE FROM __sluice.volume_rejected_rows AS r WHERE r.target = " + QuoteLiteral(target) +
                     " AND r.file_url IN (" + UrlList(file_urls) + ") AND r.created_at > coalesce((SELECT "
                     "make_timestamp(max(l.loaded_at) * 1000) FROM __sluice.volume_loads AS l WHERE l.target = "
                     "r.target AND l.file_url = r.file_url), TIMESTAMP '1970-01-01 00:00:00')");
}

Status VolumeStore::DeleteRejectedRowsWrittenAt(storage::Connection& con, const std::string& target,
                                                const std::vector<std::string>& file_urls, int64_t created_ms) {
  if (file_urls.empty()) return Status::Ok();
  return con.Execute("DELETE FROM __sluice.volume_rejected_rows WHERE target = " + QuoteLiteral(target) +
                     " AND file_url IN (" + UrlList(file_urls) + ") AND created_at = make_timestamp(" +
                     std::to_string(created_ms) + " * 1000)");
}

}  // namespace sluice::catalog
