#pragma once
// Test points: named places in a load's phases (after the fetch, inside the commit, before a purge ...) where an
// end-to-end test makes the server crash (SIGKILL itself), fail (the point returns an error its caller
// propagates) or stall, to prove that every phase survives it. Modelled on RocksDB's sync points. They do nothing
// unless the environment variable SLUICE_TEST_POINTS names them when the server starts, e.g.
//   SLUICE_TEST_POINTS="routine_load.after_decode=crash;storage.commit.routine_load=error:2"
// and then cost one relaxed atomic load each while off. Every name is listed in KnownTestPoints() and in
// common/README.md, which says what a crash at each proves.
#include <atomic>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice {

namespace test_points_internal {
extern std::atomic<bool> g_armed;
Status Hit(std::string_view name);
}  // namespace test_points_internal

// Arms the points a spec names: `name=action[;name=action...]`, where action is
//   crash[:N]        SIGKILL this process at the Nth hit (default 1)
//   error[:N]        the Nth hit returns an IoError, as a failing DuckDB write or COMMIT would
//   sleep:MS[:N]     the Nth hit waits MS milliseconds (a slow commit)
// Each action fires once. A spec name also matches the points below it: `storage.commit` is hit by every
// transaction's commit, `storage.commit.routine_load` only by routine load tasks'. Hits are counted per entry.
// An unknown name or a malformed action is an error (a misspelt spec must not pass a test silently). Call before
// any thread hits a point.
Status ArmTestPoints(std::string_view spec);
// ArmTestPoints with $SLUICE_TEST_POINTS, when set and not empty.
Status ArmTestPointsFromEnvironment();
// Turns every point off again (unit tests).
void DisarmTestPoints();

// The point `name` (one of KnownTestPoints()). Ok unless an armed `error` action fires here.
inline Status TestPoint(std::string_view name) {
  if (!test_points_internal::g_armed.load(std::memory_order_relaxed)) [[likely]] return Status::Ok();
  return test_points_internal::Hit(name);
}

// Every point name the code has.
const std::vector<std::string_view>& KnownTestPoints();

}  // namespace sluice
