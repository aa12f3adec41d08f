// SigV4 as S3 checks it. s3rver (the e2e S3) does not verify V4 signatures, so this test does: a verifier written
// from AWS's algorithm, proven on AWS's published ListObjects example, checks the Authorization header libcurl
// computes for S3Client's requests (captured by a one-shot HTTP server on loopback).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <thread>

#include "source/s3_client.h"

namespace sluice::source {
namespace {

std::string Hex(const unsigned char* d, size_t n) {
  static const char* k = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; i++) {
    out += k[d[i] >> 4];
    out += k[d[i] & 15];
  }
  return out;
}

std::string Sha256Hex(const std::string& s) {
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(s.data()), s.size(), d);
  return Hex(d, sizeof d);
}

std::string Hmac(const std::string& key, const std::string& data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), out, &len);
  return std::string(reinterpret_cast<char*>(out), len);
}

struct Request {
  std::string method, path, query;
  std::map<std::string, std::string> headers;  // lower-case names, trimmed values
};

// The signature S3 expects for `r` (the query must already be canonical, as S3Client sends it).
std::string ExpectedSignature(const Request& r, const std::string& signed_headers, const std::string& secret,
                              const std::string& region) {
  std::string canonical = r.method + "\n" + r.path + "\n" + r.query + "\n";
  std::stringstream names(signed_headers);
  std::string name;
  while (std::getline(names, name, ';')) canonical += name + ":" + r.headers.at(name) + "\n";
  canonical += "\n" + signed_headers + "\n" + r.headers.at("x-amz-content-sha256");
  const std::string amz_date = r.headers.at("x-amz-date");
  const std::string date = amz_date.substr(0, 8);
  const std::string scope = date + "/" + region + "/s3/aws4_request";
  const std::string to_sign = "AWS4-HMAC-SHA256\n" + amz_date + "\n" + scope + "\n" + Sha256Hex(canonical);
  std::string key = Hmac("AWS4" + secret, date);
  key = Hmac(key, region);
  key = Hmac(key, "s3");
  key = Hmac(key, "aws4_request");
  std::string sig = Hmac(key, to_sign);
  return Hex(reinterpret_cast<const unsigned char*>(sig.data()), sig.size());
}

