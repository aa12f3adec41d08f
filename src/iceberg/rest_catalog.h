#pragma once
// RestCatalog: a client of the Iceberg REST catalog API (apache/iceberg open-api/rest-catalog-open-api.yaml), the
// catalog Polaris, Nessie, Gravitino, Unity, Tabular and Iceberg's own REST server speak, over libcurl.
//
//   GET    /v1/config?warehouse=...                      once, at Connect: the path prefix ("overrides" win)
//   GET    /v1/{prefix}/namespaces                       list (all pages)
//   POST   /v1/{prefix}/namespaces                       create
//   GET    /v1/{prefix}/namespaces/{ns}                  exists (404: no)
//   DELETE /v1/{prefix}/namespaces/{ns}                  drop (409 / 400 when it has tables)
//   GET    /v1/{prefix}/namespaces/{ns}/tables           list
//   POST   /v1/{prefix}/namespaces/{ns}/tables           create (the server writes the first metadata.json)
//   GET    /v1/{prefix}/namespaces/{ns}/tables/{table}   load: metadata-location and metadata
//   POST   /v1/{prefix}/namespaces/{ns}/tables/{table}   commit: requirements + updates (rest_requests.h)
//   DELETE /v1/{prefix}/namespaces/{ns}/tables/{table}   drop (purgeRequested=false: the files stay)
//
// The server writes each metadata.json (WritesMetadata): a commit sends what changed from the version the writer
// loaded, and the answer carries the new metadata, which is used as is. 409 on a commit is a conflict (the
// requirement assert-ref-snapshot-id failed: another writer committed); 500, 502, 503 and 504 leave the outcome
// unknown (the spec's CommitStateUnknown) and are errors, like every other answer, with the server's message.
// An optional bearer token (given, or obtained with OAuth2 client credentials) goes in every request's Authorization
// header and nowhere else (never in messages).
#include <memory>
#include <mutex>
#include <string>

#include "iceberg/catalog.h"

namespace sluice::iceberg {

struct RestCatalogOptions {
  std::string uri;        // http(s)://host:port[/path], without the /v1
  std::string warehouse;  // sent to /v1/config when not empty
  std::string token;      // bearer token, "" for none
  // OAuth2 client credentials "client_id:client_secret" (or just a secret), exchanged at POST /v1/oauth/tokens
  // (grant_type=client_credentials, scope=catalog, as Iceberg's Java client does) for the bearer token; fetched
  // again once when the server answers 401 (the token expired). "" for none; `token` wins when both are given.
  std::string credential;
};

// The statement-time checks of a REST catalog URI: http or https, a host, and the egress allow list.
Status CheckRestCatalogUri(const std::string& uri);

class RestCatalog : public Catalog {
 public:
  // Asks the server's /v1/config for the path prefix: an unreachable or refusing server is an error now.
  static Result<std::unique_ptr<RestCatalog>> Connect(const RestCatalogOptions& options);

  Result<std::string> LoadTable(const TableIdent& table) override;
  // Tables are created and committed through CreateTableVersion / CommitChange only (the server needs the
  // metadata, not a location): these two answer Internal.
  Status CreateTable(const TableIdent& table, const std::string& metadata_location) override;
  Result<CommitOutcome> CommitTable(const TableIdent& table, const std::string& expected_metadata_location,
                                    const std::string& new_metadata_location) override;
  Status CreateNamespace(const std::vector<std::string>& ns) override;
  Result<bool> NamespaceExists(const std::vector<std::string>& ns) override;
  Result<std::vector<std::string>> ListNamespaces() override;
  Status DropNamespace(const std::vector<std::string>& ns) override;
  Result<std::vector<TableIdent>> ListTables(const std::vector<std::string>& ns) override;
  Status DropTable(const TableIdent& table) override;

  bool WritesMetadata() const override { return true; }
  Result<TableVersion> LoadTableVersion(const TableIdent& table) override;
  Result<TableVersion> CreateTableVersion(const TableIdent& table, const TableMetadata& metadata,
                                          const std::string& metadata_location) override;
  Result<CommitResult> CommitChange(const TableIdent& table, const TableChange& change) override;

  const std::string& prefix() const { return prefix_; }

 private:
  struct Response {
    long status = 0;
    std::string body;
  };
  explicit RestCatalog(RestCatalogOptions options) : options_(std::move(options)), token_(options_.token) {}
  // One request to `path` (after the URI, starting with /v1), with the bearer token; a 401 with client credentials
  // fetches a new token and tries once more. A failure to reach the server is Unavailable.
  Result<Response> Send(const std::string& method, const std::string& path, const std::string& body = "");
  Result<Response> SendOnce(const std::string& method, const std::string& path, const std::string& body,
                            const std::string& content_type, const std::string& token);
  // Exchanges the client credentials for a bearer token (POST /v1/oauth/tokens).
  Status FetchToken();
  // "/v1/{prefix}" or "/v1".
  std::string Base() const;
  std::string TablePath(const TableIdent& table) const;
  // An error for an answer other than the expected ones: the status, the server's error type and message.
  Status ErrorOf(const Response& r, const std::string& what) const;

  RestCatalogOptions options_;
  std::string prefix_;
  std::mutex token_mu_;
  std::string token_;  // guarded by token_mu_
};

}  // namespace sluice::iceberg
