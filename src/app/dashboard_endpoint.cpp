#include "app/dashboard_endpoint.h"

#include <string>

#include "dashboard/dashboard_assets.h"

namespace sluice {

namespace {

http::HttpReply AssetReply(const dashboard::Asset& asset) {
  http::HttpReply reply;
  reply.content_type = std::string(asset.content_type);
  reply.body = std::string(asset.body);
  reply.headers = {
      // Only this server's own files and API; nothing inline, nothing from elsewhere; never inside a frame.
      {"Content-Security-Policy",
       "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
       "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"},
      {"X-Frame-Options", "DENY"},
      {"X-Content-Type-Options", "nosniff"},
      {"Referrer-Policy", "no-referrer"},
      // The assets change with the binary; a revalidation is cheap, a stale script after an upgrade is not.
      {"Cache-Control", "no-cache"},
  };
  return reply;
}

}  // namespace

void AddDashboard(http::HttpServer& http) {
  http.Get("/", [](const http::HttpRequest&) { return AssetReply(dashboard::Page()); });
  http.Get(R"(/dashboard/([a-z]+\.[a-z]+))", [](const http::HttpRequest& request) {
    const dashboard::Asset* asset = dashboard::FindAsset(request.path_params.at(0));
    if (!asset) {
      http::HttpReply missing;
      missing.status = 404;
      missing.body = "{\"error\":\"no such dashboard file: " + request.path_params.at(0) + "\",\"status\":404}\n";
      return missing;
    }
    return AssetReply(*asset);
  });
}

}  // namespace sluice
