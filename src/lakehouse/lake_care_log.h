#pragma once
// What table care did lately, per Iceberg table: every ALTER TABLE ... EXECUTE and every run of the automatic care
// policy (lake_care_policy.h), with its outcome. Kept in memory (the newest 50 per table, since the server
// started) and shown by SELECT * FROM catalog.db.t$care (lake_read.h); the log has the same lines.
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace sluice::lakehouse {

struct LakeCareRun {
  int64_t ran_at_ms = 0;
  std::string procedure;  // expire_snapshots, remove_orphan_files, rewrite_data_files
  std::string trigger;    // manual (a statement) or policy (the table's sluice.care.* properties)
  bool ok = true;
  std::string detail;     // the counts, or the error
};

class LakeCareLog {
 public:
  // `table`: catalog.db.table as written (compared case-insensitively).
  void Record(const std::string& table, LakeCareRun run);
  std::vector<LakeCareRun> RunsOf(const std::string& table) const;

 private:
  static constexpr size_t kKeep = 50;
  mutable std::mutex mu_;
  std::map<std::string, std::deque<LakeCareRun>> runs_;
};

}  // namespace sluice::lakehouse
