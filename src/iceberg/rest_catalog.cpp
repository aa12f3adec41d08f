#include "iceberg/rest_catalog.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <nlohmann/json.hpp>

#include "common/egress_curl.h"
#include "common/secret_redaction.h"
#include "iceberg/metadata_json.h"
#include "iceberg/rest_requests.h"

namespace sluice::iceberg {
namespace {

using json = nlohmann::json;

constexpr long kConnectTimeoutMs = 10000;
constexpr long kRequestTimeoutMs = 60000;
constexpr size_t kMaxResponseBytes = 64u << 20;  // a table's metadata with a long history, with room to spare

size_t AppendBody(char* data, size_t size, size_t n, void* userp) {
  auto* body = static_cast<std::string*>(userp);
  if (body->size() + size * n > kMaxResponseBytes) return 0;
  body->append(data, size * n);
  return size * n;
}

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string Levels(const std::vector<std::string>& ns) {
  std::string out;
  for (size_t i = 0; i < ns.size(); i++) out += (i ? "." : "") + ns[i];
  return out;
}

// A LoadTableResult / CommitTableResponse: the metadata location and the metadata, parsed.
Result<TableVersion> VersionOf(const std::string& body, const std::string& what) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("metadata") || !j["metadata"].is_object())
    return Status::InvalidArgument(what + ": the REST catalog's answer has no \"metadata\" object");
  TableVersion v;
  if (j.contains("metadata-location") && j["metadata-location"].is_string())
    v.metadata_location = j["metadata-location"].get<std::string>();
  ASSIGN_OR_RETURN(TableMetadata m, ParseMetadataJson(j["metadata"].dump(), what + " (REST catalog metadata)"));
  v.metadata = std::move(m);
  return v;
}

}  // namespace

Status CheckRestCatalogUri(const std::string& uri) {
  const bool http = uri.rfind("http://", 0) == 0, https = uri.rfind("https://", 0) == 0;
  if (!http && !https)
    return Status::InvalidArgument("\"iceberg.catalog.uri\" of a REST catalog must be an http:// or https:// URL "
                                   "such as 'http://rest-catalog:8181', not '" + RedactSecrets(uri) + "'");
  if (egress::UrlHostPort(uri, http ? 80 : 443).host.empty())
    return Status::InvalidArgument("\"iceberg.catalog.uri\" names no host: '" + RedactSecrets(uri) + "'");
  return egress::CheckEgressUrl("Iceberg REST catalog", uri, http ? 80 : 443);
}

