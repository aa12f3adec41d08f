#pragma once
// Owning wrappers for librdkafka's C handles, so every early return releases what it took.
#include <librdkafka/rdkafka.h>

#include <memory>

namespace sluice::source::internal {

struct KafkaDeleter {
  // Sources never join a group and never auto-commit, so there is nothing for consumer_close() to do but
  // wait for brokers; skipping it keeps shutdown quick even when the brokers are down.
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy_flags(rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE); }
};
struct ConfDeleter {
  void operator()(rd_kafka_conf_t* conf) const { rd_kafka_conf_destroy(conf); }
};
struct QueueDeleter {
  void operator()(rd_kafka_queue_t* q) const { rd_kafka_queue_destroy(q); }
};
struct PartitionListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* l) const { rd_kafka_topic_partition_list_destroy(l); }
};
struct MessageDeleter {
  void operator()(rd_kafka_message_t* m) const { rd_kafka_message_destroy(m); }
};
struct EventDeleter {
  void operator()(rd_kafka_event_t* e) const { rd_kafka_event_destroy(e); }
};
struct MetadataDeleter {
  void operator()(const rd_kafka_metadata_t* md) const { rd_kafka_metadata_destroy(md); }
};

using KafkaHandle = std::unique_ptr<rd_kafka_t, KafkaDeleter>;
using ConfHandle = std::unique_ptr<rd_kafka_conf_t, ConfDeleter>;
using QueueHandle = std::unique_ptr<rd_kafka_queue_t, QueueDeleter>;
using PartitionList = std::unique_ptr<rd_kafka_topic_partition_list_t, PartitionListDeleter>;
using MessagePtr = std::unique_ptr<rd_kafka_message_t, MessageDeleter>;
using EventPtr = std::unique_ptr<rd_kafka_event_t, EventDeleter>;
using MetadataPtr = std::unique_ptr<const rd_kafka_metadata_t, MetadataDeleter>;

}  // namespace sluice::source::internal
