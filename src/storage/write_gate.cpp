#include "storage/write_gate.h"

#include <algorithm>
#include <iterator>

namespace sluice::storage {

namespace {

bool SameTable(const std::string& a, const std::string& b) { return a == b || a == "*" || b == "*"; }

bool Compatible(WriteGate::Mode a, WriteGate::Mode b) { return a == b && a != WriteGate::Mode::kExclusive; }

}  // namespace

bool WriteGate::Conflicts(const std::vector<Claim>& a, const std::vector<Claim>& b) {
  for (const Claim& x : a)
    for (const Claim& y : b)
      if (SameTable(x.table, y.table) && !Compatible(x.mode, y.mode)) return true;
  return false;
}

WriteGate::Hold WriteGate::Acquire(std::vector<Claim> claims) {
  if (claims.empty()) return Hold();
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t ticket = next_ticket_++;
  entries_.push_back({ticket, std::move(claims)});
  const auto mine = std::prev(entries_.end());
  released_.wait(lock, [&] {
    return std::none_of(entries_.begin(), mine, [&](const Entry& e) { return Conflicts(e.claims, mine->claims); });
  });
  return Hold(this, ticket);
}

void WriteGate::Release(uint64_t ticket) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.remove_if([&](const Entry& e) { return e.ticket == ticket; });
  }
  released_.notify_all();
}

WriteGate::Hold::~Hold() {
  if (gate_) gate_->Release(ticket_);
}

}  // namespace sluice::storage
