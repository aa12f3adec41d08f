#pragma once
// An in-process Kafka cluster for tests: librdkafka's mock cluster (real Kafka protocol on loopback sockets)
// plus a real producer. Keep data small: the mock keeps only ~5 MB per partition.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sluice::source::testing {

// Kafka API keys used with rd_kafka_mock_push_request_errors (rdkafka_protocol.h is not installed).
constexpr int16_t kApiFetch = 1;

struct TestRecord {
  int32_t partition = 0;
  std::string payload;
  std::optional<std::string> key;
  int64_t timestamp_ms = 0;  // 0: the producer stamps the current time
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
};

class MockKafka {
 public:
  explicit MockKafka(int brokers = 3) {
    char errstr[512];
    // The cluster needs a handle for its bookkeeping only; it never connects anywhere.
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "log_level", "2", errstr, sizeof errstr);
    host_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
    if (host_ == nullptr) ADD_FAILURE() << "rd_kafka_new: " << errstr;
    cluster_ = rd_kafka_mock_cluster_new(host_, brokers);
    if (cluster_ == nullptr) ADD_FAILURE() << "rd_kafka_mock_cluster_new failed";
    bootstraps_ = rd_kafka_mock_cluster_bootstraps(cluster_);

    conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstraps_.c_str(), errstr, sizeof errstr);
    rd_kafka_conf_set(conf, "linger.ms", "2", errstr, sizeof errstr);
    // Fault tests bring brokers back; reconnect within a second rather than after up to 10 s.
    rd_kafka_conf_set(conf, "reconnect.backoff.max.ms", "500", errstr, sizeof errstr);
    rd_kafka_conf_set(conf, "log_level", "2", errstr, sizeof errstr);
    rd_kafka_conf_set_opaque(conf, this);
    rd_kafka_conf_set_dr_msg_cb(conf, [](rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
      if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) static_cast<MockKafka*>(opaque)->failed_deliveries_++;
    });
    producer_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
    if (producer_ == nullptr) ADD_FAILURE() << "rd_kafka_new (producer): " << errstr;
  }

  ~MockKafka() {
    if (producer_ != nullptr) rd_kafka_destroy(producer_);
    if (cluster_ != nullptr) rd_kafka_mock_cluster_destroy(cluster_);
    if (host_ != nullptr) rd_kafka_destroy(host_);
  }
  MockKafka(const MockKafka&) = delete;
  MockKafka& operator=(const MockKafka&) = delete;

  rd_kafka_mock_cluster_t* cluster() const { return cluster_; }
  const std::string& bootstraps() const { return bootstraps_; }

  void CreateTopic(const std::string& topic, int partitions) {
    ASSERT_EQ(rd_kafka_mock_topic_create(cluster_, topic.c_str(), partitions, 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  }

  // Queues one message; Flush() waits until every queued message is stored.
  void Produce(const std::string& topic, const TestRecord& r) {
    rd_kafka_headers_t* headers = nullptr;
    if (!r.headers.empty()) {
      headers = rd_kafka_headers_new(r.headers.size());
      for (const auto& [name, value] : r.headers)
        rd_kafka_header_add(headers, name.data(), static_cast<ssize_t>(name.size()), value ? value->data() : nullptr,
                            value ? static_cast<ssize_t>(value->size()) : 0);
    }
    // The RD_KAFKA_V_* macros cast their arguments without parentheses: pass plain variables.
    const char* key = r.key ? r.key->data() : nullptr;
    size_t key_len = r.key ? r.key->size() : 0;
    rd_kafka_resp_err_t err = rd_kafka_producev(
        producer_, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(r.partition),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
        RD_KAFKA_V_VALUE(const_cast<char*>(r.payload.data()), r.payload.size()),
        RD_KAFKA_V_KEY(key, key_len),
        RD_KAFKA_V_TIMESTAMP(r.timestamp_ms), RD_KAFKA_V_HEADERS(headers), RD_KAFKA_V_END);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      if (headers != nullptr) rd_kafka_headers_destroy(headers);
      ADD_FAILURE() << "produce: " << rd_kafka_err2str(err);
    }
  }

  void Produce(const std::string& topic, int32_t partition, const std::string& payload) {
    TestRecord r;
    r.partition = partition;
    r.payload = payload;
    Produce(topic, r);
  }

  void Flush() {
    ASSERT_EQ(rd_kafka_flush(producer_, 10'000), RD_KAFKA_RESP_ERR_NO_ERROR);
    ASSERT_EQ(failed_deliveries_.load(), 0);
  }

 private:
  rd_kafka_t* host_ = nullptr;
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
  rd_kafka_t* producer_ = nullptr;
  std::string bootstraps_;
  std::atomic<int> failed_deliveries_{0};
};

}  // namespace sluice::source::testing
