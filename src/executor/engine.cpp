#include "executor/engine.h"

#include <unistd.h>

#include <openssl/rand.h>

#include <filesystem>
#include <set>

#include "catalog/load_history.h"
#include "catalog/server_settings.h"
#include "common/clock.h"
#include "common/log.h"
#include "executor/read_kafka.h"
#include "transform/query_functions.h"
#include "executor/sql_session.h"
#include "executor/information_schema.h"
#include "executor/volume_directory.h"
#include "lakehouse/lake_bucket_function.h"
#include "storage/json_nesting_guard.h"
#include "storage/sandbox.h"

namespace sluice {

namespace {

// A folder name nobody can guess: DuckDB may read only inside it (storage/sandbox.h), so a user who got a file
// function past the front door still could not name a file there.
std::string RandomFolderName() {
  unsigned char bytes[16];
  RAND_bytes(bytes, sizeof bytes);
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

Result<std::set<std::string>> Names(storage::Connection& con, const std::string& query) {
  ASSIGN_OR_RETURN(auto r, con.Query(query));
  std::set<std::string> out;
  for (const auto& row : r.result_set->rows)
    if (!row.empty() && row[0]) out.insert(*row[0]);
  return out;
}

}  // namespace

Result<std::unique_ptr<Engine>> Engine::Open(const std::string& database_file,
                                             scheduler::SchedulerOptions scheduler_options, SecurityOptions security,
                                             storage::DatabaseOptions storage_options, double iceberg_care_check_seconds) {
  auto engine = std::unique_ptr<Engine>(new Engine());
  ASSIGN_OR_RETURN(engine->db_, storage::Database::Open(database_file, storage_options));
  ASSIGN_OR_RETURN(engine->catalog_, catalog::Catalog::Open(*engine->db_));
  ASSIGN_OR_RETURN(engine->settings_, catalog::ServerSettings::Open(*engine->db_));
  // Secrets (storage keys, Kafka passwords) are stored sealed under a key kept next to the database file.
  const std::string secrets_key_file =
      database_file.empty() ? std::string()
                            : (std::filesystem::path(database_file).parent_path() / "secrets.key").string();
  ASSIGN_OR_RETURN(engine->volumes_, catalog::VolumeStore::Open(*engine->db_, secrets_key_file));
  scheduler_options.secrets_key_file = secrets_key_file;
  // Files fetched from object storage wait here for their load: next to the database file, or in the system's
  // temporary folder for an in-memory database.
  const std::string scratch_root =
      database_file.empty()
          ? (std::filesystem::temp_directory_path() / ("sluice-scratch-" + std::to_string(::getpid()))).string()
          : (std::filesystem::path(database_file).parent_path() / "scratch").string();
  {
    std::error_code ec;
    std::filesystem::remove_all(scratch_root, ec);  // leftovers of a crash
    engine->scratch_dir_ = (std::filesystem::path(scratch_root) / RandomFolderName()).string() + "/";
    std::filesystem::create_directories(engine->scratch_dir_, ec);
    if (ec) return Status::IoError("cannot create the scratch folder '" + engine->scratch_dir_ + "': " + ec.message());
    std::filesystem::permissions(scratch_root, std::filesystem::perms::owner_all, ec);
    std::filesystem::permissions(engine->scratch_dir_, std::filesystem::perms::owner_all, ec);
    // Errors name it as "<scratch folder>" to users without OPERATE, as they do the data directory.
    engine->db_->health().SetScratchFolder(engine->scratch_dir_);
  }
  ASSIGN_OR_RETURN(engine->external_catalogs_, catalog::ExternalCatalogStore::Open(*engine->db_, secrets_key_file));
  if (!scheduler_options.cluster.uri.empty()) {
    // External catalogs, storage connections and volumes are the cluster's (docs/cluster.md), sealed under the key
    // the cluster's jobs use; learned before the jobs start, so a cluster job finds its catalog and volume at once.
    const std::string& uri = scheduler_options.cluster.uri;
    const std::string cluster_key =
        scheduler_options.cluster.key_file.empty() ? secrets_key_file : scheduler_options.cluster.key_file;
    ASSIGN_OR_RETURN(auto shared, catalog::ClusterDefinitionStore::Open(catalog::ExternalCatalogStore::ClusterKind(),
                                                                        uri, cluster_key));
    RETURN_IF_ERROR(engine->external_catalogs_->AttachCluster(std::move(shared), std::chrono::seconds(1)));
    ASSIGN_OR_RETURN(auto connections,
                     catalog::ClusterDefinitionStore::Open(catalog::VolumeStore::ConnectionsKind(), uri, cluster_key));
    ASSIGN_OR_RETURN(auto volumes,
                     catalog::ClusterDefinitionStore::Open(catalog::VolumeStore::VolumesKind(), uri, cluster_key));
    RETURN_IF_ERROR(
        engine->volumes_->AttachCluster(std::move(connections), std::move(volumes), std::chrono::seconds(1)));
  }
  // Data files of Iceberg tables a SELECT reads are copied here (inside the scratch folder, where DuckDB may read),
  // at most 1 GiB of them kept between statements.
  engine->lakes_ = std::make_unique<lakehouse::LakeCatalogs>(*engine->external_catalogs_,
                                                             engine->scratch_dir_ + "iceberg-cache", 1ull << 30);
  ASSIGN_OR_RETURN(engine->accounts_, auth::AccountStore::Open(*engine->db_, security.root_password, security.root_plugin));
  RETURN_IF_ERROR(RegisterVolumeDirectoryFunction(*engine->db_, *engine->volumes_));
  RETURN_IF_ERROR(RegisterInformationSchemaFunctions(*engine->db_));
  scheduler_options.volumes = engine->volumes_.get();
  scheduler_options.settings = engine->settings_.get();
  scheduler_options.scratch_dir = engine->scratch_dir_;
  // A load task's Parquet files wait here (inside the scratch folder, where DuckDB may write) for their upload.
  engine->iceberg_targets_ =
      std::make_unique<lakehouse::IcebergLoadTargets>(*engine->lakes_, engine->scratch_dir_ + "iceberg-load");
  scheduler_options.load_targets = engine->iceberg_targets_.get();
  engine->routine_loads_ =
      std::make_unique<scheduler::RoutineLoadManager>(*engine->db_, *engine->catalog_, std::move(scheduler_options));
  RETURN_IF_ERROR(engine->routine_loads_->Start());
  {
    ASSIGN_OR_RETURN(auto con, engine->db_->Connect());
    RETURN_IF_ERROR(RegisterReadKafka(*con));
    // The translator wraps the arguments of DuckDB's recursive JSON functions in it (common/json_nesting.h).
    RETURN_IF_ERROR(storage::RegisterJsonNestingGuard(*con));
    // Appends to Iceberg tables partitioned by bucket(n, c) split their rows with it.
    RETURN_IF_ERROR(lakehouse::RegisterIcebergBucketFunction(*con));
    ASSIGN_OR_RETURN(auto table_functions,
                     Names(*con, "SELECT DISTINCT lower(function_name) FROM duckdb_functions() "
                                 "WHERE function_type IN ('table', 'table_macro')"));
    ASSIGN_OR_RETURN(auto settings, Names(*con, "SELECT lower(name) FROM duckdb_settings()"));
    engine->guard_ = std::make_unique<SqlGuard>(std::move(table_functions), std::move(settings));
    if (security.unsafe_engine_file_access) {
      log::Warn("engine", "--unsafe-allow-engine-file-access: the storage engine may read and write any file");
    } else {
      RETURN_IF_ERROR(storage::SealDatabase(*con, {engine->scratch_dir_}));
    }
  }
  engine->registry_.StartWatchdog();
  // KILL and SHOW PROCESSLIST: your own connections, or everyone's with SYSTEM OPERATE (cluster_admin, root).
  engine->registry_.set_may_kill([accounts = engine->accounts_.get()](const std::string& killer, const std::string& target) {
    if (killer == target) return true;
    auth::UserIdentity account = accounts->MatchAccount(killer, "%").value_or(auth::UserIdentity{killer, "%"});
    auth::Principal who{account, accounts->LoginRoles(account)};
    return accounts->Has(who, auth::ObjectRef{auth::ObjectKind::kSystem, "", ""}, "OPERATE");
  });
  engine->upkeep_ = std::thread([e = engine.get()] { e->UpkeepLoop(); });
  // After the seal: the runner's DuckDB connection writes merged files into the scratch folder only.
  engine->lake_care_ = std::make_unique<lakehouse::LakeCarePolicyRunner>(
      *engine->lakes_, *engine->db_, engine->scratch_dir_ + "iceberg-care", iceberg_care_check_seconds);
  engine->lake_care_->Start();
  return engine;
}

Engine::~Engine() {
  if (lake_care_) lake_care_->Stop();
  if (routine_loads_) routine_loads_->Stop();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (upkeep_.joinable()) upkeep_.join();
}

void Engine::UpkeepLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    lock.unlock();
    auto purged = catalog_->PurgeExpiredDroppedTables();
    if (!purged.ok()) log::Warn("engine", "purging dropped tables failed: {}", purged.status().message());
    else if (*purged > 0) log::Info("engine", "purged {} dropped table(s) past their retention", *purged);
    if (auto con = db_->Connect(); con.ok()) {
      auto history = catalog::PurgeLoadHistory(**con, WallClockMs(), settings_->LoadHistoryRetentionMs());
      if (!history.ok()) log::Warn("engine", "purging load_history failed: {}", history.status().message());
    }
    lock.lock();
    cv_.wait_for(lock, std::chrono::seconds(30), [&] { return stopping_; });
  }
}

