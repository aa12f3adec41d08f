#include "iceberg/object_store.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "iceberg/ids.h"
#include "source/s3_client.h"

namespace sluice::iceberg {
namespace {

std::string LocalPath(const std::string& location) {
  return location.rfind("file://", 0) == 0 ? location.substr(7) : location;
}

}  // namespace

Result<std::string> ReadLocalFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(fmt::format("cannot open {}", path));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return Status::IoError(fmt::format("cannot read {}", path));
  return buf.str();
}

Status SplitS3Location(const std::string& location, std::string* bucket, std::string* key) {
  size_t scheme = location.find("://");
  std::string s = scheme == std::string::npos ? "" : location.substr(0, scheme);
  if (s != "s3" && s != "s3a" && s != "s3n") {
    return Status::InvalidArgument(fmt::format("'{}' is not an s3:// location", location));
  }
  std::string rest = location.substr(scheme + 3);
  size_t slash = rest.find('/');
  if (slash == std::string::npos || slash == 0) {
    return Status::InvalidArgument(fmt::format("'{}' names no object: use s3://bucket/path", location));
  }
  *bucket = rest.substr(0, slash);
  *key = rest.substr(slash + 1);
  return Status::Ok();
}

S3ObjectStore::S3ObjectStore(source::S3Credentials credentials)
    : client_(std::make_unique<source::S3Client>(std::move(credentials))) {}
S3ObjectStore::~S3ObjectStore() = default;

Result<std::string> S3ObjectStore::Get(const std::string& location) {
  std::string bucket, key;
  RETURN_IF_ERROR(SplitS3Location(location, &bucket, &key));
  // The client downloads whole-or-nothing into a file; small metadata files are read back from it.
  std::string tmp = (std::filesystem::temp_directory_path() / ("sluice-iceberg-" + NewUuid())).string();
  Status st = client_->GetToFile(bucket, key, tmp);
  if (!st.ok()) return st;
  auto bytes = ReadLocalFile(tmp);
  ::unlink(tmp.c_str());
  return bytes;
}

Status S3ObjectStore::Put(const std::string& location, const std::string& bytes) {
  std::string bucket, key;
  RETURN_IF_ERROR(SplitS3Location(location, &bucket, &key));
  return client_->Put(bucket, key, bytes);
}

Status S3ObjectStore::PutFile(const std::string& location, const std::string& local_path) {
  ASSIGN_OR_RETURN(std::string bytes, ReadLocalFile(local_path));
  return Put(location, bytes);
}

Status S3ObjectStore::Delete(const std::string& location) {
  std::string bucket, key;
  RETURN_IF_ERROR(SplitS3Location(location, &bucket, &key));
  return client_->Delete(bucket, key);
}

Result<std::string> LocalObjectStore::Get(const std::string& location) {
  std::string path = LocalPath(location);
  if (!std::filesystem::exists(path)) return Status::NotFound(fmt::format("{} does not exist", path));
  return ReadLocalFile(path);
}

Status LocalObjectStore::Put(const std::string& location, const std::string& bytes) {
  std::filesystem::path path = LocalPath(location);
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  std::string tmp = path.string() + ".tmp-" + NewUuid();
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) return Status::IoError(fmt::format("cannot write {}", tmp));
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Status::IoError(fmt::format("cannot move {} to {}: {}", tmp, path.string(), ec.message()));
  return Status::Ok();
}

Status LocalObjectStore::PutFile(const std::string& location, const std::string& local_path) {
  ASSIGN_OR_RETURN(std::string bytes, ReadLocalFile(local_path));
  return Put(location, bytes);
}

Status LocalObjectStore::Delete(const std::string& location) {
  std::error_code ec;
  std::filesystem::remove(LocalPath(location), ec);
  return Status::Ok();
}

Result<std::vector<StoredObject>> S3ObjectStore::List(const std::string& prefix) {
  std::string bucket, key;
  RETURN_IF_ERROR(SplitS3Location(prefix, &bucket, &key));
  const std::string scheme = prefix.substr(0, prefix.find("://") + 3);
  ASSIGN_OR_RETURN(auto objects, client_->ListAll(bucket, key, ""));
  std::vector<StoredObject> out;
  for (const auto& o : objects) out.push_back(StoredObject{scheme + bucket + "/" + o.key, o.size, o.last_modified_ms});
  return out;
}

Result<std::vector<StoredObject>> LocalObjectStore::List(const std::string& prefix) {
  namespace fs = std::filesystem;
  const bool file_scheme = prefix.rfind("file://", 0) == 0;
  const std::string path = LocalPath(prefix);
  // The folder the prefix names or ends inside of, walked whole; names are matched against the prefix.
  fs::path root = path.empty() || path.back() == '/' ? fs::path(path) : fs::path(path).parent_path();
  std::vector<StoredObject> out;
  std::error_code ec;
  if (!fs::exists(root, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string p = it->path().string();
    if (p.rfind(path, 0) != 0) continue;
    auto mtime = fs::last_write_time(it->path(), ec);
    const auto sys = std::chrono::time_point_cast<std::chrono::milliseconds>(
        mtime - fs::file_time_type::clock::now() + std::chrono::system_clock::now());
    out.push_back(StoredObject{(file_scheme ? "file://" : "") + p, static_cast<int64_t>(it->file_size(ec)),
                               sys.time_since_epoch().count()});
  }
  if (ec) return Status::IoError("cannot list " + prefix + ": " + ec.message());
  return out;
}

}  // namespace sluice::iceberg