Result<std::unique_ptr<RestCatalog>> RestCatalog::Connect(const RestCatalogOptions& options) {
  RETURN_IF_ERROR(CheckRestCatalogUri(options.uri));
  auto catalog = std::unique_ptr<RestCatalog>(new RestCatalog(options));
  while (!catalog->options_.uri.empty() && catalog->options_.uri.back() == '/') catalog->options_.uri.pop_back();
  std::string path = "/v1/config";
  if (!options.warehouse.empty()) path += "?warehouse=" + RestEscape(options.warehouse);
  ASSIGN_OR_RETURN(Response r, catalog->Send("GET", path));
  if (r.status != 200) return catalog->ErrorOf(r, "reading its configuration (GET /v1/config)");
  json j = json::parse(r.body, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Status::InvalidArgument("the REST catalog's /v1/config answer is not a JSON object: is " +
                                   RedactSecrets(options.uri) + " an Iceberg REST catalog?");
  // Defaults first, overrides win (the spec's order); "prefix" is the only setting the client needs.
  for (const char* part : {"defaults", "overrides"}) {
    if (j.contains(part) && j[part].is_object() && j[part].contains("prefix") && j[part]["prefix"].is_string())
      catalog->prefix_ = j[part]["prefix"].get<std::string>();
  }
  return catalog;
}

std::string RestCatalog::Base() const { return prefix_.empty() ? "/v1" : "/v1/" + prefix_; }

std::string RestCatalog::TablePath(const TableIdent& table) const {
  return Base() + "/namespaces/" + RestNamespacePath(table.ns) + "/tables/" + RestEscape(table.name);
}

Result<RestCatalog::Response> RestCatalog::Send(const std::string& method, const std::string& path,
                                                const std::string& body) {
  std::string token;
  {
    std::lock_guard<std::mutex> lock(token_mu_);
    token = token_;
  }
  const bool oauth = options_.token.empty() && !options_.credential.empty();
  if (oauth && token.empty()) {
    RETURN_IF_ERROR(FetchToken());
    std::lock_guard<std::mutex> lock(token_mu_);
    token = token_;
  }
  ASSIGN_OR_RETURN(Response r, SendOnce(method, path, body, "application/json", token));
  if (r.status != 401 || !oauth) return r;
  // The token may have expired: one new one, one more try.
  RETURN_IF_ERROR(FetchToken());
  {
    std::lock_guard<std::mutex> lock(token_mu_);
    token = token_;
  }
  return SendOnce(method, path, body, "application/json", token);
}

Status RestCatalog::FetchToken() {
  const size_t colon = options_.credential.find(':');
  const std::string id = colon == std::string::npos ? "" : options_.credential.substr(0, colon);
  const std::string secret = colon == std::string::npos ? options_.credential : options_.credential.substr(colon + 1);
  std::string form = "grant_type=client_credentials&scope=catalog&client_secret=" + RestEscape(secret);
  if (!id.empty()) form += "&client_id=" + RestEscape(id);
  ASSIGN_OR_RETURN(Response r, SendOnce("POST", "/v1/oauth/tokens", form, "application/x-www-form-urlencoded", ""));
  if (r.status != 200) {
    Status st = ErrorOf(r, "exchanging the client credentials for a token (POST /v1/oauth/tokens)");
    if (r.status == 400 || r.status == 401 || r.status == 403)
      return Status::AccessDenied(st.message() + " (check \"iceberg.catalog.credential\")");
    return st;
  }
  json j = json::parse(r.body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("access_token") || !j["access_token"].is_string())
    return Status::InvalidArgument("the REST catalog's /v1/oauth/tokens answer has no \"access_token\"");
  std::lock_guard<std::mutex> lock(token_mu_);
  token_ = j["access_token"].get<std::string>();
  return Status::Ok();
}

Result<RestCatalog::Response> RestCatalog::SendOnce(const std::string& method, const std::string& path,
                                                    const std::string& body, const std::string& content_type,
                                                    const std::string& token) {
  InitCurlOnce();
  const std::string display = RedactSecrets(options_.uri);
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) return Status::Internal("could not create an HTTP client for the REST catalog " + display);
  Response response;
  char error[CURL_ERROR_SIZE] = {0};
  const std::string url = options_.uri + path;
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT_MS, kConnectTimeoutMs);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, kRequestTimeoutMs);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, &AppendBody);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl.get(), CURLOPT_PROTOCOLS_STR, "http,https");
  const std::string host = egress::UrlHostPort(options_.uri, 80).host;
  egress::GuardCurlEgress(curl.get(), &host);
  if (method == "POST") {
    curl_easy_setopt(curl.get(), CURLOPT_POST, 1L);
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  } else if (method != "GET") {
    curl_easy_setopt(curl.get(), CURLOPT_CUSTOMREQUEST, method.c_str());
  }
  curl_slist* headers = curl_slist_append(nullptr, "Accept: application/json");
  const std::string content = "Content-Type: " + content_type;
  if (method == "POST") headers = curl_slist_append(headers, content.c_str());
  std::string auth;
  if (!token.empty()) {
    auth = "Authorization: Bearer " + token;
    headers = curl_slist_append(headers, auth.c_str());
  }
  curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers);
  CURLcode rc = curl_easy_perform(curl.get());
  curl_slist_free_all(headers);
  if (rc != CURLE_OK) {
    return Status::Unavailable(fmt::format("could not reach the Iceberg REST catalog {} ({} {}): {}", display, method,
                                           path, error[0] ? error : curl_easy_strerror(rc)));
  }
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

