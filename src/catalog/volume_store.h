#pragma once
// Storage connections and external volumes (CREATE STORAGE CONNECTION / CREATE EXTERNAL VOLUME), kept in
// __sluice.storage_connections and __sluice.volumes, and the per-file load records and rejected rows of loads
// from volumes (__sluice.volume_loads, __sluice.volume_rejected_rows). A load record is written in the same
// transaction as the file's rows (RecordFileLoad), which is what makes a file load exactly once.
//
// Connection and volume names are global (not per database) and compared case-insensitively. The access key is
// stored sealed (SecretBox: AES-256-GCM, key in <data dir>/secrets.key) and leaves this class only through
// ResolvedVolume::credentials, which is handed to the S3 client and nothing else.
//
// On a cluster node (AttachCluster) connections and volumes are the cluster's (docs/cluster.md): CREATE and DROP
// write PostgreSQL first (sluice_storage_connections, sluice_volumes: catalog/cluster_definition_store.h, the
// access id and key sealed under --cluster-key-file), and the two tables above become this node's copy, kept in
// step by a ClusterMirror each (catalog/cluster_mirror.h). Reads answer from the copy; one naming a volume the copy
// does not know brings it in step first.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catalog/cluster_definition_store.h"
#include "catalog/cluster_mirror.h"
#include "catalog/secret_box.h"
#include "common/result_set.h"
#include "common/status.h"
#include "source/volume.h"
#include "sql/ast.h"
#include "storage/database.h"

namespace sluice::catalog {

struct StorageConnectionInfo {  // what may be shown: no access key
  std::string name;
  std::string type;             // "S3"
  std::string endpoint;
  std::string region;
  std::string access_id_masked;
  std::string comment;
  int64_t created_ms = 0;
};

struct VolumeInfo {
  std::string name;
  std::string location;         // normalized URL, ending with '/'
  std::string connection;       // empty for file:// volumes
  bool recursive = false;
  std::string comment;
  int64_t created_ms = 0;
};

// A volume ready to be opened with source::OpenVolume.
struct ResolvedVolume {
  VolumeInfo info;
  source::VolumeLocation location;
  std::optional<source::S3Credentials> credentials;
};

// The identity of a file version: the same path with another size or content is a new file. Content is judged by
// the ETag where the store gives one (S3: uploading the same bytes again is not new), else by modification time.
struct FileLoadRecord {
  std::string file_url;         // the volume's location + the file's relative path
  std::string target;           // "db.table"
  int64_t size = 0;
  int64_t last_modified_ms = 0;
  std::string etag;
  int64_t rows_loaded = 0;
  int64_t error_rows = 0;
  std::string first_error;
  std::string status;           // LOADED, PARTIALLY_LOADED
};

struct RejectedFileRow {
  int64_t line = 0;             // 1-based line (CSV) or record number (JSON); 0 when unknown
  std::string column;
  std::string reason;
  std::string raw;
};

// "AKIA************" for ids of 16 characters or more (AWS ids are 20), "******" for shorter ones.
std::string MaskAccessId(const std::string& access_id);

class VolumeStore {
 public:
  // `secrets_key_file`: see SecretBox::Open (empty: a key in memory, for in-memory databases).
  static Result<std::unique_ptr<VolumeStore>> Open(storage::Database& db, const std::string& secrets_key_file);
  ~VolumeStore();

  // Makes connections and volumes the cluster's: the first time this data directory joins a cluster its own are
  // offered (a name the cluster has keeps the cluster's definition); from then on the cluster's are the truth.
  // Never fails on an unreachable PostgreSQL: the mirrors keep trying.
  Status AttachCluster(std::unique_ptr<ClusterDefinitionStore> connections,
                       std::unique_ptr<ClusterDefinitionStore> volumes, std::chrono::milliseconds poll);
  bool clustered() const { return volumes_mirror_ != nullptr; }
  // Where the cluster keeps them: sluice_storage_connections (access id and key sealed), sluice_volumes.
  static ClusterDefinitionKind ConnectionsKind();
  static ClusterDefinitionKind VolumesKind();

