#include "format/schema_registry.h"

#include "common/egress_curl.h"
#include "common/secret_redaction.h"

#include <curl/curl.h>

#include <nlohmann/json.hpp>

namespace sluice::format {

namespace {

constexpr long kConnectTimeoutMs = 5000;
constexpr long kRequestTimeoutMs = 15000;
constexpr size_t kMaxResponseBytes = 16 << 20;  // a schema is a few KB; this only bounds a misbehaving server

size_t AppendBody(char* data, size_t size, size_t n, void* user) {
  auto* body = static_cast<std::string*>(user);
  if (body->size() + size * n > kMaxResponseBytes) return 0;  // makes curl fail with CURLE_WRITE_ERROR
  body->append(data, size * n);
  return size * n;
}

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace


std::shared_ptr<SchemaRegistry> SchemaRegistry::ForUrl(const std::string& url) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::shared_ptr<SchemaRegistry>> clients;
  std::lock_guard<std::mutex> lock(mu);
  auto& client = clients[url];
  if (!client) client = std::make_shared<SchemaRegistry>(url);
  return client;
}

SchemaRegistry::SchemaRegistry(std::string url) : url_(std::move(url)), display_url_(StripUrlCredentials(url_)) {
  while (!url_.empty() && url_.back() == '/') url_.pop_back();
  while (!display_url_.empty() && display_url_.back() == '/') display_url_.pop_back();
}

Result<std::string> SchemaRegistry::Get(int32_t id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = cache_.find(id); it != cache_.end()) return it->second;
  }
  InitCurlOnce();
  const std::string where = "schema registry " + display_url_ + " (schema id " + std::to_string(id) + ")";
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) return Status::Internal("could not create an HTTP client for the " + where);
  std::string body;
  char error[CURL_ERROR_SIZE] = {0};
  const std::string request = url_ + "/schemas/ids/" + std::to_string(id);
  curl_easy_setopt(curl.get(), CURLOPT_URL, request.c_str());  // credentials in the URL become basic auth
  curl_easy_setopt(curl.get(), CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT_MS, kConnectTimeoutMs);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, kRequestTimeoutMs);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, &AppendBody);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl.get(), CURLOPT_PROTOCOLS_STR, "http,https");
  const std::string host = egress::UrlHostPort(url_, 80).host;
  egress::GuardCurlEgress(curl.get(), &host);
  curl_slist* headers = curl_slist_append(nullptr, "Accept: application/vnd.schemaregistry.v1+json, application/json");
  curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers);
  CURLcode rc = curl_easy_perform(curl.get());
  curl_slist_free_all(headers);
  if (rc != CURLE_OK) {
    // curl's messages name the host, never the credentials.
    return Status::Unavailable("could not reach the " + where + ": " + (error[0] ? error : curl_easy_strerror(rc)));
  }
  long http = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &http);
  if (http == 404) return Status::NotFound("schema id " + std::to_string(id) + " is not in the schema registry " + display_url_);
  if (http >= 500 || http == 429 || http == 408)
    return Status::Unavailable("the " + where + " answered HTTP " + std::to_string(http));
  if (http == 401 || http == 403)
    return Status::InvalidArgument("the " + where + " refused the request (HTTP " + std::to_string(http) +
                                   "); check the key and secret in \"confluent.schema.registry.url\"");
  if (http != 200)
    return Status::InvalidArgument("the " + where + " answered HTTP " + std::to_string(http) +
                                   "; check \"confluent.schema.registry.url\"");
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("schema") || !j["schema"].is_string())
    return Status::InvalidArgument("the " + where + " answered something that is not a schema (no \"schema\" string); "
                                   "check \"confluent.schema.registry.url\"");
  if (j.contains("schemaType") && j["schemaType"].is_string() && j["schemaType"].get<std::string>() != "AVRO")
    return Status::NotSupported("schema id " + std::to_string(id) + " is a " + j["schemaType"].get<std::string>() +
                                " schema, not Avro");
  std::string schema = j["schema"].get<std::string>();
  std::lock_guard<std::mutex> lock(mu_);
  cache_.emplace(id, schema);
  return schema;
}

}  // namespace sluice::format
