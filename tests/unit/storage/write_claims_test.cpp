#include "storage/write_claims.h"

#include <gtest/gtest.h>

namespace sluice::storage {
namespace {

using Mode = WriteGate::Mode;
using Claims = std::vector<WriteGate::Claim>;

Claims For(std::string_view sql) { return WriteClaims().For(sql); }

TEST(WriteClaimsTest, ReadsWhatAStatementUpdatesAndAppends) {
  EXPECT_EQ(For("SELECT * FROM t"), Claims{});
  EXPECT_EQ(For("DELETE FROM t WHERE x = 1"), Claims{});
  EXPECT_EQ(For("UPDATE __sluice.routine_load_progress SET next_offset = 5 WHERE job_id = 1"),
            (Claims{{"routine_load_progress", Mode::kUpdate}}));
  EXPECT_EQ(For("update \"Db\".\"My Table\" AS x SET a = 1"), (Claims{{"my table", Mode::kUpdate}}));
  EXPECT_EQ(For("INSERT INTO main.t SELECT * FROM sluice_batch(3)"), (Claims{{"t", Mode::kAppend}}));
  EXPECT_EQ(For("insert into `T` (a) values (1)"), (Claims{{"t", Mode::kAppend}}));
  EXPECT_EQ(For("INSERT OR REPLACE INTO s.kv VALUES (1, 'a')"), (Claims{{"kv", Mode::kExclusive}}));
  EXPECT_EQ(For("INSERT OR IGNORE INTO kv VALUES (1, 'a')"), (Claims{{"kv", Mode::kAppend}}));
  EXPECT_EQ(For("INSERT INTO kv VALUES (1) ON CONFLICT (k) DO UPDATE SET v = excluded.v"),
            (Claims{{"kv", Mode::kExclusive}}));
  EXPECT_EQ(For("INSERT INTO kv VALUES (1) ON CONFLICT DO NOTHING"), (Claims{{"kv", Mode::kAppend}}));
  EXPECT_EQ(For("MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v"),
            (Claims{{"t", Mode::kExclusive}}));
  EXPECT_EQ(For("COPY t FROM '/scratch/x.csv'"), (Claims{{"t", Mode::kAppend}}));
  EXPECT_EQ(For("COPY (SELECT 1) TO '/scratch/x.csv'"), Claims{});
  EXPECT_EQ(For("COPY t TO '/scratch/x.csv'"), Claims{});
  EXPECT_EQ(For("EXPLAIN ANALYZE UPDATE t SET a = 1"), (Claims{{"t", Mode::kUpdate}}));
  EXPECT_EQ(For("EXPLAIN UPDATE t SET a = 1"), Claims{});
}

TEST(WriteClaimsTest, AStatementAfterCtesClaimsItsTable) {
  EXPECT_EQ(For("WITH x AS (SELECT 1) UPDATE t SET a = 1 FROM x"), (Claims{{"t", Mode::kUpdate}}));
  EXPECT_EQ(For("WITH x(a) AS (SELECT * FROM (VALUES ($1::BIGINT)) AS v(a)), y AS NOT MATERIALIZED (SELECT 2) "
                "UPDATE __sluice.routine_load_progress SET next_offset = x.a FROM x, y"),
            (Claims{{"routine_load_progress", Mode::kUpdate}}));
  EXPECT_EQ(For("WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x"), (Claims{{"t", Mode::kAppend}}));
  EXPECT_EQ(For("WITH x AS (SELECT 1) SELECT * FROM x"), Claims{});
  EXPECT_EQ(For("WITH x AS (SELECT 1) DELETE FROM t USING x"), Claims{});
}

TEST(WriteClaimsTest, AStatementItCannotFollowClaimsEveryTable) {
  EXPECT_EQ(For("WITH x AS (UPDATE u SET a = 1 RETURNING a) UPDATE t SET a = 1 FROM x"),
            (Claims{{"*", Mode::kUpdate}}));
  EXPECT_EQ(For("WITH x AS (INSERT INTO u VALUES (1) RETURNING a) SELECT * FROM x"), (Claims{{"*", Mode::kAppend}}));
  EXPECT_EQ(For("UPDATE (SELECT 1) SET a = 1"), (Claims{{"*", Mode::kUpdate}}));
}

TEST(WriteClaimsTest, StringsAndCommentsNameNoTables) {
  EXPECT_EQ(For("SELECT 'UPDATE t SET a = 1; INSERT INTO u VALUES (1)' -- UPDATE v\n /* INSERT INTO w */"), Claims{});
  EXPECT_EQ(For("INSERT INTO t VALUES ('it''s; UPDATE x SET y = 1')"), (Claims{{"t", Mode::kAppend}}));
}

TEST(WriteClaimsTest, AppendsInsideATransactionWaitForTheCommit) {
  WriteClaims c;
  EXPECT_EQ(c.For("BEGIN TRANSACTION"), Claims{});
  EXPECT_TRUE(c.in_transaction());
  EXPECT_EQ(c.For("INSERT INTO t SELECT * FROM sluice_batch(1)"), Claims{});
  EXPECT_EQ(c.For("UPDATE __sluice.routine_load_progress SET next_offset = 2"),
            (Claims{{"routine_load_progress", Mode::kUpdate}}));
  EXPECT_EQ(c.For("INSERT INTO __sluice.load_history VALUES (1)"), Claims{});
  EXPECT_EQ(c.For("COMMIT"), (Claims{{"load_history", Mode::kAppend}, {"t", Mode::kAppend}}));
  EXPECT_FALSE(c.in_transaction());
  EXPECT_EQ(c.For("INSERT INTO t VALUES (1)"), (Claims{{"t", Mode::kAppend}}));

  EXPECT_EQ(c.For("BEGIN"), Claims{});
  EXPECT_EQ(c.For("INSERT INTO t VALUES (1)"), Claims{});
  EXPECT_EQ(c.For("ROLLBACK"), Claims{});
  EXPECT_EQ(c.For("COMMIT"), Claims{});
}

TEST(WriteClaimsTest, SeveralStatementsInOneTextAreFollowedInOrder) {
  WriteClaims c;
  EXPECT_EQ(c.For("BEGIN; INSERT INTO t VALUES (1); UPDATE u SET a = 1; COMMIT;"),
            (Claims{{"t", Mode::kAppend}, {"u", Mode::kUpdate}}));
  EXPECT_FALSE(c.in_transaction());
  EXPECT_EQ(c.For("INSERT INTO t VALUES (1); UPDATE t SET a = 2"), (Claims{{"t", Mode::kExclusive}}));
  EXPECT_EQ(c.For("BEGIN; INSERT INTO t VALUES (1)"), Claims{});
  EXPECT_TRUE(c.in_transaction());
  EXPECT_EQ(c.For("END"), (Claims{{"t", Mode::kAppend}}));
}

// Prepared statements are prepared again after the catalog may have changed (Connection::QueryPrepared): after DDL
// in autocommit, and at the end of a transaction that ran DDL; never after reads and writes of rows.
TEST(WriteClaimsTest, SaysWhenTheCatalogMayHaveChanged) {
  WriteClaims claims;
  auto changed = [&](std::string_view sql) {
    (void)claims.For(sql);
    return claims.changed_catalog();
  };
  EXPECT_FALSE(changed("SELECT 1"));
  EXPECT_FALSE(changed("INSERT INTO t SELECT * FROM sluice_batch(3)"));
  EXPECT_FALSE(changed("UPDATE t SET a = 1"));
  EXPECT_TRUE(changed("ALTER TABLE t ADD COLUMN c INT"));
  EXPECT_FALSE(changed("DELETE FROM t"));
  EXPECT_TRUE(changed("create table x (a int)"));
  EXPECT_TRUE(changed("SELECT 1; DROP TABLE x"));
  EXPECT_FALSE(changed("BEGIN TRANSACTION"));
  EXPECT_TRUE(changed("CREATE TABLE y (a int)"));
  EXPECT_FALSE(changed("INSERT INTO y VALUES (1)"));
  EXPECT_TRUE(changed("COMMIT"));
  EXPECT_FALSE(changed("BEGIN"));
  EXPECT_FALSE(changed("INSERT INTO y VALUES (1)"));
  EXPECT_FALSE(changed("ROLLBACK"));
}

}  // namespace
}  // namespace sluice::storage
