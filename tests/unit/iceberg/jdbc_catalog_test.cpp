// The JDBC catalog's compare-and-swap against a real PostgreSQL 15 (tests/unit/cluster/test_postgres.h), through
// the outages a cluster rides out: a swap whose answer was lost with the connection is a commit, not a conflict
// (calling it a conflict would make the writer delete the metadata the table now points to), and a PostgreSQL
// that is down answers Unavailable saying so, then the catalog reconnects by itself.
#include "iceberg/jdbc_catalog.h"

#include <gtest/gtest.h>

#include "../cluster/test_postgres.h"

namespace sluice::iceberg {
namespace {

class JdbcCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(pg_.ok()) << pg_.error();
    auto catalog = JdbcCatalog::Connect(pg_.uri(), "lake");
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(*catalog);
    ASSERT_TRUE(catalog_->CreateNamespace({"db"}).ok());
    ASSERT_TRUE(catalog_->CreateTable(table_, "s3://lake/db/t/metadata/00000-a.metadata.json").ok());
  }

  cluster::testing::TestPostgres pg_;
  std::unique_ptr<JdbcCatalog> catalog_;
  TableIdent table_{{"db"}, "t"};
  const std::string m0_ = "s3://lake/db/t/metadata/00000-a.metadata.json";
  const std::string m1_ = "s3://lake/db/t/metadata/00001-b.metadata.json";
  const std::string m2_ = "s3://lake/db/t/metadata/00001-c.metadata.json";
};

TEST_F(JdbcCatalogTest, ASwapThatAlreadyLandedIsACommitAndAnyOtherIsAConflict) {
  auto first = catalog_->CommitTable(table_, m0_, m1_);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*first, CommitOutcome::kCommitted);
  // The same swap again -- what the catalog's retry after a lost answer does: the table points at our metadata.
  auto again = catalog_->CommitTable(table_, m0_, m1_);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, CommitOutcome::kCommitted);
  // Another writer's swap from the same base lost the race.
  auto other = catalog_->CommitTable(table_, m0_, m2_);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_EQ(*other, CommitOutcome::kConflict);
  auto current = catalog_->LoadTable(table_);
  ASSERT_TRUE(current.ok());
  EXPECT_EQ(*current, m1_);
}

TEST_F(JdbcCatalogTest, APostgresThatIsDownIsUnavailableAndTheCatalogReconnects) {
  ASSERT_TRUE(pg_.Stop());
  auto down = catalog_->CommitTable(table_, m0_, m1_);
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.status().code(), StatusCode::kUnavailable) << down.status().ToString();
  EXPECT_NE(down.status().message().find("cannot be reached"), std::string::npos) << down.status().message();
  EXPECT_EQ(down.status().message().find("no connection to the server"), std::string::npos) << down.status().message();
  ASSERT_TRUE(pg_.Start());
  auto up = catalog_->CommitTable(table_, m0_, m1_);
  ASSERT_TRUE(up.ok()) << up.status().ToString();
  EXPECT_EQ(*up, CommitOutcome::kCommitted);
  auto current = catalog_->LoadTable(table_);
  ASSERT_TRUE(current.ok()) << current.status().ToString();
  EXPECT_EQ(*current, m1_);
}

}  // namespace
}  // namespace sluice::iceberg
