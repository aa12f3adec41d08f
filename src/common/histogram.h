#pragma once
// A fixed-bucket histogram of observations (Prometheus' shape: cumulative buckets, a sum and a count), cheap to
// update under the owner's lock and to copy for a scrape. Bucket bounds are given once and never change.
#include <cstdint>
#include <vector>

namespace sluice {

struct Histogram {
  std::vector<double> bounds;     // upper bounds, ascending; +Inf is implied
  std::vector<uint64_t> counts;   // per bucket (not cumulative), bounds.size() + 1 of them
  double sum = 0;
  uint64_t count = 0;

  Histogram() = default;
  explicit Histogram(std::vector<double> upper_bounds) : bounds(std::move(upper_bounds)), counts(bounds.size() + 1) {}

  void Observe(double value) {
    size_t i = 0;
    while (i < bounds.size() && value > bounds[i]) ++i;
    counts[i]++;
    sum += value;
    count++;
  }
};

}  // namespace sluice
