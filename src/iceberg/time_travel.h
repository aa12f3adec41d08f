#pragma once
// Which snapshot a time-travel query reads (Iceberg's SnapshotUtil): FOR VERSION AS OF <id> is that snapshot while
// the metadata still has it; FOR TIMESTAMP AS OF <t> is the snapshot that was current at t -- the last entry of the
// snapshot log at or before t. Expired snapshots are gone from both, so asking for one is an error that says so.
#include <cstdint>

#include "common/status.h"
#include "iceberg/table_model.h"

namespace sluice::iceberg {

Result<const Snapshot*> SnapshotById(const TableMetadata& metadata, int64_t snapshot_id);
Result<const Snapshot*> SnapshotAsOfTime(const TableMetadata& metadata, int64_t timestamp_ms);

// "2024-05-01 10:00:00.123" (UTC) for a time in milliseconds since the epoch.
std::string MillisToText(int64_t ms);

}  // namespace sluice::iceberg
