// ClusterDefinitionStore::Update (ALTER VCLUSTER on a cluster) against a real PostgreSQL 15: the properties named
// change, the others stay (a sealed one still sealed, and still readable), the name and creation time stay, the
// change counter moves (so every node's mirror learns it), and a name the cluster does not have is reported.
#include "catalog/cluster_definition_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "../cluster/test_postgres.h"
#include "pg_rows.h"

namespace sluice::catalog {
namespace {

constexpr const char* kSecret = "update-test-secret-do-not-show";

bool SealedKey(const std::string& key) { return key == "secret"; }

class ClusterDefinitionStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(pg_.ok()) << pg_.error();
    dir_ = std::filesystem::temp_directory_path() / ("sluice-cluster-definitions-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    auto store = ClusterDefinitionStore::Open(
        ClusterDefinitionKind{"sluice_test_things", "sluice_test_thing_state", "7305873260815999", "thing", "things",
                              SealedKey},
        pg_.uri(), (dir_ / "cluster.key").string());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Psql(const std::string& sql) { return testing::PgRows(pg_.uri(), sql); }

  cluster::testing::TestPostgres pg_;
  std::filesystem::path dir_;
  std::unique_ptr<ClusterDefinitionStore> store_;
};

TEST_F(ClusterDefinitionStoreTest, UpdateChangesTheNamedPropertiesOnly) {
  auto inserted = store_->Insert(SharedDefinition{"Etl", "vcluster", "", 1234, {{"size", "2"}, {"secret", kSecret}}});
  ASSERT_TRUE(inserted.ok() && *inserted);
  auto before = store_->Version();
  ASSERT_TRUE(before.ok());

  auto updated = store_->Update("ETL", {{"size", "5"}, {"nodes", "[\"n1\"]"}});
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_TRUE(*updated);
  auto after = store_->Version();
  ASSERT_TRUE(after.ok());
  EXPECT_GT(*after, *before) << "the change counter moves, so every node's copy learns the change";

  auto all = store_->List();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->items.size(), 1u);
  const SharedDefinition& d = all->items[0];
  EXPECT_EQ(d.name, "Etl");
  EXPECT_EQ(d.created_ms, 1234);
  EXPECT_EQ(d.Property("size"), "5");
  EXPECT_EQ(d.Property("nodes"), "[\"n1\"]");
  EXPECT_EQ(d.Property("secret"), kSecret);
  const std::string dump = Psql("SELECT * FROM sluice_test_things");
  EXPECT_EQ(dump.find(kSecret), std::string::npos) << "the secret in clear in PostgreSQL: " << dump;

  // One that does not exist: false, nothing changed.
  auto missing = store_->Update("gone", {{"size", "1"}});
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(*missing);
  auto still = store_->Version();
  ASSERT_TRUE(still.ok());
  EXPECT_EQ(*still, *after);
}

}  // namespace
}  // namespace sluice::catalog
