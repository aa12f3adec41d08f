#pragma once
// The open doors to external (Iceberg) catalogs: for each catalog CREATE EXTERNAL CATALOG defined, one connection
// to its catalog (JDBC in PostgreSQL, or a REST catalog) and one S3 client for its files, opened on first use and shared by every
// session (JdbcCatalog serializes its own statements; TableOperations keeps no state of its own). DROP CATALOG
// forgets the catalog's connection; on a cluster node a catalog dropped or created again on another node is seen
// through the store's generation(), and its connection is opened again from the new definition.
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "catalog/external_catalog_store.h"
#include "common/status.h"
#include "iceberg/catalog.h"
#include "iceberg/object_store.h"
#include "iceberg/table_operations.h"
#include "lakehouse/lake_care_log.h"

namespace sluice::lakehouse {

// catalog.db.table, as written (catalog and db compared case-insensitively by Sluice, as Iceberg's JDBC catalog
// compares them: exactly; Sluice lower-cases nothing, so write the names as the table was created).
struct LakeTableRef {
  std::string catalog;
  std::string db;
  std::string table;
  iceberg::TableIdent Ident() const { return iceberg::TableIdent{{db}, table}; }
  std::string ToString() const { return catalog + "." + db + "." + table; }
};

struct LakeConnection {
  catalog::ExternalCatalogConfig config;
  std::unique_ptr<iceberg::Catalog> catalog;  // JdbcCatalog or RestCatalog
  std::unique_ptr<iceberg::ObjectStore> store;
  std::unique_ptr<iceberg::TableOperations> ops;
  uint64_t generation = 0;  // the store's generation() when opened: a later change of any catalog reopens it
};

class LakeCatalogs {
 public:
  // `cache_dir`: where data files fetched for SELECT are kept (inside the engine's scratch folder, the only place
  // DuckDB may read files); at most `cache_bytes` of them are kept between statements.
  LakeCatalogs(catalog::ExternalCatalogStore& store, std::string cache_dir, uint64_t cache_bytes);

  catalog::ExternalCatalogStore& store() { return store_; }
  bool IsExternalCatalog(const std::string& name) { return store_.Exists(name); }
  Result<std::shared_ptr<LakeConnection>> Connect(const std::string& name);
  void Forget(const std::string& name);
  const std::string& cache_dir() const { return cache_dir_; }
  uint64_t cache_bytes() const { return cache_bytes_; }
  // Serializes cache eviction and fetches (two statements fetching the same file write it once).
  std::mutex& cache_mutex() { return cache_mu_; }
  // Recent table care runs per table (catalog.db.t$care).
  LakeCareLog& care_log() { return care_log_; }

 private:
  catalog::ExternalCatalogStore& store_;
  std::string cache_dir_;
  uint64_t cache_bytes_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<LakeConnection>> open_;  // by lower-case name
  std::mutex cache_mu_;
  LakeCareLog care_log_;
};

}  // namespace sluice::lakehouse
