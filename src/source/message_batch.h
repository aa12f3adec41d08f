#pragma once
// Messages taken from librdkafka's consumer queue in batches (one lock round trip per batch instead of per
// message). A batch may hold more than a Consume() call wants to deliver; the rest stays here for the next
// call, because librdkafka cannot take messages back.
#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstddef>
#include <vector>

#include "source/kafka_handles.h"

namespace sluice::source::internal {

class MessageBatch {
 public:
  explicit MessageBatch(size_t capacity = 1024) : slots_(capacity) {}
  ~MessageBatch() { Clear(); }
  MessageBatch(const MessageBatch&) = delete;
  MessageBatch& operator=(const MessageBatch&) = delete;

  bool empty() const { return pos_ == len_; }
  // The next message or event (rkm->err set); the batch keeps owning it until Take().
  const rd_kafka_message_t* Peek() const { return slots_[pos_]; }
  MessagePtr Take() { return MessagePtr(slots_[pos_++]); }

  // Refills an empty batch: takes whatever is ready at once, or else waits up to `wait` for the first message
  // and then takes whatever else is ready. Returns false when nothing arrived.
  bool Fill(rd_kafka_queue_t* queue, std::chrono::milliseconds wait);

  // Drops the undelivered rest (e.g. when the assignment changes).
  void Clear();

 private:
  std::vector<rd_kafka_message_t*> slots_;
  size_t pos_ = 0;
  size_t len_ = 0;
};

}  // namespace sluice::source::internal
