// S3Client under a flaky endpoint: a loopback server plays a script of answers, one per connection (503 then 200,
// a body cut short with and without Content-Length, 403, 404, 412, a stall), and the client must retry what is
// transient, give up on what is not, and never leave part of a download behind.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "source/s3_client.h"

namespace sluice::source {
namespace {

// One scripted answer: raw bytes written after the request head is read, then the connection is closed (after
// `stall_ms`, when given, before anything is written).
struct Answer {
  std::string raw;
  int stall_ms = 0;
};

std::string Http(int status, const std::string& reason, const std::string& body, bool with_length = true) {
  return "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\n" +
         (with_length ? "Content-Length: " + std::to_string(body.size()) + "\r\n" : "") + "Connection: close\r\n\r\n" +
         body;
}

std::string S3Error(int status, const std::string& reason, const std::string& code) {
  return Http(status, reason, "<?xml version=\"1.0\"?><Error><Code>" + code + "</Code><Message>scripted " + code +
                                  "</Message></Error>");
}

class ScriptedServer {
 public:
  explicit ScriptedServer(std::vector<Answer> script) : script_(std::move(script)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(fd_, 16), 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedServer() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int requests() const { return requests_; }
  std::vector<std::string> heads() {
    std::lock_guard<std::mutex> lock(mu_);
    return heads_;
  }

 private:
  void Serve() {
    for (size_t i = 0; !stop_; i++) {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string head;
      char buf[4096];
      while (head.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = ::read(c, buf, sizeof buf);
        if (n <= 0) break;
        head.append(buf, static_cast<size_t>(n));
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        heads_.push_back(head);
      }
      requests_++;
      const Answer a = i < script_.size() ? script_[i] : Answer{Http(500, "Internal Server Error", "off script")};
      if (a.stall_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(a.stall_ms));
      (void)!::write(c, a.raw.data(), a.raw.size());
      ::close(c);
    }
  }

  std::vector<Answer> script_;
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::mutex mu_;
  std::vector<std::string> heads_;
};

class S3RetryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = GetS3ClientSettings();
    S3ClientSettings fast;
    fast.retries = 3;
    fast.first_backoff_ms = 10;
    fast.max_backoff_ms = 40;
    fast.timeout_seconds = 2;
    SetS3ClientSettings(fast);
    dir_ = std::filesystem::temp_directory_path() / ("sluice-s3-retry-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    SetS3ClientSettings(saved_);
    std::filesystem::remove_all(dir_);
  }
  S3Client Client(const ScriptedServer& server) {
    S3Credentials c;
    c.endpoint = server.endpoint();
    c.access_id = "AKIDEXAMPLE";
    c.access_key = "secret";
    return S3Client(c);
  }
  std::string Local() const { return (dir_ / "download").string(); }
  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  S3ClientSettings saved_;
  std::filesystem::path dir_;
};

const std::string kBody = "0123456789abcdefghijklmnopqrstuvwxyz";

TEST_F(S3RetryTest, TransientAnswersAreRetried) {
  ScriptedServer server({{S3Error(503, "Slow Down", "SlowDown")},
                         {S3Error(500, "Internal Server Error", "InternalError")},
                         {Http(200, "OK", kBody)}});
  auto client = Client(server);
  Status st = client.GetToFile("b", "k.csv", Local(), static_cast<int64_t>(kBody.size()), "abc");
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(server.requests(), 3);
  EXPECT_EQ(Read(Local()), kBody);
  // the listed version is asked for
  EXPECT_NE(server.heads().back().find("If-Match: \"abc\""), std::string::npos) << server.heads().back();
}

TEST_F(S3RetryTest, TransientFailuresThatOutlastTheRetriesAreUnavailable) {
  ScriptedServer server(std::vector<Answer>(4, Answer{S3Error(503, "Slow Down", "SlowDown")}));
  auto client = Client(server);
  auto page = client.ListPage("b", "in/", "", "");
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(page.status().retriable());
  EXPECT_EQ(server.requests(), 4);
  EXPECT_NE(page.status().message().find("listing s3://b/in/"), std::string::npos) << page.status().message();
  EXPECT_NE(page.status().message().find("HTTP 503 SlowDown"), std::string::npos) << page.status().message();
  EXPECT_NE(page.status().message().find("tried 4 times"), std::string::npos) << page.status().message();
}

TEST_F(S3RetryTest, ABodyCutShortIsRetriedAndNeverKept) {
  // Content-Length promises the whole body, the connection ends at half: curl's PARTIAL_FILE
  std::string cut = Http(200, "OK", kBody);
  cut.resize(cut.size() - kBody.size() / 2);
  // no Content-Length at all (the body ends with the connection): only the listed size tells
  std::string unannounced = Http(200, "OK", kBody.substr(0, 10), /*with_length=*/false);
  {
    ScriptedServer server({{cut}, {unannounced}, {Http(200, "OK", kBody)}});
    auto client = Client(server);
    Status st = client.GetToFile("b", "k.csv", Local(), static_cast<int64_t>(kBody.size()));
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(server.requests(), 3);
    EXPECT_EQ(Read(Local()), kBody);
  }
  {
    ScriptedServer server(std::vector<Answer>(4, Answer{unannounced}));
    auto client = Client(server);
    Status st = client.GetToFile("b", "k.csv", Local(), static_cast<int64_t>(kBody.size()));
    ASSERT_FALSE(st.ok());
    EXPECT_TRUE(st.retriable()) << st.message();
    EXPECT_NE(st.message().find("ended after 10 of 36 bytes"), std::string::npos) << st.message();
    EXPECT_FALSE(std::filesystem::exists(Local())) << "part of the object was left behind";
  }
  {
    ScriptedServer server(std::vector<Answer>(4, Answer{cut}));
    auto client = Client(server);
    Status st = client.GetToFile("b", "k.csv", Local(), static_cast<int64_t>(kBody.size()));
    ASSERT_FALSE(st.ok());
    EXPECT_TRUE(st.retriable()) << st.message();
    EXPECT_NE(st.message().find("broke off the connection"), std::string::npos) << st.message();
    EXPECT_FALSE(std::filesystem::exists(Local()));
  }
}

TEST_F(S3RetryTest, AnswersAnotherTryCannotChangeAreNotRetried) {
  ScriptedServer server({{S3Error(403, "Forbidden", "AccessDenied")},
                         {S3Error(404, "Not Found", "NoSuchKey")},
                         {S3Error(412, "Precondition Failed", "PreconditionFailed")},
                         {Http(200, "OK", kBody + "more")}});
  auto client = Client(server);
  Status denied = client.GetToFile("b", "k.csv", Local(), static_cast<int64_t>(kBody.size()));
  EXPECT_EQ(denied.code(), StatusCode::kAccessDenied) << denied.message();
  EXPECT_NE(denied.message().find("reading s3://b/k.csv"), std::string::npos) << denied.message();
  EXPECT_NE(denied.message().find("HTTP 403 AccessDenied"), std::string::npos) << denied.message();
  EXPECT_NE(denied.message().find("s3:GetObject on bucket 'b'"), std::string::npos) << denied.message();
  EXPECT_EQ(denied.message().find("secret"), std::string::npos) << denied.message();
  Status gone = client.GetToFile("b", "k.csv", Local(), static_cast<int64_t>(kBody.size()));
  EXPECT_EQ(gone.code(), StatusCode::kNotFound) << gone.message();
  Status changed = client.GetToFile("b", "k.csv", Local(), static_cast<int64_t>(kBody.size()), "abc");
  EXPECT_EQ(changed.code(), StatusCode::kConflict) << changed.message();
  Status other_size = client.GetToFile("b", "k.csv", Local(), static_cast<int64_t>(kBody.size()));
  EXPECT_EQ(other_size.code(), StatusCode::kConflict) << other_size.message();
  EXPECT_EQ(server.requests(), 4) << "one request each";
  EXPECT_FALSE(std::filesystem::exists(Local()));
}

TEST_F(S3RetryTest, AnotherVersionThanTheOneListedIsAConflict) {
  // s3rver ignores If-Match: the ETag of the answer still tells
  std::string other = "HTTP/1.1 200 OK\r\nETag: \"def\"\r\nContent-Length: " + std::to_string(kBody.size()) +
                      "\r\nConnection: close\r\n\r\n" + kBody;
  std::string same = "HTTP/1.1 200 OK\r\nETag: \"abc\"\r\nContent-Length: " + std::to_string(kBody.size()) +
                     "\r\nConnection: close\r\n\r\n" + kBody;
  ScriptedServer server({{other}, {same}});
  auto client = Client(server);
  Status st = client.GetToFile("b", "k.csv", Local(), static_cast<int64_t>(kBody.size()), "abc");
  EXPECT_EQ(st.code(), StatusCode::kConflict) << st.message();
  EXPECT_NE(st.message().find("ETag is now def"), std::string::npos) << st.message();
  EXPECT_FALSE(std::filesystem::exists(Local()));
  Status ok = client.GetToFile("b", "k.csv", Local(), static_cast<int64_t>(kBody.size()), "abc");
  EXPECT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(server.requests(), 2);
}

TEST_F(S3RetryTest, AListingCutShortIsTriedAgain) {
  const std::string listing =
      "<?xml version=\"1.0\"?><ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>in/a.csv</Key>"
      "<Size>3</Size><LastModified>2024-01-01T00:00:00.000Z</LastModified><ETag>\"e\"</ETag></Contents>"
      "</ListBucketResult>";
  ScriptedServer server({{Http(200, "OK", listing.substr(0, listing.size() / 2), /*with_length=*/false)},
                         {Http(200, "OK", listing)},
                         {Http(200, "OK", "<Error><Code>Odd</Code><Message>an error in a 200</Message></Error>")}});
  auto client = Client(server);
  auto page = client.ListPage("b", "in/", "", "");
  ASSERT_TRUE(page.ok()) << page.status().message();
  ASSERT_EQ(page->objects.size(), 1u);
  EXPECT_EQ(page->objects[0].key, "in/a.csv");
  EXPECT_EQ(server.requests(), 2);
  // an <Error> document is the store's answer, not a cut: not tried again
  auto refused = client.ListPage("b", "in/", "", "");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument) << refused.status().message();
  EXPECT_EQ(server.requests(), 3);
}

TEST_F(S3RetryTest, AStalledEndpointTimesOutWithinTheTimeout) {
  S3ClientSettings s = GetS3ClientSettings();
  s.timeout_seconds = 1;
  SetS3ClientSettings(s);
  ScriptedServer server({{Http(200, "OK", kBody), 2000}, {Http(200, "OK", kBody), 2000}});
  auto client = Client(server);
  auto started = std::chrono::steady_clock::now();
  Status st = client.GetToFile("b", "k.csv", Local(), static_cast<int64_t>(kBody.size()));
  auto took = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kTimeout) << st.message();
  EXPECT_TRUE(st.retriable());
  EXPECT_NE(st.message().find("timed out"), std::string::npos) << st.message();
  // no retry starts after the timeout is spent: one stalled try, not four
  EXPECT_LT(took, std::chrono::milliseconds(2500));
  EXPECT_EQ(server.requests(), 1);
}

