// Guards inside the JDBC catalog's compare-and-swap (common/commit_guard.h), against a real PostgreSQL 15: the swap
// lands only while every guard returns a row, a guard that fails refuses it with its reason (not a conflict), and
// the witness tells the database the catalog swaps in from another one. The cluster's lease guards are this with
// sluice_leases (tests/e2e/test_cluster_jobs.py runs them between nodes).
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include "../cluster/test_postgres.h"
#include "iceberg/jdbc_catalog.h"

namespace sluice::iceberg {
namespace {

class JdbcCatalogGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(pg_.ok()) << pg_.error();
    auto catalog = JdbcCatalog::Connect(pg_.uri(), "lake");
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(*catalog);
    ASSERT_TRUE(catalog_->CreateNamespace({"db"}).ok());
    ASSERT_TRUE(catalog_->CreateTable(table_, m0_).ok());
    Sql("CREATE TABLE test_leases (resource TEXT PRIMARY KEY, epoch BIGINT NOT NULL)");
    Sql("INSERT INTO test_leases VALUES ('job:1:partition:0', 1), ('job:1:partition:1', 1)");
  }
  void Sql(const std::string& sql) {
    PGconn* c = PQconnectdb(pg_.uri().c_str());
    ASSERT_EQ(PQstatus(c), CONNECTION_OK) << PQerrorMessage(c);
    PGresult* r = PQexec(c, sql.c_str());
    EXPECT_TRUE(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK)
        << PQresultErrorMessage(r);
    PQclear(r);
    PQfinish(c);
  }
  static CommitGuard Lease(int partition, int64_t epoch) {
    CommitGuard g;
    g.sql = "SELECT 1 FROM test_leases WHERE resource = $1 AND epoch = $2::bigint FOR SHARE";
    g.params = {"job:1:partition:" + std::to_string(partition), std::to_string(epoch)};
    g.refused = "partition " + std::to_string(partition) + " was taken over";
    return g;
  }

  cluster::testing::TestPostgres pg_;
  std::unique_ptr<JdbcCatalog> catalog_;
  TableIdent table_{{"db"}, "t"};
  const std::string m0_ = "s3://lake/db/t/metadata/00000-a.metadata.json";
  const std::string m1_ = "s3://lake/db/t/metadata/00001-b.metadata.json";
  const std::string m2_ = "s3://lake/db/t/metadata/00002-c.metadata.json";
  const std::string m3_ = "s3://lake/db/t/metadata/00002-d.metadata.json";
};

TEST_F(JdbcCatalogGuardTest, TheSwapLandsOnlyWhileEveryGuardHolds) {
  auto first = catalog_->CommitTableGuarded(table_, m0_, m1_, {Lease(0, 1), Lease(1, 1)});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->outcome, CommitOutcome::kCommitted);
  // Partition 1 taken over (its epoch moved on): the next swap is refused, with that guard's reason.
  Sql("UPDATE test_leases SET epoch = 2 WHERE resource = 'job:1:partition:1'");
  auto refused = catalog_->CommitTableGuarded(table_, m1_, m2_, {Lease(0, 1), Lease(1, 1)});
  ASSERT_TRUE(refused.ok()) << refused.status().ToString();
  EXPECT_EQ(refused->outcome, CommitOutcome::kRefused);
  EXPECT_EQ(refused->refused, "partition 1 was taken over");
  EXPECT_EQ(*catalog_->LoadTable(table_), m1_) << "nothing was swapped";
  // A stale base with guards that hold is a conflict, as without guards.
  auto stale = catalog_->CommitTableGuarded(table_, m0_, m3_, {Lease(0, 1), Lease(1, 2)});
  ASSERT_TRUE(stale.ok()) << stale.status().ToString();
  EXPECT_EQ(stale->outcome, CommitOutcome::kConflict);
  // The same swap again after its answer was lost: the table points at it, so it is a commit.
  auto landed = catalog_->CommitTableGuarded(table_, m1_, m2_, {Lease(0, 1), Lease(1, 2)});
  ASSERT_TRUE(landed.ok()) << landed.status().ToString();
  EXPECT_EQ(landed->outcome, CommitOutcome::kCommitted);
  auto again = catalog_->CommitTableGuarded(table_, m1_, m2_, {Lease(0, 1), Lease(1, 1)});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->outcome, CommitOutcome::kCommitted);
  EXPECT_EQ(*catalog_->LoadTable(table_), m2_);
}

TEST_F(JdbcCatalogGuardTest, TheWitnessTellsTheDatabaseTheCatalogSwapsIn) {
  CommitGuard here{"SELECT 1 FROM test_leases WHERE resource = $1", {"job:1:partition:0"}, ""};
  CommitGuard no_row{"SELECT 1 FROM test_leases WHERE resource = $1", {"job:9:partition:0"}, ""};
  CommitGuard elsewhere{"SELECT 1 FROM no_such_table WHERE x = $1", {"1"}, ""};
  EXPECT_TRUE(*catalog_->RunsGuards(here));
  EXPECT_FALSE(*catalog_->RunsGuards(no_row));
  auto missing = catalog_->RunsGuards(elsewhere);
  ASSERT_TRUE(missing.ok()) << "a table this database lacks is another database, not an error";
  EXPECT_FALSE(*missing);
  // The catalog still answers after the failed witness (nothing was left open on its connection).
  EXPECT_EQ(*catalog_->LoadTable(table_), m0_);
}

}  // namespace
}  // namespace sluice::iceberg
