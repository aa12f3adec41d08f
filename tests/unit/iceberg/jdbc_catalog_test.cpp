// The JDBC catalog's compare-and-swap against a real PostgreSQL 15 (tests/unit/cluster/test_postgres.h), through
// the outages a cluster rides out: a swap whose answer was lost with the connection is a commit, not a conflict
// (calling it a conflict would make the writer delete the metadata the table now points to), and a PostgreSQL
// that is down answers Unavailable saying so, then the catalog reconnects by itself.
#include "iceberg/jdbc_catalog.h"

#include <gtest/gtest.h>

#include <chrono>

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

// A PostgreSQL that hangs (SIGSTOP: the kernel still acknowledges, nothing answers) is "cannot be reached" within
// the catalog's answer deadline plus a reconnect's connect_timeout, instead of holding the commit for minutes; once
// it answers, the same swap is resolved as a lost answer is: committed, whether or not the first attempt landed.
TEST_F(JdbcCatalogTest, AHungPostgresIsUnavailableWithinABoundAndTheSwapIsResolvedAfterwards) {
  ASSERT_TRUE(pg_.Freeze());
  auto began = std::chrono::steady_clock::now();
  auto hung = catalog_->CommitTable(table_, m0_, m1_);
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  ASSERT_FALSE(hung.ok());
  EXPECT_EQ(hung.status().code(), StatusCode::kUnavailable) << hung.status().ToString();
  EXPECT_NE(hung.status().message().find("cannot be reached"), std::string::npos) << hung.status().message();
  EXPECT_LT(waited, 6 + 5 + 2.0) << "the answer deadline (6 s) and one reconnect (connect_timeout 5 s)";
  began = std::chrono::steady_clock::now();
  EXPECT_EQ(catalog_->LoadTable(table_).status().code(), StatusCode::kUnavailable);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count(), 7.0);
  ASSERT_TRUE(pg_.Thaw());
  auto resolved = catalog_->CommitTable(table_, m0_, m1_);
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  EXPECT_EQ(*resolved, CommitOutcome::kCommitted);
  auto current = catalog_->LoadTable(table_);
  ASSERT_TRUE(current.ok()) << current.status().ToString();
  EXPECT_EQ(*current, m1_);
}

}  // namespace
}  // namespace sluice::iceberg