Result<std::unique_ptr<Session>> Engine::NewSession(uint32_t connection_id, std::string user, std::string client_host,
                                                    std::string database) {
  ASSIGN_OR_RETURN(auto con, db_->Connect());
  RETURN_IF_ERROR(DefineReadKafkaMacro(*con));
  // MySQL's functions as the load transforms know them (one function map), before any user SQL.
  for (const std::string& macro : transform::QueryFunctionMacros()) RETURN_IF_ERROR(con->Execute(macro));
  RETURN_IF_ERROR(con->Execute(catalog::LoadHistoryMacroSql()));
  // The account the login matched, with the roles active at login (activate_all_roles_on_login).
  auth::Principal principal;
  principal.account = accounts_->MatchAccount(user, client_host).value_or(auth::UserIdentity{user, client_host});
  principal.active_roles = accounts_->LoginRoles(principal.account);
  auto session = std::make_unique<SqlSession>(*db_, *catalog_, *routine_loads_, registry_, std::move(con), connection_id,
                                              std::move(user), std::move(client_host), *volumes_, scratch_dir_, *settings_,
                                              *accounts_, *guard_, std::move(principal));
  session->set_lakes(lakes_.get());
  session->set_nodes(nodes_);
  if (!database.empty()) RETURN_IF_ERROR(session->UseDatabase(database));
  return std::unique_ptr<Session>(std::move(session));
}

}  // namespace sluice
