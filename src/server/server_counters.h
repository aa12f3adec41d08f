#pragma once
// Counters shared by all connections: COM_STATISTICS reads some, GET /metrics all of them. Counting is a relaxed
// atomic add (errors: a short lock), so connections never wait on a scrape.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace sluice::server {

struct ServerCounters {
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::atomic<uint64_t> questions{0};
  std::atomic<uint32_t> connections{0};         // open now
  std::atomic<uint64_t> connections_total{0};   // accepted since the start

  // A statement about to run, counted by its first keyword (select, insert, show, create, ... or "other").
  void CountStatement(std::string_view statement);
  // An ERR packet sent to a client.
  void CountError(uint16_t code);

  std::map<std::string, uint64_t> StatementsByKind() const;
  std::map<uint16_t, uint64_t> ErrorsByCode() const;

  // The kinds counted apart; everything else is "other".
  static constexpr std::array<std::string_view, 22> kKinds = {
      "select", "insert", "update", "delete", "replace", "create", "drop", "alter", "show", "describe", "set", "use",
      "begin", "commit", "rollback", "pause", "resume", "stop", "grant", "revoke", "kill", "other"};

 private:
  std::array<std::atomic<uint64_t>, kKinds.size()> by_kind_{};
  mutable std::mutex errors_mu_;
  std::map<uint16_t, uint64_t> errors_;
};

}  // namespace sluice::server
