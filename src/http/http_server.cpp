#include "http/http_server.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "common/log.h"
#include "common/version.h"
#include "http/basic_auth.h"
#include "http/guarded_server.h"

namespace sluice::http {

namespace {

void JsonError(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(nlohmann::json{{"error", message}, {"status", status}}.dump(), "application/json");
}

// Refuses a request body before any of it is read: the endpoints take small requests only, and cpp-httplib would
// otherwise read a too-big body whole (buffered into memory when chunked) before answering.
httplib::Server::HandlerResponse RefuseLargeBodies(const HttpLimits& limits, const httplib::Request& req,
                                                   httplib::Response& res) {
  auto refuse = [&](int status, const std::string& message) {
    if (ConnectionControl* c = CurrentConnection()) c->close_after_response = true;  // the body stays unread
    res.set_header("Connection", "close");
    JsonError(res, status, message);
    return httplib::Server::HandlerResponse::Handled;
  };
  if (req.has_header("Transfer-Encoding"))
    return refuse(411, "request bodies must have a Content-Length (at most " + std::to_string(limits.max_body_bytes) +
                           " bytes); chunked transfer encoding is not accepted");
  if (!req.has_header("Content-Length")) {
    // RFC 9112 6.3: a request with neither Content-Length nor Transfer-Encoding has no body. cpp-httplib would
    // instead read a POST's body until the client closes (curl -X POST sends no Content-Length), so the request
    // is told its length before the library reads. The Request is the library's own local object, not shared.
    const_cast<httplib::Request&>(req).set_header("Content-Length", "0");
    return httplib::Server::HandlerResponse::Unhandled;
  }
  {
    const std::string& text = req.get_header_value("Content-Length");
    bool digits = !text.empty() && text.size() <= 19 && text.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) return refuse(400, "Content-Length is not a number: " + text.substr(0, 40));
    if (std::stoull(text) > limits.max_body_bytes)
      return refuse(413, "request body of " + text + " bytes is larger than the limit of " +
                             std::to_string(limits.max_body_bytes) + " bytes");
  }
  return httplib::Server::HandlerResponse::Unhandled;
}

// Whether a request comes from a page of another site (CSRF). Requests from curl, Prometheus or scripts carry
// neither header and pass; a browser sends Origin with every POST (fetch or form) and Sec-Fetch-Site too.
bool CrossSite(const httplib::Request& req, bool tls) {
  const std::string& site = req.get_header_value("Sec-Fetch-Site");
  if (!site.empty() && site != "same-origin" && site != "none") return true;
  if (!req.has_header("Origin")) return false;
  std::string origin = req.get_header_value("Origin");
  std::string self = std::string(tls ? "https://" : "http://") + req.get_header_value("Host");
  return origin != self;
}

}  // namespace

HttpServer::HttpServer(HttpOptions options, std::function<HealthInfo()> health)
    : options_(std::move(options)),
      health_(std::move(health)),
      failed_logins_(std::make_unique<FailedLoginDelay>()),
      server_(std::make_unique<GuardedServer>(options_.limits)) {
  server_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    return RefuseLargeBodies(options_.limits, req, res);
  });
  // Open to everyone: load balancers and `sluice` clients probe these without credentials; they reveal nothing
  // beyond the version and the count of sessions.
  server_->Get("/api/health", [this](const httplib::Request&, httplib::Response& res) {
    HealthInfo info = health_ ? health_() : HealthInfo{};
    nlohmann::json j = {
        {"status", "ok"}, {"uptime_seconds", info.uptime_seconds}, {"open_sessions", info.open_sessions}};
    res.set_content(j.dump(), "application/json");
  });
  server_->Get("/api/version", [](const httplib::Request&, httplib::Response& res) {
    nlohmann::json j = {{"name", "sluice"}, {"version", kSluiceVersion}, {"mysql_version", kMysqlServerVersion}};
    res.set_content(j.dump(), "application/json");
  });
  // The library adds a Keep-Alive header to every answer not closed by the request; one that closes the
  // connection itself (413, 411) must not announce both.
  server_->set_post_routing_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.get_header_value("Connection") == "close") res.headers.erase("Keep-Alive");
  });
  server_->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string message = res.status == 404   ? "no such endpoint: " + req.path
                          : res.status == 414 ? "request line too long"
                          : res.status == 400 ? "malformed HTTP request"
                                              : "HTTP error " + std::to_string(res.status);
    nlohmann::json j = {{"error", message}, {"status", res.status}};
    res.set_content(j.dump(), "application/json");
  });
}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Get(const std::string& path, HttpHandler handler) {
  auto run = Authenticated(std::move(handler));
  server_->Get(path, [run](const httplib::Request& req, httplib::Response& res) { run(&req, &res); });
}

