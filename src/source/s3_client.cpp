#include "source/s3_client.h"

#include <curl/curl.h>
#include <openssl/sha.h>

#include <cstdio>
#include <ctime>
#include <memory>
#include <mutex>
#include <pugixml.hpp>

namespace sluice::source {

namespace {

std::string Sha256Hex(const std::string& data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : digest) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Writes a 2xx body to the file; any other body is kept in memory for the error message.
struct Sink {
  FILE* file = nullptr;
  std::string* memory = nullptr;
  CURL* curl = nullptr;
  bool write_failed = false;
};

size_t WriteToSink(char* data, size_t size, size_t n, void* user) {
  auto* sink = static_cast<Sink*>(user);
  long code = 0;
  curl_easy_getinfo(sink->curl, CURLINFO_RESPONSE_CODE, &code);
  if (sink->file && code >= 200 && code < 300) {
    if (fwrite(data, 1, size * n, sink->file) != size * n) {
      sink->write_failed = true;
      return 0;
    }
    return size * n;
  }
  sink->memory->append(data, size * n);
  return size * n;
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '/')) s.pop_back();
  return s;
}

std::string ObjectPath(const std::string& bucket, const std::string& key) {
  return "/" + UriEncode(bucket, false) + "/" + UriEncode(key, true);
}

}  // namespace

std::string UriEncode(const std::string& s, bool keep_slash) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                 c == '_' || c == '.' || c == '~' || (keep_slash && c == '/');
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string ListObjectsQuery(const std::string& prefix, const std::string& delimiter,
                             const std::string& continuation_token, int max_keys) {
  // Sorted by name: SigV4's canonical query string sorts parameters, and libcurl 7.88 signs the query as given.
  std::string q;
  if (!continuation_token.empty()) q += "continuation-token=" + UriEncode(continuation_token, false) + "&";
  if (!delimiter.empty()) q += "delimiter=" + UriEncode(delimiter, false) + "&";
  q += "list-type=2&max-keys=" + std::to_string(max_keys) + "&prefix=" + UriEncode(prefix, false);
  return q;
}

Result<int64_t> ParseIso8601Ms(const std::string& text) {
  std::tm tm{};
  int ms = 0;
  int year, mon, day, hour, min, sec;
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d", &year, &mon, &day, &hour, &min, &sec) != 6)
    return Status::InvalidArgument("not an ISO 8601 time: '" + text + "'");
  size_t dot = text.find('.');
  if (dot != std::string::npos) {
    int digits = 0;
    for (size_t i = dot + 1; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && digits < 3; i++) {
      ms = ms * 10 + (text[i] - '0');
      digits++;
    }
    while (digits++ < 3) ms *= 10;
  }
  tm.tm_year = year - 1900;
  tm.tm_mon = mon - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = min;
  tm.tm_sec = sec;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + ms;
}

Result<S3ListPage> ParseListObjectsV2(const std::string& xml) {
  pugi::xml_document doc;
  if (!doc.load_buffer(xml.data(), xml.size()))
    return Status::Internal("S3 answered a listing that is not XML (" + std::to_string(xml.size()) + " bytes)");
  if (auto err = doc.child("Error")) {
    return Status::InvalidArgument(std::string("S3 refused the listing: ") + err.child_value("Code") + ": " +
                                   err.child_value("Message"));
  }
  pugi::xml_node root = doc.child("ListBucketResult");
  if (!root) return Status::Internal("S3 answered a listing without ListBucketResult");
  S3ListPage page;
  page.truncated = std::string(root.child_value("IsTruncated")) == "true";
  page.next_continuation_token = root.child_value("NextContinuationToken");
  for (pugi::xml_node c : root.children("Contents")) {
    S3Object o;
    o.key = c.child_value("Key");
    o.size = std::strtoll(c.child_value("Size"), nullptr, 10);
    if (auto ms = ParseIso8601Ms(c.child_value("LastModified")); ms.ok()) o.last_modified_ms = *ms;
    o.etag = c.child_value("ETag");
    if (o.etag.size() >= 2 && o.etag.front() == '"' && o.etag.back() == '"') o.etag = o.etag.substr(1, o.etag.size() - 2);
    page.objects.push_back(std::move(o));
  }
  if (page.truncated && page.next_continuation_token.empty())
    return Status::Internal("S3 answered a truncated listing without NextContinuationToken");
  return page;
}

S3Client::S3Client(S3Credentials credentials) : creds_(std::move(credentials)) {
  InitCurlOnce();
  base_ = Trim(creds_.endpoint);
  if (base_.find("://") == std::string::npos) base_ = "https://" + base_;
  if (creds_.region.empty()) creds_.region = "us-east-1";
}

