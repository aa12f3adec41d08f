// Storage connections and volumes of a cluster (docs/cluster.md "Volumes, storage connections and virtual
// clusters") against a real PostgreSQL 15: two nodes' VolumeStores, each with a DuckDB file of its own, attached to
// the same cluster database. What one node creates the other resolves; the access id and key are never in clear
// in PostgreSQL; a connection a volume uses cannot be dropped from either node; the first join publishes a node's
// own definitions, the cluster's winning a name clash; and while PostgreSQL is away changes are refused saying so,
// reads go on from the copy.
#include "catalog/volume_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "../cluster/test_postgres.h"
#include "pg_rows.h"

namespace sluice::catalog {
namespace {

constexpr const char* kAccessId = "AKIACLUSTERTESTID0001";
constexpr const char* kAccessKey = "cluster-test-secret-key-do-not-show";

sql::CreateStorageConnection Connection(const std::string& name, const std::string& endpoint) {
  sql::CreateStorageConnection s;
  s.name = name;
  s.settings = {{"TYPE", "S3"}, {"ENDPOINT", endpoint}, {"ACCESS_ID", kAccessId}, {"ACCESS_KEY", kAccessKey}};
  return s;
}

sql::CreateVolume Volume(const std::string& name, const std::string& connection) {
  sql::CreateVolume s;
  s.name = name;
  s.location = "s3://landing/in/";
  s.connection = connection;
  return s;
}

class VolumeStoreClusterTest : public ::testing::Test {
 protected:
  struct Node {
    std::unique_ptr<storage::Database> db;
    std::unique_ptr<VolumeStore> volumes;
  };
  void SetUp() override {
    ASSERT_TRUE(pg_.ok()) << pg_.error();
    dir_ = std::filesystem::temp_directory_path() / ("sluice-cluster-volumes-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // A node's store on its own DuckDB file; `attach`: joined to the cluster (the shared key seals in PostgreSQL).
  Node Open(const std::string& name, bool attach = true) {
    Node n;
    std::filesystem::create_directories(dir_ / name);
    auto db = storage::Database::Open((dir_ / name / "sluice.db").string());
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    n.db = std::move(*db);
    auto store = VolumeStore::Open(*n.db, (dir_ / name / "secrets.key").string());
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    n.volumes = std::move(*store);
    if (attach) Attach(n);
    return n;
  }
  void Attach(Node& n) {
    const std::string key = (dir_ / "cluster.key").string();
    auto c = ClusterDefinitionStore::Open(VolumeStore::ConnectionsKind(), pg_.uri(), key);
    auto v = ClusterDefinitionStore::Open(VolumeStore::VolumesKind(), pg_.uri(), key);
    ASSERT_TRUE(c.ok() && v.ok());
    ASSERT_TRUE(n.volumes->AttachCluster(std::move(*c), std::move(*v), std::chrono::milliseconds(200)).ok());
  }
  std::string Psql(const std::string& sql) { return testing::PgRows(pg_.uri(), sql); }

  cluster::testing::TestPostgres pg_;
  std::filesystem::path dir_;
};

TEST_F(VolumeStoreClusterTest, WhatOneNodeCreatesEveryNodeResolvesWithItsSecretsSealed) {
  Node n1 = Open("n1"), n2 = Open("n2");
  ASSERT_TRUE(n1.volumes->CreateConnection(Connection("s3c", "http://127.0.0.1:9000"), 1000).ok());
  ASSERT_TRUE(n1.volumes->CreateVolume(Volume("landing", "S3C"), 2000).ok());

  // n2 resolves it at once (a name its copy does not know brings the copy in step).
  auto resolved = n2.volumes->Resolve("LANDING");
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  EXPECT_EQ(resolved->info.connection, "s3c");
  ASSERT_TRUE(resolved->credentials.has_value());
  EXPECT_EQ(resolved->credentials->access_id, kAccessId);
  EXPECT_EQ(resolved->credentials->access_key, kAccessKey);
  auto listed = n2.volumes->ListConnections();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].endpoint, "http://127.0.0.1:9000");

