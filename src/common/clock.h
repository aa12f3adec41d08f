#pragma once
// The wall clock: where every layer reads "now" as milliseconds since the Unix epoch (the times Sluice stores in
// its tables and shows: job create/pause/end times, load history, file load records, retention purges). One seam,
// as RocksDB's Env is, so a test can set the time instead of sleeping past it. Durations and timeouts are measured
// with std::chrono::steady_clock where they are taken and do not go through here; log timestamps stay the
// machine's, so log lines still line up with other processes'.
#include <atomic>
#include <cstdint>

namespace sluice {

class WallClock {
 public:
  virtual ~WallClock() = default;
  // Milliseconds since 1970-01-01 00:00:00 UTC.
  virtual int64_t NowMs() = 0;
};

// std::chrono::system_clock: the clock in use unless a test substitutes another.
WallClock& SystemWallClock();

// Now, from the clock in use. Safe from any thread; costs one atomic load more than reading the system clock.
int64_t WallClockMs();

// For tests: while it lives, WallClockMs() reads `clock` (which must outlive it); the clock in use before comes
// back when it ends. Overrides nest. The process has one clock, so threads the test did not start (a scheduler,
// an upkeep loop) see the substitute too.
class ScopedWallClockOverride {
 public:
  explicit ScopedWallClockOverride(WallClock& clock);
  ~ScopedWallClockOverride();
  ScopedWallClockOverride(const ScopedWallClockOverride&) = delete;
  ScopedWallClockOverride& operator=(const ScopedWallClockOverride&) = delete;

 private:
  WallClock* previous_;
};

// A clock that moves only when told: what a test substitutes.
class ManualWallClock : public WallClock {
 public:
  explicit ManualWallClock(int64_t start_ms) : now_ms_(start_ms) {}
  int64_t NowMs() override { return now_ms_.load(std::memory_order_relaxed); }
  void SetMs(int64_t ms) { now_ms_.store(ms, std::memory_order_relaxed); }
  void AdvanceMs(int64_t ms) { now_ms_.fetch_add(ms, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> now_ms_;
};

}  // namespace sluice
