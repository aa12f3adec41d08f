#pragma once

#include <set>
#include <string>
#include <vector>

#include <librdkafka/rdkafka.h>  // rdkafka_mock.h does not include it itself
#include <librdkafka/rdkafka_mock.h>

#include "options.h"

namespace testbroker {

// The answer to one command line: a single `OK ...` or `ERR <reason>` line.
struct Reply {
  std::string line;
  bool quit = false;  // the command asked the broker to stop
};

// Turns text commands into calls on the mock cluster. The mock API hands each call to
// the cluster's own thread and waits, so this needs no locking of its own.
class CommandHandler {
 public:
  CommandHandler(rd_kafka_mock_cluster_t* cluster, int brokers) : cluster_(cluster), brokers_(brokers) {}

  // Runs one line. Blank lines and `#` comments give an empty reply (nothing to send).
  Reply Run(const std::string& line);

  // Creates a topic with replication factor min(3, brokers); returns an error text or "".
  std::string CreateTopic(const TopicSpec& spec);

  std::string Bootstrap() const { return rd_kafka_mock_cluster_bootstraps(cluster_); }

 private:
  Reply BrokerUpDown(const std::vector<std::string>& args);
  Reply Leader(const std::vector<std::string>& args);
  Reply Errors(const std::vector<std::string>& args);
  Reply Create(const std::vector<std::string>& args);
  Reply TopicError(const std::vector<std::string>& args);

  rd_kafka_mock_cluster_t* cluster_;
  int brokers_;
  // Topics made by --topic or `create`. The mock cannot be asked which topics exist, and
  // setting a leader on an unknown topic would silently create it.
  std::set<std::string> topics_;
};

}  // namespace testbroker
