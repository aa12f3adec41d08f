#pragma once
// The engine a server runs: the DuckDB database in the data directory, the catalog over it, and the sessions
// the front door opens. Owns the background upkeep (purging dropped tables past their retention).
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "auth/account_store.h"
#include "catalog/catalog.h"
#include "catalog/server_settings.h"
#include "catalog/external_catalog_store.h"
#include "catalog/volume_store.h"
#include "cluster/node_directory.h"
#include "lakehouse/iceberg_sink.h"
#include "lakehouse/lake_catalogs.h"
#include "lakehouse/lake_care_policy.h"
#include "executor/session.h"
#include "executor/session_registry.h"
#include "executor/sql_guard.h"
#include "scheduler/routine_load_manager.h"
#include "storage/database.h"

namespace sluice {

// How the engine guards itself (docs/security.md).
struct SecurityOptions {
  // Root's password, set at every start when given (--root-password / SLUICE_ROOT_PASSWORD); kept otherwise.
  std::optional<std::string> root_password;
  // root's plugin when its password is set (--root-auth-plugin).
  auth::AuthPlugin root_plugin = auth::AuthPlugin::kNativePassword;
  // The operator's explicit opt-out of the engine's file sandbox (--unsafe-allow-engine-file-access): DuckDB may
  // then read and write any file the server's user can. The front door still refuses file functions.
  bool unsafe_engine_file_access = false;
};

class Engine : public SessionFactory {
 public:
  // Opens `database_file` (empty: in memory). Starts the upkeep thread, and the automatic care of Iceberg tables
  // when `iceberg_care_check_seconds` > 0 (lakehouse/lake_care_policy.h).
  static Result<std::unique_ptr<Engine>> Open(const std::string& database_file,
                                              scheduler::SchedulerOptions scheduler_options = {},
                                              SecurityOptions security = {},
                                              storage::DatabaseOptions storage_options = {},
                                              double iceberg_care_check_seconds = 0);
  ~Engine() override;

  Result<std::unique_ptr<Session>> NewSession(uint32_t connection_id, std::string user, std::string client_host,
                                              std::string database) override;
  catalog::Catalog& catalog() { return *catalog_; }
  scheduler::RoutineLoadManager& routine_loads() { return *routine_loads_; }
  size_t open_sessions() const { return registry_.size(); }
  auth::AccountStore& accounts() { return *accounts_; }
  // The open sessions; set_may_kill on it decides who may KILL whose statements.
  SessionRegistry& session_registry() { return registry_; }
  void StopAllStatements() override { registry_.StopAll(); }
  // Free space and whether DuckDB has stopped the database (the serve loop reopens it when it may).
  storage::StorageHealth& storage_health() { return db_->health(); }
  // The database itself, for the server's own monitoring connection (DuckDB's memory, app/metrics_endpoint.cpp).
  storage::Database& database() { return *db_; }
  // What SHOW NODES lists: the cluster (cluster::ClusterMember) or the local node. Set before sessions open;
  // it must outlive the engine's sessions.
  void set_node_directory(cluster::NodeDirectory* nodes) { nodes_ = nodes; }

 private:
  Engine() = default;
  void UpkeepLoop();

  std::unique_ptr<storage::Database> db_;
  std::unique_ptr<catalog::Catalog> catalog_;
  std::unique_ptr<scheduler::RoutineLoadManager> routine_loads_;
  std::unique_ptr<catalog::VolumeStore> volumes_;
  std::unique_ptr<catalog::ExternalCatalogStore> external_catalogs_;
  std::unique_ptr<lakehouse::LakeCatalogs> lakes_;
  std::unique_ptr<lakehouse::IcebergLoadTargets> iceberg_targets_;  // loads into Iceberg tables (their sink)
  std::unique_ptr<lakehouse::LakeCarePolicyRunner> lake_care_;      // Iceberg tables' automatic care
  std::unique_ptr<catalog::ServerSettings> settings_;
  std::unique_ptr<auth::AccountStore> accounts_;
  std::unique_ptr<SqlGuard> guard_;
  std::string scratch_dir_;
  cluster::NodeDirectory* nodes_ = nullptr;
  SessionRegistry registry_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread upkeep_;
};

}  // namespace sluice
