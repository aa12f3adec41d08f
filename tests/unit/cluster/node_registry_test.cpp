// Nodes joining, heartbeating, dying and leaving, against a real PostgreSQL 15; and a member riding out an outage.
#include "cluster/node_registry.h"

#include <gtest/gtest.h>

#include <thread>

#include "cluster/cluster_member.h"
#include "cluster/cluster_schema.h"
#include "cluster/lease_store.h"
#include "test_postgres.h"

namespace sluice::cluster {
namespace {

using namespace std::chrono_literals;

std::map<std::string, NodeRow> ByName(const std::vector<NodeRow>& rows) {
  std::map<std::string, NodeRow> out;
  for (const auto& r : rows) out[r.name] = r;
  return out;
}

TEST(NodeRegistryTest, NodesAreAliveThenDeadWithoutHeartbeatsThenLeft) {
  testing::TestPostgres pg;
  ASSERT_TRUE(pg.ok()) << pg.error();
  auto c = PgClient::Connect(pg.uri());
  ASSERT_TRUE(c.ok()) << c.status().message();
  PgClient& pgc = **c;
  ASSERT_TRUE(EnsureClusterTables(pgc).ok());
  ASSERT_TRUE(EnsureClusterTables(pgc).ok());  // idempotent
  NodeRegistry registry(pgc, 1500ms);
  ASSERT_TRUE(registry.Join({"a", "10.0.0.1:9030", "0.1.0"}, "ia").ok());
  ASSERT_TRUE(registry.Join({"b", "10.0.0.2:9030", "0.1.0"}, "ib").ok());
  LeaseStore leases(pgc, 1500ms);
  ASSERT_TRUE(leases.Acquire("pipe:1", "a", 60s)->acquired);
  ASSERT_TRUE(leases.Acquire("pipe:2", "a", 60s)->acquired);

  auto nodes = ByName(*registry.List());
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes["a"].state, "alive");
  EXPECT_EQ(nodes["a"].address, "10.0.0.1:9030");
  EXPECT_EQ(nodes["a"].version, "0.1.0");
  EXPECT_EQ(nodes["a"].leases, 2);
  EXPECT_EQ(nodes["b"].leases, 0);
  EXPECT_EQ(nodes["a"].last_heartbeat.size(), 19u);  // 'YYYY-MM-DD HH:MM:SS'

  for (int i = 0; i < 8; i++) {  // only a heartbeats
    std::this_thread::sleep_for(250ms);
    ASSERT_EQ(*registry.Heartbeat("a", "ia"), HeartbeatOutcome::kRecorded);
  }
  nodes = ByName(*registry.List());
  EXPECT_EQ(nodes["a"].state, "alive");
  EXPECT_EQ(nodes["b"].state, "dead");
  ASSERT_EQ(*registry.Heartbeat("b", "ib"), HeartbeatOutcome::kRecorded);
  EXPECT_EQ(ByName(*registry.List())["b"].state, "alive");

  ASSERT_TRUE(registry.Leave("a", "ia").ok());
  nodes = ByName(*registry.List());
  EXPECT_EQ(nodes["a"].state, "left");
  EXPECT_EQ(nodes["a"].leases, 0);  // released on the way out
  auto lease = leases.Current("pipe:1");
  EXPECT_EQ((*lease)->holder, "");
  EXPECT_EQ((*lease)->epoch, 1);
}

TEST(NodeRegistryTest, ASecondProcessWithTheSameNameReplacesTheFirst) {
  testing::TestPostgres pg;
  ASSERT_TRUE(pg.ok()) << pg.error();
  auto c = PgClient::Connect(pg.uri());
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(EnsureClusterTables(**c).ok());
  NodeRegistry registry(**c, 10s);
  ASSERT_TRUE(registry.Join({"a", "h:1", "v"}, "first").ok());
  ASSERT_TRUE(registry.Join({"a", "h:2", "v"}, "second").ok());
  EXPECT_EQ(*registry.Heartbeat("a", "first"), HeartbeatOutcome::kReplaced);
  EXPECT_EQ(*registry.Heartbeat("a", "second"), HeartbeatOutcome::kRecorded);
  ASSERT_TRUE(registry.Leave("a", "first").ok());  // not its row any more: nothing happens
  EXPECT_EQ(ByName(*registry.List())["a"].state, "alive");
  ASSERT_TRUE((*c)->Exec("DELETE FROM sluice_nodes").ok());
  EXPECT_EQ(*registry.Heartbeat("a", "second"), HeartbeatOutcome::kMissing);
}

bool WaitFor(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(50ms);
  }
  return condition();
}

