#pragma once
// The threads that serve HTTP connections. cpp-httplib's ThreadPool has a fixed size (8 on this machine: max(8,
// cores - 1)) and one connection holds a thread from accept to close, so 8 slow clients starve the port. This pool
// starts a thread whenever a connection arrives and none is idle, up to a cap; past the cap, connections wait in
// line for a thread. Threads are kept once started (an idle thread costs only its stack's address space).
#include <httplib.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sluice::http {

class ConnectionPool : public httplib::TaskQueue {
 public:
  explicit ConnectionPool(size_t max_threads) : max_threads_(max_threads) {}
  ~ConnectionPool() override { shutdown(); }

  void enqueue(std::function<void()> fn) override;
  // Runs what is queued, then joins every thread.
  void shutdown() override;

  size_t threads() const;

 private:
  void Work();

  const size_t max_threads_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace sluice::http
