#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace testbroker {

// A topic to create at start-up, from `--topic name:partitions`.
struct TopicSpec {
  std::string name;
  int partitions = 1;
};

struct Options {
  int brokers = 1;
  std::vector<TopicSpec> topics;
  std::string bootstrap_file;       // empty: do not write one
  std::optional<int> control_port;  // 0 asks the kernel for a free port
  std::optional<int> port;          // a fixed bootstrap port relayed to broker 1
  bool read_stdin = true;
};

// Parses argv. On failure returns nothing and fills `error` (an empty error with no
// result means --help was asked for: print usage and exit 0).
std::optional<Options> ParseOptions(int argc, char** argv, std::string& error);

// Parses "name:partitions" (used by --topic); shared with the `create` command.
std::optional<TopicSpec> ParseTopicSpec(const std::string& name, const std::string& partitions,
                                        std::string& error);

// Whole-string integer parse; rejects trailing junk and values outside [lo, hi].
std::optional<long> ParseInt(const std::string& text, long lo, long hi);

extern const char kUsage[];

}  // namespace testbroker
