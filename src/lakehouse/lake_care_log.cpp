#include "lakehouse/lake_care_log.h"

#include "common/ascii.h"

namespace sluice::lakehouse {

void LakeCareLog::Record(const std::string& table, LakeCareRun run) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& runs = runs_[AsciiLower(table)];
  runs.push_back(std::move(run));
  while (runs.size() > kKeep) runs.pop_front();
}

std::vector<LakeCareRun> LakeCareLog::RunsOf(const std::string& table) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = runs_.find(AsciiLower(table));
  if (it == runs_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

}  // namespace sluice::lakehouse
