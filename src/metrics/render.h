#pragma once
// GET /metrics: every family Sluice exports (names and labels: docs/monitoring.md), from the samples the caller
// gathered. Pure formatting, no locks: a scrape of 1,000 jobs renders in a few milliseconds.
#include <string>
#include <vector>

#include "metrics/exposition.h"
#include "metrics/samples.h"

namespace sluice::metrics {

std::string RenderMetrics(const ServerSample& server, const std::vector<JobSample>& jobs, Format format);

}  // namespace sluice::metrics
