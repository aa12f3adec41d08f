#pragma once
// Runs CHECKPOINT when the WAL has grown, or when it holds something and the interval has passed, and only when
// the disk has room for it.
//
// DuckDB's own checkpoint runs inside a COMMIT once the WAL passes checkpoint_threshold. On DuckDB 1.4.4 a failure
// there (a full disk) leaves every table empty in memory: queries answer wrong counts, and a later clean close
// writes the empty tables over the data. Sluice turns it off (debug_skip_checkpoint_on_commit) and checkpoints
// here instead. An explicit CHECKPOINT that fails invalidates the database but leaves the WAL whole, so a reopen
// replays every committed transaction (storage/README.md, "A full disk").
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace sluice::storage {

class Connection;
class StorageHealth;

// The interval checkpoint leaves a WAL smaller than this alone: replaying it takes no time worth saving.
inline constexpr uint64_t kIntervalCheckpointMinWalBytes = 256 << 10;

class Checkpointer {
 public:
  // interval 0: checkpoints by WAL size only.
  Checkpointer(std::unique_ptr<Connection> con, std::string wal_path, uint64_t wal_threshold_bytes,
               std::chrono::seconds interval, StorageHealth& health);
  ~Checkpointer();
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

 private:
  void Loop();
  void MaybeCheckpoint();

  std::unique_ptr<Connection> con_;
  const std::string wal_path_;
  const uint64_t threshold_;
  const std::chrono::seconds interval_;
  std::chrono::steady_clock::time_point last_checkpoint_ = std::chrono::steady_clock::now();
  StorageHealth& health_;
  int busy_attempts_ = 0;     // plain CHECKPOINTs refused because write transactions were open
  bool deferral_logged_ = false;
  bool ignore_free_space_ = false;  // tests only: SLUICE_TEST_CHECKPOINT_IGNORES_FREE_SPACE=1
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace sluice::storage