TEST_F(S3RetryTest, DeletingWhatIsGoneSucceeds) {
  ScriptedServer server({{S3Error(503, "Slow Down", "SlowDown")}, {S3Error(404, "Not Found", "NoSuchKey")}});
  auto client = Client(server);
  Status st = client.Delete("b", "k.csv");
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(server.requests(), 2);
}

TEST(S3RetryBackoff, DoublesUpToTheCapWithJitter) {
  S3ClientSettings s;
  s.first_backoff_ms = 200;
  s.max_backoff_ms = 3000;
  EXPECT_EQ(S3RetryBackoffMs(s, 0, 1.0), 200);
  EXPECT_EQ(S3RetryBackoffMs(s, 0, 0.0), 100);
  EXPECT_EQ(S3RetryBackoffMs(s, 1, 1.0), 400);
  EXPECT_EQ(S3RetryBackoffMs(s, 2, 1.0), 800);
  EXPECT_EQ(S3RetryBackoffMs(s, 5, 1.0), 3000);
  EXPECT_EQ(S3RetryBackoffMs(s, 60, 1.0), 3000);
  EXPECT_TRUE(IsTransientHttpStatus(500));
  EXPECT_TRUE(IsTransientHttpStatus(503));
  EXPECT_TRUE(IsTransientHttpStatus(429));
  EXPECT_FALSE(IsTransientHttpStatus(403));
  EXPECT_FALSE(IsTransientHttpStatus(404));
  EXPECT_FALSE(IsTransientHttpStatus(412));
}

}  // namespace
}  // namespace sluice::source
