#include "http/connection_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace sluice::http {
namespace {

// What starved the port with cpp-httplib's fixed pool of 8: connections that each hold a thread for long.
TEST(ConnectionPool, StartsAThreadForEveryWaitingConnectionUpToTheCap) {
  ConnectionPool pool(64);
  std::mutex mu;
  std::condition_variable cv;
  int running = 0;
  bool release = false;
  for (int i = 0; i < 50; ++i) {
    pool.enqueue([&] {
      std::unique_lock lock(mu);
      ++running;
      cv.notify_all();
      cv.wait(lock, [&] { return release; });
    });
  }
  {
    std::unique_lock lock(mu);
    EXPECT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return running == 50; }))
        << "only " << running << " of 50 blocked connections got a thread";
    release = true;
  }
  cv.notify_all();
  pool.shutdown();
  EXPECT_EQ(running, 50);
}

TEST(ConnectionPool, PastTheCapConnectionsWaitAndStillRun) {
  ConnectionPool pool(3);
  std::atomic<int> done{0};
  for (int i = 0; i < 20; ++i)
    pool.enqueue([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      ++done;
    });
  EXPECT_LE(pool.threads(), 3u);
  pool.shutdown();  // runs what is queued first
  EXPECT_EQ(done.load(), 20);
}

TEST(ConnectionPool, ReusesIdleThreads) {
  ConnectionPool pool(64);
  for (int i = 0; i < 10; ++i) {
    std::atomic<bool> ran{false};
    pool.enqueue([&] { ran = true; });
    for (int k = 0; k < 1000 && !ran; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_TRUE(ran);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let the thread go back to waiting
  }
  EXPECT_LE(pool.threads(), 3u) << "one connection at a time needs no new thread each time";
  pool.shutdown();
}

}  // namespace
}  // namespace sluice::http
