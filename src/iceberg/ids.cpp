#include "iceberg/ids.h"

#include <fmt/format.h>

#include <mutex>
#include <random>

namespace sluice::iceberg {
namespace {

uint64_t Random64() {
  static std::mutex mu;
  static std::mt19937_64 gen([] {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }());
  std::lock_guard<std::mutex> lock(mu);
  return gen();
}

}  // namespace

std::string NewUuid() {
  uint64_t hi = Random64(), lo = Random64();
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 10
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xffff, hi & 0xffff, lo >> 48,
                     lo & 0xffffffffffffULL);
}

int64_t NewSnapshotId() {
  int64_t id = 0;
  while (id == 0) id = static_cast<int64_t>(Random64() & 0x7fffffffffffffffULL);
  return id;
}

}  // namespace sluice::iceberg