void HttpServer::Post(const std::string& path, HttpHandler handler) {
  auto run = Authenticated(std::move(handler));
  server_->Post(path, [this, run](const httplib::Request& req, httplib::Response& res) {
    if (CrossSite(req, tls())) {
      log::Warn("http", "refused a cross-site POST to {} from {} (Origin '{}')", req.path, req.remote_addr,
                req.get_header_value("Origin"));
      JsonError(res, 403, "cross-site request refused: actions are accepted from this server's own dashboard page "
                          "or from clients that send no Origin header (curl, scripts)");
      return;
    }
    run(&req, &res);
  });
}

std::function<void(const void*, void*)> HttpServer::Authenticated(HttpHandler handler) {
  return [this, handler = std::move(handler)](const void* request_ptr, void* response_ptr) {
    const httplib::Request& req = *static_cast<const httplib::Request*>(request_ptr);
    httplib::Response& res = *static_cast<httplib::Response*>(response_ptr);
    auto unauthorized = [&](const std::string& message) {
      res.set_header("WWW-Authenticate", "Basic realm=\"Sluice\", charset=\"UTF-8\"");
      JsonError(res, 401, message);
    };
    auto credentials = ParseBasicAuthorization(req.get_header_value("Authorization"));
    if (!credentials) {
      unauthorized("this endpoint needs the user name and password of a Sluice user (HTTP Basic authentication, "
                   "e.g. curl -u root:PASSWORD)");
      return;
    }
    bool delay = options_.limits.delay_failed_logins;
    auto now = std::chrono::steady_clock::now();
    if (delay && !failed_logins_->Enter(req.remote_addr, now)) {
      // Refused before the password is tried, so a guess sent now tells nothing.
      res.set_header("Retry-After", "5");
      JsonError(res, 429,
                "too many logins from " + req.remote_addr + " are waiting for their answer; retry in a few seconds");
      return;
    }
    std::optional<std::string> user;
    if (options_.authenticate) user = options_.authenticate(credentials->user, credentials->password, req.remote_addr);
    if (!user) {
      // Logged without the password, like failed MySQL logins.
      log::Warn("http", "failed login of user '{}' from {} to {}", credentials->user, req.remote_addr, req.path);
      if (delay) std::this_thread::sleep_for(failed_logins_->Fail(req.remote_addr, now));
    }
    if (delay) failed_logins_->Leave(req.remote_addr);
    if (!user) {
      unauthorized("access denied for user '" + credentials->user + "': wrong user name or password");
      return;
    }
    HttpRequest request;
    request.path = req.path;
    for (const auto& [k, v] : req.params) request.query[k] = v;
    request.user = std::move(*user);
    request.client_ip = req.remote_addr;
    request.accept = req.get_header_value("Accept");
    for (size_t i = 1; i < req.matches.size(); ++i) request.path_params.push_back(req.matches[i].str());
    HttpReply reply = handler(request);
    res.status = reply.status;
    for (const auto& [name, value] : reply.headers) res.set_header(name, value);
    res.set_content(reply.body, reply.content_type);
  };
}

Status HttpServer::Start() {
  if (options_.tls_cert_file.empty() != options_.tls_key_file.empty())
    return Status::InvalidArgument("HTTPS needs both a certificate and its key (--tls-cert and --tls-key)");
  if (tls()) {
    if (Status st = server_->UseTls(options_.tls_cert_file, options_.tls_key_file); !st.ok()) return st;
  }
  int port = options_.port == 0 ? server_->bind_to_any_port(options_.bind)
                                : (server_->bind_to_port(options_.bind, options_.port) ? options_.port : -1);
  if (port <= 0)
    return Status::IoError("cannot listen for HTTP on " + options_.bind + ":" + std::to_string(options_.port) +
                           " (is another server using the port? choose another with --http-port)");
  port_ = static_cast<uint16_t>(port);
  server_->WidenBacklog(1024);
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  log::Info("http", "listening on {}:{} ({})", options_.bind, port_, tls() ? "HTTPS" : "HTTP");
  return Status::Ok();
}

void HttpServer::Stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace sluice::http
