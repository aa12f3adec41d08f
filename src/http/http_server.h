#pragma once
// The HTTP side of the front door (DESIGN.md decision 7): REST endpoints for health and version now; later the
// jobs API, /metrics and the dashboard page.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "common/status.h"

namespace httplib {
class Server;
}

namespace sluice::http {

struct HttpOptions {
  std::string bind = "127.0.0.1";
  uint16_t port = 8030;
};

// Facts the health endpoint reports, gathered by whoever runs the server.
struct HealthInfo {
  int64_t uptime_seconds = 0;
  size_t open_sessions = 0;
};

// A GET endpoint added by whoever runs the server (the HTTP layer knows nothing of jobs).
struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};
using HttpHandler = std::function<HttpReply(const std::map<std::string, std::string>& query)>;

class HttpServer {
 public:
  HttpServer(HttpOptions options, std::function<HealthInfo()> health);
  // Adds GET `path` (before Start).
  void Get(const std::string& path, HttpHandler handler);
  ~HttpServer();
  // Binds and starts serving on a thread of its own; fails if the port is taken.
  Status Start();
  void Stop();
  uint16_t port() const { return port_; }

 private:
  HttpOptions options_;
  std::function<HealthInfo()> health_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  uint16_t port_ = 0;
};

}  // namespace sluice::http
