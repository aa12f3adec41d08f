#pragma once
// A Confluent schema registry client: the writer schema of an Avro message by its id, fetched once with
// `GET <url>/schemas/ids/<id>` (libcurl) and cached for the life of the process. Basic-auth credentials in the
// URL (`http://key:secret@host:port`) are sent with every request and appear in no message: errors and logs name
// the registry by its URL without them (`StripUrlCredentials`, common/secret_redaction.h).
//
// Thread-safe: every task of every job that names the same URL shares one client and its cache.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "common/status.h"

namespace sluice::format {

class SchemaRegistry {
 public:
  // The shared client of `url` (created on first use).
  static std::shared_ptr<SchemaRegistry> ForUrl(const std::string& url);

  explicit SchemaRegistry(std::string url);

  // The schema's JSON text. Outcomes, by what the caller should do:
  // - NotFound: the registry does not know the id (HTTP 404): the message that named it is an error row.
  // - Unavailable: the registry could not be reached, timed out or answered 5xx/429: retry later.
  // - InvalidArgument: the registry refused the request (401/403, other 4xx) or answered something that is not
  //   a schema: a configuration problem; the message says which.
  // Only successes are cached.
  Result<std::string> Get(int32_t id);

  const std::string& display_url() const { return display_url_; }

 private:
  std::string url_;          // with credentials, never shown
  std::string display_url_;  // without them
  std::mutex mu_;
  std::unordered_map<int32_t, std::string> cache_;
};

}  // namespace sluice::format
