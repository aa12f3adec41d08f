#include "options.h"

#include <charconv>

namespace testbroker {

const char kUsage[] =
    "usage: testbroker [--brokers N] [--topic name:partitions]... [--bootstrap-file PATH]\n"
    "                  [--port PORT] [--control-port PORT] [--no-stdin]\n"
    "Runs a Kafka-protocol mock cluster on loopback and takes commands on stdin and on\n"
    "127.0.0.1:PORT (one per line): broker down|up K, leader TOPIC PARTITION BROKER,\n"
    "errors APIKEY CODE..., create TOPIC PARTITIONS, bootstrap, help, quit.\n";

std::optional<long> ParseInt(const std::string& text, long lo, long hi) {
  long value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < lo || value > hi) return std::nullopt;
  return value;
}

std::optional<TopicSpec> ParseTopicSpec(const std::string& name, const std::string& partitions,
                                        std::string& error) {
  // Kafka's own rule for topic names; checking it here gives a clear message instead of
  // a confusing failure later in a client.
  if (name.empty() || name.size() > 249 || name == "." || name == "..") {
    error = "bad topic name '" + name + "'";
    return std::nullopt;
  }
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '-';
    if (!ok) {
      error = "bad topic name '" + name + "' (allowed: letters, digits, '.', '_', '-')";
      return std::nullopt;
    }
  }
  auto count = ParseInt(partitions, 1, 10000);
  if (!count) {
    error = "bad partition count '" + partitions + "' (1..10000)";
    return std::nullopt;
  }
  return TopicSpec{name, static_cast<int>(*count)};
}

std::optional<Options> ParseOptions(int argc, char** argv, std::string& error) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      error.clear();
      return std::nullopt;
    }
    if (arg == "--no-stdin") {
      options.read_stdin = false;
      continue;
    }
    // Every other option takes one value.
    if (arg != "--brokers" && arg != "--topic" && arg != "--bootstrap-file" && arg != "--control-port" &&
        arg != "--port") {
      error = "unknown option '" + arg + "'";
      return std::nullopt;
    }
    if (i + 1 >= argc) {
      error = arg + " needs a value";
      return std::nullopt;
    }
    std::string value = argv[++i];
    if (arg == "--brokers") {
      auto n = ParseInt(value, 1, 100);
      if (!n) {
        error = "bad --brokers '" + value + "' (1..100)";
        return std::nullopt;
      }
      options.brokers = static_cast<int>(*n);
    } else if (arg == "--topic") {
      auto colon = value.rfind(':');
      if (colon == std::string::npos) {
        error = "--topic wants name:partitions, got '" + value + "'";
        return std::nullopt;
      }
      auto spec = ParseTopicSpec(value.substr(0, colon), value.substr(colon + 1), error);
      if (!spec) return std::nullopt;
      options.topics.push_back(*spec);
    } else if (arg == "--bootstrap-file") {
      if (value.empty()) {
        error = "--bootstrap-file needs a path";
        return std::nullopt;
      }
      options.bootstrap_file = value;
    } else if (arg == "--port") {
      auto port = ParseInt(value, 1, 65535);
      if (!port) {
        error = "bad --port '" + value + "' (1..65535)";
        return std::nullopt;
      }
      options.port = static_cast<int>(*port);
    } else {
      auto port = ParseInt(value, 0, 65535);
      if (!port) {
        error = "bad --control-port '" + value + "' (0..65535)";
        return std::nullopt;
      }
      options.control_port = static_cast<int>(*port);
    }
  }
  return options;
}

}  // namespace testbroker