Result<S3Client::Response> S3Client::Send(const std::string& method, const std::string& path,
                                          const std::string& query, const std::string& body,
                                          const std::string& sink_file) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Status::Internal("cannot create a libcurl handle");
  std::string url = base_ + path + (query.empty() ? "" : "?" + query);
  std::string sigv4 = "aws:amz:" + creds_.region + ":s3";
  CURL* h = curl.get();
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_AWS_SIGV4, sigv4.c_str());
  curl_easy_setopt(h, CURLOPT_USERNAME, creds_.access_id.c_str());
  curl_easy_setopt(h, CURLOPT_PASSWORD, creds_.access_key.c_str());
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  // A transfer slower than 1 KB/s for 60 s is stalled.
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
  char error_buffer[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
  struct curl_slist* headers = nullptr;
  std::string hash = "x-amz-content-sha256: " + Sha256Hex(body);
  headers = curl_slist_append(headers, hash.c_str());
  if (method == "PUT") {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "PUT");
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
  } else if (method != "GET") {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
  }
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  Response response;
  FILE* file = nullptr;
  if (!sink_file.empty()) {
    file = std::fopen(sink_file.c_str(), "wb");
    if (!file) {
      curl_slist_free_all(headers);
      return Status::IoError("cannot create '" + sink_file + "' for a download");
    }
  }
  Sink sink{file, &response.body, h, false};
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, WriteToSink);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
  CURLcode rc = curl_easy_perform(h);
  curl_slist_free_all(headers);
  if (file && std::fclose(file) != 0) sink.write_failed = true;
  if (sink.write_failed) return Status::IoError("cannot write the download to '" + sink_file + "' (disk full?)");
  if (rc != CURLE_OK) {
    std::string detail = error_buffer[0] ? error_buffer : curl_easy_strerror(rc);
    return Status::Unavailable("cannot reach the S3 endpoint '" + base_ + "': " + detail);
  }
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.http_status);
  return response;
}

Status S3Client::HttpError(const std::string& what, const Response& r) const {
  std::string code, message;
  pugi::xml_document doc;
  if (doc.load_buffer(r.body.data(), r.body.size())) {
    if (auto err = doc.child("Error")) {
      code = err.child_value("Code");
      message = err.child_value("Message");
    }
  }
  std::string text = what + " at '" + base_ + "' failed with HTTP " + std::to_string(r.http_status) +
                     (code.empty() ? "" : " " + code) + (message.empty() ? "" : ": " + message);
  if (r.http_status == 401 || r.http_status == 403)
    return Status::AccessDenied(text + " (check the connection's ACCESS_ID, ACCESS_KEY and REGION)");
  if (r.http_status == 404) return Status::NotFound(text);
  if (r.http_status >= 500 || r.http_status == 429) return Status::Unavailable(text);
  return Status::InvalidArgument(text);
}

Result<S3ListPage> S3Client::ListPage(const std::string& bucket, const std::string& prefix,
                                      const std::string& delimiter, const std::string& continuation_token,
                                      int max_keys) {
  ASSIGN_OR_RETURN(Response r, Send("GET", "/" + UriEncode(bucket, false) + "/",
                                    ListObjectsQuery(prefix, delimiter, continuation_token, max_keys), "", ""));
  if (r.http_status < 200 || r.http_status >= 300)
    return HttpError("listing s3://" + bucket + "/" + prefix, r);
  return ParseListObjectsV2(r.body);
}

Result<std::vector<S3Object>> S3Client::ListAll(const std::string& bucket, const std::string& prefix,
                                                const std::string& delimiter) {
  std::vector<S3Object> out;
  std::string token;
  do {
    ASSIGN_OR_RETURN(S3ListPage page, ListPage(bucket, prefix, delimiter, token));
    for (auto& o : page.objects) out.push_back(std::move(o));
    if (!page.truncated) break;
    token = page.next_continuation_token;
  } while (true);
  return out;
}

Status S3Client::GetToFile(const std::string& bucket, const std::string& key, const std::string& local_path) {
  ASSIGN_OR_RETURN(Response r, Send("GET", ObjectPath(bucket, key), "", "", local_path));
  if (r.http_status < 200 || r.http_status >= 300) {
    std::remove(local_path.c_str());
    return HttpError("reading s3://" + bucket + "/" + key, r);
  }
  return Status::Ok();
}

Status S3Client::Put(const std::string& bucket, const std::string& key, const std::string& body) {
  ASSIGN_OR_RETURN(Response r, Send("PUT", ObjectPath(bucket, key), "", body, ""));
  if (r.http_status < 200 || r.http_status >= 300) return HttpError("writing s3://" + bucket + "/" + key, r);
  return Status::Ok();
}

Status S3Client::Delete(const std::string& bucket, const std::string& key) {
  ASSIGN_OR_RETURN(Response r, Send("DELETE", ObjectPath(bucket, key), "", "", ""));
  if ((r.http_status < 200 || r.http_status >= 300) && r.http_status != 404)
    return HttpError("deleting s3://" + bucket + "/" + key, r);
  return Status::Ok();
}

}  // namespace sluice::source
