#include "common/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace sluice::log {

namespace {
std::atomic<Level> g_level{Level::kInfo};
std::mutex g_mu;

const char* LevelName(Level l) {
  switch (l) {
    case Level::kDebug: return "DEBUG";
    case Level::kInfo: return "INFO ";
    case Level::kWarn: return "WARN ";
    case Level::kError: return "ERROR";
  }
  return "?";
}
}  // namespace

void SetLevel(Level level) { g_level = level; }
bool Enabled(Level level) { return level >= g_level.load(std::memory_order_relaxed); }

void Write(Level level, std::string_view component, std::string_view message) {
  auto now = std::chrono::system_clock::now();
  std::time_t secs = std::chrono::system_clock::to_time_t(now);
  int millis = static_cast<int>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
  // One fprintf under a lock keeps lines from different threads whole.
  std::lock_guard<std::mutex> lock(g_mu);
  std::fprintf(stderr, "%s.%03d %s [%.*s] %.*s\n", stamp, millis, LevelName(level),
               static_cast<int>(component.size()), component.data(), static_cast<int>(message.size()),
               message.data());
  std::fflush(stderr);
}

}  // namespace sluice::log
