#include "lakehouse/lake_catalogs.h"

#include <filesystem>

#include "common/ascii.h"
#include "iceberg/jdbc_catalog.h"
#include "iceberg/rest_catalog.h"

namespace sluice::lakehouse {

LakeCatalogs::LakeCatalogs(catalog::ExternalCatalogStore& store, std::string cache_dir, uint64_t cache_bytes)
    : store_(store), cache_dir_(std::move(cache_dir)), cache_bytes_(cache_bytes) {
  std::error_code ec;
  std::filesystem::create_directories(cache_dir_, ec);
}

Result<std::shared_ptr<LakeConnection>> LakeCatalogs::Connect(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = open_.find(AsciiLower(name));
  if (it != open_.end() && it->second->generation == store_.generation()) return it->second;
  const uint64_t generation = store_.generation();
  ASSIGN_OR_RETURN(catalog::ExternalCatalogConfig config, store_.Resolve(name));
  auto conn = std::make_shared<LakeConnection>();
  if (config.catalog_type == "rest") {
    auto rest = iceberg::RestCatalog::Connect(
        iceberg::RestCatalogOptions{config.uri, config.warehouse, config.token, config.credential});
    if (!rest.ok()) {
      return Status(rest.status().code(), "catalog " + config.name + ": cannot use its REST catalog: " +
                                              rest.status().message());
    }
    conn->catalog = std::move(*rest);
  } else {
    auto jdbc = iceberg::JdbcCatalog::Connect(config.uri, config.iceberg_name, config.jdbc_user, config.jdbc_password);
    if (!jdbc.ok()) {
      // The URI may carry a password: the message says where, not how.
      return Status(jdbc.status().code(), "catalog " + config.name + ": cannot reach its JDBC catalog: " +
                                              jdbc.status().message());
    }
    conn->catalog = std::move(*jdbc);
  }
  conn->store = std::make_unique<iceberg::S3ObjectStore>(config.s3);
  conn->ops = std::make_unique<iceberg::TableOperations>(conn->catalog.get(), conn->store.get());
  conn->config = std::move(config);
  conn->generation = generation;
  open_[AsciiLower(name)] = conn;
  return conn;
}

void LakeCatalogs::Forget(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  open_.erase(AsciiLower(name));
}

}  // namespace sluice::lakehouse