  const std::string dump = Psql("SELECT * FROM sluice_storage_connections") + Psql("SELECT * FROM sluice_volumes");
  EXPECT_NE(dump.find("s3c"), std::string::npos) << dump;
  EXPECT_EQ(dump.find(kAccessKey), std::string::npos) << "the access key in clear in PostgreSQL: " << dump;
  EXPECT_EQ(dump.find(kAccessId), std::string::npos) << "the access id in clear in PostgreSQL: " << dump;

  // Names are the cluster's: taken on every node, case-insensitively.
  EXPECT_EQ(n2.volumes->CreateConnection(Connection("S3C", "http://127.0.0.1:1"), 3000).code(),
            StatusCode::kAlreadyExists);
  auto again = Connection("S3C", "http://127.0.0.1:1");
  again.if_not_exists = true;
  EXPECT_TRUE(n2.volumes->CreateConnection(again, 3000).ok());

  // A connection a volume uses cannot be dropped, from either node; once the volume is gone (dropped on n2) it can.
  Status refused = n2.volumes->DropConnection("s3c", false);
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("is used by volume(s) landing"), std::string::npos) << refused.message();
  ASSERT_TRUE(n2.volumes->DropVolume("landing", false).ok());
  EXPECT_EQ(n1.volumes->Resolve("landing").status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(n1.volumes->DropConnection("s3c", false).ok());
  EXPECT_EQ(n2.volumes->DropConnection("s3c", false).code(), StatusCode::kNotFound);
  EXPECT_TRUE(n2.volumes->DropConnection("s3c", true).ok());
  auto none = n2.volumes->ListConnections();
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(VolumeStoreClusterTest, TheFirstJoinPublishesTheNodesOwnAndTheClustersWinsAClash) {
  Node n1 = Open("n1");
  ASSERT_TRUE(n1.volumes->CreateConnection(Connection("shared", "http://127.0.0.1:1111"), 1000).ok());
  // n2 had connections of its own before it joined: one of a name the cluster has, one it does not.
  Node n2 = Open("n2", /*attach=*/false);
  ASSERT_TRUE(n2.volumes->CreateConnection(Connection("shared", "http://127.0.0.1:2222"), 1000).ok());
  ASSERT_TRUE(n2.volumes->CreateConnection(Connection("mine", "http://127.0.0.1:3333"), 1000).ok());
  ASSERT_TRUE(n2.volumes->CreateVolume(Volume("mine_vol", "mine"), 1000).ok());
  Attach(n2);

  auto on_n1 = n1.volumes->Resolve("mine_vol");
  ASSERT_TRUE(on_n1.ok()) << on_n1.status().ToString();
  EXPECT_EQ(on_n1->credentials->endpoint, "http://127.0.0.1:3333") << "n2's own were published";
  auto listed = n2.volumes->ListConnections();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  for (const auto& c : *listed)
    if (c.name == "shared") { EXPECT_EQ(c.endpoint, "http://127.0.0.1:1111") << "the cluster's definition wins"; }
}

TEST_F(VolumeStoreClusterTest, WhilePostgresIsAwayChangesAreRefusedAndReadsGoOn) {
  Node n1 = Open("n1");
  ASSERT_TRUE(n1.volumes->CreateConnection(Connection("s3c", "http://127.0.0.1:9000"), 1000).ok());
  ASSERT_TRUE(n1.volumes->CreateVolume(Volume("landing", "s3c"), 1000).ok());
  ASSERT_TRUE(pg_.Stop());
  Status st = n1.volumes->CreateVolume(Volume("other", "s3c"), 2000);
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_NE(st.message().find("volumes are shared by the cluster's nodes and cannot change while PostgreSQL"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("nothing changed"), std::string::npos) << st.message();
  EXPECT_EQ(st.message().find(kAccessKey), std::string::npos);
  EXPECT_EQ(n1.volumes->DropVolume("landing", false).code(), StatusCode::kUnavailable);
  auto resolved = n1.volumes->Resolve("landing");
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  EXPECT_EQ(resolved->credentials->access_key, kAccessKey);
  ASSERT_TRUE(pg_.Start());
}

}  // namespace
}  // namespace sluice::catalog
