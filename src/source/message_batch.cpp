#include "source/message_batch.h"

#include <algorithm>
#include <cassert>

namespace sluice::source::internal {

bool MessageBatch::Fill(rd_kafka_queue_t* queue, std::chrono::milliseconds wait) {
  assert(empty());
  pos_ = len_ = 0;
  // rd_kafka_consume_batch_queue() with a timeout waits until the batch is *full* or the time is up, which
  // would hold a nearly idle partition's few messages back for the whole wait. So: take what is ready, and
  // only when nothing is, wait for a single message, then take what came with it.
  ssize_t n = rd_kafka_consume_batch_queue(queue, 0, slots_.data(), slots_.size());
  if (n == 0 && wait.count() > 0) {
    int wait_ms = static_cast<int>(std::min<std::chrono::milliseconds::rep>(wait.count(), 60'000));
    n = rd_kafka_consume_batch_queue(queue, wait_ms, slots_.data(), 1);
    if (n == 1) {
      ssize_t more = rd_kafka_consume_batch_queue(queue, 0, slots_.data() + 1, slots_.size() - 1);
      if (more > 0) n += more;
    }
  }
  len_ = n > 0 ? static_cast<size_t>(n) : 0;  // -1 only for a queue that is not a consumer queue
  return len_ > 0;
}

void MessageBatch::Clear() {
  for (; pos_ < len_; ++pos_) rd_kafka_message_destroy(slots_[pos_]);
  pos_ = len_ = 0;
}

}  // namespace sluice::source::internal
