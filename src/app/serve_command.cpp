#include "app/serve_command.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "app/data_dir_lock.h"
#include "app/private_files.h"
#include "common/egress_policy.h"
#include "common/log.h"
#include "common/test_points.h"
#include "common/version.h"
#include "cluster/cluster_member.h"
#include "cluster/node_registry.h"
#include "cluster/pg_account_replica.h"
#include "executor/engine.h"
#include "pgconn/deadlines.h"
#include "http/http_server.h"
#include "app/error_log_endpoint.h"
#include "app/http_wiring.h"
#include "app/dashboard_endpoint.h"
#include "app/jobs_api.h"
#include "app/metrics_endpoint.h"
#include "server/mysql_server.h"
#include "source/s3_client.h"
#include "tls/tls_context.h"

namespace sluice {

bool IsLoopbackAddress(const std::string& bind) {
  return bind == "localhost" || bind == "::1" || bind.rfind("127.", 0) == 0;
}

int RunServe(const ServeOptions& options) {
  if (options.log_level == "debug") log::SetLevel(log::Level::kDebug);
  else if (options.log_level == "warn") log::SetLevel(log::Level::kWarn);
  else if (options.log_level == "error") log::SetLevel(log::Level::kError);
  // Crash, error and stall points for the e2e fault tests; off unless SLUICE_TEST_POINTS names some.
  if (Status st = ArmTestPointsFromEnvironment(); !st.ok()) {
    log::Error("serve", "{}", st.message());
    return 1;
  }
  source::S3ClientSettings s3;
  s3.timeout_seconds = options.s3_timeout_seconds;
  s3.retries = options.s3_retries;
  source::SetS3ClientSettings(s3);  // before any volume is opened

  // SHOW NODES' answer: the cluster's nodes, or this one. The options are checked before anything opens; a
  // cluster node joins from its own thread once the engine is up and never waits for PostgreSQL: an unreachable
  // database is an outage the heartbeat rides out.
  cluster::NodeIdentity identity;
  identity.name = options.node_name.empty() ? cluster::DefaultNodeName(options.mysql_port) : options.node_name;
  identity.address =
      options.advertise.empty() ? cluster::DefaultAdvertiseAddress(options.bind, options.mysql_port) : options.advertise;
  identity.version = kSluiceVersion;
  // Before any PostgreSQL connection (the cluster's, a JDBC catalog's) is made.
  pgconn::Deadlines deadlines;
  deadlines.cluster_connect = std::chrono::seconds(options.cluster_connect_timeout_seconds);
  deadlines.cluster_answer =
      std::chrono::milliseconds(static_cast<int64_t>(options.cluster_answer_deadline_seconds * 1000));
  deadlines.catalog_connect = std::chrono::seconds(options.catalog_connect_timeout_seconds);
  deadlines.catalog_answer =
      std::chrono::milliseconds(static_cast<int64_t>(options.catalog_answer_deadline_seconds * 1000));
  if (Status st = pgconn::CheckDeadlines(deadlines); !st.ok()) {
    log::Error("serve", "{}", st.message());
    return 2;
  }
  pgconn::SetDeadlines(deadlines);
  cluster::ClusterOptions cluster_options;
  cluster_options.uri = options.cluster_uri;
  cluster_options.identity = identity;
  cluster_options.node_timeout = std::chrono::seconds(options.node_timeout_seconds);
  cluster_options.incarnation = cluster::NewIncarnation();
  if (!options.cluster_uri.empty()) {
    if (Status st = cluster::ClusterMember::CheckOptions(cluster_options); !st.ok()) {
      log::Error("serve", "{}", st.message());
      return 2;
    }
  }

  // Signals are taken by this thread alone (sigwait below); every thread started later inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  UsePrivateUmask();  // the data directory, database file, WAL and secrets.key are created private
  auto lock = DataDirLock::Acquire(options.data_dir);
  if (!lock.ok()) {
    log::Error("serve", "{}", lock.status().message());
    return 1;
  }
  TightenDataDirPermissions(options.data_dir);  // a directory made by an older version or by hand
  // One certificate for both ports: the HTTP port serves the same files (tls->cert_file(), tls->key_file()).
  tls::TlsOptions tls_options;
  tls_options.cert_file = options.tls_cert;
  tls_options.key_file = options.tls_key;
  tls_options.data_dir = options.data_dir;
  tls_options.hosts = tls::CertificateHosts(options.bind);
  auto tls = tls::TlsContext::Create(tls_options);
  if (!tls.ok()) {
    log::Error("serve", "{}", tls.status().message());
    return 1;
  }
  if ((*tls)->generated()) {
    log::Info("serve", "TLS with a generated certificate; clients verify it with --ssl-ca={}", (*tls)->ca_file());
  } else {
    log::Info("serve", "TLS with the certificate {}", (*tls)->cert_file());
  }

  // Before anything can connect anywhere: the engine starts jobs and their Kafka clients.
  if (options.allow_egress) {
    auto policy = egress::EgressPolicy::Parse(*options.allow_egress);
    if (!policy.ok()) {
      log::Error("serve", "{}", policy.status().message());
      return 2;
    }
    log::Info("serve", "egress limited to --allow-egress '{}': brokers, schema registries, S3 endpoints and catalog "
              "databases elsewhere are refused", policy->text());
    egress::SetEgressPolicy(std::move(*policy));
  } else if (IsLoopbackAddress(options.bind)) {
    log::Info("serve", "egress is unrestricted: routine loads, pipes, READ_KAFKA, storage connections and catalogs "
              "may connect to any host; limit it with --allow-egress");
  } else {
    log::Warn("serve", "egress is unrestricted: users who may create routine loads, pipes, storage connections or "
              "catalogs can make this server connect to any host and port of its network; limit it with "
              "--allow-egress 'host:port,10.0.0.0/8:9092,...'");
  }

  scheduler::SchedulerOptions scheduler_options;
  scheduler_options.worker_threads = options.load_workers;
  if (!options.cluster_uri.empty()) {
    // Routine loads into Iceberg tables become the cluster's jobs (docs/cluster.md).
    scheduler_options.cluster.uri = options.cluster_uri;
    scheduler_options.cluster.node = identity.name;
    scheduler_options.cluster.node_timeout = cluster_options.node_timeout;
    scheduler_options.cluster.incarnation = cluster_options.incarnation;
    scheduler_options.cluster.key_file = options.cluster_key_file;
  }
  std::string link_host = options.bind == "0.0.0.0" || options.bind == "::" ? "127.0.0.1" : options.bind;
  scheduler_options.http_base_url =
      std::string(options.http_tls ? "https://" : "http://") + link_host + ":" + std::to_string(options.http_port);
  SecurityOptions security;
  if (!options.root_password.empty()) security.root_password = options.root_password;
  security.unsafe_engine_file_access = options.unsafe_engine_file_access;
  if (options.root_auth_plugin == "caching_sha2_password") security.root_plugin = auth::AuthPlugin::kCachingSha2Password;
  storage::DatabaseOptions storage_options;
  storage_options.disk.min_free_bytes = static_cast<uint64_t>(options.min_free_disk_mb) << 20;
  storage_options.checkpoint_wal_bytes = static_cast<uint64_t>(options.checkpoint_wal_mb) << 20;
  storage_options.checkpoint_interval_seconds = options.checkpoint_interval_seconds;
  auto engine = Engine::Open(options.data_dir + "/sluice.duckdb", scheduler_options, security, storage_options,
                             options.iceberg_care_check_seconds);
  if (!engine.ok()) {
    log::Error("serve", "{}", engine.status().message());
    return 1;
  }
  TightenDataDirPermissions(options.data_dir);  // files the engine just created
  if ((*engine)->accounts().RootHasEmptyPassword() && !IsLoopbackAddress(options.bind)) {
    log::Error("serve", "refusing to listen on {} with an empty root password: set --root-password or "
               "SLUICE_ROOT_PASSWORD (or SET PASSWORD for root), or bind to 127.0.0.1", options.bind);
    return 2;
  }

  std::unique_ptr<cluster::NodeDirectory> nodes;
  cluster::ClusterMember* member = nullptr;
  if (!options.cluster_uri.empty()) {
    auto started_member = cluster::ClusterMember::Start(cluster_options);
    if (!started_member.ok()) {
      log::Error("serve", "{}", started_member.status().message());
      return 2;
    }
    log::Info("serve", "cluster node '{}' (advertised as {}) joining {}", identity.name, identity.address,
              cluster::PgClient::Describe(options.cluster_uri));
    member = started_member->get();
    nodes = std::move(*started_member);
    // Users, roles and grants are the cluster's: a user created on one node logs in on every node.
    (*engine)->accounts().AttachReplica(std::make_unique<cluster::PgAccountReplica>(options.cluster_uri),
                                        std::chrono::seconds(1));
  } else {
    nodes = std::make_unique<cluster::LocalNodeDirectory>(identity, std::chrono::system_clock::now());
  }
  (*engine)->set_node_directory(nodes.get());

  server::MysqlServer::Options mysql_options;
  mysql_options.bind = options.bind;
  mysql_options.port = options.mysql_port;
  mysql_options.authenticator = &(*engine)->accounts();
  mysql_options.tls = tls->get();
  mysql_options.require_secure_transport = options.require_secure_transport;
  server::MysqlServer mysql(mysql_options, **engine);
  if (Status st = mysql.Start(); !st.ok()) {
    log::Error("serve", "{}", st.message());
    return 1;
  }

  auto started = std::chrono::steady_clock::now();
  http::HttpOptions http_options;
  http_options.bind = options.bind;
  http_options.port = options.http_port;
  http_options.authenticate = AccountAuthenticator((*engine)->accounts());
  if (Status st = ResolveHttpTls(options, http_options); !st.ok()) {
    log::Error("serve", "{}", st.message());
    mysql.Stop();
    return 1;
  }
  http::HttpServer http(http_options, [&] {
    return http::HealthInfo{
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started).count(),
        (*engine)->open_sessions()};
  });
  MayReadJob may_read_job = AccountMayReadJob((*engine)->accounts(), (*engine)->routine_loads());
  http.Get("/api/routine_load/errors",
           WithoutServerPaths([&](const http::HttpRequest& request) {
             return RejectedRowsReply((*engine)->routine_loads(), request, may_read_job);
           }, (*engine)->accounts(), (*engine)->storage_health()));
  DuckdbMemorySampler duckdb_memory((*engine)->database());
  MetricsSources metrics_sources{engine->get(), &mysql, options.data_dir + "/sluice.duckdb", &duckdb_memory, started};
  http.Get("/metrics", [&](const http::HttpRequest& request) { return MetricsReply(metrics_sources, request); });
  AddJobsApi(http, **engine);
  AddDashboard(http);
  if (Status st = http.Start(); !st.ok()) {
    log::Error("serve", "{}", st.message());
    mysql.Stop();
    return 1;
  }
  log::Info("serve", "Sluice {} ready: mysql -h{} -P{} -uroot; data in {}", kSluiceVersion, options.bind,
            mysql.port(), options.data_dir);

