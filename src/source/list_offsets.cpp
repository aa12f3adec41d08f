#include "source/list_offsets.h"

#include <algorithm>

#include "source/kafka_handles.h"
#include "source/kafka_source_state.h"

namespace sluice::source::internal {

ListOffsetAnswer ListOffset(rd_kafka_t* rk, const std::string& topic, int32_t partition, int64_t query,
                            std::chrono::steady_clock::time_point deadline) {
  PartitionList list(rd_kafka_topic_partition_list_new(1));
  rd_kafka_topic_partition_t* entry = rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), partition);
  entry->offset = query;  // the request carries the time (or a logical offset) in the offset field
  // At least 1 ms: a zero timeout would not even look for the leader.
  int timeout_ms = std::max(RemainingMs(deadline), 1);
  rd_kafka_resp_err_t err = rd_kafka_offsets_for_times(rk, list.get(), timeout_ms);
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR) err = entry->err;
  return ListOffsetAnswer{err, entry->offset};
}

ListOffsetsAnswer ListOffsets(rd_kafka_t* rk, const std::string& topic, const std::vector<int32_t>& partitions,
                              int64_t query, std::chrono::steady_clock::time_point deadline) {
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size())));
  for (int32_t p : partitions) rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p)->offset = query;
  ListOffsetsAnswer answer{rd_kafka_offsets_for_times(rk, list.get(), std::max(RemainingMs(deadline), 1)), {}};
  for (int i = 0; i < list->cnt; ++i)
    answer.partitions[list->elems[i].partition] = ListOffsetAnswer{list->elems[i].err, list->elems[i].offset};
  return answer;
}

}  // namespace sluice::source::internal
