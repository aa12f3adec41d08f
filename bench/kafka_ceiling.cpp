// The benchmark's consumption ceiling: how fast bare librdkafka consumers pull a topic off the broker.
//
//   kafka_ceiling BOOTSTRAP TOPIC CONSUMERS
//
// Starts CONSUMERS threads, each with its own consumer client (as a Sluice task has), and splits the topic's
// partitions round-robin between them (partition p to consumer p mod CONSUMERS). Each assign()s its partitions at
// the beginning, takes messages from its queue in batches and only counts them, until every one of its partitions
// reported end-of-partition. Prints one line of JSON: {"messages": N, "seconds": S, "cpu_seconds": C} where S runs
// from before the first client is created until the last consumer has counted its last partition's end (so, like a
// Sluice job, it includes connecting and the first fetches, but not a process start nor closing the clients), and C
// is the process's utime+stime from the same start until the clients are closed.
// Default client settings otherwise, so this is the limit any loader built on librdkafka reaches on this broker.
#include <librdkafka/rdkafka.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

double CpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

rd_kafka_t* NewConsumer(const std::string& bootstrap) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  const char* settings[][2] = {{"bootstrap.servers", bootstrap.c_str()},
                               {"group.id", "sluice-bench-ceiling"},
                               {"enable.auto.commit", "false"},
                               {"enable.partition.eof", "true"}};
  for (auto& kv : settings) {
    if (rd_kafka_conf_set(conf, kv[0], kv[1], err, sizeof err) != RD_KAFKA_CONF_OK) {
      std::fprintf(stderr, "%s: %s\n", kv[0], err);
      std::exit(1);
    }
  }
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (rk == nullptr) {
    std::fprintf(stderr, "rd_kafka_new: %s\n", err);
    std::exit(1);
  }
  return rk;
}

int PartitionCount(rd_kafka_t* rk, const std::string& topic) {
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 0, rkt, &md, 10000);
  int count = -1;
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR && md->topic_cnt == 1 && md->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR)
    count = md->topics[0].partition_cnt;
  if (md != nullptr) rd_kafka_metadata_destroy(md);
  rd_kafka_topic_destroy(rkt);
  return count;
}

// One consumer: its partitions, counted until each reported its end.
void Consume(const std::string& bootstrap, const std::string& topic, int index, int consumers, int partitions,
             std::atomic<long>& total, std::chrono::steady_clock::time_point& done) {
  rd_kafka_t* rk = NewConsumer(bootstrap);
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions / consumers + 1);
  int mine = 0;
  for (int p = index; p < partitions; p += consumers) {
    rd_kafka_topic_partition_list_add(list, topic.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
    ++mine;
  }
  if (rd_kafka_assign(rk, list) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    std::fprintf(stderr, "assign failed\n");
    std::exit(1);
  }
  rd_kafka_topic_partition_list_destroy(list);
  rd_kafka_queue_t* queue = rd_kafka_queue_get_consumer(rk);
  std::vector<rd_kafka_message_t*> batch(1024);
  std::vector<bool> at_end(partitions, false);
  long count = 0;
  int ended = 0;
  while (ended < mine) {
    // With a timeout, rd_kafka_consume_batch_queue() waits until the batch is full: take what is ready, and only
    // when nothing is, wait for one message and take what came with it (as Sluice's consumer does).
    ssize_t n = rd_kafka_consume_batch_queue(queue, 0, batch.data(), batch.size());
    if (n == 0) {
      n = rd_kafka_consume_batch_queue(queue, 1000, batch.data(), 1);
      if (n == 1) {
        ssize_t more = rd_kafka_consume_batch_queue(queue, 0, batch.data() + 1, batch.size() - 1);
        if (more > 0) n += more;
      }
    }
    for (ssize_t i = 0; i < n; ++i) {
      rd_kafka_message_t* m = batch[i];
      if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        ++count;
      } else if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        if (!at_end[m->partition]) {
          at_end[m->partition] = true;
          ++ended;
        }
      } else {
        std::fprintf(stderr, "consumer %d: %s\n", index, rd_kafka_message_errstr(m));
      }
      rd_kafka_message_destroy(m);
    }
  }
  total += count;
  done = std::chrono::steady_clock::now();  // closing the client is not part of reading
  rd_kafka_queue_destroy(queue);
  rd_kafka_destroy(rk);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s BOOTSTRAP TOPIC CONSUMERS\n", argv[0]);
    return 2;
  }
  std::string bootstrap = argv[1], topic = argv[2];
  int consumers = std::atoi(argv[3]);
  if (consumers < 1) consumers = 1;
  // The partition count is looked up before the clock starts: a Sluice job knows it from its creation.
  rd_kafka_t* meta = NewConsumer(bootstrap);
  int partitions = PartitionCount(meta, topic);
  rd_kafka_destroy(meta);
  if (partitions < 1) {
    std::fprintf(stderr, "topic %s not found\n", topic.c_str());
    return 1;
  }
  if (consumers > partitions) consumers = partitions;
  std::atomic<long> total{0};
  double cpu0 = CpuSeconds();
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::chrono::steady_clock::time_point> done(consumers, t0);
  std::vector<std::thread> threads;
  for (int i = 0; i < consumers; ++i)
    threads.emplace_back(Consume, bootstrap, topic, i, consumers, partitions, std::ref(total), std::ref(done[i]));
  for (auto& t : threads) t.join();
  auto last = t0;
  for (auto& d : done) last = std::max(last, d);
  double secs = std::chrono::duration<double>(last - t0).count();
  std::printf("{\"messages\": %ld, \"seconds\": %.4f, \"cpu_seconds\": %.3f, \"consumers\": %d, \"partitions\": %d}\n",
              total.load(), secs, CpuSeconds() - cpu0, consumers, partitions);
  return 0;
}
