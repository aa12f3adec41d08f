#include "dashboard/dashboard_assets.h"

namespace sluice::dashboard {

// Defined in the files CMake generates from assets/ (embed_asset.cmake).
extern const std::string_view kAsset_index_html;
extern const std::string_view kAsset_dashboard_css;
extern const std::string_view kAsset_dashboard_js;

const Asset& Page() {
  static const Asset page{"text/html; charset=utf-8", kAsset_index_html};
  return page;
}

const Asset* FindAsset(std::string_view name) {
  static const Asset css{"text/css; charset=utf-8", kAsset_dashboard_css};
  static const Asset js{"text/javascript; charset=utf-8", kAsset_dashboard_js};
  if (name == "dashboard.css") return &css;
  if (name == "dashboard.js") return &js;
  return nullptr;
}

}  // namespace sluice::dashboard