TEST(S3SigningTest, VerifierMatchesAwsExample) {
  // "Example: GET Bucket (List Objects)" from AWS's Signature Version 4 documentation for S3.
  Request r;
  r.method = "GET";
  r.path = "/";
  r.query = "max-keys=2&prefix=J";
  r.headers = {{"host", "examplebucket.s3.amazonaws.com"},
               {"x-amz-content-sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
               {"x-amz-date", "20130524T000000Z"}};
  EXPECT_EQ(ExpectedSignature(r, "host;x-amz-content-sha256;x-amz-date", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                              "us-east-1"),
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

// Accepts one connection, keeps the request head, answers 200 with `body`.
class OneShotServer {
 public:
  explicit OneShotServer(std::string body) : body_(std::move(body)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(fd_, 1), 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~OneShotServer() {
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }
  void Join() {
    if (thread_.joinable()) thread_.join();
    thread_ = std::thread([] {});
  }
  const std::string& head() const { return head_; }

 private:
  void Serve() {
    int c = ::accept(fd_, nullptr, nullptr);
    if (c < 0) return;
    char buf[4096];
    while (head_.find("\r\n\r\n") == std::string::npos) {
      ssize_t n = ::read(c, buf, sizeof buf);
      if (n <= 0) break;
      head_.append(buf, static_cast<size_t>(n));
    }
    std::string resp = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body_.size()) +
                       "\r\nConnection: close\r\n\r\n" + body_;
    (void)!::write(c, resp.data(), resp.size());
    ::close(c);
  }
  int fd_ = -1;
  int port_ = 0;
  std::string body_;
  std::string head_;
  std::thread thread_;
};

Request ParseHead(const std::string& head) {
  Request r;
  std::stringstream in(head);
  std::string line;
  std::getline(in, line);
  std::stringstream first(line);
  std::string target;
  first >> r.method >> target;
  size_t q = target.find('?');
  r.path = target.substr(0, q);
  r.query = q == std::string::npos ? "" : target.substr(q + 1);
  while (std::getline(in, line) && line != "\r") {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    r.headers[name] = value;
  }
  return r;
}

TEST(S3SigningTest, ListRequestIsSignedAsS3Expects) {
  OneShotServer server("<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>in/a b+c.csv</Key>"
                       "<Size>3</Size><LastModified>2024-01-01T00:00:00.000Z</LastModified><ETag>\"e\"</ETag>"
                       "</Contents></ListBucketResult>");
  S3Credentials creds;
  creds.endpoint = "http://127.0.0.1:" + std::to_string(server.port());
  creds.region = "eu-central-1";
  creds.access_id = "AKIDEXAMPLE";
  creds.access_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
  S3Client client(creds);
  auto page = client.ListPage("my-bucket", "in/2024 05/", "/", "tok+en/=");
  server.Join();
  ASSERT_TRUE(page.ok()) << page.status().message();
  ASSERT_EQ(page->objects.size(), 1u);
  EXPECT_EQ(page->objects[0].key, "in/a b+c.csv");

  Request r = ParseHead(server.head());
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.path, "/my-bucket/");
  EXPECT_EQ(r.query, "continuation-token=tok%2Ben%2F%3D&delimiter=%2F&list-type=2&max-keys=1000&prefix=in%2F2024%2005%2F");
  ASSERT_TRUE(r.headers.count("authorization")) << server.head();
  const std::string auth = r.headers["authorization"];
  const std::string prefix = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/";
  ASSERT_EQ(auth.substr(0, prefix.size()), prefix) << auth;
  EXPECT_NE(auth.find("/eu-central-1/s3/aws4_request"), std::string::npos) << auth;
  size_t sh = auth.find("SignedHeaders=");
  size_t sig = auth.find("Signature=");
  ASSERT_NE(sh, std::string::npos);
  ASSERT_NE(sig, std::string::npos);
  std::string signed_headers = auth.substr(sh + 14, auth.find(',', sh) - sh - 14);
  EXPECT_NE(signed_headers.find("x-amz-content-sha256"), std::string::npos) << signed_headers;
  EXPECT_EQ(r.headers["x-amz-content-sha256"], Sha256Hex(""));
  EXPECT_EQ(auth.substr(sig + 10), ExpectedSignature(r, signed_headers, creds.access_key, creds.region));
  // the secret itself is never sent
  EXPECT_EQ(server.head().find(creds.access_key), std::string::npos);
}

TEST(S3SigningTest, ObjectKeysAreEncodedPerSegment) {
  OneShotServer server("");
  S3Credentials creds;
  creds.endpoint = "127.0.0.1:" + std::to_string(server.port());  // no scheme: https would be tried
  creds.endpoint = "http://" + creds.endpoint;
  creds.access_id = "AKIDEXAMPLE";
  creds.access_key = "secret";
  S3Client client(creds);
  ASSERT_TRUE(client.Delete("b", "dir one/ü+x.csv").ok());
  server.Join();
  Request r = ParseHead(server.head());
  EXPECT_EQ(r.method, "DELETE");
  EXPECT_EQ(r.path, "/b/dir%20one/%C3%BC%2Bx.csv");
  std::string auth = r.headers["authorization"];
  size_t sh = auth.find("SignedHeaders=");
  std::string signed_headers = auth.substr(sh + 14, auth.find(',', sh) - sh - 14);
  EXPECT_EQ(auth.substr(auth.find("Signature=") + 10), ExpectedSignature(r, signed_headers, "secret", "us-east-1"));
}

}  // namespace
}  // namespace sluice::source
