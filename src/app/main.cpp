// The `sluice` command.
#include <CLI/CLI.hpp>

#include <pthread.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "app/serve_command.h"
#include "common/version.h"

namespace {

// Every thread the process starts (DuckDB's workers, connection threads, load workers) gets this much stack.
// DuckDB recurses over nested values and expressions without a depth guard of its own in places:
// json_structure over 100,000 nested '[' overflowed the default 8 MiB stack and killed the server (see
// docs/security.md, "What cannot crash the server"). Stacks are mapped, not committed: a thread only uses the
// pages it touches, so this costs address space (VSZ), not memory (RSS).
// 1 GiB holds json_structure over about 10 million nested arrays (about 100 bytes of stack per level).
constexpr int kDefaultThreadStackMb = 1024;

// Must run before any thread starts: threads created later take the process-wide default attributes.
void UseThreadStacks(int megabytes) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return;
  if (pthread_attr_setstacksize(&attr, static_cast<size_t>(megabytes) << 20) == 0) pthread_setattr_default_np(&attr);
  pthread_attr_destroy(&attr);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Sluice: continuous ingestion of Kafka topics and object-storage folders into tables, declared in "
               "SQL (StarRocks CREATE ROUTINE LOAD, Lakehouse CREATE PIPE), exactly once."};
  app.set_version_flag("--version", std::string("sluice ") + sluice::kSluiceVersion);
  app.require_subcommand(1);
  app.footer(
      "Commands:\n"
      "  serve   run the server. Flags: --data-dir DIR (default ./sluice-data), --bind ADDR (127.0.0.1),\n"
      "          --mysql-port N (9030), --http-port N (8030), --root-password PW (or SLUICE_ROOT_PASSWORD),\n"
      "          --http-tls, --tls-cert FILE, --tls-key FILE, --require-secure-transport, --load-workers N (4),\n"
      "          --log-level LEVEL (info), --thread-stack-mb N (1024), --min-free-disk-mb N (64),\n"
      "          --checkpoint-wal-mb N (16), --checkpoint-interval-seconds N (60), --allow-egress HOSTS (any),\n"
      "          --iceberg-care-check-seconds N (60),\n"
      "          --cluster URI, --node-name NAME, --advertise HOST:PORT, --node-timeout-seconds N (10), --cluster-key-file FILE.\n"
      "          See: sluice serve --help");

  sluice::ServeOptions opts;
  if (const char* pw = std::getenv("SLUICE_ROOT_PASSWORD")) opts.root_password = pw;
  CLI::App* serve = app.add_subcommand("serve", "Run the server: the MySQL-protocol SQL front door and the HTTP port.");
  serve->add_option("--data-dir", opts.data_dir,
                    "Directory holding the DuckDB database and everything Sluice keeps; created if missing. "
                    "One server per directory.")
      ->capture_default_str();
  serve->add_option("--bind", opts.bind,
                    "Address both ports listen on. Anything other than a loopback address needs a root password.")
      ->capture_default_str();
  serve->add_option("--mysql-port", opts.mysql_port, "Port of the MySQL-protocol front door (mysql -P).")
      ->capture_default_str();
  serve->add_option("--http-port", opts.http_port,
                    "Port of the HTTP API. /api/health and /api/version are open; every other endpoint needs "
                    "HTTP Basic credentials of a Sluice user.")
      ->capture_default_str();
  serve->add_option("--root-password", opts.root_password,
                    "Password of the root user; also read from the environment variable SLUICE_ROOT_PASSWORD. "
                    "Empty is allowed only when binding to loopback.");
  serve->add_flag("--http-tls", opts.http_tls,
                  "Serve the HTTP port over HTTPS, with the certificate of --tls-cert/--tls-key, or else the one in "
                  "<data dir>/tls/ (server-cert.pem, server-key.pem).");
  serve->add_option("--root-auth-plugin", opts.root_auth_plugin,
                    "Authentication plugin of root: mysql_native_password, or caching_sha2_password (MySQL 8's "
                    "default; its first login after a start must use TLS).")
      ->check(CLI::IsMember({"mysql_native_password", "caching_sha2_password"}))
      ->capture_default_str();
  serve->add_option("--tls-cert", opts.tls_cert,
                    "PEM certificate (optionally followed by its chain) both ports offer TLS with; needs --tls-key. "
                    "Without it, Sluice makes a CA and a server certificate in <data-dir>/tls/ (reused on later "
                    "starts); clients verify with --ssl-ca=<data-dir>/tls/ca.pem.");
  serve->add_option("--tls-key", opts.tls_key, "PEM private key (unencrypted) of --tls-cert.");
  serve->add_flag("--require-secure-transport", opts.require_secure_transport,
                  "Refuse MySQL logins without TLS (ERR 3159), as MySQL's require_secure_transport=ON.");
  serve->add_option("--load-workers", opts.load_workers,
                    "Threads that run routine load tasks, shared by all jobs; a job runs at most "
                    "min(partitions, desired_concurrent_number, this, 5) tasks at once.")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  serve->add_flag("--unsafe-allow-engine-file-access", opts.unsafe_engine_file_access,
                  "Lift the storage engine's file sandbox (DuckDB may then read and write any file this user can). "
                  "SQL file functions stay refused; for operators debugging the engine only.");
  serve->add_option("--s3-timeout-seconds", opts.s3_timeout_seconds,
                    "An object-storage request that cannot connect within min(this, 10) s, or moves less than "
                    "1 KB/s for this long, is abandoned and retried (docs/pipes.md, object storage faults).")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  serve->add_option("--iceberg-care-check-seconds", opts.iceberg_care_check_seconds,
                    "How often Sluice looks at the Iceberg tables of every external catalog and runs the care "
                    "policies that are due (sluice.care.* table properties, docs/iceberg.md); 0 turns automatic "
                    "care off.")
      ->check(CLI::Range(0, 86400))
      ->capture_default_str();
  serve->add_option("--s3-retries", opts.s3_retries,
                    "Tries after the first for a transient object-storage failure (refused or cut connection, "
                    "timeout, HTTP 5xx / 429) within one request, with a jittered backoff from 200 ms; then the "
                    "pipe backs off (1 s doubling) and stays RUNNING.")
      ->check(CLI::Range(0, 10))
      ->capture_default_str();
  serve->add_option("--log-level", opts.log_level, "debug, info, warn or error (logs go to stderr).")
      ->check(CLI::IsMember({"debug", "info", "warn", "error"}))
      ->capture_default_str();

  serve->add_option("--min-free-disk-mb", opts.min_free_disk_mb,
                    "Free space, in MiB, Sluice keeps on the disk holding the data directory: below it load jobs "
                    "pause (reason \"disk full: ...\") and resume by themselves once there is room again.")
      ->check(CLI::Range(0, 1 << 30))
      ->capture_default_str();

  serve->add_option("--checkpoint-wal-mb", opts.checkpoint_wal_mb,
                    "Checkpoint the database (fold its WAL into the file) once the WAL holds this many MiB, when the "
                    "disk has room for it (about the WAL's size plus --min-free-disk-mb).")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();

  serve->add_option("--checkpoint-interval-seconds", opts.checkpoint_interval_seconds,
                    "Also checkpoint this long after the last checkpoint when the WAL holds more than 256 KiB, so a "
                    "restart after a crash has little WAL to replay; 0: by WAL size only.")
      ->check(CLI::Range(0, 1 << 24))
      ->capture_default_str();

  std::vector<std::string> allow_egress;
  CLI::Option* egress_option =
      serve->add_option("--allow-egress", allow_egress,
                        "Hosts the server may connect to for routine loads, pipes, READ_KAFKA, storage connections and "
                        "external catalogs (brokers, schema registries, S3 endpoints, PostgreSQL): a comma-separated "
                        "list of host[:port], *.domain[:port], address[/bits][:port], [ipv6[/bits]]:port or *. "
                        "Checked when a statement names a host and again on the address each connection goes to. "
                        "Unset: any host (the log says so). Also read from SLUICE_ALLOW_EGRESS.")
          ->envname("SLUICE_ALLOW_EGRESS")
          ->delimiter(',');

  serve->add_option("--cluster", opts.cluster_uri,
                    "Join a cluster: the PostgreSQL database (libpq URI or connection string, e.g. "
                    "postgresql://sluice@10.0.0.5:5432/sluice) every node of the cluster shares. The node creates "
                    "its tables there when missing, heartbeats every second and shows up in SHOW NODES; PostgreSQL "
                    "being unreachable is retried, never fatal. Also read from SLUICE_CLUSTER (keeps a password out "
                    "of the process list); PGPASSWORD and ~/.pgpass work too. docs/cluster.md.")
      ->envname("SLUICE_CLUSTER");
  serve->add_option("--node-name", opts.node_name,
                    "This node's name in the cluster, unique per node (default: hostname:mysql-port).");
  serve->add_option("--advertise", opts.advertise,
                    "host:port other nodes and clients reach this node's MySQL port at (default: bind:mysql-port, "
                    "the hostname when binding 0.0.0.0).");
  serve->add_option("--node-timeout-seconds", opts.node_timeout_seconds,
                    "A node whose last heartbeat is older than this (on PostgreSQL's clock) is dead, and the leases "
                    "it holds may be taken over.")
      ->check(CLI::Range(2, 3600))
      ->capture_default_str();
  serve->add_option("--cluster-key-file", opts.cluster_key_file,
                    "The key file sealing secret properties of the cluster's routine loads in PostgreSQL: copy the "
                    "same file to every node (default: the node's own <data-dir>/secrets.key, which only works for "
                    "jobs without secret properties, or a single node).");
  serve->add_option("--cluster-connect-timeout-seconds", opts.cluster_connect_timeout_seconds,
                    "How long connecting to the cluster's PostgreSQL may take before it counts as unreachable "
                    "(libpq's connect_timeout; docs/cluster.md, \"A PostgreSQL that hangs\").")
      ->check(CLI::Range(2, 600))
      ->capture_default_str();
  serve->add_option("--cluster-answer-deadline-seconds", opts.cluster_answer_deadline_seconds,
                    "How long one statement to the cluster's PostgreSQL (a heartbeat, a lease, a fence, SHOW NODES) "
                    "waits for its answer on this node's clock before PostgreSQL counts as unreachable; the "
                    "server's statement_timeout is 2 s less, its lock_timeout 60 % of that.")
      ->check(CLI::Range(2.0, 3600.0))
      ->capture_default_str();
  serve->add_option("--catalog-connect-timeout-seconds", opts.catalog_connect_timeout_seconds,
                    "How long connecting to an Iceberg JDBC catalog's PostgreSQL may take.")
      ->check(CLI::Range(2, 600))
      ->capture_default_str();
  serve->add_option("--catalog-answer-deadline-seconds", opts.catalog_answer_deadline_seconds,
                    "How long one statement to an Iceberg JDBC catalog's PostgreSQL (a table's lookup, a commit's "
                    "swap) waits for its answer before the connection is given up and tried once more; raise it "
                    "for a catalog whose statements are slow rather than hung.")
      ->check(CLI::Range(2.0, 3600.0))
      ->capture_default_str();

  int thread_stack_mb = kDefaultThreadStackMb;
  serve->add_option("--thread-stack-mb", thread_stack_mb,
                    "Stack of every server thread, in MiB. Reserved address space, committed only as used; lower "
                    "it only where the kernel counts reservations (vm.overcommit_memory = 2). Deeply nested JSON "
                    "needs about 100 bytes per level.")
      ->check(CLI::Range(8, 65536))
      ->capture_default_str();

  CLI11_PARSE(app, argc, argv);
  UseThreadStacks(thread_stack_mb);  // no thread exists yet: parsing flags starts none
  if (egress_option->count() > 0 || !allow_egress.empty()) {
    std::string list;
    for (const std::string& entry : allow_egress) list += (list.empty() ? "" : ",") + entry;
    opts.allow_egress = list;
  }
  if (serve->parsed()) {
    int code = sluice::RunServe(opts);
    if (code != sluice::kServeReopenDatabase) return code;
    sluice::RestartProcess(argv);
    return 1;
  }
  return 0;
}
