#include "source/kafka_metadata_clients.h"

#include <algorithm>

#include "common/log.h"
#include "source/kafka_config.h"
#include "source/kafka_source_state.h"
#include "source/kafka_status.h"
#include "source/list_offsets.h"

namespace sluice::source {

using namespace internal;

struct KafkaMetadataClients::Client {
  // Members are destroyed bottom-up: the queue before the handle, the error record after it.
  std::unique_ptr<ClientErrors> errors = std::make_unique<ClientErrors>();
  KafkaHandle rk;
  QueueHandle queue;  // the consumer queue, where librdkafka's events for this client end up
  std::chrono::steady_clock::time_point last_used;

  // Nobody consumes with this client; drop the events (client errors) that would otherwise pile up.
  void DrainEvents() {
    while (EventPtr ev{rd_kafka_queue_poll(queue.get(), 0)}) {
    }
  }
};

namespace {

// What makes two jobs' clients interchangeable for metadata: everything but the consumer group, which only the
// best-effort group commit uses.
std::string SetupKey(const KafkaClientConfig& config) {
  std::vector<std::string> props;
  for (const auto& [k, v] : config.properties)
    if (k != "group.id" && !IsSluiceOwnProperty(k)) props.push_back(k + '\0' + v);
  std::sort(props.begin(), props.end());
  std::string key = config.brokers + '\n' + config.client_id;
  for (const auto& p : props) key += '\n' + p;
  return key;
}

}  // namespace

KafkaMetadataClients::~KafkaMetadataClients() = default;

size_t KafkaMetadataClients::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return clients_.size();
}

Result<std::shared_ptr<KafkaMetadataClients::Client>> KafkaMetadataClients::Get(const KafkaClientConfig& config) {
  std::string key = SetupKey(config);
  std::vector<std::shared_ptr<Client>> unused;  // closed after the lock is released: destroying a client may wait
  std::shared_ptr<Client> client;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto now = std::chrono::steady_clock::now();
    for (auto it = clients_.begin(); it != clients_.end();) {
      if (it->first != key && now - it->second->last_used > unused_for_) {
        unused.push_back(std::move(it->second));
        it = clients_.erase(it);
      } else {
        ++it;
      }
    }
    auto found = clients_.find(key);
    if (found != clients_.end()) {
      found->second->last_used = now;
      client = found->second;
    }
  }
  if (client) {
    client->DrainEvents();
    return client;
  }
  // Created outside the lock (it does not contact the brokers, but takes a few threads to start). Two callers
  // may race to create the same client; the second one keeps the first's.
  auto fresh = std::make_shared<Client>();
  KafkaClientConfig own = config;
  own.properties.erase(std::remove_if(own.properties.begin(), own.properties.end(),
                                      [](const auto& kv) { return kv.first == "group.id"; }),
                       own.properties.end());
  ASSIGN_OR_RETURN(fresh->rk, NewKafkaClient(own, ClientRole::kMetadata, fresh->errors.get()));
  fresh->queue.reset(rd_kafka_queue_get_consumer(fresh->rk.get()));
  if (!fresh->queue) return Status::Internal("librdkafka gave no consumer queue although group.id is set");
  fresh->last_used = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = clients_.emplace(key, fresh);
  if (inserted) log::Debug("kafka", "shared metadata client for brokers '{}' opened", config.brokers);
  return it->second;
}

Result<std::vector<int32_t>> KafkaMetadataClients::Partitions(const KafkaClientConfig& config,
                                                             std::chrono::milliseconds timeout) {
  ASSIGN_OR_RETURN(auto client, Get(config));
  return TopicPartitions(client->rk.get(), config.topic, config.brokers, timeout);
}

Result<std::map<int32_t, int64_t>> KafkaMetadataClients::HighWatermarks(const KafkaClientConfig& config,
                                                                       const std::vector<int32_t>& partitions,
                                                                       std::chrono::milliseconds timeout) {
  return Watermarks(config, partitions, RD_KAFKA_OFFSET_END, timeout);
}

Result<std::map<int32_t, int64_t>> KafkaMetadataClients::LowWatermarks(const KafkaClientConfig& config,
                                                                      const std::vector<int32_t>& partitions,
                                                                      std::chrono::milliseconds timeout) {
  return Watermarks(config, partitions, RD_KAFKA_OFFSET_BEGINNING, timeout);
}

Result<std::map<int32_t, int64_t>> KafkaMetadataClients::Watermarks(const KafkaClientConfig& config,
                                                                   const std::vector<int32_t>& partitions,
                                                                   int64_t query, std::chrono::milliseconds timeout) {
  std::map<int32_t, int64_t> out;
  if (partitions.empty()) return out;
  ASSIGN_OR_RETURN(auto client, Get(config));
  auto deadline = std::chrono::steady_clock::now() + timeout;
  ListOffsetsAnswer answer = ListOffsets(client->rk.get(), config.topic, partitions, query, deadline);
  std::string what = fmt::format("cannot read the offsets of topic '{}' within {} ms", config.topic, timeout.count());
  if (answer.err != RD_KAFKA_RESP_ERR_NO_ERROR) return KafkaStatus(answer.err, what);
  for (int32_t p : partitions) {
    auto a = answer.partitions.find(p);
    if (a == answer.partitions.end()) return Status::Unavailable(fmt::format("{}: no answer for partition {}", what, p));
    if (KafkaErrorCode(a->second.err) == StatusCode::kNotFound)
      return Status::NotFound(
          fmt::format("topic '{}' has no partition {} on brokers '{}'", config.topic, p, config.brokers));
    if (a->second.err != RD_KAFKA_RESP_ERR_NO_ERROR)
      return KafkaStatus(a->second.err, fmt::format("{} (partition {})", what, p));
    if (a->second.offset < 0) return Status::Unavailable(fmt::format("{}: no offset for partition {}", what, p));
    out[p] = a->second.offset;
  }
  return out;
}

}  // namespace sluice::source
