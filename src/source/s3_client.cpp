#include "source/s3_client.h"

#include <curl/curl.h>

#include "common/egress_curl.h"
#include <openssl/sha.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <mutex>
#include <optional>
#include <pugixml.hpp>
#include <random>
#include <thread>

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
  int64_t file_bytes = 0;
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
    sink->file_bytes += static_cast<int64_t>(size * n);
    return size * n;
  }
  sink->memory->append(data, size * n);
  return size * n;
}

// Keeps the ETag header of the answer (of the last header block: a 100 Continue comes first).
size_t KeepEtagHeader(char* data, size_t size, size_t n, void* user) {
  auto* etag = static_cast<std::string*>(user);
  std::string_view line(data, size * n);
  if (line.substr(0, 5) == "HTTP/") etag->clear();
  if (line.size() > 5 && (line.substr(0, 5) == "ETag:" || line.substr(0, 5) == "etag:" ||
                          line.substr(0, 5) == "Etag:")) {
    std::string v(line.substr(5));
    while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) v.pop_back();
    while (!v.empty() && v.front() == ' ') v.erase(0, 1);
    if (v.substr(0, 2) == "W/") v.erase(0, 2);
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    *etag = v;
  }
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

namespace {

std::mutex& SettingsMutex() {
  static std::mutex mu;
  return mu;
}

S3ClientSettings& SettingsSlot() {
  static S3ClientSettings settings;
  return settings;
}

double Random01() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

// curl failures that another try may not meet: the endpoint refused, dropped or stalled the connection.
bool IsTransientCurlError(CURLcode rc) {
  switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_PARTIAL_FILE:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

std::string Tries(int attempts) { return attempts > 1 ? "; tried " + std::to_string(attempts) + " times" : ""; }

// The same status with " ; tried N times" appended to its message.
Status WithTries(const Status& st, int attempts) {
  return attempts > 1 ? Status(st.code(), st.message() + Tries(attempts)) : st;
}

}  // namespace

void SetS3ClientSettings(const S3ClientSettings& settings) {
  std::lock_guard<std::mutex> lock(SettingsMutex());
  SettingsSlot() = settings;
}

S3ClientSettings GetS3ClientSettings() {
  std::lock_guard<std::mutex> lock(SettingsMutex());
  return SettingsSlot();
}

bool IsTransientHttpStatus(long status) { return status >= 500 || status == 429 || status == 408; }

int64_t S3RetryBackoffMs(const S3ClientSettings& s, int retry, double random01) {
  double full = static_cast<double>(s.first_backoff_ms);
  for (int i = 0; i < retry && full < static_cast<double>(s.max_backoff_ms); i++) full *= 2;
  full = std::min(full, static_cast<double>(s.max_backoff_ms));
  return static_cast<int64_t>(full * (0.5 + 0.5 * std::clamp(random01, 0.0, 1.0)));
}

S3Client::S3Client(S3Credentials credentials) : creds_(std::move(credentials)), settings_(GetS3ClientSettings()) {
  InitCurlOnce();
  base_ = Trim(creds_.endpoint);
  if (base_.find("://") == std::string::npos) base_ = "https://" + base_;
  if (creds_.region.empty()) creds_.region = "us-east-1";
}

S3Client::Attempt S3Client::SendOnce(const Request& req) {
  Attempt attempt;
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) {
    attempt.response = Status::Internal("cannot create a libcurl handle");
    return attempt;
  }
  std::string url = base_ + req.path + (req.query.empty() ? "" : "?" + req.query);
  std::string sigv4 = "aws:amz:" + creds_.region + ":s3";
  CURL* h = curl.get();
  const long timeout = static_cast<long>(std::max<int64_t>(1, settings_.timeout_seconds));
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  const std::string host = egress::UrlHostPort(base_, 443).host;
  egress::GuardCurlEgress(h, &host);
  curl_easy_setopt(h, CURLOPT_AWS_SIGV4, sigv4.c_str());
  curl_easy_setopt(h, CURLOPT_USERNAME, creds_.access_id.c_str());
  curl_easy_setopt(h, CURLOPT_PASSWORD, creds_.access_key.c_str());
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, std::min(timeout, 10L) * 1000L);
  // Stalled: slower than 1 KB/s for `timeout` seconds, waiting for the answer included. No limit on the whole
  // transfer: a large object may take long, and that is fine while it moves.
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, timeout);
  char error_buffer[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
  struct curl_slist* headers = nullptr;
  std::string hash = "x-amz-content-sha256: " + Sha256Hex(req.body);
  headers = curl_slist_append(headers, hash.c_str());
  std::string if_match = "If-Match: \"" + req.if_match + "\"";
  if (!req.if_match.empty()) headers = curl_slist_append(headers, if_match.c_str());
  if (req.method == "PUT") {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "PUT");
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.data());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
    headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
  } else if (req.method != "GET") {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
  }
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  Response response;
  FILE* file = nullptr;
  if (!req.sink_file.empty()) {
    file = std::fopen(req.sink_file.c_str(), "wb");  // each try starts the file afresh
    if (!file) {
      curl_slist_free_all(headers);
      attempt.response = Status::IoError("cannot create '" + req.sink_file + "' for a download");
      return attempt;
    }
  }
  Sink sink{file, &response.body, h, false, 0};
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, WriteToSink);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, KeepEtagHeader);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &response.etag);
  CURLcode rc = curl_easy_perform(h);
  curl_slist_free_all(headers);
  if (file && std::fclose(file) != 0) sink.write_failed = true;
  if (sink.write_failed) {
    attempt.response = Status::IoError("cannot write the download to '" + req.sink_file + "' (disk full?)");
    return attempt;
  }
  if (rc != CURLE_OK) {
    std::string detail = error_buffer[0] ? error_buffer : curl_easy_strerror(rc);
    attempt.transient = IsTransientCurlError(rc);
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      attempt.response = Status::Timeout(req.what + ": the S3 endpoint '" + base_ + "' timed out (" + detail + ")");
    } else if (rc == CURLE_PARTIAL_FILE || rc == CURLE_RECV_ERROR || rc == CURLE_GOT_NOTHING ||
               rc == CURLE_SEND_ERROR) {
      attempt.response =
          Status::Unavailable(req.what + ": the S3 endpoint '" + base_ + "' broke off the connection (" + detail + ")");
    } else {
      attempt.response =
          Status::Unavailable(req.what + ": cannot reach the S3 endpoint '" + base_ + "' (" + detail + ")");
    }
    return attempt;
  }
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.http_status);
  curl_off_t length = -1;
  if (curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK) response.content_length = length;
  response.body_bytes = sink.file_bytes;
  attempt.transient = IsTransientHttpStatus(response.http_status);
  attempt.response = std::move(response);
  return attempt;
}

