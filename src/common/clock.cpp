#include "common/clock.h"

#include <chrono>

namespace sluice {

namespace {

class SystemClock final : public WallClock {
 public:
  int64_t NowMs() override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

// nullptr means the system clock, so WallClockMs() works during static initialisation too.
std::atomic<WallClock*> g_override{nullptr};

}  // namespace

WallClock& SystemWallClock() {
  static SystemClock clock;
  return clock;
}

int64_t WallClockMs() {
  WallClock* clock = g_override.load(std::memory_order_acquire);
  return clock ? clock->NowMs() : SystemWallClock().NowMs();
}

ScopedWallClockOverride::ScopedWallClockOverride(WallClock& clock)
    : previous_(g_override.exchange(&clock, std::memory_order_acq_rel)) {}

ScopedWallClockOverride::~ScopedWallClockOverride() { g_override.store(previous_, std::memory_order_release); }

}  // namespace sluice
