#pragma once
// What SHOW STATUS reports: the server's uptime and statement counters (MySQL's Questions and Com_*), counted by
// every session of one server as its statements start.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice {

class StatusCounters {
 public:
  // The Com_* counters, by the statement's first word.
  static constexpr std::array<std::string_view, 12> kCommands = {
      "select", "insert", "update", "delete", "create", "drop", "alter", "show", "set", "use", "begin", "commit"};

  void Count(std::string_view first_word_lower);
  // (Variable_name, Value) for Uptime, Questions and each Com_*.
  std::vector<std::pair<std::string, std::string>> Snapshot() const;

 private:
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::atomic<uint64_t> questions_{0};
  std::array<std::atomic<uint64_t>, kCommands.size()> commands_{};
};

}  // namespace sluice