Result<S3Client::Response> S3Client::Send(const Request& req, bool not_found_ok) {
  const auto started = std::chrono::steady_clock::now();
  const int max_attempts = 1 + std::max(0, settings_.retries);
  Status failure = Status::Internal("no attempt was made");
  int attempts = 0;
  for (int i = 0; i < max_attempts; i++) {
    if (i > 0) {
      // Retries stay within the stall timeout, counted from the first try, so a call that keeps failing gives up
      // in bounded time (a pipe task, a COPY or a shutdown is not held for minutes).
      int64_t pause = S3RetryBackoffMs(settings_, i - 1, Random01());
      auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
      if (elapsed.count() + pause > std::max<int64_t>(1, settings_.timeout_seconds) * 1000) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(pause));
    }
    attempts++;
    Attempt a = SendOnce(req);
    if (!a.response.ok()) {
      failure = a.response.status();
      if (!a.transient) break;
      continue;
    }
    Response& r = *a.response;
    if (r.http_status == 404 && not_found_ok) return std::move(r);
    if (r.http_status < 200 || r.http_status >= 300) {
      failure = HttpError(req, r);
      if (!a.transient) break;
      continue;
    }
    // A store that ignores If-Match (s3rver does) may serve a newer version: its ETag tells.
    if (!req.if_match.empty() && !r.etag.empty() && r.etag != req.if_match) {
      return Status::Conflict(req.what + ": the object's ETag is now " + r.etag + ", not the " + req.if_match +
                              " it was listed with: it changed after it was listed");
    }
    if (req.check_body) {
      if (Status st = req.check_body(r.body); !st.ok()) {
        failure = Status::Unavailable(req.what + ": the S3 endpoint '" + base_ + "' " + st.message());
        continue;  // a listing cut short by a proxy or a load balancer
      }
    }
    if (req.expected_size >= 0 && r.body_bytes != req.expected_size) {
      // curl itself fails a body shorter than its Content-Length; this catches an answer without one that was cut
      // (a short body), and another version of the object than the one listed (another length).
      if ((r.content_length >= 0 && r.content_length != req.expected_size) || r.body_bytes > req.expected_size) {
        return Status::Conflict(req.what + ": the object has " +
                                std::to_string(r.content_length >= 0 ? r.content_length : r.body_bytes) +
                                " bytes, not the " + std::to_string(req.expected_size) +
                                " it was listed with: it changed after it was listed");
      }
      failure = Status::Unavailable(req.what + ": the answer of the S3 endpoint '" + base_ + "' ended after " +
                                    std::to_string(r.body_bytes) + " of " + std::to_string(req.expected_size) +
                                    " bytes (the connection was cut)");
      continue;
    }
    return std::move(r);
  }
  return WithTries(failure, attempts);
}

