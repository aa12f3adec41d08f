#pragma once
// The dashboard (docs/monitoring.md, "The dashboard"): one page, its style sheet and its script, compiled into the
// binary so the page works offline and with no CDN. The page holds no data and no secrets: its script reads the
// JSON API (/api/jobs) with the credentials the browser already sent for the page.
#include <string_view>

namespace sluice::dashboard {

struct Asset {
  std::string_view content_type;
  std::string_view body;
};

// The page served at `/`.
const Asset& Page();
// A file the page loads from /dashboard/<name> (dashboard.css, dashboard.js); nullptr for any other name.
const Asset* FindAsset(std::string_view name);

}  // namespace sluice::dashboard
