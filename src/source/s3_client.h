#pragma once
// S3Client: the S3 REST calls Sluice needs (ListObjectsV2, GetObject, PutObject, DeleteObject), signed with AWS
// Signature V4 by libcurl (CURLOPT_AWS_SIGV4, DESIGN.md decision 6) and addressed path-style
// (endpoint/bucket/key), which S3, MinIO, OSS/COS S3 endpoints and s3rver all accept. Listing XML is parsed with
// pugixml. The secret key is handed to libcurl only; messages carry the endpoint, bucket, key and S3's error code.
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "source/volume.h"

namespace sluice::source {

struct S3Object {
  std::string key;
  int64_t size = 0;
  int64_t last_modified_ms = 0;
  std::string etag;  // without quotes
};

// One page of a ListObjectsV2 answer.
struct S3ListPage {
  std::vector<S3Object> objects;
  bool truncated = false;
  std::string next_continuation_token;
};

// Parses a ListObjectsV2 response body; an <Error> document or malformed XML is an error.
Result<S3ListPage> ParseListObjectsV2(const std::string& xml);
// "2024-05-01T10:20:30.000Z" -> milliseconds since the epoch.
Result<int64_t> ParseIso8601Ms(const std::string& text);
// Percent-encodes the way SigV4 canonicalizes: everything but A-Z a-z 0-9 - _ . ~ (and '/' when `keep_slash`).
std::string UriEncode(const std::string& s, bool keep_slash);
// The ListObjectsV2 query string with parameters sorted and encoded, so it is its own canonical form.
std::string ListObjectsQuery(const std::string& prefix, const std::string& delimiter,
                             const std::string& continuation_token, int max_keys);

class S3Client {
 public:
  explicit S3Client(S3Credentials credentials);

  // Every object under `prefix` (all pages). With `delimiter` "/" only those directly under it.
  Result<std::vector<S3Object>> ListAll(const std::string& bucket, const std::string& prefix,
                                        const std::string& delimiter);
  Result<S3ListPage> ListPage(const std::string& bucket, const std::string& prefix, const std::string& delimiter,
                              const std::string& continuation_token, int max_keys = 1000);
  Status GetToFile(const std::string& bucket, const std::string& key, const std::string& local_path);
  Status Put(const std::string& bucket, const std::string& key, const std::string& body);
  Status Delete(const std::string& bucket, const std::string& key);

 private:
  struct Response {
    long http_status = 0;
    std::string body;
  };
  // `method` GET/PUT/DELETE; `path` is "/bucket/key" already encoded; `query` canonical. When `sink_file` is set,
  // a 2xx body goes there instead of into the response.
  Result<Response> Send(const std::string& method, const std::string& path, const std::string& query,
                        const std::string& body, const std::string& sink_file);
  Status HttpError(const std::string& what, const Response& r) const;

  S3Credentials creds_;
  std::string base_;  // scheme://host[:port] without a trailing '/'
};

}  // namespace sluice::source
