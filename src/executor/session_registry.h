#pragma once
// The sessions that are open right now, for SHOW PROCESSLIST.
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace sluice {

class SessionRegistry {
 public:
  struct Entry {
    uint32_t connection_id = 0;
    std::string user;
    std::string host;
    std::string db;
    int64_t seconds_connected = 0;
  };

  void Add(uint32_t id, std::string user, std::string host, std::string db) {
    std::lock_guard<std::mutex> lock(mu_);
    sessions_[id] = {std::move(user), std::move(host), std::move(db), std::chrono::steady_clock::now()};
  }
  void SetDatabase(uint32_t id, std::string db) {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = sessions_.find(id); it != sessions_.end()) it->second.db = std::move(db);
  }
  void Remove(uint32_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    sessions_.erase(id);
  }
  std::vector<Entry> List() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Entry> out;
    auto now = std::chrono::steady_clock::now();
    for (const auto& [id, s] : sessions_)
      out.push_back({id, s.user, s.host, s.db,
                     std::chrono::duration_cast<std::chrono::seconds>(now - s.since).count()});
    return out;
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return sessions_.size();
  }

 private:
  struct Open {
    std::string user, host, db;
    std::chrono::steady_clock::time_point since;
  };
  mutable std::mutex mu_;
  std::map<uint32_t, Open> sessions_;
};

}  // namespace sluice