// PostgreSQL down when the node starts, then up, then down and up again: the member keeps retrying, joins, keeps
// its start time across the outage, and marks itself left when stopped.
TEST(ClusterMemberTest, RidesOutPostgresOutagesAndLeavesOnStop) {
  testing::TestPostgres pg;
  ASSERT_TRUE(pg.ok()) << pg.error();
  ASSERT_TRUE(pg.Stop());
  ClusterOptions options;
  options.uri = pg.uri();
  options.identity = {"n1", "127.0.0.1:9030", "0.1.0"};
  options.node_timeout = 2000ms;
  options.heartbeat_interval = 100ms;
  auto member = ClusterMember::Start(options);
  ASSERT_TRUE(member.ok()) << member.status().message();
  std::this_thread::sleep_for(500ms);
  EXPECT_FALSE((*member)->joined());
  EXPECT_EQ((*member)->ListNodes().status().code(), StatusCode::kUnavailable);
  ASSERT_TRUE(pg.Start());
  ASSERT_TRUE(WaitFor([&] { return (*member)->joined(); }, 10s));
  auto rows = (*member)->ListNodes();
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].state, "alive");
  std::string started = (*rows)[0].started_at;

  ASSERT_TRUE(pg.Stop());
  ASSERT_TRUE(WaitFor([&] { return !(*member)->joined(); }, 10s));
  ASSERT_TRUE(pg.Start());
  ASSERT_TRUE(WaitFor([&] { return (*member)->joined(); }, 10s));
  rows = (*member)->ListNodes();
  if (!rows.ok()) rows = (*member)->ListNodes();  // its connection died with the outage: the next call reconnects
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_EQ((*rows)[0].started_at, started);

  (*member)->Stop();
  auto c = PgClient::Connect(pg.uri());
  ASSERT_TRUE(c.ok());
  auto state = (*c)->Exec("SELECT state FROM sluice_nodes WHERE name = 'n1'");
  ASSERT_TRUE(state.ok());
  ASSERT_EQ(state->rows.size(), 1u);
  EXPECT_EQ(state->rows[0][0].value_or(""), "left");
}

TEST(ClusterMemberTest, RefusesAUriLibpqCannotReadWithoutEchoingIt) {
  ClusterOptions options;
  options.uri = "postgresql://u:s3cret@host:notaport/db?bogus=1";
  options.identity = {"n1", "127.0.0.1:9030", "0.1.0"};
  auto member = ClusterMember::Start(options);
  ASSERT_FALSE(member.ok());
  EXPECT_EQ(member.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(member.status().message().find("s3cret"), std::string::npos);
  // libpq itself reads the port only when it connects: a typo there must not be retried forever.
  options.uri = "postgresql://u:s3cret@host:notaport/db";
  member = ClusterMember::Start(options);
  ASSERT_FALSE(member.ok());
  EXPECT_NE(member.status().message().find("'notaport' is not a number"), std::string::npos);
  EXPECT_EQ(member.status().message().find("s3cret"), std::string::npos);
  options.uri = "host=127.0.0.1 port=5432,5433 dbname=x";
  EXPECT_TRUE(ClusterMember::CheckOptions(options).ok());
}

}  // namespace
}  // namespace sluice::cluster
