#pragma once
// ObjectStore: the files of an Iceberg table, addressed by their full location ("s3://bucket/key", as metadata
// writes them). S3ObjectStore goes through Sluice's S3 client (source/s3_client.h, path-style, SigV4, retries);
// LocalObjectStore takes "file:///path" and plain paths, for tests and single-machine tables.
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "source/volume.h"

namespace sluice::source {
class S3Client;
}

namespace sluice::iceberg {

// One file found by List: its full location ("s3://bucket/key"), size and last-modified time.
struct StoredObject {
  std::string location;
  int64_t size = 0;
  int64_t last_modified_ms = 0;
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;
  virtual Result<std::string> Get(const std::string& location) = 0;
  virtual Status Put(const std::string& location, const std::string& bytes) = 0;
  virtual Status PutFile(const std::string& location, const std::string& local_path) = 0;
  virtual Status Delete(const std::string& location) = 0;
  // Every file whose location starts with `prefix` ("s3://bucket/table/"), at any depth: what orphan-file removal
  // compares with the metadata.
  virtual Result<std::vector<StoredObject>> List(const std::string& prefix) = 0;
};

// "s3://bucket/a/b" or "s3a://bucket/a/b" -> bucket, key ("a/b").
Status SplitS3Location(const std::string& location, std::string* bucket, std::string* key);

class S3ObjectStore : public ObjectStore {
 public:
  explicit S3ObjectStore(source::S3Credentials credentials);
  ~S3ObjectStore() override;
  Result<std::string> Get(const std::string& location) override;
  Status Put(const std::string& location, const std::string& bytes) override;
  Status PutFile(const std::string& location, const std::string& local_path) override;
  Status Delete(const std::string& location) override;
  Result<std::vector<StoredObject>> List(const std::string& prefix) override;

 private:
  std::unique_ptr<source::S3Client> client_;
};

class LocalObjectStore : public ObjectStore {
 public:
  Result<std::string> Get(const std::string& location) override;
  Status Put(const std::string& location, const std::string& bytes) override;
  Status PutFile(const std::string& location, const std::string& local_path) override;
  Status Delete(const std::string& location) override;
  Result<std::vector<StoredObject>> List(const std::string& prefix) override;
};

Result<std::string> ReadLocalFile(const std::string& path);

}  // namespace sluice::iceberg
