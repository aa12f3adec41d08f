#include "source/kafka_metadata_clients.h"

#include <algorithm>
#include <optional>
#include <set>

#include "common/log.h"
#include "source/kafka_config.h"
#include "source/kafka_source_state.h"
#include "source/kafka_status.h"
#include "source/list_offsets.h"

namespace sluice::source {

using namespace internal;

// The last high-watermark answer for one topic, reused by callers whose `asked_since` it satisfies.
struct KafkaMetadataClients::SharedHighs {
  std::mutex mu;  // held while its request is in flight: concurrent callers wait for that answer
  bool valid = false;
  TimePoint asked{};  // when the request was sent
  ListOffsetsAnswer answer{RD_KAFKA_RESP_ERR_NO_ERROR, {}};
  std::set<int32_t> wanted;  // every partition callers asked about; the next request asks for all of them
};

struct KafkaMetadataClients::Client {
  // Members are destroyed bottom-up: the queue before the handle, the error record after it.
  std::unique_ptr<ClientErrors> errors = std::make_unique<ClientErrors>();
  KafkaHandle rk;
  QueueHandle queue;  // the consumer queue, where librdkafka's events for this client end up
  std::chrono::steady_clock::time_point last_used;

  // The last metadata answer (all topics), reused by callers whose `asked_since` it satisfies.
  std::mutex metadata_mu;  // held while a shared request is in flight
  std::optional<Result<TopicsMetadata>> metadata;
  TimePoint metadata_asked{};

  std::mutex highs_mu;  // guards the map, not the entries
  std::map<std::string, std::shared_ptr<SharedHighs>> highs;  // by topic

  std::shared_ptr<SharedHighs> HighsOf(const std::string& topic) {
    std::lock_guard<std::mutex> lock(highs_mu);
    auto& entry = highs[topic];
    if (!entry) entry = std::make_shared<SharedHighs>();
    return entry;
  }

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
                                                             std::chrono::milliseconds timeout,
                                                             TimePoint asked_since) {
  ASSIGN_OR_RETURN(auto client, Get(config));
  auto ask = [&]() -> Result<TopicsMetadata> {
    requests_sent_++;
    return ReadTopicsMetadata(client->rk.get(), config.topic, config.brokers, timeout);
  };
  if (asked_since == kAskNow) {
    // Kept for the callers that may share: a fresh answer is as good as any.
    const TimePoint asked = std::chrono::steady_clock::now();
    Result<TopicsMetadata> answer = ask();
    if (!answer.ok()) return answer.status();
    auto partitions = PartitionsIn(*answer, config.topic, config.brokers);
    std::unique_lock<std::mutex> lock(client->metadata_mu, std::try_to_lock);
    if (lock.owns_lock() && (!client->metadata || client->metadata_asked < asked)) {
      client->metadata = std::move(answer);
      client->metadata_asked = asked;
    }
    return partitions;
  }
  std::lock_guard<std::mutex> lock(client->metadata_mu);
  if (client->metadata && client->metadata_asked >= asked_since) {
    if (!client->metadata->ok()) return client->metadata->status();
    auto partitions = PartitionsIn(**client->metadata, config.topic, config.brokers);
    if (partitions.ok()) return partitions;  // a topic it does not name is asked for again
  }
  client->metadata_asked = std::chrono::steady_clock::now();
  client->metadata = ask();
  if (!client->metadata->ok()) return client->metadata->status();
  return PartitionsIn(**client->metadata, config.topic, config.brokers);
}

Result<std::map<int32_t, int64_t>> KafkaMetadataClients::HighWatermarks(const KafkaClientConfig& config,
                                                                       const std::vector<int32_t>& partitions,
                                                                       std::chrono::milliseconds timeout,
                                                                       TimePoint asked_since) {
  if (asked_since == kAskNow || partitions.empty())
    return Watermarks(config, partitions, RD_KAFKA_OFFSET_END, timeout);
  ASSIGN_OR_RETURN(auto client, Get(config));
  std::shared_ptr<SharedHighs> shared = client->HighsOf(config.topic);
  std::lock_guard<std::mutex> lock(shared->mu);
  const bool covers = shared->answer.err != RD_KAFKA_RESP_ERR_NO_ERROR ||
                      std::all_of(partitions.begin(), partitions.end(),
                                  [&](int32_t p) { return shared->answer.partitions.count(p) > 0; });
  if (!shared->valid || shared->asked < asked_since || !covers) {
    shared->wanted.insert(partitions.begin(), partitions.end());
    std::vector<int32_t> ask(shared->wanted.begin(), shared->wanted.end());
    shared->asked = std::chrono::steady_clock::now();
    requests_sent_++;
    shared->answer = ListOffsets(client->rk.get(), config.topic, ask, RD_KAFKA_OFFSET_END, shared->asked + timeout);
    shared->valid = true;
    // A partition asked about once may be gone (a job dropped, a topic recreated smaller) and fail the whole
    // request: after a failure, the next request asks only for what its caller asks.
    if (shared->answer.err != RD_KAFKA_RESP_ERR_NO_ERROR) shared->wanted.clear();
  }
  return Evaluate(config, shared->answer, partitions, timeout);
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
  requests_sent_++;
  return Evaluate(config, ListOffsets(client->rk.get(), config.topic, partitions, query, deadline), partitions,
                  timeout);
}

Result<std::map<int32_t, int64_t>> KafkaMetadataClients::Evaluate(const KafkaClientConfig& config,
                                                                 const ListOffsetsAnswer& answer,
                                                                 const std::vector<int32_t>& partitions,
                                                                 std::chrono::milliseconds timeout) {
  std::map<int32_t, int64_t> out;
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
