#include "source/kafka_status.h"

#include <fmt/format.h>

namespace sluice::source::internal {

StatusCode KafkaErrorCode(rd_kafka_resp_err_t err) {
  switch (err) {
    case RD_KAFKA_RESP_ERR_NO_ERROR:
      return StatusCode::kOk;

    case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
    case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
    case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
      return StatusCode::kNotFound;

    case RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE:
    case RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET:
      return StatusCode::kOutOfRange;

    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED:
    case RD_KAFKA_RESP_ERR_UNSUPPORTED_SASL_MECHANISM:
    case RD_KAFKA_RESP_ERR_ILLEGAL_SASL_STATE:
    case RD_KAFKA_RESP_ERR__AUTHENTICATION:
      return StatusCode::kAccessDenied;

    case RD_KAFKA_RESP_ERR_UNSUPPORTED_VERSION:
    case RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE:
      return StatusCode::kNotSupported;

    case RD_KAFKA_RESP_ERR__INVALID_ARG:
      return StatusCode::kInvalidArgument;

    case RD_KAFKA_RESP_ERR__FATAL:
    case RD_KAFKA_RESP_ERR__STATE:
    case RD_KAFKA_RESP_ERR__CONFLICT:
      return StatusCode::kInternal;

    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE:
    case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
    case RD_KAFKA_RESP_ERR__RESOLVE:
    default:
      return StatusCode::kUnavailable;
  }
}

Status KafkaStatus(rd_kafka_resp_err_t err, std::string_view context, std::string_view detail) {
  std::string message = fmt::format("{}: {}", context, rd_kafka_err2str(err));
  if (!detail.empty() && detail != rd_kafka_err2str(err)) message += fmt::format(" ({})", detail);
  return Status(KafkaErrorCode(err), std::move(message));
}

}  // namespace sluice::source::internal
