#include "executor/session_registry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace sluice {
namespace {

using namespace std::chrono_literals;

TEST(SessionRegistryTest, KillNeedsTheSameUserOrRoot) {
  SessionRegistry registry;
  auto alice = registry.Add(7, "alice", "127.0.0.1");
  std::atomic<int> interrupts{0};
  alice->SetInterrupt([&] { interrupts++; });
  alice->BeginStatement("SELECT 1", std::nullopt);

  Status denied = registry.Kill(7, false, "bob");
  EXPECT_EQ(denied.code(), StatusCode::kAccessDenied);
  EXPECT_EQ(denied.message().rfind("You are not owner of thread 7", 0), 0u) << denied.message();
  EXPECT_EQ(interrupts.load(), 0);

  EXPECT_TRUE(registry.Kill(7, false, "alice").ok());
  EXPECT_EQ(interrupts.load(), 1);
  EXPECT_EQ(alice->EndStatement(), StopReason::kKilled);
  EXPECT_FALSE(alice->close_requested());

  alice->BeginStatement("SELECT 2", std::nullopt);
  EXPECT_TRUE(registry.Kill(7, false, "root").ok());
  EXPECT_EQ(alice->EndStatement(), StopReason::kKilled);
}

TEST(SessionRegistryTest, TheMayKillHookDecides) {
  SessionRegistry registry;
  registry.Add(3, "alice", "h");
  registry.set_may_kill([](const std::string& killer, const std::string&) { return killer == "operator"; });
  EXPECT_EQ(registry.Kill(3, false, "alice").code(), StatusCode::kAccessDenied);
  EXPECT_TRUE(registry.Kill(3, false, "operator").ok());
  registry.set_may_kill(nullptr);  // back to the default
  EXPECT_TRUE(registry.Kill(3, false, "alice").ok());
}

TEST(SessionRegistryTest, UnknownIdIsMysqlsMessage) {
  SessionRegistry registry;
  Status st = registry.Kill(42, true, "root");
  EXPECT_EQ(st.code(), StatusCode::kNotFound);
  EXPECT_EQ(st.message(), "Unknown thread id: 42");
}

TEST(SessionRegistryTest, KillConnectionClosesAnIdleSession) {
  SessionRegistry registry;
  auto s = registry.Add(5, "root", "h");
  bool closed = false;
  s->SetClientHooks([&] { closed = true; }, [] { return false; });
  EXPECT_TRUE(registry.Kill(5, true, "root").ok());
  EXPECT_TRUE(closed);
  EXPECT_TRUE(s->close_requested());
  // A statement that starts afterwards is already stopped.
  s->BeginStatement("SELECT 1", std::nullopt);
  EXPECT_EQ(s->EndStatement(), StopReason::kKilled);
}

TEST(SessionRegistryTest, WatchdogEnforcesDeadlinesAndNoticesGoneClients) {
  SessionRegistry registry;
  auto slow = registry.Add(1, "root", "h");
  auto orphan = registry.Add(2, "root", "h");
  std::atomic<int> slow_interrupts{0}, orphan_interrupts{0};
  slow->SetInterrupt([&] { slow_interrupts++; });
  orphan->SetInterrupt([&] { orphan_interrupts++; });
  std::atomic<bool> gone{false};
  orphan->SetClientHooks([] {}, [&] { return gone.load(); });
  slow->BeginStatement("SELECT slow", SessionActivity::SteadyClock::now() + 50ms, "query_timeout (1 s)");
  orphan->BeginStatement("SELECT orphan", std::nullopt);
  registry.StartWatchdog(10ms);
  std::this_thread::sleep_for(300ms);
  EXPECT_GT(slow_interrupts.load(), 0);
  EXPECT_EQ(orphan_interrupts.load(), 0);
  gone = true;
  std::this_thread::sleep_for(300ms);
  registry.StopWatchdog();
  EXPECT_GT(orphan_interrupts.load(), 0);
  EXPECT_TRUE(orphan->close_requested());

  EXPECT_EQ(slow->EndStatement(), StopReason::kTimeout);
  Status timeout = slow->StopError(StopReason::kTimeout);
  EXPECT_EQ(timeout.code(), StatusCode::kInterrupted);
  EXPECT_NE(timeout.message().find("maximum statement execution time exceeded: query_timeout (1 s)"),
            std::string::npos)
      << timeout.message();
  EXPECT_EQ(orphan->EndStatement(), StopReason::kClientGone);
}

TEST(SessionRegistryTest, ProcesslistSnapshot) {
  SessionRegistry registry;
  auto s = registry.Add(9, "root", "10.0.0.1");
  s->SetDatabase("db1");
  s->BeginStatement("SELECT 42", std::nullopt);
  auto list = registry.List();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].connection_id, 9u);
  EXPECT_TRUE(list[0].running);
  EXPECT_EQ(list[0].statement, "SELECT 42");
  EXPECT_EQ(list[0].state, "executing");
  EXPECT_EQ(list[0].db, "db1");
  s->SetState("sending data");
  EXPECT_EQ(registry.List()[0].state, "sending data");
  EXPECT_EQ(s->EndStatement(), StopReason::kNone);
  list = registry.List();
  EXPECT_FALSE(list[0].running);
  EXPECT_EQ(list[0].statement, "");
  registry.Remove(9);
  EXPECT_EQ(registry.size(), 0u);
}

TEST(SessionRegistryTest, StopAllStopsStatementsStartedLater) {
  SessionRegistry registry;
  auto s = registry.Add(1, "root", "h");
  std::atomic<int> interrupts{0};
  s->SetInterrupt([&] { interrupts++; });
  registry.StopAll();
  registry.StartWatchdog(10ms);
  s->BeginStatement("SELECT late", std::nullopt);
  std::this_thread::sleep_for(100ms);
  registry.StopWatchdog();
  EXPECT_GT(interrupts.load(), 0);
  EXPECT_EQ(s->EndStatement(), StopReason::kShutdown);
  EXPECT_EQ(s->StopError(StopReason::kShutdown).message(), "Server shutdown in progress");
}

}  // namespace
}  // namespace sluice
