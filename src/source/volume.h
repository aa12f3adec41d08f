#pragma once
// Volumes: folders of files to load, on the local disk (file:///abs/path/) or in S3-compatible object storage
// (s3://bucket/prefix/, through S3Client). A VolumeReader lists a volume's files, brings one to a local file
// DuckDB can read, and deletes one (for pipes that purge what they loaded). Used by COPY INTO, DIRECTORY(vol)
// and volume pipes alike.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace sluice::source {

struct VolumeLocation {
  enum class Scheme { kFile, kS3 };
  Scheme scheme = Scheme::kFile;
  std::string url;     // as given, normalized to end with '/'
  std::string path;    // kFile: the absolute directory, ending with '/'
  std::string bucket;  // kS3
  std::string prefix;  // kS3: the key prefix, empty or ending with '/'
};

// Accepts file:///abs/path[/] and s3://bucket[/prefix[/]]; anything else is InvalidArgument naming the schemes.
Result<VolumeLocation> ParseVolumeLocation(const std::string& url);

// How to reach an S3-compatible service. `access_key` is secret: never logged, never in a message.
struct S3Credentials {
  std::string endpoint;  // "https://s3.us-east-1.amazonaws.com", "http://127.0.0.1:4568"; no scheme -> https
  std::string region = "us-east-1";
  std::string access_id;
  std::string access_key;
};

struct VolumeFile {
  std::string path;               // relative to the volume's location, '/'-separated
  int64_t size = 0;               // bytes
  int64_t last_modified_ms = 0;   // since the epoch
  std::string etag;               // S3's ETag without quotes; empty for local files
};

// Files still being written by their producer: a name (any path component) starting with '.' or '_temporary'.
bool IsHiddenVolumePath(const std::string& relative_path);

class VolumeReader {
 public:
  virtual ~VolumeReader() = default;
  // Files under `subdirectory` (relative, empty = the whole volume), sorted by path; hidden ones skipped. When
  // not `recursive`, only the files directly in that directory.
  virtual Result<std::vector<VolumeFile>> List(const std::string& subdirectory, bool recursive) = 0;
  // A local path DuckDB can read the file at: the file itself for local volumes; for S3 the object downloaded into
  // `scratch_dir` (the caller removes it), whole: the version listed, with the size listed. Errors a caller acts on:
  // NotFound (the file is gone since it was listed), Conflict (it changed since), Unavailable / Timeout (the store
  // cannot be reached or broke off, after the client's own retries), AccessDenied.
  virtual Result<std::string> Fetch(const VolumeFile& file, const std::string& scratch_dir) = 0;
  // Whether Fetch copies (the caller then deletes the returned path).
  virtual bool FetchCopies() const = 0;
  virtual Status Delete(const VolumeFile& file) = 0;
};

// `credentials` is required for s3:// locations and ignored for file:// ones.
Result<std::unique_ptr<VolumeReader>> OpenVolume(const VolumeLocation& location,
                                                 const std::optional<S3Credentials>& credentials);

}  // namespace sluice::source
