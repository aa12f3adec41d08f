// Which librdkafka errors the scheduler retries (Unavailable) and which pause a job.
#include "source/kafka_status.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace sluice::source::internal {
namespace {

TEST(KafkaStatus, TransientErrorsAreRetriable) {
  for (rd_kafka_resp_err_t err : {RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN,
                                  RD_KAFKA_RESP_ERR__TIMED_OUT, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
                                  RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE, RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
                                  RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE}) {
    EXPECT_TRUE(KafkaStatus(err, "x").retriable()) << rd_kafka_err2name(err);
  }
}

TEST(KafkaStatus, PermanentErrorsPause) {
  EXPECT_EQ(KafkaErrorCode(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART), StatusCode::kNotFound);
  EXPECT_EQ(KafkaErrorCode(RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE), StatusCode::kOutOfRange);
  EXPECT_EQ(KafkaErrorCode(RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET), StatusCode::kOutOfRange);
  EXPECT_EQ(KafkaErrorCode(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED), StatusCode::kAccessDenied);
  EXPECT_EQ(KafkaErrorCode(RD_KAFKA_RESP_ERR__AUTHENTICATION), StatusCode::kAccessDenied);
  EXPECT_EQ(KafkaErrorCode(RD_KAFKA_RESP_ERR__FATAL), StatusCode::kInternal);
}

TEST(KafkaStatus, MessageSaysWhatAndWhy) {
  Status st = KafkaStatus(RD_KAFKA_RESP_ERR__TRANSPORT, "cannot read topic 'a'", "Connection refused");
  EXPECT_THAT(st.message(), ::testing::StartsWith("cannot read topic 'a': "));
  EXPECT_THAT(st.message(), ::testing::HasSubstr("(Connection refused)"));
}

}  // namespace
}  // namespace sluice::source::internal
