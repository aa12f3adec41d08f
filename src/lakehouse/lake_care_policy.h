#pragma once
// The automatic care policy of Iceberg tables: table properties (set at CREATE TABLE ... PROPERTIES, or by any
// engine) that make Sluice run table care on its own, on a schedule:
//
//   sluice.care.rewrite_data_files.min_input_files      = N   merge a partition's small files once it has N
//   sluice.care.expire_snapshots.older_than_seconds     = S   expire snapshots older than S seconds
//   sluice.care.expire_snapshots.retain_last            = N   ... keeping at least N (default: the table's
//                                                              history.expire.min-snapshots-to-keep, else 1)
//   sluice.care.remove_orphan_files.older_than_seconds  = S   remove orphan files older than S (at least 3600)
//   sluice.care.interval_seconds                        = S   how often (default 3600)
//
// A table without any of the first four has no policy. Each run does what the table asks, in that order (rewrite
// first, so the expiry right after it can delete the replaced files once their snapshots are old enough), through
// the same code as ALTER TABLE ... EXECUTE (lake_care.h): the same checks, the same commits by compare-and-swap,
// and a line in the log and in catalog.db.t$care (trigger 'policy'). A run that fails is logged and tried again at
// the next interval; a malformed property is logged and its procedure skipped.
//
// LakeCarePolicyRunner looks at every table of every external catalog every `check_seconds` (the server's
// --iceberg-care-check-seconds; 0 turns automatic care off) and runs the policies that are due. Several Sluice
// servers on one catalog may each run a policy; the compare-and-swap keeps that safe, it only repeats work.
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "lakehouse/lake_care.h"
#include "lakehouse/lake_catalogs.h"
#include "storage/database.h"

namespace sluice::lakehouse {

struct LakeCarePolicy {
  int64_t interval_seconds = 3600;
  std::optional<int64_t> rewrite_min_input_files;
  std::optional<int64_t> expire_older_than_seconds;
  std::optional<int64_t> expire_retain_last;
  std::optional<int64_t> orphan_older_than_seconds;
};

// nullopt: the table has no policy. `problems` gets one line per malformed property (that procedure is skipped).
std::optional<LakeCarePolicy> CarePolicyOf(const std::map<std::string, std::string>& table_properties,
                                           std::vector<std::string>* problems);

// The statements one run of `policy` makes for `table`, at `now_ms`, in the order they run.
std::vector<LakeCare> PolicyRun(const LakeTableRef& table, const LakeCarePolicy& policy, int64_t now_ms);

class LakeCarePolicyRunner {
 public:
  // `work_dir`: where rewrite_data_files' new files wait for their upload (inside the scratch folder).
  LakeCarePolicyRunner(LakeCatalogs& lakes, storage::Database& db, std::string work_dir, double check_seconds);
  ~LakeCarePolicyRunner();  // stops the thread

  void Start();
  void Stop();
  // One look at every table: runs the due policies. Returns how many runs started.
  int CheckOnce(int64_t now_ms);

 private:
  void Loop();

  LakeCatalogs& lakes_;
  storage::Database& db_;
  std::string work_dir_;
  double check_seconds_;
  std::map<std::string, int64_t> last_run_ms_;  // by catalog.db.table; only the runner's thread touches it
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace sluice::lakehouse
