#include "http/http_server.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "common/log.h"
#include "common/version.h"

namespace sluice::http {

HttpServer::HttpServer(HttpOptions options, std::function<HealthInfo()> health)
    : options_(std::move(options)), health_(std::move(health)), server_(std::make_unique<httplib::Server>()) {
  server_->Get("/api/health", [this](const httplib::Request&, httplib::Response& res) {
    HealthInfo info = health_ ? health_() : HealthInfo{};
    nlohmann::json j = {{"status", "ok"}, {"uptime_seconds", info.uptime_seconds}, {"open_sessions", info.open_sessions}};
    res.set_content(j.dump(), "application/json");
  });
  server_->Get("/api/version", [](const httplib::Request&, httplib::Response& res) {
    nlohmann::json j = {{"name", "sluice"}, {"version", kSluiceVersion}, {"mysql_version", kMysqlServerVersion}};
    res.set_content(j.dump(), "application/json");
  });
  server_->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    nlohmann::json j = {{"error", "no such endpoint: " + req.path}, {"status", res.status}};
    res.set_content(j.dump(), "application/json");
  });
}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Get(const std::string& path, HttpHandler handler) {
  server_->Get(path, [handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
    std::map<std::string, std::string> query;
    for (const auto& [k, v] : req.params) query[k] = v;
    HttpReply reply = handler(query);
    res.status = reply.status;
    res.set_content(reply.body, reply.content_type);
  });
}

Status HttpServer::Start() {
  int port = options_.port == 0 ? server_->bind_to_any_port(options_.bind) : (server_->bind_to_port(options_.bind, options_.port) ? options_.port : -1);
  if (port <= 0)
    return Status::IoError("cannot listen for HTTP on " + options_.bind + ":" + std::to_string(options_.port) +
                           " (is another server using the port? choose another with --http-port)");
  port_ = static_cast<uint16_t>(port);
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  log::Info("http", "listening on {}:{}", options_.bind, port_);
  return Status::Ok();
}

void HttpServer::Stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace sluice::http
