#pragma once
// S3Client: the S3 REST calls Sluice needs (ListObjectsV2, GetObject, PutObject, DeleteObject), signed with AWS
// Signature V4 by libcurl (CURLOPT_AWS_SIGV4, DESIGN.md decision 6) and addressed path-style
// (endpoint/bucket/key), which S3, MinIO, OSS/COS S3 endpoints and s3rver all accept. Listing XML is parsed with
// pugixml. The secret key is handed to libcurl only; messages carry the endpoint, bucket, key and S3's error code.
//
// Object stores fail in passing: a refused or cut connection, a stalled transfer, 500 / 503 SlowDown. Each call
// retries those itself a few times with a short jittered backoff (as the AWS SDKs do), so a blip costs a second, not
// a batch; what outlasts the retries is Unavailable / Timeout, and the scheduler backs off for longer. Answers that
// another try cannot change (403, 404, 400, a changed object) are returned at once.
#include <cstdint>
#include <functional>
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

// How every S3 request of the process rides out a flaky endpoint (sluice serve --s3-timeout-seconds,
// --s3-retries). Read when a client is made.
struct S3ClientSettings {
  int retries = 3;                  // tries after the first, for transient failures only
  int64_t first_backoff_ms = 200;   // before the first retry; doubled each time, with jitter
  int64_t max_backoff_ms = 3000;
  int64_t timeout_seconds = 30;     // no connection within min(this, 10 s), or under 1 KB/s for this long: stalled
};
// Set once at startup, before clients are made (tests and the server flags).
void SetS3ClientSettings(const S3ClientSettings& settings);
S3ClientSettings GetS3ClientSettings();

// Whether an HTTP status is worth another try: 5xx, 429 Too Many Requests, 408 Request Timeout.
bool IsTransientHttpStatus(long status);
// The pause before retry number `retry` (0 = the first retry): first_backoff_ms * 2^retry, capped, then a random
// part of it (between half and all), so clients that failed together do not retry together.
int64_t S3RetryBackoffMs(const S3ClientSettings& settings, int retry, double random01);

class S3Client {
 public:
  explicit S3Client(S3Credentials credentials);

  // Every object under `prefix` (all pages). With `delimiter` "/" only those directly under it.
  Result<std::vector<S3Object>> ListAll(const std::string& bucket, const std::string& prefix,
                                        const std::string& delimiter);
  Result<S3ListPage> ListPage(const std::string& bucket, const std::string& prefix, const std::string& delimiter,
                              const std::string& continuation_token, int max_keys = 1000);
  // Downloads the object into `local_path`, whole or not at all (on any error the file is removed). With
  // `expected_size` >= 0 the download must have exactly that many bytes; with `etag` the request carries If-Match,
  // so a store that honours it (S3, MinIO) serves only that version. NotFound: the object is gone. Conflict: it is
  // not the version listed any more (412, or another size). A body cut short is retried, then Unavailable.
  Status GetToFile(const std::string& bucket, const std::string& key, const std::string& local_path,
                   int64_t expected_size = -1, const std::string& etag = "");
  Status Put(const std::string& bucket, const std::string& key, const std::string& body);
  // An object that is already gone (404) counts as deleted.
  Status Delete(const std::string& bucket, const std::string& key);

 private:
  struct Request {
    std::string what;        // "listing s3://bucket/prefix", for messages
    std::string permission;  // the IAM action a 403 lacks, e.g. "s3:ListBucket"
    std::string bucket;
    std::string method;      // GET / PUT / DELETE
    std::string path;        // "/bucket/key", already encoded
    std::string query;       // canonical
    std::string body;
    std::string sink_file;   // a 2xx body goes there instead of into the response
    int64_t expected_size = -1;
    std::string if_match;    // an ETag without quotes
    // Checks a 2xx body held in memory; an error means the answer was not whole (transient: tried again).
    std::function<Status(const std::string& body)> check_body;
  };
  struct Response {
    long http_status = 0;
    std::string body;
    int64_t body_bytes = 0;       // bytes written to sink_file
    int64_t content_length = -1;  // as announced, -1 when not
    std::string etag;             // of the answer, without quotes; empty when none
  };
  struct Attempt {
    Result<Response> response = Status::Internal("not sent");
    bool transient = false;  // another try may succeed
  };
  // Sends with retries; a 2xx answer (or 404 when `not_found_ok`) is returned, anything else is the Status.
  Result<Response> Send(const Request& request, bool not_found_ok = false);
  Attempt SendOnce(const Request& request);
  Status HttpError(const Request& request, const Response& r) const;

  S3Credentials creds_;
  S3ClientSettings settings_;
  std::string base_;  // scheme://host[:port] without a trailing '/'
};

}  // namespace sluice::source
