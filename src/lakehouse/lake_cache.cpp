#include "lakehouse/lake_cache.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>

#include "iceberg/ids.h"

namespace sluice::lakehouse {

namespace fs = std::filesystem;

namespace {

// A cache file name for a data file's location: readable tail plus a hash, so two locations never share one.
std::string CacheName(const std::string& location) {
  std::string tail;
  for (char c : location.substr(location.size() > 60 ? location.size() - 60 : 0))
    tail += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ? c : '_';
  return std::to_string(std::hash<std::string>{}(location)) + "-" + tail;
}

}  // namespace

// Keeps the cache under its bound: the least recently used files that this statement does not need go first.
void EvictCache(const std::string& dir, uint64_t max_bytes, const std::vector<std::string>& needed) {
  std::vector<std::pair<fs::file_time_type, fs::path>> files;
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec)) continue;
    total += e.file_size(ec);
    files.emplace_back(e.last_write_time(ec), e.path());
  }
  if (total <= max_bytes) return;
  std::sort(files.begin(), files.end());
  for (const auto& [time, path] : files) {
    if (total <= max_bytes) break;
    if (std::find(needed.begin(), needed.end(), path.string()) != needed.end()) continue;
    uint64_t size = fs::file_size(path, ec);
    if (fs::remove(path, ec)) total -= size;
  }
}

Result<std::string> FetchToCache(LakeCatalogs& lakes, iceberg::ObjectStore* store, const std::string& location) {
  const std::string local = (fs::path(lakes.cache_dir()) / CacheName(location)).string();
  std::error_code ec;
  if (fs::exists(local, ec)) {
    fs::last_write_time(local, fs::file_time_type::clock::now(), ec);  // recently used
    return local;
  }
  ASSIGN_OR_RETURN(std::string bytes, store->Get(location));
  const std::string tmp = local + ".part-" + iceberg::NewUuid();
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) return Status::IoError("cannot write the cached copy of " + location + " under " + lakes.cache_dir());
  }
  fs::rename(tmp, local, ec);
  if (ec) return Status::IoError("cannot keep the cached copy of " + location + ": " + ec.message());
  return local;
}

}  // namespace sluice::lakehouse
