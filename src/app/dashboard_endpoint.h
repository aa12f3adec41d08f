#pragma once
// The dashboard at `/` (docs/monitoring.md, "The dashboard"): the page and its two assets, behind the same HTTP
// Basic login as the API, so the browser asks for a Sluice user once and sends it with the page's API calls.
// Strict headers: a Content-Security-Policy allowing only this server's own script, style and API, no framing.
#include "http/http_server.h"

namespace sluice {

void AddDashboard(http::HttpServer& http);

}  // namespace sluice