  // Waits for SIGINT/SIGTERM, or for the moment a database DuckDB stopped can be opened again.
  int sig = 0;
  bool reopen = false;
  const timespec tick{1, 0};
  while (true) {
    sig = sigtimedwait(&signals, nullptr, &tick);
    if (sig == SIGINT || sig == SIGTERM) break;
    if ((*engine)->storage_health().ShouldReopen()) {
      reopen = true;
      break;
    }
  }
  if (reopen) {
    log::Warn("serve", "the disk holding {} has room again: restarting to reopen the database and replay its log "
              "(clients reconnect; jobs continue from their committed progress)", options.data_dir);
  } else {
    log::Info("serve", "{} received, shutting down", sig == SIGINT ? "SIGINT" : "SIGTERM");
  }
  // First, so that a long statement cannot hold the shutdown up: every running statement (and any that starts
  // from now on) is interrupted and its client told "Server shutdown in progress".
  (*engine)->StopAllStatements();
  http.Stop();
  duckdb_memory.Stop();
  mysql.Stop();
  engine->reset();  // closes DuckDB cleanly (checkpoint) before the lock is released
  if (member != nullptr) member->Stop();  // marked left (and its leases released) once its work has stopped
  if (reopen) return kServeReopenDatabase;
  log::Info("serve", "stopped");
  return 0;
}

void RestartProcess(char** argv) {
  // Nothing open survives into the new process: the data directory lock and the listening sockets especially.
  if (DIR* fds = opendir("/proc/self/fd")) {
    while (dirent* entry = readdir(fds)) {
      int fd = std::atoi(entry->d_name);
      if (fd > 2 && fd != dirfd(fds)) fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    closedir(fds);
  }
  // The new process must not inherit this thread's blocked SIGINT/SIGTERM with nobody to sigwait for them yet.
  sigset_t none;
  sigemptyset(&none);
  pthread_sigmask(SIG_SETMASK, &none, nullptr);
  execv("/proc/self/exe", argv);
  log::Error("serve", "could not restart the server: {}; start it again by hand", std::strerror(errno));
}

}  // namespace sluice
