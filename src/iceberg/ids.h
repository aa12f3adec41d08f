#pragma once
// Random identifiers Iceberg files and snapshots are named by: UUIDs (version 4) and positive 63-bit snapshot ids.
#include <cstdint>
#include <string>

namespace sluice::iceberg {

std::string NewUuid();
int64_t NewSnapshotId();

}  // namespace sluice::iceberg
