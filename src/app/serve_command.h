#pragma once
// `sluice serve`: opens the data directory and runs the MySQL and HTTP front doors until SIGINT/SIGTERM.
#include <cstdint>
#include <optional>
#include <string>

namespace sluice {

struct ServeOptions {
  std::string data_dir = "./sluice-data";
  std::string bind = "127.0.0.1";
  uint16_t mysql_port = 9030;
  uint16_t http_port = 8030;
  std::string root_password;  // from --root-password or SLUICE_ROOT_PASSWORD
  std::string root_auth_plugin = "mysql_native_password";  // or caching_sha2_password
  std::string tls_cert;       // PEM certificate (chain) for both ports; empty: a generated one in <data-dir>/tls/
  std::string tls_key;        // its PEM key
  bool require_secure_transport = false;  // logins without TLS are refused
  std::string log_level = "info";
  int load_workers = 4;       // threads running routine load tasks, shared by every job
  bool unsafe_engine_file_access = false;  // --unsafe-allow-engine-file-access (docs/security.md)
  bool http_tls = false;      // --http-tls: HTTPS on the HTTP port
  int min_free_disk_mb = 64;  // --min-free-disk-mb: below this, load jobs pause until there is room
  int checkpoint_wal_mb = 16; // --checkpoint-wal-mb: Sluice checkpoints once the WAL is this large
  int checkpoint_interval_seconds = 60;  // --checkpoint-interval-seconds: ... or this long after the last one
  int s3_timeout_seconds = 30;  // --s3-timeout-seconds: an S3 request that stalls this long is abandoned
  int s3_retries = 3;
  // --iceberg-care-check-seconds: how often Sluice looks for Iceberg tables whose care policy is due; 0: never.
  int iceberg_care_check_seconds = 60;           // --s3-retries: tries after the first for transient S3 failures, per request
  // --allow-egress (or SLUICE_ALLOW_EGRESS): the hosts statements may make the server connect to; unset: any.
  std::optional<std::string> allow_egress;
  // --cluster (or SLUICE_CLUSTER): the PostgreSQL database the nodes of a cluster share; empty: a server of its
  // own. docs/cluster.md.
  std::string cluster_uri;
  std::string node_name;   // --node-name; empty: hostname:mysql-port
  std::string advertise;   // --advertise host:port; empty: bind:mysql-port
  int node_timeout_seconds = 10;  // --node-timeout-seconds: a node silent this long is dead
  // --cluster-key-file: the key sealing secret properties of cluster jobs, the same file on every node; empty:
  // the node's own <data dir>/secrets.key.
  std::string cluster_key_file;
  // Client-side bounds on PostgreSQL (pgconn/deadlines.h, docs/cluster.md "A PostgreSQL that hangs"): connecting
  // and one statement's answer, for the cluster's database and for Iceberg JDBC catalogs.
  int cluster_connect_timeout_seconds = 3;
  double cluster_answer_deadline_seconds = 7;
  int catalog_connect_timeout_seconds = 5;
  double catalog_answer_deadline_seconds = 6;
};

// RunServe's answer when DuckDB stopped the database after a failed write and the disk has room again: the caller
// starts the process anew (same arguments), which opens the file and replays its WAL.
inline constexpr int kServeReopenDatabase = -1;

// Returns the process exit code, or kServeReopenDatabase.
int RunServe(const ServeOptions& options);
// Replaces this process by a fresh `sluice` with the same arguments (execv of /proc/self/exe); returns only if
// that failed.
void RestartProcess(char** argv);
// An empty root password is only safe when nobody but this machine can connect.
bool IsLoopbackAddress(const std::string& bind);

}  // namespace sluice
