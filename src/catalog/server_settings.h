#pragma once
// Server-wide settings a user changes with SET GLOBAL name = value, kept in __sluice.server_settings so they hold
// across restarts. Today: load_history_retention_days (how long load_history keeps its rows, default 7) and
// query_timeout (seconds a statement may run, default 300; a session may also SET its own).
// max_pipe_num (how many pipes may exist, default 100), max_routine_load_job_num (how many routine loads may be live,
// default 100).
// Sessions read them like MySQL global variables (SELECT @@name, SHOW VARIABLES).
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "storage/database.h"

namespace sluice::catalog {

inline constexpr const char* kLoadHistoryRetentionDays = "load_history_retention_days";
inline constexpr const char* kQueryTimeout = "query_timeout";
// StarRocks-style cap on pipes (as max_routine_load_job_num caps routine loads): each Kafka pipe holds consumer
// threads, so an unbounded number of them exhausts the server's threads.
inline constexpr const char* kMaxPipeNum = "max_pipe_num";
inline constexpr int64_t kDefaultMaxPipeNum = 100;
// StarRocks' max_routine_load_job_num (an FE setting there, a SET GLOBAL one here): routine loads that are not
// STOPPED/CANCELLED. The default keeps a server nobody sized for more within its CPU and memory; 1,000 idle jobs
// (500 routine loads, 500 pipes) ran in 21 threads and about 110 MiB (docs/benchmarks.md).
inline constexpr const char* kMaxRoutineLoadJobNum = "max_routine_load_job_num";
inline constexpr int64_t kDefaultMaxRoutineLoadJobNum = 100;

class ServerSettings {
 public:
  static Result<std::unique_ptr<ServerSettings>> Open(storage::Database& db);

  // True for the names this class owns; a session sends SET GLOBAL of these here.
  static bool IsServerSetting(std::string_view name);
  // Server settings a session may also set for itself (SET name = v without GLOBAL overrides the server's value).
  static bool IsSessionSetting(std::string_view name);
  // The normalized value, or InvalidArgument saying what is allowed (the check SET GLOBAL makes).
  static Result<std::string> Validate(std::string_view name, const std::string& value);
  // Validates, persists, then applies. A bad value is InvalidArgument saying what is allowed.
  Status Set(const std::string& name, const std::string& value);
  std::optional<std::string> Get(std::string_view name) const;
  // Every setting with its current value, in name order.
  std::vector<std::pair<std::string, std::string>> All() const;

  int64_t LoadHistoryRetentionMs() const;
  int64_t QueryTimeoutSeconds() const;
  int64_t MaxPipeNum() const;
  int64_t MaxRoutineLoadJobNum() const;

 private:
  explicit ServerSettings(std::unique_ptr<storage::Connection> con) : con_(std::move(con)) {}
  mutable std::mutex mu_;
  std::unique_ptr<storage::Connection> con_;
  std::map<std::string, std::string, std::less<>> values_;
};

}  // namespace sluice::catalog