  Status CreateConnection(const sql::CreateStorageConnection& stmt, int64_t now_ms);
  Status CreateVolume(const sql::CreateVolume& stmt, int64_t now_ms);
  // A connection that volumes use cannot be dropped (the message names them).
  Status DropConnection(const std::string& name, bool if_exists);
  // Load records stay (keyed by location), so recreating the volume does not load its files again.
  Status DropVolume(const std::string& name, bool if_exists);
  Result<std::vector<StorageConnectionInfo>> ListConnections();
  Result<std::vector<VolumeInfo>> ListVolumes();
  Result<ResolvedVolume> Resolve(const std::string& volume);

  // Inside the caller's transaction on `con`.
  static Result<bool> IsFileLoaded(storage::Connection& con, const FileLoadRecord& file);
  // Keys (FileIdentityKey) of every file under `location_url` loaded into `target`: one query instead of one per
  // file when a listing of thousands is filtered.
  static Result<std::set<std::string>> LoadedFileKeys(storage::Connection& con, const std::string& location_url,
                                                      const std::string& target);
  static std::string FileIdentityKey(const std::string& file_url, int64_t size, int64_t last_modified_ms,
                                     const std::string& etag);
  static Status RecordFileLoad(storage::Connection& con, const FileLoadRecord& record, int64_t now_ms);
  static Status RecordRejectedRows(storage::Connection& con, const std::string& target, const std::string& file_url,
                                   const std::vector<RejectedFileRow>& rows, int64_t now_ms);
  // A load into an Iceberg table writes its files' rejected rows just before its catalog commit, so that a crash
  // right after the commit keeps them (lakehouse/lake_volume_copy.h). Attempts whose commit never came leave theirs
  // behind; these remove them. The rows of `file_urls` into `target` written after each file's newest load record
  // (all of them, for a file without one): what a new attempt deletes before writing its own.
  static Status DeleteRejectedRowsSinceLastLoad(storage::Connection& con, const std::string& target,
                                                const std::vector<std::string>& file_urls);
  // The rows of `file_urls` into `target` written at `created_ms`: one attempt's, when its commit failed.
  static Status DeleteRejectedRowsWrittenAt(storage::Connection& con, const std::string& target,
                                            const std::vector<std::string>& file_urls, int64_t created_ms);

 private:
  VolumeStore(std::unique_ptr<storage::Connection> con, std::unique_ptr<SecretBox> secrets)
      : con_(std::move(con)), secrets_(std::move(secrets)) {}
  Result<bool> ExistsLocked(const char* table, const std::string& name);
  // One connection or volume of the node's own tables, written (replacing one of that name) or removed.
  Status WriteConnectionLocked(const SharedDefinition& c);
  Status WriteVolumeLocked(const SharedDefinition& v);
  Status DeleteLocked(const char* table, const std::string& name);
  // A CREATE / DROP on a cluster node: the cluster's table decides, this node's copy follows.
  Status CreateShared(ClusterMirror& mirror, const char* table, const SharedDefinition& item, bool if_not_exists,
                      const std::string& where, const std::function<Status()>& exists);
  Status DropShared(ClusterMirror& mirror, const std::string& name, bool if_exists, const std::string& where,
                    const std::function<Status()>& missing);
  MirrorCopy CopyOf(const char* table, const char* kind, Status (VolumeStore::*write)(const SharedDefinition&));
  Result<std::vector<SharedDefinition>> OwnLocked(const char* table);
  // On a cluster node, the copy brought in step (on demand: skipped for a second after a failure).
  void SyncShared();
  // volume_rejected_rows.created_at was epoch milliseconds (BIGINT) before it became a TIMESTAMP.
  Status MigrateRejectedRowsTime();
  std::mutex mu_;
  std::unique_ptr<storage::Connection> con_;
  std::unique_ptr<SecretBox> secrets_;
  // Cluster (AttachCluster); null on a node of its own. Their threads call back into this store: reset first.
  std::unique_ptr<ClusterMirror> connections_mirror_;
  std::unique_ptr<ClusterMirror> volumes_mirror_;
};

}  // namespace sluice::catalog
