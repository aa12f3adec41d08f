#include "executor/status_counters.h"

namespace sluice {

void StatusCounters::Count(std::string_view word) {
  questions_++;
  for (size_t i = 0; i < kCommands.size(); i++) {
    if (kCommands[i] == word || (kCommands[i] == "begin" && word == "start")) {
      commands_[i]++;
      return;
    }
  }
}

std::vector<std::pair<std::string, std::string>> StatusCounters::Snapshot() const {
  std::vector<std::pair<std::string, std::string>> out;
  auto uptime = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started_);
  for (size_t i = 0; i < kCommands.size(); i++)
    out.emplace_back("Com_" + std::string(kCommands[i]), std::to_string(commands_[i].load()));
  out.emplace_back("Questions", std::to_string(questions_.load()));
  out.emplace_back("Uptime", std::to_string(uptime.count()));
  return out;
}

}  // namespace sluice