Status RestCatalog::ErrorOf(const Response& r, const std::string& what) const {
  std::string detail;
  json j = json::parse(r.body, nullptr, false);
  if (!j.is_discarded() && j.is_object() && j.contains("error") && j["error"].is_object()) {
    const json& e = j["error"];
    std::string type = e.contains("type") && e["type"].is_string() ? e["type"].get<std::string>() : "";
    std::string message = e.contains("message") && e["message"].is_string() ? e["message"].get<std::string>() : "";
    detail = type.empty() ? message : type + ": " + message;
  }
  if (detail.empty()) detail = r.body.substr(0, 200);
  const std::string text = fmt::format("the Iceberg REST catalog {} answered HTTP {} {}{}{}", RedactSecrets(options_.uri),
                                       r.status, what, detail.empty() ? "" : ": ", detail);
  if (r.status == 401 || r.status == 403)
    return Status::AccessDenied(text + " (check \"iceberg.catalog.token\" or \"iceberg.catalog.credential\")");
  if (r.status >= 500 || r.status == 429 || r.status == 408) return Status::Unavailable(text);
  return Status::InvalidArgument(text);
}

Result<TableVersion> RestCatalog::LoadTableVersion(const TableIdent& table) {
  ASSIGN_OR_RETURN(Response r, Send("GET", TablePath(table)));
  if (r.status == 404)
    return Status::UnknownTable(fmt::format("Iceberg table {} is not in the REST catalog", table.ToString()));
  if (r.status != 200) return ErrorOf(r, "loading table " + table.ToString());
  return VersionOf(r.body, "Iceberg table " + table.ToString());
}

Result<std::string> RestCatalog::LoadTable(const TableIdent& table) {
  ASSIGN_OR_RETURN(TableVersion v, LoadTableVersion(table));
  return v.metadata_location;
}

Status RestCatalog::CreateTable(const TableIdent& table, const std::string&) {
  return Status::Internal("a REST catalog creates table " + table.ToString() + " from its metadata "
                          "(CreateTableVersion), not from a location");
}

Result<CommitOutcome> RestCatalog::CommitTable(const TableIdent& table, const std::string&, const std::string&) {
  return Status::Internal("a REST catalog commits table " + table.ToString() + " from its changes (CommitChange), "
                          "not by swapping locations");
}

Result<TableVersion> RestCatalog::CreateTableVersion(const TableIdent& table, const TableMetadata& metadata,
                                                     const std::string&) {
  const std::string body = RestCreateTableBody(table.name, metadata, metadata.location);
  ASSIGN_OR_RETURN(Response r, Send("POST", Base() + "/namespaces/" + RestNamespacePath(table.ns) + "/tables", body));
  if (r.status == 409) return Status::TableExists(fmt::format("Iceberg table {} already exists", table.ToString()));
  if (r.status == 404)
    return Status::UnknownDatabase(
        fmt::format("Iceberg namespace {} does not exist in the REST catalog: create it first", Levels(table.ns)));
  if (r.status != 200) return ErrorOf(r, "creating table " + table.ToString());
  return VersionOf(r.body, "Iceberg table " + table.ToString());
}

Result<CommitResult> RestCatalog::CommitChange(const TableIdent& table, const TableChange& change) {
  // RunsGuards is false: a writer fences before the commit instead, and never hands guards here.
  if (change.guards && !change.guards->empty())
    return Status::Internal("Iceberg table " + table.ToString() + ": a REST catalog cannot check a commit's guards");
  ASSIGN_OR_RETURN(std::string body, RestCommitBody(table, change.base, change.next));
  ASSIGN_OR_RETURN(Response r, Send("POST", TablePath(table), body));
  CommitResult result;
  if (r.status == 409) {  // CommitFailedException: a requirement failed
    result.outcome = CommitOutcome::kConflict;
    return result;
  }
  if (r.status == 404)
    return Status::UnknownTable(fmt::format("Iceberg table {} is not in the REST catalog any more", table.ToString()));
  if (r.status != 200) return ErrorOf(r, "committing to table " + table.ToString());
  ASSIGN_OR_RETURN(result.committed, VersionOf(r.body, "Iceberg table " + table.ToString()));
  result.outcome = CommitOutcome::kCommitted;
  return result;
}

Status RestCatalog::CreateNamespace(const std::vector<std::string>& ns) {
  json body = {{"namespace", ns}, {"properties", json::object()}};
  ASSIGN_OR_RETURN(Response r, Send("POST", Base() + "/namespaces", body.dump()));
  if (r.status == 409) return Status::DatabaseExists("Iceberg namespace " + Levels(ns) + " already exists");
  if (r.status != 200) return ErrorOf(r, "creating namespace " + Levels(ns));
  return Status::Ok();
}

