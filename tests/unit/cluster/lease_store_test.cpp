// Leases with epochs against a real PostgreSQL 15: races, expiry, dead holders, and the fence a commit runs.
#include "cluster/lease_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "cluster/cluster_schema.h"
#include "cluster/node_registry.h"
#include "test_postgres.h"

namespace sluice::cluster {
namespace {

using namespace std::chrono_literals;

class LeaseStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(pg_.ok()) << pg_.error();
    admin_ = Connect();
    ASSERT_TRUE(EnsureClusterTables(*admin_).ok());
  }
  std::unique_ptr<PgClient> Connect() {
    auto c = PgClient::Connect(pg_.uri());
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? std::move(*c) : nullptr;
  }
  void Join(const std::string& name) {
    NodeRegistry registry(*admin_, timeout_);
    ASSERT_TRUE(registry.Join(NodeIdentity{name, name + ":9030", "test"}, "inc-" + name).ok());
  }
  void Heartbeat(const std::string& name) {
    NodeRegistry registry(*admin_, timeout_);
    auto r = registry.Heartbeat(name, "inc-" + name);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(*r, HeartbeatOutcome::kRecorded);
  }

  testing::TestPostgres pg_;
  std::unique_ptr<PgClient> admin_;
  std::chrono::milliseconds timeout_ = 10s;
};

TEST_F(LeaseStoreTest, OfTwoHoldersRacingExactlyOneAcquires) {
  Join("a");
  Join("b");
  auto pa = Connect(), pb = Connect();
  LeaseStore a(*pa, timeout_), b(*pb, timeout_);
  for (int round = 0; round < 20; round++) {
    std::string resource = "job:7:partition:" + std::to_string(round);
    std::atomic<int> go{0};
    Result<AcquireOutcome> ra = Status::Internal("not run"), rb = Status::Internal("not run");
    std::thread ta([&] { go++; while (go < 2) {} ra = a.Acquire(resource, "a", 30s); });
    std::thread tb([&] { go++; while (go < 2) {} rb = b.Acquire(resource, "b", 30s); });
    ta.join();
    tb.join();
    ASSERT_TRUE(ra.ok()) << ra.status().message();
    ASSERT_TRUE(rb.ok()) << rb.status().message();
    ASSERT_NE(ra->acquired, rb->acquired) << resource;
    const AcquireOutcome& winner = ra->acquired ? *ra : *rb;
    const AcquireOutcome& loser = ra->acquired ? *rb : *ra;
    EXPECT_EQ(winner.lease.epoch, 1);
    // The loser is told who holds it, at which epoch.
    EXPECT_EQ(loser.lease.holder, winner.lease.holder);
    EXPECT_EQ(loser.lease.epoch, 1);
  }
}

TEST_F(LeaseStoreTest, AnExpiredLeaseIsTakenOverAtTheNextEpoch) {
  Join("a");
  Join("b");
  LeaseStore store(*admin_, timeout_);
  auto first = store.Acquire("pipe:3", "a", 600ms);
  ASSERT_TRUE(first.ok() && first->acquired);
  EXPECT_EQ(first->lease.epoch, 1);
  auto early = store.Acquire("pipe:3", "b", 30s);
  ASSERT_TRUE(early.ok());
  EXPECT_FALSE(early->acquired);
  EXPECT_EQ(early->lease.holder, "a");
  // Renewing keeps it (and the epoch); letting it lapse gives it away.
  auto renewed = store.Renew(first->lease, 600ms);
  ASSERT_TRUE(renewed.ok());
  EXPECT_TRUE(*renewed);
  std::this_thread::sleep_for(1000ms);
  auto taken = store.Acquire("pipe:3", "b", 30s);
  ASSERT_TRUE(taken.ok());
  ASSERT_TRUE(taken->acquired);
  EXPECT_EQ(taken->lease.holder, "b");
  EXPECT_EQ(taken->lease.epoch, 2);
  auto renew_old = store.Renew(first->lease, 30s);
  ASSERT_TRUE(renew_old.ok());
  EXPECT_FALSE(*renew_old);
  EXPECT_FALSE(*store.Fence("pipe:3", 1));
  EXPECT_TRUE(*store.Fence("pipe:3", 2));
}

