#pragma once
// A fixed set of worker threads for tasks and scheduling work. Each worker owns a DuckDB connection, so a task's
// temp table and transaction never meet another task's.
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/status.h"
#include "storage/database.h"

namespace sluice::scheduler {

class WorkerPool {
 public:
  using Work = std::function<void(storage::Connection&)>;
  static Result<std::unique_ptr<WorkerPool>> Start(storage::Database& db, int threads);
  ~WorkerPool();
  void Submit(Work work);
  void Stop();  // finishes the work already running, drops the rest
  int size() const { return static_cast<int>(threads_.size()); }

 private:
  WorkerPool() = default;
  void Loop(storage::Connection& con);

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Work> queue_;
  bool stopping_ = false;
  std::vector<std::unique_ptr<storage::Connection>> connections_;
  std::vector<std::thread> threads_;
};

}  // namespace sluice::scheduler
