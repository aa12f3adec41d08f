#include "executor/engine.h"

#include <unistd.h>

#include <filesystem>

#include "catalog/load_history.h"
#include "catalog/server_settings.h"
#include "common/log.h"
#include "executor/read_kafka.h"
#include "executor/sql_session.h"
#include "executor/volume_directory.h"

namespace sluice {

Result<std::unique_ptr<Engine>> Engine::Open(const std::string& database_file,
                                             scheduler::SchedulerOptions scheduler_options) {
  auto engine = std::unique_ptr<Engine>(new Engine());
  ASSIGN_OR_RETURN(engine->db_, storage::Database::Open(database_file));
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
  engine->scratch_dir_ = database_file.empty()
                             ? (std::filesystem::temp_directory_path() / ("sluice-scratch-" + std::to_string(::getpid()))).string()
                             : (std::filesystem::path(database_file).parent_path() / "scratch").string();
  {
    std::error_code ec;
    std::filesystem::remove_all(engine->scratch_dir_, ec);  // leftovers of a crash
  }
  RETURN_IF_ERROR(RegisterVolumeDirectoryFunction(*engine->db_, *engine->volumes_));
  scheduler_options.volumes = engine->volumes_.get();
  scheduler_options.settings = engine->settings_.get();
  scheduler_options.scratch_dir = engine->scratch_dir_;
  engine->routine_loads_ =
      std::make_unique<scheduler::RoutineLoadManager>(*engine->db_, *engine->catalog_, std::move(scheduler_options));
  RETURN_IF_ERROR(engine->routine_loads_->Start());
  {
    ASSIGN_OR_RETURN(auto con, engine->db_->Connect());
    RETURN_IF_ERROR(RegisterReadKafka(*con));
  }
  engine->upkeep_ = std::thread([e = engine.get()] { e->UpkeepLoop(); });
  return engine;
}

Engine::~Engine() {
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
      auto history = catalog::PurgeLoadHistory(**con, std::chrono::duration_cast<std::chrono::milliseconds>(
                                                          std::chrono::system_clock::now().time_since_epoch()).count(),
                                               settings_->LoadHistoryRetentionMs());
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
  RETURN_IF_ERROR(con->Execute(catalog::LoadHistoryMacroSql()));
  registry_.Add(connection_id, user, client_host, "");
  auto session = std::make_unique<SqlSession>(*db_, *catalog_, *routine_loads_, registry_, std::move(con), connection_id,
                                              std::move(user), std::move(client_host), *volumes_, scratch_dir_, *settings_);
  if (!database.empty()) RETURN_IF_ERROR(session->UseDatabase(database));
  return std::unique_ptr<Session>(std::move(session));
}

}  // namespace sluice
