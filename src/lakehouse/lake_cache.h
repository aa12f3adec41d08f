#pragma once
// The local copies of Iceberg data files that DuckDB reads: SELECT (lake_read.*) and compaction (lake_rewrite.*)
// fetch a table's Parquet files over the catalog's S3 client into one bounded folder inside the engine's scratch
// folder, the only place the sandboxed DuckDB may read files. Callers hold LakeCatalogs::cache_mutex() around
// fetches and eviction.
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/object_store.h"
#include "lakehouse/lake_catalogs.h"

namespace sluice::lakehouse {

// The local path of the data file at `location`, fetched unless already cached (then marked recently used).
Result<std::string> FetchToCache(LakeCatalogs& lakes, iceberg::ObjectStore* store, const std::string& location);

// Keeps the folder under `max_bytes`: the least recently used files not in `needed` go first.
void EvictCache(const std::string& dir, uint64_t max_bytes, const std::vector<std::string>& needed);

}  // namespace sluice::lakehouse
