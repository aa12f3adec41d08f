#pragma once
// One ListOffsets lookup for one partition: the offset for a timestamp, or the earliest/latest offset when
// `query` is RD_KAFKA_OFFSET_BEGINNING / RD_KAFKA_OFFSET_END.
//
// Everything goes through rd_kafka_offsets_for_times(), even watermarks: librdkafka 2.0.2's
// rd_kafka_query_watermark_offsets() ignores its timeout once the request is queued for a leader that is down
// and waits for socket.timeout.ms (60 s), which would stall a task far past its deadline.
#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sluice::source::internal {

struct ListOffsetAnswer {
  rd_kafka_resp_err_t err;  // the request's error, or else the partition's
  int64_t offset;           // valid when err is NO_ERROR; -1 for "no such message" by time
};

ListOffsetAnswer ListOffset(rd_kafka_t* rk, const std::string& topic, int32_t partition, int64_t query,
                            std::chrono::steady_clock::time_point deadline);

// The same lookup for several partitions of one topic at once: one ListOffsets request per leader.
struct ListOffsetsAnswer {
  rd_kafka_resp_err_t err;                      // the request's error; NO_ERROR when it was answered
  std::map<int32_t, ListOffsetAnswer> partitions;  // each partition's own answer (valid when err is NO_ERROR)
};

ListOffsetsAnswer ListOffsets(rd_kafka_t* rk, const std::string& topic, const std::vector<int32_t>& partitions,
                              int64_t query, std::chrono::steady_clock::time_point deadline);

}  // namespace sluice::source::internal
