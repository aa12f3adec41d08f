#pragma once
// The job's `timezone` property, applied in generated SQL. DuckDB's ICU knows IANA names but not offsets like
// "+08:00" (which StarRocks accepts), so a fixed offset is applied with interval arithmetic instead.
#include <string>
#include <string_view>

#include "common/status.h"

namespace sluice::transform {

class TimeZone {
 public:
  // "" and "UTC" are UTC; IANA names ("Asia/Shanghai"); fixed offsets ("+08:00", "-05:30"); "CST" means
  // Asia/Shanghai, as in StarRocks. The name is not checked against ICU's list here: DuckDB does that.
  static Result<TimeZone> Parse(std::string_view spec);

  // SQL turning an instant (TIMESTAMPTZ) into the wall-clock time (TIMESTAMP) of this zone.
  std::string ToLocal(const std::string& instant_sql) const;
  // SQL turning a wall-clock time (TIMESTAMP) of this zone into an instant (TIMESTAMPTZ).
  std::string FromLocal(const std::string& local_sql) const;
  // The same for unix seconds, in both directions. UTC and fixed offsets avoid ICU, which costs about four times
  // as much per row (from_unixtime over a large batch).
  std::string LocalFromUnixSeconds(const std::string& seconds_sql) const;
  std::string UnixSecondsFromLocal(const std::string& local_sql) const;

  const std::string& name() const { return name_; }

 private:
  std::string name_;    // as DuckDB knows it, or the offset as written
  std::string offset_;  // fixed offsets only: an interval literal such as "08:00:00" or "-05:30:00"
  bool utc_ = false;
};

}  // namespace sluice::transform
