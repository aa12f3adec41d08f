#include "storage/checkpointer.h"

#include <cstdlib>
#include <filesystem>

#include "common/log.h"
#include "storage/database.h"
#include "storage/storage_health.h"

namespace sluice::storage {

namespace {

constexpr auto kCheckInterval = std::chrono::seconds(1);
// A plain CHECKPOINT gives way to open write transactions; load tasks keep some open nearly all the time, so after
// this many refusals FORCE CHECKPOINT waits for them to end instead.
constexpr int kBusyAttemptsBeforeForce = 5;

uint64_t Mib(uint64_t bytes) { return bytes >> 20; }

}  // namespace

Checkpointer::Checkpointer(std::unique_ptr<Connection> con, std::string wal_path, uint64_t wal_threshold_bytes,
                           std::chrono::seconds interval, StorageHealth& health)
    : con_(std::move(con)),
      wal_path_(std::move(wal_path)),
      threshold_(wal_threshold_bytes),
      interval_(interval),
      health_(health) {
  // Test-only: checkpoint without looking at the free space, so that a test can make a checkpoint fail for lack of
  // space and see Sluice recover an invalidated database (tests/e2e/test_disk_full.py).
  if (const char* v = std::getenv("SLUICE_TEST_CHECKPOINT_IGNORES_FREE_SPACE"); v && *v == '1') {
    ignore_free_space_ = true;
    log::Warn("storage", "SLUICE_TEST_CHECKPOINT_IGNORES_FREE_SPACE=1: checkpoints run whatever the free space");
  }
  thread_ = std::thread([this] { Loop(); });
}

Checkpointer::~Checkpointer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  con_->Interrupt();
  if (thread_.joinable()) thread_.join();
}

void Checkpointer::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, kCheckInterval, [&] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    MaybeCheckpoint();
    lock.lock();
  }
}

void Checkpointer::MaybeCheckpoint() {
  if (health_.invalidated()) return;
  std::error_code ec;
  const uint64_t wal = std::filesystem::file_size(wal_path_, ec);
  if (ec) return;
  const bool interval_due = interval_.count() > 0 && wal >= kIntervalCheckpointMinWalBytes &&
                            std::chrono::steady_clock::now() - last_checkpoint_ >= interval_;
  if (wal < threshold_ && !interval_due) return;
  // A checkpoint writes the changed row groups into the database file before it frees the old blocks: room for
  // about the WAL's size again, plus what Sluice keeps free anyway.
  const uint64_t needed = wal + health_.policy().min_free_bytes;
  const uint64_t free = health_.FreeBytes();
  if (!ignore_free_space_ && free != UINT64_MAX && free < needed) {
    if (!deferral_logged_) {
      log::Warn("storage", "checkpoint deferred: the WAL holds {} MiB and the disk holding {} has {} MiB free, "
                "the checkpoint needs about {} MiB; committed data stays safe in the WAL", Mib(wal),
                health_.data_dir(), Mib(free), Mib(needed));
      deferral_logged_ = true;
    }
    return;
  }
  deferral_logged_ = false;
  const bool force = busy_attempts_ >= kBusyAttemptsBeforeForce;
  Status st = con_->Execute(force ? "FORCE CHECKPOINT" : "CHECKPOINT");
  if (st.ok()) {
    busy_attempts_ = 0;
    last_checkpoint_ = std::chrono::steady_clock::now();
    log::Debug("storage", "checkpointed a {} MiB WAL", Mib(wal));
    return;
  }
  if (st.message().find("other write transactions active") != std::string::npos) {
    busy_attempts_++;
    return;
  }
  busy_attempts_ = 0;
  // A failed checkpoint has invalidated the database (health_ noted it through the connection) unless it failed
  // before writing anything; either way the WAL still holds every committed transaction.
  log::Error("storage", "checkpoint failed: {}", st.message());
}

}  // namespace sluice::storage
