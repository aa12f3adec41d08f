#include "app/serve_command.h"

#include <pthread.h>
#include <signal.h>

#include <chrono>

#include "app/data_dir_lock.h"
#include "common/log.h"
#include "common/version.h"
#include "executor/engine.h"
#include "http/http_server.h"
#include "app/error_log_endpoint.h"
#include "server/mysql_server.h"

namespace sluice {

bool IsLoopbackAddress(const std::string& bind) {
  return bind == "localhost" || bind == "::1" || bind.rfind("127.", 0) == 0;
}

int RunServe(const ServeOptions& options) {
  if (options.log_level == "debug") log::SetLevel(log::Level::kDebug);
  else if (options.log_level == "warn") log::SetLevel(log::Level::kWarn);
  else if (options.log_level == "error") log::SetLevel(log::Level::kError);


  // Signals are taken by this thread alone (sigwait below); every thread started later inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  auto lock = DataDirLock::Acquire(options.data_dir);
  if (!lock.ok()) {
    log::Error("serve", "{}", lock.status().message());
    return 1;
  }
  scheduler::SchedulerOptions scheduler_options;
  scheduler_options.worker_threads = options.load_workers;
  std::string link_host = options.bind == "0.0.0.0" || options.bind == "::" ? "127.0.0.1" : options.bind;
  scheduler_options.http_base_url = "http://" + link_host + ":" + std::to_string(options.http_port);
  SecurityOptions security;
  if (!options.root_password.empty()) security.root_password = options.root_password;
  security.unsafe_engine_file_access = options.unsafe_engine_file_access;
  auto engine = Engine::Open(options.data_dir + "/sluice.duckdb", scheduler_options, security);
  if (!engine.ok()) {
    log::Error("serve", "{}", engine.status().message());
    return 1;
  }
  if ((*engine)->accounts().RootHasEmptyPassword() && !IsLoopbackAddress(options.bind)) {
    log::Error("serve", "refusing to listen on {} with an empty root password: set --root-password or "
               "SLUICE_ROOT_PASSWORD (or SET PASSWORD for root), or bind to 127.0.0.1", options.bind);
    return 2;
  }

  server::MysqlServer::Options mysql_options;
  mysql_options.bind = options.bind;
  mysql_options.port = options.mysql_port;
  mysql_options.root_password = options.root_password;
  server::MysqlServer mysql(mysql_options, **engine);
  if (Status st = mysql.Start(); !st.ok()) {
    log::Error("serve", "{}", st.message());
    return 1;
  }

  auto started = std::chrono::steady_clock::now();
  http::HttpServer http({options.bind, options.http_port}, [&] {
    return http::HealthInfo{
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started).count(),
        (*engine)->open_sessions()};
  });
  http.Get("/api/routine_load/errors", [&](const std::map<std::string, std::string>& q) {
    return RejectedRowsReply((*engine)->routine_loads(), q);
  });
  if (Status st = http.Start(); !st.ok()) {
    log::Error("serve", "{}", st.message());
    mysql.Stop();
    return 1;
  }
  log::Info("serve", "Sluice {} ready: mysql -h{} -P{} -uroot; data in {}", kSluiceVersion, options.bind,
            mysql.port(), options.data_dir);

  int sig = 0;
  sigwait(&signals, &sig);
  log::Info("serve", "{} received, shutting down", sig == SIGINT ? "SIGINT" : "SIGTERM");
  http.Stop();
  mysql.Stop();
  engine->reset();  // closes DuckDB cleanly (checkpoint) before the lock is released
  log::Info("serve", "stopped");
  return 0;
}

}  // namespace sluice