Status S3Client::HttpError(const Request& req, const Response& r) const {
  std::string code, message;
  pugi::xml_document doc;
  if (doc.load_buffer(r.body.data(), r.body.size())) {
    if (auto err = doc.child("Error")) {
      code = err.child_value("Code");
      message = err.child_value("Message");
    }
  }
  std::string answer = "HTTP " + std::to_string(r.http_status) + (code.empty() ? "" : " " + code) +
                       (message.empty() ? "" : ": " + message);
  if (r.http_status == 401 || r.http_status == 403) {
    return Status::AccessDenied(req.what + " at '" + base_ + "' was refused with " + answer +
                                (answer.back() == '.' ? "" : ".") +
                                " Check the storage connection's ACCESS_ID, ACCESS_KEY and REGION, and that its user "
                                "is allowed " + req.permission + " on bucket '" + req.bucket + "'");
  }
  std::string text = req.what + " at '" + base_ + "' failed with " + answer;
  if (r.http_status == 404) return Status::NotFound(text);
  if (r.http_status == 412) return Status::Conflict(text + " (the object changed after it was listed)");
  if (IsTransientHttpStatus(r.http_status)) return Status::Unavailable(text);
  return Status::InvalidArgument(text);
}

Result<S3ListPage> S3Client::ListPage(const std::string& bucket, const std::string& prefix,
                                      const std::string& delimiter, const std::string& continuation_token,
                                      int max_keys) {
  Request req;
  req.what = "listing s3://" + bucket + "/" + prefix;
  req.permission = "s3:ListBucket";
  req.bucket = bucket;
  req.method = "GET";
  req.path = "/" + UriEncode(bucket, false) + "/";
  req.query = ListObjectsQuery(prefix, delimiter, continuation_token, max_keys);
  // A 2xx answer that is not a whole listing (cut without Content-Length) is tried again like a cut connection; an
  // <Error> document in it is S3's answer and is not.
  std::optional<S3ListPage> page;
  Status refused = Status::Ok();
  req.check_body = [&](const std::string& body) -> Status {
    auto parsed = ParseListObjectsV2(body);
    if (parsed.ok()) {
      page = std::move(*parsed);
      return Status::Ok();
    }
    if (parsed.status().code() != StatusCode::kInternal) {
      refused = parsed.status();
      return Status::Ok();
    }
    const std::string& m = parsed.status().message();  // "S3 answered a listing that is not XML (...)"
    return Status::Unavailable(m.rfind("S3 ", 0) == 0 ? m.substr(3) : m);
  };
  ASSIGN_OR_RETURN(Response r, Send(req));
  (void)r;
  if (!refused.ok()) return refused;
  if (!page) return Status::Internal(req.what + ": no listing");
  return std::move(*page);
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

Status S3Client::GetToFile(const std::string& bucket, const std::string& key, const std::string& local_path,
                           int64_t expected_size, const std::string& etag) {
  Request req;
  req.what = "reading s3://" + bucket + "/" + key;
  req.permission = "s3:GetObject";
  req.bucket = bucket;
  req.method = "GET";
  req.path = ObjectPath(bucket, key);
  req.sink_file = local_path;
  req.expected_size = expected_size;
  req.if_match = etag;
  auto r = Send(req);
  if (!r.ok()) {
    std::remove(local_path.c_str());  // never leave part of an object behind
    if (r.status().code() == StatusCode::kNotFound)
      return Status::NotFound(req.what + ": the object is gone (deleted after it was listed)");
    return r.status();
  }
  return Status::Ok();
}

Status S3Client::Put(const std::string& bucket, const std::string& key, const std::string& body) {
  Request req;
  req.what = "writing s3://" + bucket + "/" + key;
  req.permission = "s3:PutObject";
  req.bucket = bucket;
  req.method = "PUT";
  req.path = ObjectPath(bucket, key);
  req.body = body;
  return Send(req).status();
}

Status S3Client::Delete(const std::string& bucket, const std::string& key) {
  Request req;
  req.what = "deleting s3://" + bucket + "/" + key;
  req.permission = "s3:DeleteObject";
  req.bucket = bucket;
  req.method = "DELETE";
  req.path = ObjectPath(bucket, key);
  return Send(req, /*not_found_ok=*/true).status();
}

}  // namespace sluice::source
