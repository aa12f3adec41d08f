#include "cluster/whole_job_split.h"

#include <set>

namespace sluice::cluster {

std::map<int64_t, std::string> SplitWholeJobs(const std::map<int64_t, std::vector<std::string>>& eligible,
                                              const std::map<int64_t, std::string>& running) {
  std::map<int64_t, std::set<std::string>> able;
  std::set<std::string> nodes;
  for (const auto& [job, list] : eligible) {
    if (list.empty()) continue;
    able[job] = std::set<std::string>(list.begin(), list.end());
    nodes.insert(list.begin(), list.end());
  }
  std::map<int64_t, std::string> out;
  if (nodes.empty()) return out;
  const size_t share = able.size() / nodes.size();
  size_t extras = able.size() % nodes.size();  // nodes that may still run share + 1
  std::map<std::string, size_t> load;
  // Jobs stay where they run while their node is within its share (std::map: id order, the same on every node).
  for (const auto& [job, ok] : able) {
    auto r = running.find(job);
    if (r == running.end() || !ok.count(r->second)) continue;
    size_t& l = load[r->second];
    if (l < share || (l == share && extras > 0)) {
      if (l == share) extras--;
      l++;
      out[job] = r->second;
    }
  }
  // The rest go to the eligible node running the fewest.
  for (const auto& [job, ok] : able) {
    if (out.count(job)) continue;
    const std::string* best = nullptr;
    for (const auto& n : ok)
      if (!best || load[n] < load[*best]) best = &n;
    load[*best]++;
    out[job] = *best;
  }
  return out;
}

}  // namespace sluice::cluster
