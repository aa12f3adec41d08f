#include "common/test_points.h"

#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <thread>

#include "common/log.h"

namespace sluice {

namespace test_points_internal {
std::atomic<bool> g_armed{false};
}  // namespace test_points_internal

namespace {

// The table of common/README.md, in the same order.
const std::vector<std::string_view> kKnownPoints = {
    "routine_load.after_fetch",   "routine_load.after_decode",   "routine_load.inside_commit",
    "routine_load.after_commit",  "kafka_pipe.after_fetch",      "kafka_pipe.after_decode",
    "kafka_pipe.inside_commit",   "kafka_pipe.after_commit",     "iceberg_load.after_upload",
    "iceberg_load.after_fence",   "iceberg_load.after_commit",  "iceberg_rewrite.after_upload", "volume_pipe.after_download",
    "volume_pipe.inside_commit",  "volume_pipe.before_purge",    "copy_into.after_download",
    "copy_into.inside_commit",    "storage.commit",              "storage.commit.routine_load",
    "storage.commit.kafka_pipe",  "storage.commit.volume_pipe",  "storage.commit.copy_into",
    "storage.query.after_plan",
    "drop_table.inside",          "undrop_table.inside",         "alter_table.inside",         "alter_routine_load.inside",
    "alter_pipe.after_definition",
};

enum class Action { kCrash, kError, kSleep };

struct Entry {
  std::string name;
  Action action = Action::kCrash;
  int64_t sleep_ms = 0;
  int64_t on_hit = 1;
  std::atomic<int64_t> hits{0};
};

// Written by ArmTestPoints before g_armed turns true; read-only while armed.
std::vector<std::unique_ptr<Entry>>& Entries() {
  static std::vector<std::unique_ptr<Entry>> entries;
  return entries;
}

bool Covers(std::string_view spec_name, std::string_view point) {
  return point == spec_name ||
         (point.size() > spec_name.size() && point.substr(0, spec_name.size()) == spec_name &&
          point[spec_name.size()] == '.');
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool ParseCount(std::string_view s, int64_t min, int64_t& out) {
  if (s.empty() || s.size() > 12) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v < min) return false;
  out = v;
  return true;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); i++) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

Status Malformed(std::string_view entry, const std::string& why) {
  return Status::InvalidArgument("SLUICE_TEST_POINTS entry '" + std::string(entry) + "': " + why +
                                 " (expected name=crash[:N], name=error[:N] or name=sleep:MS[:N])");
}

Result<std::unique_ptr<Entry>> ParseEntry(std::string_view text) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos) return Malformed(text, "no '='");
  auto e = std::make_unique<Entry>();
  e->name = std::string(Trim(text.substr(0, eq)));
  bool known = false;
  for (std::string_view p : kKnownPoints) known = known || Covers(e->name, p);
  if (!known) {
    std::string names;
    for (std::string_view p : kKnownPoints) names += (names.empty() ? "" : ", ") + std::string(p);
    return Status::InvalidArgument("SLUICE_TEST_POINTS names an unknown test point '" + e->name + "'; known: " + names);
  }
  auto parts = Split(Trim(text.substr(eq + 1)), ':');
  const std::string_view action = parts[0];
  size_t count_at = 1;
  if (action == "crash") {
    e->action = Action::kCrash;
  } else if (action == "error") {
    e->action = Action::kError;
  } else if (action == "sleep") {
    e->action = Action::kSleep;
    if (parts.size() < 2 || !ParseCount(parts[1], 0, e->sleep_ms)) return Malformed(text, "sleep needs milliseconds");
    count_at = 2;
  } else {
    return Malformed(text, "unknown action '" + std::string(action) + "'");
  }
  if (parts.size() > count_at + 1) return Malformed(text, "too many ':' parts");
  if (parts.size() == count_at + 1 && !ParseCount(parts[count_at], 1, e->on_hit))
    return Malformed(text, "the hit number must be 1 or more");
  return e;
}

const char* ActionName(Action a) {
  switch (a) {
    case Action::kCrash: return "crash";
    case Action::kError: return "error";
    case Action::kSleep: return "sleep";
  }
  return "?";
}

}  // namespace

Status ArmTestPoints(std::string_view spec) {
  DisarmTestPoints();
  std::vector<std::unique_ptr<Entry>> parsed;
  for (std::string_view item : Split(spec, ';')) {
    item = Trim(item);
    if (item.empty()) continue;
    ASSIGN_OR_RETURN(auto e, ParseEntry(item));
    parsed.push_back(std::move(e));
  }
  if (parsed.empty()) return Status::Ok();
  std::string summary;
  for (const auto& e : parsed)
    summary += (summary.empty() ? "" : "; ") + e->name + " " + ActionName(e->action) +
               (e->action == Action::kSleep ? " " + std::to_string(e->sleep_ms) + " ms" : "") + " at hit " +
               std::to_string(e->on_hit);
  Entries() = std::move(parsed);
  test_points_internal::g_armed.store(true, std::memory_order_release);
  log::Warn("test_point", "test points armed (SLUICE_TEST_POINTS; never in production): {}", summary);
  return Status::Ok();
}

Status ArmTestPointsFromEnvironment() {
  const char* spec = std::getenv("SLUICE_TEST_POINTS");
  if (spec == nullptr || *spec == '\0') return Status::Ok();
  return ArmTestPoints(spec);
}

void DisarmTestPoints() {
  test_points_internal::g_armed.store(false, std::memory_order_release);
  Entries().clear();
}

const std::vector<std::string_view>& KnownTestPoints() { return kKnownPoints; }

Status test_points_internal::Hit(std::string_view name) {
  if (!g_armed.load(std::memory_order_acquire)) return Status::Ok();
  for (const auto& e : Entries()) {
    if (!Covers(e->name, name)) continue;
    const int64_t hit = e->hits.fetch_add(1, std::memory_order_relaxed) + 1;
    if (hit != e->on_hit) continue;
    switch (e->action) {
      case Action::kCrash:
        log::Warn("test_point", "test point {} fired (hit {} of {}): crashing with SIGKILL", name, hit, e->name);
        raise(SIGKILL);
        break;
      case Action::kError:
        log::Warn("test_point", "test point {} fired (hit {} of {}): injecting an error", name, hit, e->name);
        return Status::IoError("injected failure at test point " + std::string(name) + " (SLUICE_TEST_POINTS)");
      case Action::kSleep:
        log::Warn("test_point", "test point {} fired (hit {} of {}): sleeping {} ms", name, hit, e->name,
                  e->sleep_ms);
        std::this_thread::sleep_for(std::chrono::milliseconds(e->sleep_ms));
        log::Warn("test_point", "test point {} woke up after {} ms", name, e->sleep_ms);
        break;
    }
  }
  return Status::Ok();
}

}  // namespace sluice
