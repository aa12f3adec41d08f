#include "iceberg/time_travel.h"

#include <fmt/format.h>

#include "iceberg/value.h"

namespace sluice::iceberg {

Result<const Snapshot*> SnapshotById(const TableMetadata& metadata, int64_t snapshot_id) {
  if (const Snapshot* s = metadata.FindSnapshot(snapshot_id)) return s;
  return Status::NotFound(fmt::format("the table has no snapshot {}: it never had one of that id, or it was expired "
                                      "(SELECT * FROM <table>$snapshots lists the snapshots it keeps)",
                                      snapshot_id));
}

Result<const Snapshot*> SnapshotAsOfTime(const TableMetadata& metadata, int64_t timestamp_ms) {
  const Snapshot* found = nullptr;
  int64_t found_at = 0;
  for (const auto& entry : metadata.snapshot_log) {
    const Snapshot* s = metadata.FindSnapshot(entry.snapshot_id);
    if (s && entry.timestamp_ms <= timestamp_ms && (!found || entry.timestamp_ms >= found_at)) {
      found = s;
      found_at = entry.timestamp_ms;
    }
  }
  if (metadata.snapshot_log.empty()) {  // a writer that keeps no log: the snapshots' own times
    for (const auto& s : metadata.snapshots) {
      if (s.timestamp_ms <= timestamp_ms && (!found || s.timestamp_ms >= found->timestamp_ms)) found = &s;
    }
  }
  if (found) return found;
  int64_t oldest = -1;
  for (const auto& s : metadata.snapshots)
    if (oldest < 0 || s.timestamp_ms < oldest) oldest = s.timestamp_ms;
  if (oldest < 0)
    return Status::NotFound(fmt::format("the table has no snapshot at or before {} UTC: it has no snapshots yet",
                                        MillisToText(timestamp_ms)));
  return Status::NotFound(fmt::format("the table has no snapshot at or before {} UTC: its oldest kept snapshot "
                                      "was committed at {} UTC (older ones never existed or were expired)",
                                      MillisToText(timestamp_ms), MillisToText(oldest)));
}

std::string MillisToText(int64_t ms) {
  const int64_t day_ms = 86400000;
  int64_t days = ms >= 0 ? ms / day_ms : -((-ms + day_ms - 1) / day_ms);
  int64_t rest = ms - days * day_ms;
  int64_t y = 0;
  unsigned m = 0, d = 0;
  CivilFromDays(days, &y, &m, &d);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03}", y, m, d, rest / 3600000, rest / 60000 % 60,
                     rest / 1000 % 60, rest % 1000);
}

}  // namespace sluice::iceberg