Result<bool> RestCatalog::NamespaceExists(const std::vector<std::string>& ns) {
  ASSIGN_OR_RETURN(Response r, Send("GET", Base() + "/namespaces/" + RestNamespacePath(ns)));
  if (r.status == 404) return false;
  if (r.status != 200) return ErrorOf(r, "looking up namespace " + Levels(ns));
  return true;
}

Result<std::vector<std::string>> RestCatalog::ListNamespaces() {
  std::vector<std::string> out;
  std::string token;
  for (int page = 0; page < 10000; page++) {
    std::string path = Base() + "/namespaces";
    if (!token.empty()) path += "?pageToken=" + RestEscape(token);
    ASSIGN_OR_RETURN(Response r, Send("GET", path));
    if (r.status != 200) return ErrorOf(r, "listing namespaces");
    json j = json::parse(r.body, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("namespaces") || !j["namespaces"].is_array())
      return Status::InvalidArgument("the REST catalog's namespace list has no \"namespaces\" array");
    for (const auto& n : j["namespaces"]) {
      if (!n.is_array()) continue;
      std::vector<std::string> levels;
      for (const auto& l : n)
        if (l.is_string()) levels.push_back(l.get<std::string>());
      out.push_back(Levels(levels));
    }
    token = j.contains("next-page-token") && j["next-page-token"].is_string() ? j["next-page-token"].get<std::string>()
                                                                              : "";
    if (token.empty()) break;
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status RestCatalog::DropNamespace(const std::vector<std::string>& ns) {
  ASSIGN_OR_RETURN(Response r, Send("DELETE", Base() + "/namespaces/" + RestNamespacePath(ns)));
  if (r.status == 404) return Status::UnknownDatabase("Iceberg namespace " + Levels(ns) + " does not exist");
  // Servers answer a namespace with tables with 409 (NamespaceNotEmptyException) or, older ones, 400.
  if (r.status == 409) return Status::InvalidArgument("Iceberg namespace " + Levels(ns) + " still has tables: drop them first");
  if (r.status != 204 && r.status != 200) return ErrorOf(r, "dropping namespace " + Levels(ns));
  return Status::Ok();
}

Result<std::vector<TableIdent>> RestCatalog::ListTables(const std::vector<std::string>& ns) {
  std::vector<TableIdent> out;
  std::string token;
  for (int page = 0; page < 10000; page++) {
    std::string path = Base() + "/namespaces/" + RestNamespacePath(ns) + "/tables";
    if (!token.empty()) path += "?pageToken=" + RestEscape(token);
    ASSIGN_OR_RETURN(Response r, Send("GET", path));
    if (r.status == 404) return Status::UnknownDatabase("Iceberg namespace " + Levels(ns) + " does not exist");
    if (r.status != 200) return ErrorOf(r, "listing the tables of namespace " + Levels(ns));
    json j = json::parse(r.body, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("identifiers") || !j["identifiers"].is_array())
      return Status::InvalidArgument("the REST catalog's table list has no \"identifiers\" array");
    for (const auto& id : j["identifiers"]) {
      if (!id.is_object() || !id.contains("name") || !id["name"].is_string()) continue;
      TableIdent t;
      t.name = id["name"].get<std::string>();
      if (id.contains("namespace") && id["namespace"].is_array())
        for (const auto& l : id["namespace"])
          if (l.is_string()) t.ns.push_back(l.get<std::string>());
      out.push_back(std::move(t));
    }
    token = j.contains("next-page-token") && j["next-page-token"].is_string() ? j["next-page-token"].get<std::string>()
                                                                              : "";
    if (token.empty()) break;
  }
  std::sort(out.begin(), out.end(), [](const TableIdent& a, const TableIdent& b) { return a.name < b.name; });
  return out;
}

Status RestCatalog::DropTable(const TableIdent& table) {
  ASSIGN_OR_RETURN(Response r, Send("DELETE", TablePath(table) + "?purgeRequested=false"));
  if (r.status == 404) return Status::UnknownTable("Iceberg table " + table.ToString() + " does not exist");
  if (r.status != 204 && r.status != 200) return ErrorOf(r, "dropping table " + table.ToString());
  return Status::Ok();
}

}  // namespace sluice::iceberg
