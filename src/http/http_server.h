#pragma once
// The HTTP side of the front door (DESIGN.md decision 7): REST endpoints for health and version, and endpoints
// added by whoever runs the server. Everything but /api/health and /api/version needs HTTP Basic credentials of a
// Sluice user (checked through a callback: this layer knows nothing of accounts), requests are bounded in size and
// time, and slow clients cannot starve the port (see README.md).
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "common/status.h"

namespace sluice::http {

class GuardedServer;
class FailedLoginDelay;

// Checks a user's password; returns the name of the authenticated user, or nothing when the credentials are wrong
// (or the account is locked). Called on a connection's thread; it may block (e.g. an account store's login delay).
using Authenticator = std::function<std::optional<std::string>(std::string_view user, std::string_view password,
                                                                std::string_view client_ip)>;

// What one client may cost the server. The defaults suit an API port of small JSON/text requests.
struct HttpLimits {
  size_t max_body_bytes = 1 << 20;    // bigger Content-Length: 413 before any of the body is read
  size_t max_header_bytes = 64 << 10; // request line plus headers; more: the connection is dropped
  // The whole request (line, headers, body) must arrive within this time of its first byte: a client dribbling a
  // byte per second loses its connection here instead of holding a thread.
  std::chrono::milliseconds request_timeout{10'000};
  std::chrono::milliseconds idle_timeout{5'000};   // keep-alive wait for the next request
  std::chrono::milliseconds write_timeout{5'000};  // a client not reading its answer for this long is dropped
  size_t max_requests_per_connection = 100;
  // Connections are served on threads started on demand, up to this many at once; later ones wait for a free thread.
  size_t max_threads = 256;
  // Failed logins from one client address wait a growing delay (see FailedLoginDelay) before the 401 is sent.
  // Turn off when the authenticator already applies a delay of its own (the account store's login gate).
  bool delay_failed_logins = true;
};

struct HttpOptions {
  std::string bind = "127.0.0.1";
  uint16_t port = 8030;
  // Both set: HTTPS with this PEM certificate (chain) and key; both empty: plain HTTP.
  std::string tls_cert_file;
  std::string tls_key_file;
  // Unset: every endpoint but health and version answers 401 (nobody can log in).
  Authenticator authenticate;
  HttpLimits limits;
};

// Facts the health endpoint reports, gathered by whoever runs the server.
struct HealthInfo {
  int64_t uptime_seconds = 0;
  size_t open_sessions = 0;
};

// What an endpoint sees of a request that passed authentication.
struct HttpRequest {
  std::string path;
  std::map<std::string, std::string> query;
  std::string user;       // the authenticated Sluice user: the endpoint checks its privileges itself
  std::string client_ip;
  std::string accept;     // the Accept header (GET /metrics answers OpenMetrics when it asks for it)
  std::vector<std::string> path_params;  // what the route's regex groups matched, in order (e.g. db and name)
};

// A GET endpoint added by whoever runs the server (the HTTP layer knows nothing of jobs).
struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra response headers (e.g. the page's CSP)
};
using HttpHandler = std::function<HttpReply(const HttpRequest& request)>;

class HttpServer {
 public:
  HttpServer(HttpOptions options, std::function<HealthInfo()> health);
  ~HttpServer();
  // Adds GET `path`, open only to authenticated users (before Start). `path` is a regex over the whole path; its
  // groups are given to the handler as HttpRequest::path_params.
  void Get(const std::string& path, HttpHandler handler);
  // Adds POST `path` the same way (actions such as pausing a job; bodies are bounded by HttpLimits). A POST a
  // browser sends from another site (its Origin is not this server, or Sec-Fetch-Site says cross-site) is refused
  // with 403 before the credentials are looked at: a browser that logged in to the dashboard sends its Basic
  // credentials with any request to this port, so another page must not be able to pause jobs through it.
  void Post(const std::string& path, HttpHandler handler);
  // Binds and starts serving on a thread of its own; fails if the port is taken or the TLS files do not load.
  Status Start();
  void Stop();
  uint16_t port() const { return port_; }
  bool tls() const { return !options_.tls_cert_file.empty(); }

 private:
  // The authenticated handler cpp-httplib runs for an added route.
  std::function<void(const void* req, void* res)> Authenticated(HttpHandler handler);

  HttpOptions options_;
  std::function<HealthInfo()> health_;
  std::unique_ptr<FailedLoginDelay> failed_logins_;
  std::unique_ptr<GuardedServer> server_;
  std::thread thread_;
  uint16_t port_ = 0;
};

}  // namespace sluice::http
