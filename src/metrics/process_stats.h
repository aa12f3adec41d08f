#pragma once
// The process' own costs, read from /proc/self (Linux): CPU time, memory, threads, open files.
#include "metrics/samples.h"

namespace sluice::metrics {

// Zeros for whatever cannot be read (not Linux, /proc not mounted).
ProcessSample ReadProcessSample();

}  // namespace sluice::metrics
