#pragma once
// Whether the database can take writes: the free space on the disk holding it, and whether DuckDB has stopped it.
//
// A full disk reaches Sluice as DuckDB errors ("Could not write file ...: No space left on device"); a failed
// checkpoint goes further and DuckDB invalidates the database ("database has been invalidated because of a
// previous fatal error"), after which every statement fails until the process opens the file again and replays the
// WAL. Every error a Connection sees passes through Observe, which records those two conditions and turns DuckDB's
// text (stack trace included) into a message that says what happened and what to do. The scheduler asks
// WriteBlocker before running tasks; the serve loop asks ShouldReopen to restart the process once space is back.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice::storage {

struct DiskPolicy {
  // Below this much free space on the data directory's disk no load task starts (it would fail at commit anyway,
  // or worse, make a checkpoint fail): jobs pause and resume by themselves once there is at least this much again.
  uint64_t min_free_bytes = 64ull << 20;
};

class StorageHealth {
 public:
  StorageHealth(std::string data_dir, DiskPolicy policy);

  // Classifies a DuckDB error: notes a full disk or an invalidated database, and returns the error to report.
  Status Observe(Status error);

  // Why writes should not be attempted now (empty when they may): the database was invalidated, or the disk has
  // less than min_free_bytes free. Cheap: the free space is read at most every 250 ms.
  std::string WriteBlocker();
  // The database was invalidated and the disk has room again: time to open the file anew (replaying the WAL).
  bool ShouldReopen();
  bool invalidated() const { return invalidated_.load(std::memory_order_acquire); }
  std::string invalidation_reason() const;

  uint64_t FreeBytes();
  const std::string& data_dir() const { return data_dir_; }
  const DiskPolicy& policy() const { return policy_; }
  // "12 MiB free of 64 MiB" style text for messages.
  std::string DescribeSpace();
  // `message` with the data directory's path, as given and as an absolute path, written as "<data directory>"
  // (a file in it stays named: "<data directory>/sluice.db.wal"). The messages above name the directory for whoever
  // frees the space; clients without administrator rights see them this way, as they should not learn where the
  // server keeps its files (DESIGN.md decision 10). The log keeps the full text.
  // The scratch folder (where DuckDB may read; its name is random so it cannot be guessed) is written as
  // "<scratch folder>" likewise.
  std::string WithoutDataDirectory(const std::string& message) const;
  // Names the scratch folder for WithoutDataDirectory. Called once, before any session or job runs.
  void SetScratchFolder(const std::string& dir);

 private:
  void NoteDiskFull(const std::string& detail);
  void NoteInvalidated(const std::string& detail);

  const std::string data_dir_;
  std::vector<std::string> data_dir_spellings_;  // data_dir_ as given and absolute, longest first
  std::vector<std::string> scratch_spellings_;   // the scratch folder's, likewise
  const DiskPolicy policy_;
  std::atomic<bool> invalidated_{false};
  std::atomic<bool> disk_full_logged_{false};
  mutable std::mutex mu_;
  std::string invalidation_reason_;
  std::chrono::steady_clock::time_point invalidated_at_;
  std::chrono::steady_clock::time_point free_read_at_;
  // What WriteBlocker asks for: min_free_bytes, doubled by each failed write (a batch needed more than that), back
  // to min_free_bytes after a while without one. Without it a job would resume, fail its commit and pause again in
  // a loop while the disk stays as full as it was.
  uint64_t required_free_bytes_ = 0;
  std::chrono::steady_clock::time_point last_disk_full_;
  uint64_t free_bytes_ = UINT64_MAX;
  uint64_t total_bytes_ = 0;
};

// DuckDB's text without its "Stack Trace:" part and the "FATAL Error: " style prefix noise clients should not see.
std::string WithoutStackTrace(const std::string& message);
// `message` with each mention of a directory of `paths` (longest first) replaced by `with`: a mention is the whole
// path, not part of a longer name or path ("/data" in "/data2" or "/x/data" is none); a path below it keeps its
// rest ("/data/sluice.db" -> "<with>/sluice.db"). One pass, so `with` itself is never matched.
std::string ReplaceDirectories(const std::string& message, const std::vector<std::string>& paths,
                               std::string_view with);
// The free and total bytes of the file system holding `path`; {UINT64_MAX, 0} if it cannot be read.
std::pair<uint64_t, uint64_t> DiskSpace(const std::string& path);

}  // namespace sluice::storage
