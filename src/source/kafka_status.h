#pragma once
// librdkafka error codes -> Status codes. The code decides what the scheduler does: retriable codes
// (Unavailable) are retried with backoff, the rest pause the job, so the split below is the important part.
#include <librdkafka/rdkafka.h>

#include <string_view>

#include "common/status.h"

namespace sluice::source::internal {

// The Status code for a librdkafka error. Unknown broker errors count as retriable: most of Kafka's error
// codes describe transient cluster states, and a wrong guess only costs retries, not a paused job.
StatusCode KafkaErrorCode(rd_kafka_resp_err_t err);

// "<context>: <librdkafka's description>[ (<detail>)]" with the code from KafkaErrorCode.
Status KafkaStatus(rd_kafka_resp_err_t err, std::string_view context, std::string_view detail = {});

}  // namespace sluice::source::internal