// A holder paused past the node timeout (SIGSTOP, a long GC, a VM migration) loses its leases to a live node
// before they expire; when it wakes up it can neither renew, release, nor pass the fence.
TEST_F(LeaseStoreTest, APausedHolderWhoseEpochWasTakenCannotRenewOrPassTheFence) {
  timeout_ = 1500ms;
  Join("a");
  Join("b");
  auto pa = Connect(), pb = Connect();
  LeaseStore a(*pa, timeout_), b(*pb, timeout_);
  auto held = a.Acquire("job:9:partition:0", "a", 60s);
  ASSERT_TRUE(held.ok() && held->acquired);
  // a is alive: b may not take it.
  auto refused = b.Acquire("job:9:partition:0", "b", 60s);
  ASSERT_TRUE(refused.ok());
  EXPECT_FALSE(refused->acquired);
  // a pauses: only b heartbeats.
  for (int i = 0; i < 8; i++) {
    std::this_thread::sleep_for(250ms);
    Heartbeat("b");
  }
  auto taken = b.Acquire("job:9:partition:0", "b", 60s);
  ASSERT_TRUE(taken.ok());
  ASSERT_TRUE(taken->acquired);
  EXPECT_EQ(taken->lease.epoch, 2);
  // a wakes up, heartbeats again, and tries to carry on under epoch 1.
  Heartbeat("a");
  EXPECT_FALSE(*a.Renew(held->lease, 60s));
  EXPECT_FALSE(*a.Fence("job:9:partition:0", held->lease.epoch));
  EXPECT_FALSE(*a.Release(held->lease));
  auto again = a.Acquire("job:9:partition:0", "a", 60s);  // b is alive and holds it
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->acquired);
  EXPECT_EQ(again->lease.holder, "b");
  EXPECT_TRUE(*b.Fence("job:9:partition:0", 2));
}

TEST_F(LeaseStoreTest, ReleaseFreesTheLeaseAndTheEpochKeepsGrowing) {
  Join("a");
  LeaseStore store(*admin_, timeout_);
  auto first = store.Acquire("pipe:5", "a", 30s);
  ASSERT_TRUE(first.ok() && first->acquired);
  // Held and alive, even by itself: acquiring again is not a renewal.
  auto twice = store.Acquire("pipe:5", "a", 30s);
  ASSERT_TRUE(twice.ok());
  EXPECT_FALSE(twice->acquired);
  ASSERT_TRUE(*store.Release(first->lease));
  EXPECT_FALSE(*store.Fence("pipe:5", 1));  // a released epoch is not current
  auto current = store.Current("pipe:5");
  ASSERT_TRUE(current.ok() && current->has_value());
  EXPECT_EQ((*current)->holder, "");
  EXPECT_EQ((*current)->epoch, 1);
  auto second = store.Acquire("pipe:5", "a", 30s);
  ASSERT_TRUE(second.ok() && second->acquired);
  EXPECT_EQ(second->lease.epoch, 2);
}

TEST_F(LeaseStoreTest, ANodeThatIsNotAliveAcquiresNothing) {
  LeaseStore store(*admin_, timeout_);
  auto stranger = store.Acquire("pipe:1", "never-joined", 30s);
  ASSERT_FALSE(stranger.ok());
  EXPECT_EQ(stranger.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(stranger.status().message().find("not an alive member"), std::string::npos);
  Join("a");
  NodeRegistry registry(*admin_, timeout_);
  ASSERT_TRUE(registry.Leave("a", "inc-a").ok());
  auto left = store.Acquire("pipe:1", "a", 30s);
  ASSERT_FALSE(left.ok());
  EXPECT_EQ(left.status().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(store.Current("pipe:1")->has_value());
}

// The fence inside a commit's transaction locks the lease row: a takeover waits until that transaction ends, so
// a commit that passed the fence can never land after another node took the lease.
TEST_F(LeaseStoreTest, AFenceInsideATransactionHoldsATakeoverOffUntilTheCommit) {
  Join("a");
  Join("b");
  auto pa = Connect(), pb = Connect();
  LeaseStore a(*pa, timeout_), b(*pb, timeout_);
  auto held = a.Acquire("job:4:partition:2", "a", 500ms);
  ASSERT_TRUE(held.ok() && held->acquired);
  std::this_thread::sleep_for(700ms);  // expired, not yet taken
  ASSERT_TRUE(pa->Begin().ok());
  auto fence = a.Fence("job:4:partition:2", held->lease.epoch);
  ASSERT_TRUE(fence.ok());
  ASSERT_TRUE(*fence);
  std::atomic<bool> done{false};
  Result<AcquireOutcome> taken = Status::Internal("not run");
  std::thread tb([&] {
    taken = b.Acquire("job:4:partition:2", "b", 30s);
    done = true;
  });
  std::this_thread::sleep_for(500ms);
  EXPECT_FALSE(done) << "the takeover did not wait for the fenced transaction";
  // The commit's own write, under the fence (here: into a table of the test's).
  ASSERT_TRUE(pa->Exec("CREATE TABLE IF NOT EXISTS commits (epoch BIGINT)").ok());
  ASSERT_TRUE(pa->Exec("INSERT INTO commits VALUES (1)").ok());
  ASSERT_TRUE(pa->Commit().ok());
  tb.join();
  ASSERT_TRUE(taken.ok()) << taken.status().message();
  EXPECT_TRUE(taken->acquired);
  EXPECT_EQ(taken->lease.epoch, 2);
  EXPECT_FALSE(*a.Fence("job:4:partition:2", 1));
}

}  // namespace
}  // namespace sluice::cluster
